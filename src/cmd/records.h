/* records.h: what is kept on this side, a JSON object a line in a
 * file a workspace (history.h), shown the one way: as a table (a row
 * each) or as the records themselves (--json), all workspaces' or one's,
 * since a time (--since), followed as they grow (--follow). history's
 * calls and net's connections are two views of it. */
#ifndef SANDBOX_RECORDS_H
#define SANDBOX_RECORDS_H

#include <stddef.h>

#include "app.h"
#include "err.h"
#include "jsonr.h"
#include "util.h"

struct records_view {
	const char *what;      /* the directory: history_dir_of_new's WHAT */
	const char *header;    /* the table's first line */
	void (*row)(struct sbuf *out, const struct jv *rec);
	const char *none;      /* said on stderr when nothing was shown */
};
/* Shows v's records (ref's only unless NULL), with a->o.history's
 * since and follow. */
int records_show(struct app *a, const struct records_view *v, const char *ref, struct err *e);
/* A record's time in local time, as the tables show it. */
void records_when(char when[32], const struct jv *rec);
/* s cut to width characters (control ones as '?'), padded to column. */
void records_cell(struct sbuf *out, const char *s, size_t width, size_t column);

#endif
