/* envp.h: the engine's environment, built from nothing out of an
 * allow-list of the caller's variables. Nothing else of the caller's
 * environment reaches the engine CLI, and so the container. */
#ifndef SANDBOX_ENVP_H
#define SANDBOX_ENVP_H

#include <stdbool.h>

#include "util.h"

/* Copies the allowed entries of environ into out, in environ's order.
 * PATH gets a default when the caller has none. */
void envp_build(struct strvec *out, char *const *environ);
/* True if a variable of this name may pass to the engine. */
bool envp_allowed(const char *name, size_t len);
/* Value of name in envp (NAME=value entries), or NULL. */
const char *envp_get(char *const *envp, const char *name);

#endif
