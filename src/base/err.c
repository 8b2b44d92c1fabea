/* err.c: see err.h. */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>

int err_set(struct err *e, enum err_kind kind, const char *fmt, ...)
{
	if (!e)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	e->kind = kind;
	return -1;
}

const char *err_kind_name(enum err_kind kind)
{
	switch (kind) {
	case ERR_USAGE: return "usage";
	case ERR_CONFIG: return "config";
	case ERR_FAILED: return "failed";
	case ERR_ENGINE: return "engine";
	case ERR_WORKSPACE: return "workspace";
	case ERR_INTERRUPTED: return "interrupted";
	case ERR_NONE: break;
	}
	return "none";
}

int err_exit_status(enum err_kind kind)
{
	switch (kind) {
	case ERR_USAGE:
	case ERR_CONFIG: return 2;
	case ERR_FAILED: return 1;
	case ERR_ENGINE:
	case ERR_WORKSPACE: return 255;
	case ERR_INTERRUPTED: return 130; /* main makes it 128+N */
	case ERR_NONE: break;
	}
	return 0;
}
