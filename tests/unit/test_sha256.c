/* test_sha256.c: SHA-256 against the NIST vectors, against itself in
 * every chunking, and against sha256sum(1) on random buffers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sha256.h"
#include "tap.h"
#include "util.h"

static void check_vector(const char *msg, const char *want, const char *title)
{
	char hex[65];
	sha256_buf_hex(msg, strlen(msg), hex);
	is_str(hex, want, "NIST: %s", title);
}

static void test_nist(void)
{
	check_vector("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		     "empty message");
	check_vector("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
		     "\"abc\"");
	check_vector("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
		     "448-bit message");
	check_vector("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
		     "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
		     "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
		     "896-bit message");

	struct sha256 s;
	unsigned char digest[32];
	char hex[65];
	char chunk[1000];
	memset(chunk, 'a', sizeof(chunk));
	sha256_init(&s);
	for (int i = 0; i < 1000; i++)
		sha256_update(&s, chunk, sizeof(chunk));
	sha256_final(&s, digest);
	sha256_hex(digest, hex);
	is_str(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
	       "NIST: one million 'a' in chunks of 1000");

	char *million = xmalloc(1000000);
	memset(million, 'a', 1000000);
	sha256_buf_hex(million, 1000000, hex);
	is_str(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
	       "NIST: one million 'a' at once");
	free(million);
}

static void test_padding_edges(void)
{
	/* Lengths around the 55/56/64-byte padding boundaries, known values. */
	static const struct {
		size_t n;
		const char *hex;
	} cases[] = {
		{55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
		{56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
		{63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
		{64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
		{65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"},
	};
	char buf[65];
	memset(buf, 'a', sizeof(buf));
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		char hex[65];
		sha256_buf_hex(buf, cases[i].n, hex);
		is_str(hex, cases[i].hex, "%zu bytes of 'a' (padding boundary)", cases[i].n);
	}
}

static void test_splits(void)
{
	unsigned char msg[200];
	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (unsigned char)(i * 37 + 11);
	char want[65];
	sha256_buf_hex(msg, sizeof(msg), want);
	int bad = 0;
	for (size_t cut = 0; cut <= sizeof(msg); cut++) {
		struct sha256 s;
		unsigned char digest[32];
		char hex[65];
		sha256_init(&s);
		sha256_update(&s, msg, cut);
		sha256_update(&s, msg + cut, sizeof(msg) - cut);
		sha256_final(&s, digest);
		sha256_hex(digest, hex);
		if (strcmp(hex, want) != 0) {
			diag("split at %zu differs", cut);
			bad++;
		}
	}
	is_int(bad, 0, "every split point of a 200-byte message equals one-shot");

	bad = 0;
	for (size_t step = 1; step <= 70; step++) {
		struct sha256 s;
		unsigned char digest[32];
		char hex[65];
		sha256_init(&s);
		for (size_t at = 0; at < sizeof(msg); at += step)
			sha256_update(&s, msg + at, sizeof(msg) - at < step ? sizeof(msg) - at : step);
		sha256_final(&s, digest);
		sha256_hex(digest, hex);
		if (strcmp(hex, want) != 0) {
			diag("chunks of %zu differ", step);
			bad++;
		}
	}
	is_int(bad, 0, "chunks of 1..70 bytes equal one-shot");

	struct sha256 s;
	unsigned char digest[32];
	char hex[65];
	sha256_init(&s);
	sha256_update(&s, NULL, 0);
	sha256_update(&s, "ab", 2);
	sha256_update(&s, NULL, 0);
	sha256_update(&s, "c", 1);
	sha256_final(&s, digest);
	sha256_hex(digest, hex);
	is_str(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	       "empty updates (NULL, 0) change nothing");
}

/* The digest sha256sum(1) prints for a file. */
static bool sha256sum_of(const char *path, char out[65])
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "sha256sum < '%s'", path);
	FILE *p = popen(cmd, "r");
	if (!p)
		return false;
	bool got = fread(out, 1, 64, p) == 64;
	out[64] = '\0';
	return pclose(p) == 0 && got;
}

static void test_sha256sum(void)
{
	char path[] = "/tmp/test_sha256.XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0) {
		ok(false, "mkstemp");
		return;
	}
	close(fd);
	unsigned long x = 88172645463325252UL;
	int bad = 0, runs = 0;
	static const size_t sizes[] = {0, 1, 55, 56, 63, 64, 65, 119, 120, 127, 128, 1000, 4096, 65537, 1048577};
	unsigned char *buf = xmalloc(1048577);
	for (size_t k = 0; k < ARRAY_LEN(sizes) + 10; k++) {
		size_t n;
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		n = k < ARRAY_LEN(sizes) ? sizes[k] : x % 20000;
		for (size_t i = 0; i < n; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			buf[i] = (unsigned char)x;
		}
		FILE *f = fopen(path, "wb");
		if (!f || fwrite(buf, 1, n, f) != n || fclose(f) != 0) {
			bad++;
			continue;
		}
		char mine[65], theirs[65];
		sha256_buf_hex(buf, n, mine);
		runs++;
		if (!sha256sum_of(path, theirs) || strcmp(mine, theirs) != 0) {
			diag("%zu random bytes: mine %s, sha256sum %s", n, mine, theirs);
			bad++;
		}
	}
	free(buf);
	unlink(path);
	is_int(bad, 0, "%d random buffers (0 B .. 1 MiB) hash as sha256sum does", runs);
}

int main(void)
{
	test_nist();
	test_padding_edges();
	test_splits();
	test_sha256sum();
	return done_testing();
}
