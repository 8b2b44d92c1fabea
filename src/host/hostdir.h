/* hostdir.h: the one writer of files under a directory of the host (cp's
 * DEST, apply's DIR), and nowhere else, whatever the workspace's bytes
 * say. extract.c (cp) and cmd_apply.c (apply) write through it.
 *
 * Everything is reached from the directory's fd, one component at a
 * time with O_NOFOLLOW: no path goes through a symbolic link, climbs
 * with "..", or starts at '/'. A file is written under a name of its
 * own (a temporary beside its place, or in a staging directory) and
 * renamed over its place when whole, so none is ever seen half-written;
 * a file or a link in its place is replaced, a directory never. Errors
 * are -1 with errno, for each caller to say in its own words. */
#ifndef SANDBOX_HOSTDIR_H
#define SANDBOX_HOSTDIR_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

/* Opens the directory at the first len bytes of path ("a/b"; empty:
 * root itself) under root, component by component, never following a
 * link; when make, creates missing ones with mode. An owned fd, or -1
 * with errno (ELOOP or ENOTDIR: a link or a file where a directory
 * should be; ENAMETOOLONG: a component over NAME_MAX; EINVAL: an empty,
 * "." or ".." component, so that no path climbs out of root). */
int hostdir_open(int root, const char *path, size_t len, bool make, unsigned mode);
/* The directory that holds rel, opened as hostdir_open does; rel's last
 * component in *leaf, checked as the others are (so that it names an
 * entry of that directory, never "", "." or ".."). */
int hostdir_parent(int root, const char *rel, bool make, unsigned mode, const char **leaf);

/* A name of our own, prefix and 16 random hex digits, into buf (of size
 * at least strlen(prefix) + 17). -1 with buf "" (errno EIO) when
 * /dev/urandom cannot be read. */
int hostdir_name(char *buf, size_t size, const char *prefix);
/* A staging directory at name in dirfd: made 0700 and opened, never a
 * link; nothing left when that fails. */
int hostdir_stage(int dirfd, const char *name);

/* A new file at name in dirfd, open for writing, 0600 until its mode is
 * set: never through a link, never over anything there. */
int hostdir_create(int dirfd, const char *name);
/* A file or a directory's permission bits (set-id and sticky bits
 * dropped) and, when mtime is not NULL, its mtime. */
int hostdir_meta(int fd, unsigned mode, const long long *mtime);
/* Renames from (in fromfd) over leaf in dirfd. A directory at leaf
 * stays: -1 with hostdir_dir_there(errno). */
int hostdir_place(int fromfd, const char *from, int dirfd, const char *leaf);
bool hostdir_dir_there(int errnum);

/* A symbolic link to target at leaf in dirfd: made under a name of
 * prefix's (hostdir_name), its own mtime set where the system can when
 * mtime is not NULL, then placed. -1 with errno and *step saying which
 * part failed; nothing of it left then. */
enum hostdir_step {
	HOSTDIR_NAME,   /* no name: errno EIO */
	HOSTDIR_MAKE,   /* the link could not be made */
	HOSTDIR_PLACE,  /* nor put in place (hostdir_place) */
};
int hostdir_symlink(int dirfd, const char *leaf, const char *target, const char *prefix,
		    const long long *mtime, enum hostdir_step *step);

/* A directory at leaf in dirfd, made 0700 unless something is there:
 * its mode comes last (hostdir_meta), once what goes in it is in. */
int hostdir_mkdir(int dirfd, const char *leaf);
/* The directory at leaf in dirfd, opened; never a link to one (ELOOP
 * or ENOTDIR). */
int hostdir_opendir(int dirfd, const char *leaf);
/* Sets the mode of the regular file at leaf in dirfd; anything else
 * there (a link too) is left, -1 with errno EPERM. */
int hostdir_chmod(int dirfd, const char *leaf, unsigned mode);

/* Moves the tree under the directory from into the directory to: a
 * directory to has already is merged, anything else takes the place of
 * what is there. First it looks for a clash (a directory where a file or
 * a link comes, or the other way round; a link is never followed), so
 * that on one nothing moves; -1 with e set. Both are staged the same
 * way (cp out extracts into a directory of its own beside DEST, so that
 * a stop leaves DEST as it was). */
int hostdir_move(int from, int to, struct err *e);
/* Removes the directory name in dirfd and all under it, following no
 * link. */
void hostdir_remove(int dirfd, const char *name);

#endif
