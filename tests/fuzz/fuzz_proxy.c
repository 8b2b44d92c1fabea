/* fuzz_proxy.c: a libFuzzer target for the proxy of network = allow as
 * it takes frames from the relay in the workspace (src/cmd/proxy.c),
 * which may be any program the workspace put there: the input is those
 * frames, fed in pieces. It aborts when any bound the proxy keeps broke
 * after a piece (what waits for the relay under OUT_HARD and a frame's
 * answer, each connection's window, credit and buffers); sanitizers
 * catch the rest. Every request is refused (no pattern), so nothing is
 * resolved and nothing connected to. */
#include <stdint.h>
#include <stdio.h>

#include "fuzz.h"
#include "proxy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *broke = proxy_fuzz_feed(data, size);
	if (broke)
		fprintf(stderr, "%s\n", broke);
	CHECK(broke == NULL);
	return 0;
}
