/* netproxy.c: see netproxy.h. */
#define _GNU_SOURCE /* pipe2 */
#include "netproxy.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "history.h"
#include "resident.h"
#include "spawn.h"

char *netproxy_lock_new(const char *id, struct err *e)
{
	char *dir = resident_dir_new(e);
	if (!dir)
		return NULL;
	char *path = xasprintf("%s/net-%.16s.lock", dir, id);
	free(dir);
	return path;
}

/* The lock at path, taken (LOCK_EX, within ms when wait): its fd, or -1
 * (held, or no file). */
static int take_lock(const char *path, long long ms)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -1;
	long long end = now_ms() + ms;
	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if ((errno != EWOULDBLOCK && errno != EINTR) || now_ms() >= end || spawn_stopping()) {
			close(fd);
			return -1;
		}
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	return fd;
}

bool netproxy_holds(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return false;
	bool held = flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
	return held;
}

bool netproxy_lost(const char *id)
{
	struct err ignored = {0};
	char *lock = netproxy_lock_new(id, &ignored);
	struct stat st;
	bool lost = lock && lstat(lock, &st) == 0 && st.st_size > 0 && !netproxy_holds(lock);
	free(lock);
	return lost;
}

static void term_holder(const char *lock)
{
	char buf[64] = "";
	int fd = open(lock, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t k = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	long pid;
	buf[k > 0 ? k : 0] = '\0';
	buf[strcspn(buf, " ")] = '\0';
	if (parse_long(buf, 2, 1L << 30, &pid) && netproxy_holds(lock))
		kill((pid_t)pid, SIGTERM);
}

void netproxy_gone(const char *id, bool removed)
{
	struct err ignored = {0};
	char *lock = netproxy_lock_new(id, &ignored);
	if (!lock)
		return;
	/* It ends when its listener's exec does; an engine that does not end
	 * a stopped container's execs (Docker with gVisor) is helped: the
	 * pid it wrote in its lock, which it holds, gets a TERM. */
	for (int round = 0; round < 2 && netproxy_holds(lock); round++) {
		long long end = now_ms() + PROC_TERM_MS;
		if (round == 1)
			term_holder(lock);
		while (netproxy_holds(lock) && now_ms() < end && !spawn_stopping()) {
			struct timespec ts = {0, 10 * 1000 * 1000};
			nanosleep(&ts, NULL);
		}
	}
	if (removed) {
		char *start = xasprintf("%s.start", lock);
		unlink(lock);
		unlink(start);
		free(start);
	}
	free(lock);
}

int netproxy_running(struct strvec *names, struct err *e)
{
	char *dir = resident_dir_new(e);
	if (!dir)
		return -1;
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (strncmp(de->d_name, "net-", 4) != 0 || n < 9 || strcmp(de->d_name + n - 5, ".lock") != 0)
			continue;
		char *path = xasprintf("%s/%s", dir, de->d_name);
		char buf[200] = "";
		int fd = netproxy_holds(path) ? open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) : -1;
		ssize_t k = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
		if (fd >= 0)
			close(fd);
		free(path);
		if (k <= 0)
			continue;
		buf[k] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		const char *name = strchr(buf, ' ');
		if (name && ws_check_ref(name + 1, NULL) == 0)
			strvec_push(names, name + 1);
	}
	if (d)
		closedir(d);
	free(dir);
	return 0;
}

/* sandbox net serve ENGINE ID NAME TIMEOUT LOCK LOGDIR RESOLVE PATTERNS,
 * in a session of its own, in /, fd 3 the pipe it answers on. */
static int spawn_proxy(struct app *a, const struct ws *ws, const char *lock, const char *logdir,
		       int wfd, struct err *e)
{
	char timeout[32];
	snprintf(timeout, sizeof(timeout), "%g", a->cfg.engine_timeout);
	const char *resolve = getenv("SANDBOX_RESOLVE");
	char *argv[] = {"sandbox", "net", "serve", a->engine, ws->id, ws->name, timeout,
			(char *)lock, (char *)logdir, (char *)(resolve && *resolve ? resolve : "-"),
			ws->allow, NULL};
	int rc = spawn_self_detached(argv, a->envp.v, wfd);
	if (rc != 0)
		return err_set(e, ERR_ENGINE, "cannot start the proxy of %s: %s", ws->name, strerror(rc));
	return 0;
}

/* Its word on rfd, within ms: 0 when ready, -1 with e saying why. */
static int await_ready(const struct ws *ws, int rfd, long long ms, struct err *e)
{
	char buf[600];
	size_t n = 0;
	long long end = now_ms() + ms;
	while (n < sizeof(buf) - 1) {
		long long left = end - now_ms();
		struct pollfd p = {rfd, POLLIN, 0};
		if (left <= 0 || spawn_stopping())
			break;
		int r = poll(&p, 1, (int)(left > 1000 ? 1000 : left));
		if (r < 0 && errno != EINTR)
			break;
		if (r <= 0)
			continue;
		ssize_t k = read(rfd, buf + n, sizeof(buf) - 1 - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
		if (buf[0] == NETPROXY_READY)
			return 0;
		if (memchr(buf, '\n', n))
			break;
	}
	buf[n] = '\0';
	if (n && buf[0] == NETPROXY_FAILED) {
		buf[strcspn(buf, "\n")] = '\0';
		return err_set(e, ERR_WORKSPACE, "the network proxy of %s: %s", ws->name, buf + 1);
	}
	if (spawn_stopping())
		return err_set(e, ERR_INTERRUPTED, "interrupted while the network proxy of %s started",
			       ws->name);
	return err_set(e, ERR_WORKSPACE, "the network proxy of %s did not %s; see 'sandbox doctor'",
		       ws->name, n || now_ms() < end ? "start" : "answer in time (engine_timeout)");
}

int netproxy_start(struct app *a, const struct ws *ws, struct err *e)
{
	if (!ws->allow)
		return 0;
	char *lock = netproxy_lock_new(ws->id, e);
	char *logdir = lock ? history_dir_of_new("net", e) : NULL;
	char *start = lock ? xasprintf("%s.start", lock) : NULL;
	int rc = -1, sfd = -1;
	long long ms = (long long)(a->cfg.engine_timeout * 1000) + 5000;
	if (!logdir)
		goto done;
	/* One command starts it at a time: the next finds it running. */
	if ((sfd = take_lock(start, ms)) < 0) {
		err_set(e, ERR_WORKSPACE, "cannot lock %s", start);
		goto done;
	}
	if (netproxy_holds(lock)) {
		rc = 0;
		goto done;
	}
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		err_set(e, ERR_ENGINE, "cannot make a pipe: %s", strerror(errno));
		goto done;
	}
	if (spawn_verbose)
		fprintf(stderr, "sandbox: starting the network proxy of %s\n", ws->name);
	rc = spawn_proxy(a, ws, lock, logdir, pfd[1], e);
	close(pfd[1]);
	if (rc == 0)
		rc = await_ready(ws, pfd[0], ms, e);
	close(pfd[0]);
done:
	if (sfd >= 0)
		close(sfd);
	free(start);
	free(logdir);
	free(lock);
	return rc;
}
