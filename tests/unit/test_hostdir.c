/* test_hostdir.c: the one writer under a host directory (hostdir.h), in
 * a scratch directory, where apply's use of it differs from cp's
 * (test_extract.c has cp's): a walk down that makes its directories
 * 0755 and refuses what climbs, files staged in a directory of their
 * own and renamed from it into another, no mtime kept, a link made
 * under apply's prefix, a mode set on a file already in place, and the
 * staging directory removed. Beside the scratch DIR, "outside" holds a
 * file every link here points to: it must never change. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hostdir.h"
#include "tap.h"
#include "util.h"

static char top[] = "/tmp/test_hostdir.XXXXXX";

static const char *at(const char *rel)
{
	static char path[2][600];
	static int k;
	k ^= 1;
	snprintf(path[k], sizeof(path[k]), "%s/%s", top, rel);
	return path[k];
}

static bool is(const char *rel, mode_t type)
{
	struct stat st;
	return lstat(at(rel), &st) == 0 && (st.st_mode & S_IFMT) == type;
}

static unsigned mode_of(const char *rel)
{
	struct stat st;
	return lstat(at(rel), &st) == 0 ? st.st_mode & 07777 : 010000;
}

/* Whether the file outside DIR is as it was made. */
static bool outside_intact(void)
{
	char buf[16] = "";
	int fd = open(at("outside/keep"), O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	struct stat st;
	return n == 5 && memcmp(buf, "keep\n", 5) == 0 && stat(at("outside/keep"), &st) == 0 &&
	       (st.st_mode & 07777) == 0644 && access(at("outside/new"), F_OK) != 0;
}

static void test_walk(int root)
{
	const char *leaf;
	int fd = hostdir_parent(root, "made/deeper/f", true, 0755, &leaf);
	ok(fd >= 0 && strcmp(leaf, "f") == 0 && mode_of("dir/made") == 0755 &&
	   mode_of("dir/made/deeper") == 0755, "the walk makes apply's directories 0755");
	if (fd >= 0)
		close(fd);
	ok(hostdir_parent(root, "gone/f", false, 0, &leaf) < 0 && errno == ENOENT &&
	   access(at("dir/gone"), F_OK) != 0, "without make, a missing one is ENOENT and stays missing");
	ok(hostdir_parent(root, "out/new", true, 0755, &leaf) < 0 && (errno == ELOOP || errno == ENOTDIR),
	   "a link on the way is refused, never followed");
	ok(hostdir_parent(root, "file/x", true, 0755, &leaf) < 0 && errno == ENOTDIR,
	   "a file on the way is refused");
	static const char *const climbs[] = {"../outside/new", "a/../../outside/new", "./x", "a//x",
					     "/etc/x", "a/..", "a/.", "a/"};
	for (size_t i = 0; i < ARRAY_LEN(climbs); i++) {
		fd = hostdir_parent(root, climbs[i], true, 0755, &leaf);
		int saved = errno;
		ok(fd < 0 && saved == EINVAL, "'%s': refused (%s)", climbs[i], strerror(saved));
	}
	ok(access(at("dir/a"), F_OK) != 0, "not even the directories before what climbs");
	ok(hostdir_open(root, "", 0, false, 0) >= 0, "the empty path is root itself");
}

static void test_stage(int root)
{
	char name[40];
	ok(hostdir_name(name, sizeof(name), ".sandbox-apply-") == 0 && strlen(name) == 31 &&
	   strncmp(name, ".sandbox-apply-", 15) == 0 && strspn(name + 15, "0123456789abcdef") == 16,
	   "a name of our own: the prefix and 16 hex digits (%s)", name);
	char small[20] = "x";
	ok(hostdir_name(small, sizeof(small), ".sandbox-apply-") < 0 && small[0] == '\0',
	   "one that does not fit is refused, the buffer left empty");
	int sfd = hostdir_stage(root, name);
	ok(sfd >= 0, "a staging directory");
	ok(hostdir_stage(root, name) < 0 && errno == EEXIST, "never one already there");
	ok(hostdir_stage(root, "out") < 0 && outside_intact(), "nor a link's place");

	/* apply stages "0", "1", ... with their modes, no mtime. */
	int fd = hostdir_create(sfd, "0");
	ok(fd >= 0 && write_all(fd, "staged\n", 7) == 0, "a staged file");
	struct stat before;
	fstat(fd, &before);
	ok(hostdir_meta(fd, 04750, NULL) == 0 && close(fd) == 0, "its mode, no mtime");
	struct stat st;
	ok(fstatat(sfd, "0", &st, 0) == 0 && (st.st_mode & 07777) == 0750 &&
	   st.st_mtime == before.st_mtime, "the set-id bit dropped, the mtime left as it was");
	ok(hostdir_create(sfd, "0") < 0 && errno == EEXIST, "a staged name is never written twice");
	ok(symlinkat(at("outside/new"), sfd, "1") == 0 && hostdir_create(sfd, "1") < 0 && outside_intact(),
	   "nor through a link in its place");

	/* Put in place from the staging directory, in another directory. */
	const char *leaf;
	int pfd = hostdir_parent(root, "made/deeper/f", false, 0, &leaf);
	ok(pfd >= 0 && hostdir_place(sfd, "0", pfd, leaf) == 0 && is("dir/made/deeper/f", S_IFREG),
	   "placed from the stage into its directory");
	fd = hostdir_create(sfd, "2");
	close(fd);
	ok(hostdir_place(sfd, "2", root, "out") == 0 && is("dir/out", S_IFREG) && outside_intact(),
	   "a link in its place is replaced, its target untouched");
	mkdirat(root, "taken", 0755);
	fd = hostdir_create(sfd, "3");
	close(fd);
	ok(hostdir_place(sfd, "3", root, "taken") < 0 && hostdir_dir_there(errno) && is("dir/taken", S_IFDIR),
	   "a directory in its place stays, and says so");
	if (pfd >= 0)
		close(pfd);
	close(sfd);
	hostdir_remove(root, name);
	ok(faccessat(root, name, F_OK, AT_SYMLINK_NOFOLLOW) != 0 && outside_intact(),
	   "the stage removed, whatever it held, and nothing through its link");
	unlinkat(root, "out", 0);
	symlinkat("../outside", root, "out");
}

static void test_links_dirs_modes(int root)
{
	enum hostdir_step step;
	ok(hostdir_symlink(root, "ln", "../outside", ".sandbox-link-", NULL, &step) == 0 && is("dir/ln", S_IFLNK),
	   "a link, made under apply's prefix and placed");
	ok(hostdir_symlink(root, "ln", "elsewhere", ".sandbox-link-", NULL, &step) == 0,
	   "a link over a link");
	char target[64] = "";
	readlink(at("dir/ln"), target, sizeof(target) - 1);
	ok(strcmp(target, "elsewhere") == 0, "replaced: %s", target);
	ok(hostdir_symlink(root, "taken", "x", ".sandbox-link-", NULL, &step) < 0 && step == HOSTDIR_PLACE &&
	   hostdir_dir_there(errno), "never over a directory: the step and errno say so");
	char cmd[700];
	snprintf(cmd, sizeof(cmd), "find %s/dir -name '.sandbox-link-*' | grep -q .", top);
	ok(system(cmd) != 0, "and its temporary is gone");

	ok(hostdir_mkdir(root, "newdir") == 0 && mode_of("dir/newdir") == 0700,
	   "a directory made 0700, its mode to come");
	ok(hostdir_mkdir(root, "newdir") == 0, "one there already is fine");
	ok(hostdir_mkdir(root, "out") == 0 && hostdir_opendir(root, "out") < 0 &&
	   (errno == ELOOP || errno == ENOTDIR), "a link in its place is not made, and not opened");
	int fd = hostdir_opendir(root, "newdir");
	ok(fd >= 0 && hostdir_meta(fd, 0555, NULL) == 0 && mode_of("dir/newdir") == 0555,
	   "its mode set last");
	if (fd >= 0)
		close(fd);

	ok(hostdir_chmod(root, "file", 0600) == 0 && mode_of("dir/file") == 0600,
	   "a mode change of a file in place");
	ok(hostdir_chmod(root, "out", 0600) < 0 && errno == ELOOP && outside_intact(),
	   "never through a link: its target keeps its mode");
	ok(hostdir_chmod(root, "taken", 0600) < 0 && errno == EISDIR && mode_of("dir/taken") == 0755,
	   "nor on a directory");
}

int main(void)
{
	umask(022);
	if (!mkdtemp(top))
		return 1;
	mkdir(at("outside"), 0755);
	int fd = open(at("outside/keep"), O_WRONLY | O_CREAT, 0644);
	if (fd < 0 || write_all(fd, "keep\n", 5) < 0)
		return 1;
	close(fd);
	mkdir(at("dir"), 0755);
	symlink("../outside", at("dir/out"));
	close(open(at("dir/file"), O_WRONLY | O_CREAT, 0644));
	int root = open(at("dir"), O_RDONLY | O_DIRECTORY);
	test_walk(root);
	test_stage(root);
	test_links_dirs_modes(root);
	close(root);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx %s; rm -rf %s", top, top);
	if (system(cmd) != 0)
		diag("cannot remove %s", top);
	return done_testing();
}
