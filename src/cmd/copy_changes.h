/* copy_changes.h: the changes from a copy's baseline to the workspace
 * now (copy_fetch.h), each checked against DIR as apply would find it,
 * and the review's ID that binds an apply to what a diff showed. diff
 * and apply take the same changes and say the same of each. */
#ifndef SANDBOX_COPY_CHANGES_H
#define SANDBOX_COPY_CHANGES_H

#include <stddef.h>

#include "copy.h"
#include "copy_fetch.h"
#include "err.h"
#include "results.h"

/* Every change, in the order of paths, into *v (to free with
 * copy_changes_free); how many. */
size_t copy_changes_of(const struct copy_ctx *c, struct copy_change **v);
/* Whether the changes fit in what one review holds. */
int copy_changes_fit(const struct copy_change *v, size_t n, struct err *e);
/* The change at path, if any (v is in the order of paths). */
struct copy_change *copy_change_at(struct copy_change *v, size_t n, const char *path);
/* Checks every change against DIR: noop, conflict or refused, and
 * why. A directory that goes, with a refused path in it, is refused too
 * (what is refused stays in it). */
void copy_check_all(const struct copy_ctx *c, struct copy_change *v, size_t n);

/* Each change's hash (its path, kind, and both sides' type, mode, size
 * and SHA-256 or target) into rv, and the ID of them all: what a diff
 * showed, and what apply --expect holds it to. */
void copy_review_of(const struct copy_change *v, size_t n, struct copy_review *rv);
/* The file the last diff's review is kept in, beside the baseline.
 * Caller frees. */
char *copy_review_path(const struct copy_ctx *c);

#endif
