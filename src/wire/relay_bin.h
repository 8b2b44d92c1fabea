/* relay_bin.h: sandbox-relay (inner/relay.c), the one program of ours
 * that runs inside a workspace, as bytes in this binary (scripts/embed-bin
 * makes build/gen/relay_bin.c from the static build). It is put in the
 * workspace at RELAY_DIR "/sandbox-relay-" RELAY_BIN_ID, so that a
 * workspace keeps one of each build (SCRIPT_RELAY_PUT). */
#ifndef SANDBOX_RELAY_BIN_H
#define SANDBOX_RELAY_BIN_H

#include <stddef.h>

extern const unsigned char relay_bin[], relay_bin_end[];
extern const char RELAY_BIN_ID[];

static inline size_t relay_bin_size(void)
{
	return (size_t)(relay_bin_end - relay_bin);
}

/* Its first byte on stdout once connected, before any of the connection's. */
#define RELAY_READY 'R'
/* sandbox-relay listen's frames: MUX_HDR, MUX_DATA_MAX, the windows
 * and MUX_MAX_CONNS, shared with the relay itself. */
#include "../../inner/mux.h"

/* The CPU it is built for, as uname -m says it: it runs on no other. */
#if defined(__x86_64__)
#define RELAY_ARCH "x86_64"
#elif defined(__aarch64__)
#define RELAY_ARCH "aarch64"
#elif defined(__i386__)
#define RELAY_ARCH "i686"
#else
#define RELAY_ARCH "unknown"
#endif

#endif
