/* test_resident_wire.c: the resident's words (resident_wire.h) and its
 * socket (usock.h). The greeting and the answer to take, made and read
 * back, and refused when anything is off (a reference parser written
 * here decides, over random and mutated messages); descriptors across a
 * SOCK_SEQPACKET pair, and a message too long or with too many of them
 * refused whole, its descriptors closed; the peer's uid. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "resident_wire.h"
#include "tap.h"
#include "usock.h"
#include "util.h"
#include "version.h"

static void test_hello(void)
{
	char buf[USOCK_MAX_MSG];
	int n = resident_hello_format(buf, sizeof(buf), 300);
	ok(n > 0 && (size_t)n < sizeof(buf), "the greeting fits: %s", buf);
	struct resident_hello h;
	ok(resident_hello_parse(buf, &h), "and reads back");
	ok(h.pid == getpid() && h.keep == 300 && h.proto == RESIDENT_PROTO,
	   "with our pid, keep and protocol");
	ok(resident_hello_ours(&h), "as a resident of this very build");
	ok(strncmp(h.build, SANDBOX_VERSION "+", strlen(SANDBOX_VERSION "+")) == 0 &&
		   strlen(h.build) > strlen(SANDBOX_VERSION "+"),
	   "its build is the version and the binary's identity: %s", h.build);
	struct resident_hello o = h;
	o.build[strlen(o.build) - 1] ^= 1;
	ok(!resident_hello_ours(&o), "another build is not ours");
	o = h;
	o.proto = RESIDENT_PROTO + 1;
	ok(!resident_hello_ours(&o), "nor another protocol");
	static const char *const bad[] = {
		"", "sandbox-resident", "sandbox-resident 1 b 12", "sandbox-resident 1 b 12 300 x",
		"sandbox-resident 1 b 0 300", "sandbox-resident 1 b -1 300", "sandbox-resident x b 1 1",
		"sandbox-resident 1  1 1", "sandbox-residenT 1 b 1 1", " sandbox-resident 1 b 1 1",
		"sandbox-resident 1 b 1 1 ", "sandbox-resident 1 b 99999999999999999999 1",
	};
	for (size_t i = 0; i < ARRAY_LEN(bad); i++)
		ok(!resident_hello_parse(bad[i], &h), "greeting refused: '%s'", bad[i]);
}

static void test_lent(void)
{
	struct resident_lent l;
	ok(resident_lent_parse("held 42", 3, &l) && l.pid == 42 && !l.fresh, "held PID");
	ok(resident_lent_parse("new 7 0123456789abcdef", 3, &l) && l.pid == 7 && l.fresh &&
		   strcmp(l.tag, "0123456789abcdef") == 0,
	   "new PID TAG");
	static const char *const bad[] = {
		"held", "held 0", "held -3", "held 4 ", "held 4x", "new 7", "new 7 0123",
		"new 7 0123456789ABCDEF", "new 7 0123456789abcdef0", "new 0 0123456789abcdef",
		"new 7 0123456789abcdef x", "full", "gift 4",
	};
	for (size_t i = 0; i < ARRAY_LEN(bad); i++)
		ok(!resident_lent_parse(bad[i], 3, &l), "answer refused: '%s'", bad[i]);
	ok(!resident_lent_parse("held 42", 2, &l), "held without its three descriptors: refused");
	ok(!resident_lent_parse("held 42", 4, &l), "held with four: refused");
	is_int(resident_word_pid("back 12", "back"), 12, "back PID");
	is_int(resident_word_pid("backs 12", "back"), 0, "another word is not back");
	is_int(resident_word_pid("back 12 3", "back"), 0, "back with more is not back");
}

/* The reference: "held N" with N a positive decimal without a leading
 * zero or sign, or "new N T" with T 16 lowercase hex digits, N < 2^30. */
static bool ref_num(const char *s, size_t n, long *out)
{
	if (n == 0 || n > 10 || s[0] == '0')
		return false;
	long v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return v >= 1 && v <= (1L << 30);
}

static bool ref_lent(const char *s)
{
	long pid;
	const char *sp = strchr(s, ' ');
	if (!sp)
		return false;
	size_t w = (size_t)(sp - s);
	if (w == 4 && strncmp(s, "held", 4) == 0)
		return ref_num(sp + 1, strlen(sp + 1), &pid);
	if (w != 3 || strncmp(s, "new", 3) != 0)
		return false;
	const char *sp2 = strchr(sp + 1, ' ');
	if (!sp2 || !ref_num(sp + 1, (size_t)(sp2 - sp - 1), &pid))
		return false;
	const char *t = sp2 + 1;
	return strlen(t) == 16 && strspn(t, "0123456789abcdef") == 16;
}

