/* err.h: the error value lower layers fill and the top reports.
 * Lower layers never print: they set a kind and a one-line message and
 * return -1; main() decides how to show it and which status to exit with. */
#ifndef SANDBOX_ERR_H
#define SANDBOX_ERR_H

enum err_kind {
	ERR_NONE = 0,
	ERR_USAGE,     /* bad option, bad value: exit 2 */
	ERR_CONFIG,    /* bad config file: exit 2 */
	ERR_FAILED,    /* the operation failed: exit 1 */
	ERR_ENGINE,    /* engine missing or unreachable: exit 255 */
	ERR_WORKSPACE, /* workspace gone, refused, stopped: exit 255 */
	ERR_INTERRUPTED, /* SIGINT, SIGTERM or SIGHUP: exit 128+N */
};

struct err {
	enum err_kind kind;
	char msg[1024];
};

/* Sets e (if not NULL) and returns -1, so callers can `return err_set(...)`. */
int err_set(struct err *e, enum err_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *err_kind_name(enum err_kind kind);
int err_exit_status(enum err_kind kind);

#endif
