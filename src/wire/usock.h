/* usock.h: the resident process's door, at the level of the socket: a
 * Unix SOCK_SEQPACKET socket (a message arrives whole or not at all)
 * whose messages are short lines of text with, at most, a few file
 * descriptors (SCM_RIGHTS); the peer's uid; and a process named by a
 * pidfd, which no reuse of its pid can turn into another one. */
#ifndef SANDBOX_USOCK_H
#define SANDBOX_USOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The most descriptors a message carries, and its longest text. */
#define USOCK_MAX_FDS 4
#define USOCK_MAX_MSG 1024

/* Sends msg (n bytes) with nfds descriptors; never raises SIGPIPE. 0, or
 * -1 with errno set. */
int usock_send(int fd, const char *msg, size_t n, const int *fds, int nfds);
/* Receives one message into buf (cap bytes, NUL-terminated: cap - 1 of
 * text) and its descriptors into fds (close-on-exec), *nfds of them.
 * A message that does not fit, or carries more than USOCK_MAX_FDS or
 * anything but descriptors, or descriptors and no text, is refused
 * whole (its descriptors closed):
 * -1 with errno EMSGSIZE. 0 at the end of the stream; else the length. */
ssize_t usock_recv(int fd, char *buf, size_t cap, int fds[USOCK_MAX_FDS], int *nfds,
		   bool nonblock);
/* The uid of the process at the other end, as the kernel says it. */
int usock_peer_uid(int fd, uid_t *uid);
/* Waits until fd is readable, at most ms: true when it is; false at
 * once when a signal came (spawn_stopping). */
bool usock_wait(int fd, int ms);

/* A pidfd for pid (a process of ours, or that we may signal): -1 when
 * the kernel has none (before Linux 5.3) or pid is gone. */
int usock_pidfd_open(pid_t pid);
/* Sends sig to the process the pidfd names; a process already gone is
 * not an error. */
int usock_pidfd_kill(int pidfd, int sig);

#endif
