/* mux.h: the frames of sandbox-relay listen (relay.c says how they go),
 * the one set of numbers that both its ends use: the relay includes it,
 * and so does the user's side (src/wire/relay_bin.h). A frame is a type
 * byte, a connection's id (4 bytes), a length (2), all big endian, then
 * the bytes. Nothing but constants: the relay includes nothing of src/. */
#ifndef SANDBOX_INNER_MUX_H
#define SANDBOX_INNER_MUX_H

#define MUX_HDR 7
#define MUX_DATA_MAX 16384
/* What a side may send a connection before it is acknowledged: the
 * workspace's way in is the wide one (downloads), the way out narrower,
 * since the user's side holds it for every connection at once. */
#define MUX_WINDOW (256 * 1024)
#define MUX_UP_WINDOW (64 * 1024)
/* Connections at once, at each end. */
#define MUX_MAX_CONNS 256

#endif
