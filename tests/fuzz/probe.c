/* probe.c: the smallest libFuzzer target. `make fuzz-check` builds and
 * runs it first, to learn whether the compiler can build fuzzers at all;
 * if not, it skips the fuzzers with a note instead of failing. */
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	(void)data, (void)size;
	return 0;
}