static void test_lent_fuzz(void)
{
	static const char alphabet[] = "heldnw 0123456789abcdefx-+";
	static const char *const seeds[] = {"held 42", "new 7 0123456789abcdef", "held 1073741824"};
	srand(24);
	int agree = 0, parsed = 0, total = 20000;
	for (int i = 0; i < total; i++) {
		char s[48];
		if (i % 2) {
			size_t n = (size_t)(rand() % 30);
			for (size_t k = 0; k < n; k++)
				s[k] = alphabet[rand() % (int)(sizeof(alphabet) - 1)];
			s[n] = '\0';
		} else {
			snprintf(s, sizeof(s), "%s", seeds[rand() % 3]);
			size_t n = strlen(s);
			int edits = 1 + rand() % 3;
			for (int k = 0; k < edits && n; k++) {
				size_t at = (size_t)rand() % n;
				if (rand() % 3 == 0) /* a cut */
					s[at] = '\0', n = at;
				else
					s[at] = alphabet[rand() % (int)(sizeof(alphabet) - 1)];
			}
		}
		struct resident_lent l;
		bool got = resident_lent_parse(s, 3, &l), want = ref_lent(s);
		agree += got == want;
		parsed += got;
		if (got != want)
			diag("disagree on '%s': parser %d, reference %d", s, got, want);
	}
	is_int(agree, total, "take's answer: the parser agrees with the reference on %d messages (%d valid)",
	       total, parsed);
}

static int count_open(void)
{
	int n = 0;
	for (int fd = 0; fd < 256; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

static void test_socket(void)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		skip("no SOCK_SEQPACKET here: %s", strerror(errno));
		return;
	}
	int p[2];
	if (pipe(p) < 0)
		return;
	int before = count_open();
	int fds[3] = {p[0], p[1], p[0]};
	ok(usock_send(sv[0], "held 9", 6, fds, 3) == 0, "a message with three descriptors goes");
	char buf[USOCK_MAX_MSG];
	int got[USOCK_MAX_FDS], n = -1;
	ssize_t r = usock_recv(sv[1], buf, sizeof(buf), got, &n, true);
	ok(r == 6 && strcmp(buf, "held 9") == 0 && n == 3, "and comes whole, with three");
	ok(n == 3 && write(got[1], "x", 1) == 1 && read(got[0], buf, 1) == 1 && buf[0] == 'x',
	   "descriptors that work: the pipe's two ends");
	ok(n == 3 && (fcntl(got[0], F_GETFD) & FD_CLOEXEC), "close-on-exec");
	for (int i = 0; i < n; i++)
		close(got[i]);
	is_int(count_open(), before, "none left open but the sender's");

	ok(usock_send(sv[0], buf, USOCK_MAX_MSG + 1, NULL, 0) < 0 && errno == EMSGSIZE,
	   "a message over the limit is not sent");
	char big[USOCK_MAX_MSG];
	memset(big, 'a', sizeof(big));
	ok(usock_send(sv[0], big, sizeof(big), fds, 2) == 0, "one of the limit with two descriptors goes");
	r = usock_recv(sv[1], buf, sizeof(buf), got, &n, true);
	ok(r < 0 && errno == EMSGSIZE && n == 0, "but is refused whole: it does not fit with its NUL");
	is_int(count_open(), before, "and its descriptors are closed");
	r = usock_recv(sv[1], buf, sizeof(buf), got, &n, true);
	ok(r < 0 && errno == EAGAIN, "nothing of it is left to read");

	ok(usock_send(sv[0], "x", 1, fds, USOCK_MAX_FDS + 1) < 0, "more than USOCK_MAX_FDS is not sent");
	uid_t uid = (uid_t)-1;
	ok(usock_peer_uid(sv[1], &uid) == 0 && uid == geteuid(), "the peer's uid is ours");
	close(sv[0]);
	r = usock_recv(sv[1], buf, sizeof(buf), got, &n, true);
	ok(r == 0, "the end of the stream is 0");
	close(sv[1]);
	close(p[0]);
	close(p[1]);
}

static void test_pidfd(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	int fd = usock_pidfd_open(pid);
	if (fd < 0) {
		skip("no pidfd here (Linux 5.3 or later): %s", strerror(errno));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return;
	}
	ok(!usock_wait(fd, 0), "a live process: its pidfd is not readable");
	ok(usock_pidfd_kill(fd, SIGKILL) == 0, "killed through its pidfd");
	ok(usock_wait(fd, 10000), "then its pidfd says it ended");
	int st;
	ok(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "by SIGKILL");
	ok(usock_pidfd_kill(fd, SIGKILL) == 0, "a process gone is no error");
	close(fd);
}

int main(void)
{
	test_hello();
	test_lent();
	test_lent_fuzz();
	test_socket();
	test_pidfd();
	return done_testing();
}
