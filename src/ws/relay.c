/* relay.c: see relay.h. */
#include "relay.h"

#include <stdio.h>
#include <string.h>

#include "feed.h"
#include "relay_bin.h"
#include "scripts.h"
#include "tools.h"

/* A script of ours; with a feed (raw bytes), as an engine exec of its
 * own: a channel carries frames only. */
static int relay_script(struct app *a, struct ws *ws, const char *script, char *const *args,
			size_t nargs,
			struct feed *feed, struct sbuf *head, struct err *e)
{
	char *argv[5] = {"/bin/sh", "-c", (char *)script, "sh"};
	char *full[8];
	size_t n = 0;
	for (; n < 4; n++)
		full[n] = argv[n];
	for (size_t i = 0; i < nargs && n < ARRAY_LEN(full); i++)
		full[n++] = args[i];
	struct tool_out out = {.own_exec = feed != NULL};
	int rc = tool_run(a, ws, PROTO_COMMAND, full, n, feed, false, &out, e);
	if (rc == 0)
		sbuf_adds(head, out.head.buf ? out.head.buf : "");
	tool_out_free(&out);
	return rc;
}

int relay_install(struct app *a, struct ws *ws, char *path, size_t cap, struct err *e)
{
	snprintf(path, cap, "%s/.sandbox-relay-%s", RELAY_DIR, RELAY_BIN_ID);
	char *id = (char *)RELAY_BIN_ID;
	struct sbuf head = {0};
	if (relay_script(a, ws, SCRIPT_RELAY_HAS, &id, 1, NULL, &head, e) < 0)
		return -1;
	const char *h = head.buf ? head.buf : "";
	int rc = 0;
	if ((h[0] != 'K' && h[0] != 'N') || h[1] != ' ') {
		rc = err_set(e, ERR_WORKSPACE, "unexpected answer from the relay's check in the workspace");
	} else if (strcmp(h + 2, RELAY_ARCH) != 0) {
		rc = err_set(e, ERR_FAILED, "workspace %s runs on %.40s; forward's relay is built for "
			     RELAY_ARCH " only", ws->name, h + 2);
	} else if (h[0] == 'N') {
		char size[24];
		snprintf(size, sizeof(size), "%zu", relay_bin_size());
		char *args[] = {id, size};
		struct feed feed;
		feed_init_buf_raw(&feed, (const char *)relay_bin, relay_bin_size());
		sbuf_free(&head);
		head = (struct sbuf){0};
		rc = relay_script(a, ws, SCRIPT_RELAY_PUT, args, 2, &feed, &head, e);
		feed_free(&feed);
		if (rc == 0 && strcmp(head.buf ? head.buf : "", "K") != 0)
			rc = err_set(e, ERR_WORKSPACE, "cannot put the relay in the workspace's " RELAY_DIR
				     ": is it full, or read-only?");
	}
	sbuf_free(&head);
	return rc;
}
