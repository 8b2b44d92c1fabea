/* secret.h: the values of the config's secrets ([secrets], --secret),
 * read from where each one says (config.h: env:VAR or file:PATH) when
 * a command starts, never from a config's own text. A command in the
 * workspace gets them in its environment, off every argument vector
 * (exec.h); every output has them replaced (redact.h). */
#ifndef SANDBOX_SECRET_H
#define SANDBOX_SECRET_H

#include "err.h"
#include "redact.h"
#include "util.h"

/* Reads every secret of specs (NAME=SOURCE) into values (NAME=VALUE,
 * in the same order) and adds each to set. A variable that is not set,
 * a file that is missing, unreadable, not a regular file or too big,
 * and a value under REDACT_MIN_LEN bytes, over REDACT_MAX_LEN, or with a
 * NUL, is an error that names the secret: nothing may start without
 * it. A file's value loses one line ending at its end. */
int secrets_read(const struct strvec *specs, struct strvec *values, struct redact_set *set,
		 struct err *e);

#endif
