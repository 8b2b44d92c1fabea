/* test_capture.c: the output ring of --json and MCP (capture.h): the
 * first max/2 and the last max - max/2 bytes of a stream, exactly, in
 * any chunking, and no memory for a bound the output never reaches. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture.h"
#include "tap.h"
#include "util.h"

/* capture keeps the first max/2 and the last max - max/2 bytes. */
static void check_capture(size_t max, const char *data, size_t n, size_t chunk,
			  const char *title)
{
	struct capture c;
	capture_init(&c, max);
	for (size_t at = 0; at < n; at += chunk)
		capture_add(&c, data + at, n - at < chunk ? n - at : chunk);
	struct sbuf out = {0};
	bool cut = capture_get(&c, &out);
	struct sbuf want = {0};
	sbuf_add(&want, "", 0);
	if (n <= max) {
		sbuf_add(&want, data, n);
	} else {
		sbuf_add(&want, data, max / 2);
		sbuf_add(&want, data + n - (max - max / 2), max - max / 2);
	}
	bool same = out.len == want.len && memcmp(out.buf ? out.buf : "", want.buf, want.len) == 0;
	ok(same && cut == (n > max) && c.total == n,
	   "capture max %zu, %zu bytes in chunks of %zu: %s", max, n, chunk, title);
	if (!same) {
		tap_diag_bytes("kept     got", out.buf ? out.buf : "", out.len);
		tap_diag_bytes("kept expected", want.buf, want.len);
	}
	if (cut != (n > max))
		diag("truncated flag %d, expected %d", cut, n > max);
	sbuf_free(&out);
	sbuf_free(&want);
	capture_free(&c);
}

static void test_capture(void)
{
	const char *abc = "abcdefghijklmnopqrstuvwxyz0123456789";
	check_capture(10, "", 0, 1, "nothing, not truncated");
	check_capture(10, abc, 3, 1, "less than half, all kept");
	check_capture(10, abc, 7, 7, "more than half, all kept");
	check_capture(10, abc, 10, 10, "exactly max, not truncated");
	check_capture(10, abc, 10, 1, "exactly max byte by byte, not truncated");
	check_capture(10, abc, 11, 11, "max + 1: head 5, tail 5, truncated");
	check_capture(10, abc, 11, 1, "max + 1 byte by byte");
	check_capture(10, abc, 36, 36, "one big write");
	check_capture(10, abc, 36, 3, "chunks of 3 wrap the tail ring");
	check_capture(10, abc, 36, 4, "chunks of 4");
	check_capture(7, abc, 36, 5, "odd max: head 3, tail 4");
	check_capture(7, abc, 7, 2, "odd max, exactly max");
	check_capture(1, abc, 1, 1, "max 1: the one byte kept");
	check_capture(1, abc, 5, 1, "max 1: only the last byte");
	check_capture(1, abc, 5, 5, "max 1: one write, only the last byte");
	check_capture(2, abc, 36, 7, "max 2: first and last byte");

	/* A long stream in uneven chunks, against the formula. */
	size_t n = 100000;
	char *big = xmalloc(n);
	for (size_t i = 0; i < n; i++)
		big[i] = (char)(i % 251);
	check_capture(4096, big, n, 1000, "100000 bytes in chunks of 1000");
	check_capture(4096, big, n, 4097, "chunks larger than max");
	check_capture(4095, big, n, 13, "odd max, chunks of 13");
	check_capture(1048576, big, n, 65536, "default max, less than it: all kept");
	int bad = 0;
	unsigned long x = 12345;
	for (int round = 0; round < 200; round++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		size_t max = 1 + (x >> 33) % 64;
		size_t len = (x >> 20) % 300;
		struct capture c;
		capture_init(&c, max);
		size_t at = 0;
		while (at < len) {
			x = x * 6364136223846793005UL + 1442695040888963407UL;
			size_t k = 1 + (x >> 40) % 50;
			if (k > len - at)
				k = len - at;
			capture_add(&c, big + at, k);
			at += k;
		}
		struct sbuf out = {0};
		bool cut = capture_get(&c, &out);
		bool good = cut == (len > max);
		if (len <= max)
			good = good && out.len == len && (len == 0 || memcmp(out.buf, big, len) == 0);
		else
			good = good && out.len == max && memcmp(out.buf, big, max / 2) == 0 &&
			       memcmp(out.buf + max / 2, big + len - (max - max / 2), max - max / 2) == 0;
		if (!good)
			bad++;
		sbuf_free(&out);
		capture_free(&c);
	}
	is_int(bad, 0, "200 random max/length/chunkings keep head and tail exactly");
	free(big);

	/* max_output may be up to 1 TiB (config.c): a capture must not
	 * allocate its bound up front, only what the command writes. Run in a
	 * child, since an allocation failure exits. */
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);
		dup2(devnull, 2);
		struct capture c;
		capture_init(&c, (size_t)1 << 40);
		capture_add(&c, "hi", 2);
		struct sbuf out = {0};
		bool cut = capture_get(&c, &out);
		_exit(!cut && out.len == 2 && memcmp(out.buf, "hi", 2) == 0 ? 0 : 1);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "capture with the largest max_output (1 TiB) keeps 2 bytes without allocating the bound");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		diag("child status %d", status);
}

int main(void)
{
	test_capture();
	return done_testing();
}
