/* present_common.c: what the presenters of every family share (present.h):
 * a --json object printed, and the ages and line ends of their texts;
 * and the is_error of the tools whose results are never failures. */
#include <stdint.h>

#include "json.h"
#include "present.h"
#include "results.h"

void present_json(FILE *f, const struct jv *t)
{
	struct json j = {0};
	json_jv(&j, t, SIZE_MAX);
	json_print(&j, f);
	sbuf_free(&j.out);
}

void present_age(char *buf, size_t cap, long long s)
{
	if (s < 0)
		s = 0;
	if (s < 120)
		snprintf(buf, cap, "%llds", s);
	else if (s < 7200)
		snprintf(buf, cap, "%lldm", s / 60);
	else if (s < 172800)
		snprintf(buf, cap, "%lldh", s / 3600);
	else
		snprintf(buf, cap, "%lldd", s / 86400);
}

void present_end_line(struct sbuf *out)
{
	if (out->len && out->buf[out->len - 1] != '\n')
		sbuf_addc(out, '\n');
}

bool result_no_error(const void *r)
{
	(void)r;
	return false;
}
