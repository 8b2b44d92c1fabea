/* usock.c: see usock.h. SCM_RIGHTS, SO_PEERCRED and struct ucred are
 * Linux's, declared by glibc under _GNU_SOURCE. */
#define _GNU_SOURCE
#include "usock.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "spawn.h"
#include "util.h"

int usock_send(int fd, const char *msg, size_t n, const int *fds, int nfds)
{
	if (nfds < 0 || nfds > USOCK_MAX_FDS || n > USOCK_MAX_MSG) {
		errno = EMSGSIZE;
		return -1;
	}
	union {
		char buf[CMSG_SPACE(sizeof(int) * USOCK_MAX_FDS)];
		struct cmsghdr align;
	} ctl;
	memset(&ctl, 0, sizeof(ctl));
	struct iovec iov = {(void *)msg, n};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	if (nfds > 0) {
		mh.msg_control = ctl.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfds);
	}
	ssize_t w;
	do
		w = sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (w < 0 && errno == EINTR);
	if (w < 0)
		return -1;
	if ((size_t)w != n) {
		errno = EMSGSIZE;
		return -1;
	}
	return 0;
}

/* Takes the descriptors out of mh's control data: false when it holds
 * anything else, or too many (all of them closed then). */
static bool take_fds(struct msghdr *mh, int fds[USOCK_MAX_FDS], int *nfds)
{
	bool ok = !(mh->msg_flags & (MSG_CTRUNC | MSG_TRUNC));
	*nfds = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) {
			ok = false;
			continue;
		}
		size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int got;
			memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (*nfds < USOCK_MAX_FDS)
				fds[(*nfds)++] = got;
			else {
				close(got);
				ok = false;
			}
		}
	}
	if (!ok) {
		for (int i = 0; i < *nfds; i++)
			close(fds[i]);
		*nfds = 0;
	}
	return ok;
}

ssize_t usock_recv(int fd, char *buf, size_t cap, int fds[USOCK_MAX_FDS], int *nfds,
		   bool nonblock)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * USOCK_MAX_FDS)];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = {buf, cap - 1};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf)};
	*nfds = 0;
	ssize_t r;
	do
		r = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC | (nonblock ? MSG_DONTWAIT : 0));
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -1;
	if (!take_fds(&mh, fds, nfds) || (r == 0 && *nfds)) {
		for (int i = 0; i < *nfds; i++)
			close(fds[i]);
		*nfds = 0;
		errno = EMSGSIZE;
		return -1;
	}
	buf[r] = '\0';
	return r;
}

int usock_peer_uid(int fd, uid_t *uid)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0)
		return -1;
	if (len != sizeof(cr)) {
		errno = EPROTO;
		return -1;
	}
	*uid = cr.uid;
	return 0;
}

bool usock_wait(int fd, int ms)
{
	long long end = now_ms() + ms;
	while (!spawn_stopping()) {
		long long left = end - now_ms();
		struct pollfd p[2] = {{fd, POLLIN, 0}, {spawn_signal_fd(), POLLIN, 0}};
		int r = poll(p, 2, left < 0 ? 0 : (int)left);
		if (r > 0 && p[0].revents)
			return true;
		if (r > 0)
			spawn_signal_drain();
		else if (r == 0 || errno != EINTR)
			return false;
	}
	return false;
}

int usock_pidfd_open(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

int usock_pidfd_kill(int pidfd, int sig)
{
#ifdef SYS_pidfd_send_signal
	if (syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0) == 0 || errno == ESRCH)
		return 0;
	return -1;
#else
	(void)pidfd, (void)sig;
	errno = ENOSYS;
	return -1;
#endif
}
