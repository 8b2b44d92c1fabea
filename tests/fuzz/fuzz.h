/* fuzz.h: what the fuzz targets share. Header-only (static inline), so
 * each target takes what it uses and builds cleanly under -Werror with
 * gcc (for the replay driver) and clang (for libFuzzer). */
#ifndef SANDBOX_FUZZ_H
#define SANDBOX_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken property is a crash, with the condition and line on stderr. */
#define CHECK(cond)                                                              \
	do {                                                                     \
		if (!(cond)) {                                                   \
			fprintf(stderr, "check failed: %s (line %d)\n", #cond, __LINE__); \
			abort();                                                 \
		}                                                                \
	} while (0)

/* Chunk sizes for feeding a stream in pieces, drawn from a seed that
 * the input itself gives: the same input always splits the same way,
 * so a crash replays. Mostly small pieces (a byte, a few bytes, where
 * boundaries in headers and markers hide), sometimes large, sometimes
 * all that is left. */
struct fuzz_chunks {
	uint32_t x;
};

static inline void fuzz_chunks_init(struct fuzz_chunks *c, const uint8_t seed[4])
{
	c->x = ((uint32_t)seed[0] | (uint32_t)seed[1] << 8 | (uint32_t)seed[2] << 16 |
		(uint32_t)seed[3] << 24) | 1;
}

static inline size_t fuzz_chunk_next(struct fuzz_chunks *c, size_t left)
{
	c->x ^= c->x << 13, c->x ^= c->x >> 17, c->x ^= c->x << 5;
	uint32_t r = c->x >> 3;
	size_t k;
	switch (c->x & 7) {
	case 0:
	case 1:
	case 2:
		k = 1 + r % 8;
		break;
	case 3:
	case 4:
		k = 1 + r % 600;
		break;
	case 5:
		k = 1 + r % 5000;
		break;
	default:
		k = left;
		break;
	}
	return k < left ? k : left;
}

#endif
