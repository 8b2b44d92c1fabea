/* sha256.h: SHA-256 (FIPS 180-4), streaming, for content hashes that
 * must agree with sha256sum(1). Pure: no I/O, no allocation. */
#ifndef SANDBOX_SHA256_H
#define SANDBOX_SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sha256 {
	uint32_t h[8];
	uint64_t total;          /* bytes hashed so far */
	unsigned char block[64]; /* a partial block waiting for more input */
	size_t fill;             /* bytes held in block */
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t n);
/* Writes the digest; s must be initialized again before reuse. */
void sha256_final(struct sha256 *s, unsigned char out[32]);
/* Lowercase hex of a digest, NUL-terminated. */
void sha256_hex(const unsigned char digest[32], char out[65]);
/* The hex digest of one buffer. */
void sha256_buf_hex(const void *data, size_t n, char out[65]);
/* Whether s is a hash as sha256_hex writes it: 64 lowercase hex digits. */
bool sha256_hex_ok(const char *s);

#endif
