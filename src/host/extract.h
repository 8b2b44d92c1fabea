/* extract.h: cp's writer: the entries of a tar stream from a workspace
 * under a directory of the host, and nowhere else, whatever the stream
 * says. Each entry's name is checked first (extract_name, extract_map),
 * then written through hostdir.h, as apply's files are: everything is
 * opened relative to the directory's fd, component by component with
 * O_NOFOLLOW, so that no path goes through a symbolic link, '..', or
 * from '/'. A file is written under a temporary name in its directory
 * and renamed over its own when whole: none is ever seen half-written.
 * Modes (the permission bits; set-id and sticky bits are dropped) and
 * mtimes are kept, a directory's after its contents. A hard link may
 * only name a file this run wrote. Devices and FIFOs are skipped and
 * counted. The first entry refused stops it all, named. */
#ifndef SANDBOX_EXTRACT_H
#define SANDBOX_EXTRACT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "err.h"
#include "util.h"

/* Bytes of directory paths whose mode and mtime wait for the end; past
 * them, a directory gets them at once (its mtime then moves as its
 * contents come). */
#define EXTRACT_DIRS_MAX (4 * 1024 * 1024)
/* Bytes of an entry's name, at most (PATH_MAX). */
#define EXTRACT_NAME_MAX 4096
/* Files remembered for hard links to them. */
#define EXTRACT_INODES_MAX (1u << 18)
/* The prefix of a temporary's name, and of cp's staging directory. */
#define EXTRACT_TMP ".sandbox-cp-"

struct extract_ino {
	dev_t dev;
	ino_t ino;
};

struct extract {
	int root;            /* the directory everything goes under (borrowed) */
	/* The stream's first component is top, written as top_as under root
	 * (NULL: root itself); with top NULL, names are taken as they are. */
	const char *top, *top_as;
	bool top_only;       /* one entry, the top itself, not a directory */
	/* The entry being written. */
	int fd, dirfd;       /* a file's temporary, and its directory */
	char tmp[32];
	unsigned mode_pending;  /* its mode and mtime, set when it is whole */
	long long mtime_pending;
	char *leaf;          /* its own name in dirfd */
	struct sbuf shown;   /* its name, for messages */
	bool open;
	/* The last parent directory walked to, and its path under root. */
	struct sbuf cache_path;
	int cache_fd;
	/* Directories whose mode and mtime are set at the end: records of
	 * mode (4 bytes), mtime (8), path length (4) and path. */
	struct sbuf dirs;
	struct extract_ino *inos;
	size_t ninos, inos_cap;
	unsigned entries;
	/* What was done. */
	unsigned long long files, ndirs, links, bytes, skipped;
	char *first_skipped;  /* owned; shown form */
};

void extract_init(struct extract *x, int root, const char *top, const char *top_as);
/* An entry of the stream (tar_sink's entry, with the reader's mode,
 * mtime and link), its data, its end. -1 with e set: refused, or the
 * disk failed; the temporary of a file being written is gone. */
int extract_entry(struct extract *x, const char *name, char type, unsigned mode,
		  long long mtime, const char *link, struct err *e);
int extract_data(struct extract *x, const char *buf, size_t n, struct err *e);
int extract_end(struct extract *x, struct err *e);
/* After the last entry: the directories' modes and mtimes. */
int extract_finish(struct extract *x, struct err *e);
/* Removes a file left half-written (a stream cut short), frees. */
void extract_free(struct extract *x);

/* Pure: the path an entry name stands for, into out: "./" and "."
 * components and repeated or trailing '/' dropped, "" for the top
 * itself. NULL when the name is acceptable, else why not: an empty
 * name, an absolute one, one longer than EXTRACT_NAME_MAX, or one with
 * a ".." component. */
const char *extract_name(const char *name, struct sbuf *out);

/* Pure: maps a clean path (extract_name's) through top and top_as into
 * out; NULL when fine, else why not. */
const char *extract_map(const char *clean, const char *top, const char *top_as, struct sbuf *out);

#endif
