/* envp.c: see envp.h. */
#include "envp.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* What a local command needs (PATH, HOME, locale, TZ), what selects and
 * reaches a Docker or Podman daemon (also over SSH), and what rootless
 * Podman reads to find its storage, runtime dir and user session. */
static const char *const allowed[] = {
	"PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR",
	"DOCKER_HOST", "DOCKER_CONTEXT", "DOCKER_CONFIG", "DOCKER_CERT_PATH",
	"DOCKER_TLS_VERIFY",
	"CONTAINER_HOST", "CONTAINER_CONNECTION", "CONTAINER_SSHKEY",
	"CONTAINERS_CONF", "CONTAINERS_STORAGE_CONF", "CONTAINERS_REGISTRIES_CONF",
	"XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME",
	"DBUS_SESSION_BUS_ADDRESS", "SSH_AUTH_SOCK",
};

bool envp_allowed(const char *name, size_t len)
{
	if (len > 3 && strncmp(name, "LC_", 3) == 0)
		return true;
	for (size_t i = 0; i < ARRAY_LEN(allowed); i++)
		if (strlen(allowed[i]) == len && strncmp(allowed[i], name, len) == 0)
			return true;
	return false;
}

void envp_build(struct strvec *out, char *const *environ)
{
	bool have_path = false;
	for (size_t i = 0; environ && environ[i]; i++) {
		const char *eq = strchr(environ[i], '=');
		if (!eq || !envp_allowed(environ[i], (size_t)(eq - environ[i])))
			continue;
		/* The first of duplicate entries wins, as with getenv(3). */
		char *name = xstrndup(environ[i], (size_t)(eq - environ[i]));
		bool dup = envp_get(strvec_argv(out), name) != NULL;
		free(name);
		if (dup)
			continue;
		if (strncmp(environ[i], "PATH=", 5) == 0) {
			/* An empty PATH, first, means the default, as later PATHs
			 * would be ignored by getenv(3) too. */
			if (have_path)
				continue;
			have_path = true;
			if (!eq[1])
				continue;
		}
		strvec_push(out, environ[i]);
	}
	if (!envp_get(strvec_argv(out), "PATH"))
		strvec_push(out, "PATH=" DEFAULT_PATH);
}

const char *envp_get(char *const *envp, const char *name)
{
	size_t len = strlen(name);
	for (size_t i = 0; envp && envp[i]; i++)
		if (strncmp(envp[i], name, len) == 0 && envp[i][len] == '=')
			return envp[i] + len + 1;
	return NULL;
}
