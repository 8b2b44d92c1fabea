/* test_present_life.c: the presenters of the life cycle not in
 * test_present.c: the note of a workspace made on first use, pool
 * (fill, list, drain), snapshot and fork, snapshots; the CLI's text and
 * the --json object, on results made by hand and freed by their own
 * _free (ASan sees what one would leak). The expected text is
 * t50-snapshot.sh's and t53-pool.sh's where they test the same. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "present_check.h"
#include "results.h"
#include "tap.h"
#include "util.h"

#define NOW 1700000000LL
#define SPEC "0123456789abcdef"

/* What created_text, which writes to stderr itself, writes there. */
static char *created_of(const char *ref)
{
	FILE *tmp = tmpfile();
	fflush(stderr);
	int saved = dup(2);
	dup2(fileno(tmp), 2);
	created_text(ref);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	struct sbuf got = {0};
	char buf[512];
	size_t n;
	rewind(tmp);
	while ((n = fread(buf, 1, sizeof(buf), tmp)) > 0)
		sbuf_add(&got, buf, n);
	fclose(tmp);
	return got.buf ? got.buf : xstrdup("");
}

static void test_created(void)
{
	check_text(created_of("sandbox-0123456789ab"),
		   "sandbox: created workspace sandbox-0123456789ab (pass -w sandbox-0123456789ab to reuse it)\n",
		   "a workspace made on first use: named on stderr, with how to reuse it");
}

static void add_pool(struct pool_result *r, const char *spec, const char *image, long ready,
		     long stopped)
{
	r->rows = xrealloc(r->rows, (r->n + 1) * sizeof(*r->rows));
	r->rows[r->n++] = (struct pool_row){xstrdup(spec), xstrdup(image), ready, stopped};
}

static void test_pool(void)
{
	char *buf = NULL;
	struct jv t = {0};
	struct pool_result r = {.action = POOL_FILL, .made = 3};
	add_pool(&r, SPEC, "busybox", 3, 0);
	TEXT_OF(pool_text, &r, buf);
	check_text(buf, SPEC "\n", "pool fill: the spec on stdout");
	is_str(err_text, "sandbox: pool " SPEC ": 3 ready (3 made)\n", "pool fill: ready and made on stderr");
	pool_tree(&t, &r);
	check_tree(&t, "{\"made\":3,\"pools\":[{\"spec\":\"" SPEC "\",\"image\":\"busybox\",\"ready\":3,"
		       "\"stopped\":0}]}\n",
		   "pool fill --json: made, and the pool");
	r.made = 0;
	TEXT_OF(pool_text, &r, buf);
	check_text(buf, SPEC "\n", "pool fill of a full pool: the spec still");
	is_str(err_text, "sandbox: pool " SPEC ": 3 ready (0 made)\n", "pool fill: none made");
	pool_result_free(&r);
	ok(r.rows == NULL && r.n == 0, "pool_result_free: the result is empty after");

	r = (struct pool_result){.action = POOL_FILL};
	TEXT_OF(pool_text, &r, buf);
	check_text(buf, "", "pool fill without a pool: nothing on stdout");
	is_str(err_text, "", "pool fill without a pool: nothing on stderr");
	pool_tree(&t, &r);
	check_tree(&t, "{\"made\":0,\"pools\":[]}\n", "pool fill --json without a pool: an empty list");

	r = (struct pool_result){.action = POOL_LIST};
	add_pool(&r, SPEC, "busybox:latest", 3, 1);
	add_pool(&r, "fedcba9876543210", "debian", 0, 2);
	TEXT_OF(pool_text, &r, buf);
	check_text(buf,
		   "SPEC             READY STOPPED  IMAGE\n"
		   SPEC "     3       1  busybox:latest\n"
		   "fedcba9876543210     0       2  debian\n",
		   "pool list: a table, the counts to the right");
	is_str(err_text, "", "pool list: nothing on stderr");
	pool_tree(&t, &r);
	check_tree(&t, "{\"pools\":[{\"spec\":\"" SPEC "\",\"image\":\"busybox:latest\",\"ready\":3,"
		       "\"stopped\":1},{\"spec\":\"fedcba9876543210\",\"image\":\"debian\",\"ready\":0,"
		       "\"stopped\":2}]}\n",
		   "pool list --json: every pool, no made");
	pool_result_free(&r);
	r = (struct pool_result){.action = POOL_LIST};
	TEXT_OF(pool_text, &r, buf);
	check_text(buf, "SPEC             READY STOPPED  IMAGE\n", "pool list, none: the header alone");
	pool_tree(&t, &r);
	check_tree(&t, "{\"pools\":[]}\n", "pool list --json, none: an empty list");

	r = (struct pool_result){.action = POOL_DRAIN};
	strvec_push(&r.removed.names, "sandbox-pool-" SPEC "-aaaaaaaaaaaa");
	strvec_push(&r.removed.names, "sandbox-pool-" SPEC "-bbbbbbbbbbbb");
	TEXT_OF(pool_text, &r, buf);
	check_text(buf, "removed sandbox-pool-" SPEC "-aaaaaaaaaaaa\nremoved sandbox-pool-" SPEC "-bbbbbbbbbbbb\n",
		   "pool drain: a line for each workspace removed");
	pool_tree(&t, &r);
	check_tree(&t, "{\"removed\":[\"sandbox-pool-" SPEC "-aaaaaaaaaaaa\",\"sandbox-pool-" SPEC
		       "-bbbbbbbbbbbb\"]}\n",
		   "pool drain --json: as destroy's");
	pool_result_free(&r);
	r = (struct pool_result){.action = POOL_DRAIN};
	TEXT_OF(pool_text, &r, buf);
	check_text(buf, "", "pool drain of nothing: nothing said");
	pool_tree(&t, &r);
	check_tree(&t, "{\"removed\":[]}\n", "pool drain --json of nothing: an empty list");
}

#define SNAP "sb-src-20240101-000000-abcd"
#define IMAGE_ID "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void add_mount(struct snapshot_result *r, const char *type, const char *source, const char *dest)
{
	r->mounts = xrealloc(r->mounts, (r->nmounts + 1) * sizeof(*r->mounts));
	r->mounts[r->nmounts++] = (struct snap_mount){xstrdup(type), xstrdup(source), xstrdup(dest)};
}

static void snap_fill(struct snapshot_result *r, const char *cmd)
{
	*r = (struct snapshot_result){.cmd = cmd, .source = xstrdup("sb-src"), .name = xstrdup(SNAP),
				      .image = xstrdup("sandbox-snapshot:" SNAP),
				      .image_id = xstrdup(IMAGE_ID)};
}

static void test_snapshot(void)
{
	char *buf = NULL;
	struct jv t = {0};
	struct snapshot_result r;
	snap_fill(&r, "snapshot");
	add_mount(&r, "bind", "/tmp/trash/mnt", "/mnt");
	TEXT_OF(snapshot_text, &r, buf);
	check_text(buf, SNAP "\n", "snapshot: its name on stdout");
	is_str(err_text, "sandbox: snapshot: not in the snapshot: the bind mount /tmp/trash/mnt at /mnt "
			 "(its files are not in the image)\n",
	       "snapshot: a mount left out is said on stderr");
	snapshot_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-src\",\"snapshot\":\"" SNAP "\",\"image\":\"sandbox-snapshot:" SNAP
		       "\",\"image_id\":\"" IMAGE_ID "\",\"not_in_snapshot\":[{\"type\":\"bind\","
		       "\"source\":\"/tmp/trash/mnt\",\"destination\":\"/mnt\"}]}\n",
		   "snapshot --json: the workspace snapshotted, the image, the mounts left out");
	snapshot_result_free(&r);

	snap_fill(&r, "snapshot");
	TEXT_OF(snapshot_text, &r, buf);
	check_text(buf, SNAP "\n", "snapshot without mounts: its name");
	is_str(err_text, "", "snapshot without mounts: nothing on stderr");
	snapshot_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-src\",\"snapshot\":\"" SNAP "\",\"image\":\"sandbox-snapshot:" SNAP
		       "\",\"image_id\":\"" IMAGE_ID "\",\"not_in_snapshot\":[]}\n",
		   "snapshot --json without mounts: an empty list");
	snapshot_result_free(&r);

	snap_fill(&r, "fork");
	r.workspace = xstrdup("sandbox-0123456789ab");
	r.id = xstrdup("c0ffee");
	add_mount(&r, "volume", "vol\x1b[31m", "/data\xc2\x9b");
	add_mount(&r, "bind", "/h/\"q\t", "/x\x7f");
	r.mounts_cut = true;
	TEXT_OF(snapshot_text, &r, buf);
	check_text(buf, "sandbox-0123456789ab\n", "fork: the new workspace on stdout");
	is_str(err_text, "sandbox: fork: not in the snapshot: the volume mount vol?[31m at /data? "
			 "(its files are not in the image)\n"
			 "sandbox: fork: not in the snapshot: the bind mount /h/\"q? at /x? "
			 "(its files are not in the image)\n"
			 "sandbox: fork: not in the snapshot: more mounts than these 64\n",
	       "fork: control characters of a mount as ?, C1 too; more mounts than were kept");
	snapshot_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sandbox-0123456789ab\",\"id\":\"c0ffee\",\"source\":\"sb-src\","
		       "\"snapshot\":\"" SNAP "\",\"image\":\"sandbox-snapshot:" SNAP "\",\"image_id\":\""
		       IMAGE_ID "\",\"not_in_snapshot\":[{\"type\":\"volume\",\"source\":\"vol\\u001b[31m\","
		       "\"destination\":\"/data\xc2\x9b\"},{\"type\":\"bind\",\"source\":\"/h/\\\"q\\t\","
		       "\"destination\":\"/x\\u007f\"}],\"not_in_snapshot_truncated\":true}\n",
		   "fork --json: the new workspace, its id, its source; the exact mounts; truncated");
	snapshot_result_free(&r);
}

static void add_snap(struct snapshots_result *r, const char *name, const char *of, long long age,
		     long long size)
{
	r->rows = xrealloc(r->rows, (r->n + 1) * sizeof(*r->rows));
	char *image = xasprintf("sandbox-snapshot:%s", name);
	r->rows[r->n++] = (struct snap_row){xstrdup(name), image, xstrdup("0123456789ab"), xstrdup(of),
					    xstrdup("/src"), NOW - age, size};
}

static const char *const snaps_header =
	"NAME                                     WORKSPACE                AGE    SIZE\n";

static void test_snapshots(void)
{
	char *buf = NULL;
	struct jv t = {0};
	struct snapshots_result r = {.now = NOW};
	add_snap(&r, SNAP, "sb-src", 90, 1);
	add_snap(&r, "big", "", 3 * 3600, 1536LL << 20);
	add_snap(&r, "ctl", "a\x1b[2Jb\x7f", 0, 1 << 20);
	add_snap(&r, "long", "wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww",
		 2 * 86400, (1 << 20) - 1);
	add_snap(&r, "zero", "sb-z", 119, 0);
	TEXT_OF(snapshots_text, &r, buf);
	char *exp = xasprintf("%s"
			      SNAP "              sb-src                   90s    1K\n"
			      "big                                      -                        3h     1.5G\n"
			      "ctl                                      a?[2Jb?                  0s     1.0M\n"
			      "long                                     "
			      "wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww 2d     1024K\n"
			      "zero                                     sb-z                     119s   0K\n",
			      snaps_header);
	check_text(buf, exp, "snapshots: a table: the workspace or -, control characters as ?, "
			     "63 bytes of it at most; ages and sizes rounded up in K");
	free(exp);
	is_str(err_text, "", "snapshots: nothing on stderr");
	snapshots_tree(&t, &r);
	check_tree(&t,
		   "{\"snapshots\":["
		   "{\"snapshot\":\"" SNAP "\",\"image\":\"sandbox-snapshot:" SNAP "\",\"id\":\"0123456789ab\","
		   "\"workspace\":\"sb-src\",\"workdir\":\"/src\",\"created\":1699999910,\"age_s\":90,\"size\":1},"
		   "{\"snapshot\":\"big\",\"image\":\"sandbox-snapshot:big\",\"id\":\"0123456789ab\","
		   "\"workspace\":\"\",\"workdir\":\"/src\",\"created\":1699989200,\"age_s\":10800,"
		   "\"size\":1610612736},"
		   "{\"snapshot\":\"ctl\",\"image\":\"sandbox-snapshot:ctl\",\"id\":\"0123456789ab\","
		   "\"workspace\":\"a\\u001b[2Jb\\u007f\",\"workdir\":\"/src\",\"created\":1700000000,"
		   "\"age_s\":0,\"size\":1048576},"
		   "{\"snapshot\":\"long\",\"image\":\"sandbox-snapshot:long\",\"id\":\"0123456789ab\","
		   "\"workspace\":\"wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww\","
		   "\"workdir\":\"/src\",\"created\":1699827200,\"age_s\":172800,\"size\":1048575},"
		   "{\"snapshot\":\"zero\",\"image\":\"sandbox-snapshot:zero\",\"id\":\"0123456789ab\","
		   "\"workspace\":\"sb-z\",\"workdir\":\"/src\",\"created\":1699999881,\"age_s\":119,"
		   "\"size\":0}]}\n",
		   "snapshots --json: every snapshot, the workspace as it is, no truncated when all shown");
	r.more = true;
	r.n = 1;
	TEXT_OF(snapshots_text, &r, buf);
	free(buf);
	is_str(err_text, "sandbox: snapshots: more than 10000; those shown\n",
	       "snapshots: more than are listed, on stderr");
	snapshots_tree(&t, &r);
	check_tree(&t,
		   "{\"snapshots\":["
		   "{\"snapshot\":\"" SNAP "\",\"image\":\"sandbox-snapshot:" SNAP "\",\"id\":\"0123456789ab\","
		   "\"workspace\":\"sb-src\",\"workdir\":\"/src\",\"created\":1699999910,\"age_s\":90,\"size\":1}],"
		   "\"truncated\":true}\n",
		   "snapshots --json: truncated when more");
	r.n = 5;
	snapshots_result_free(&r);

	/* A label is anyone's who builds an image: C1 (U+009B, or a stray
	 * byte 0x9B) is a CSI to many terminals, as ESC [ is. */
	r = (struct snapshots_result){.now = NOW};
	add_snap(&r, "c1", "a\xc2\x9b" "2Jb", 60, 2048);
	add_snap(&r, "stray", "a\x9b" "2Jb\xc3\xa9", 60, 2048);
	add_snap(&r, "cut", "wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww\xc3\xa9x", 60, 2048);
	TEXT_OF(snapshots_text, &r, buf);
	exp = xasprintf("%s"
			"c1                                       a?2Jb                    60s    2K\n"
			"stray                                    a?2Jb\xc3\xa9                  60s    2K\n"
			"cut                                      "
			"wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww 60s    2K\n",
			snaps_header);
	check_text(buf, exp, "snapshots: C1 in the workspace column as ?, as C0 is; the cut at a "
			     "character's start");
	free(exp);
	snapshots_result_free(&r);

	struct snapshots_result none = {.now = NOW};
	TEXT_OF(snapshots_text, &none, buf);
	check_text(buf, snaps_header, "snapshots, none: the header alone");
	snapshots_tree(&t, &none);
	check_tree(&t, "{\"snapshots\":[]}\n", "snapshots --json, none: an empty list");
}

/* The _free functions of the present_*.c files, on results that own
 * all they can: a leak or a double free is ASan's to report. */
static void test_free(void)
{
	struct ref_result ref = {xstrdup("sb-1"), xstrdup("abc")};
	ref_result_free(&ref);
	struct list_result l = {.n = 2, .rows = xmalloc(2 * sizeof(struct ws_row))};
	for (size_t i = 0; i < l.n; i++)
		l.rows[i] = (struct ws_row){.id = xstrdup("i"), .name = xstrdup("sb"),
					    .state = xstrdup("running"), .image = xstrdup("busybox"),
					    .spec = xstrdup("")};
	struct ws_row w = {.id = xstrdup("i"), .name = xstrdup("sb"), .state = xstrdup("running"),
			   .image = xstrdup("b"), .spec = xstrdup("s")};
	ws_row_free(&w);
	ok(w.id == NULL && w.spec == NULL, "ws_row_free: the row is empty after");
	list_result_free(&l);
	ok(l.rows == NULL && l.n == 0, "list_result_free: the result is empty after");
	struct trust_result tr = {.path = xstrdup("/p/sandbox.ini")};
	trust_result_free(&tr);
	struct write_result wr = {.path = "x"};
	write_result_free(&wr);
	struct doctor_result d = {xmalloc(2 * sizeof(struct doctor_check)), 2};
	d.v[0] = (struct doctor_check){"engine", DOCTOR_OK, xstrdup("/usr/bin/docker"), NULL};
	d.v[1] = (struct doctor_check){"daemon", DOCTOR_FAIL, xstrdup("no answer"), xstrdup("start it")};
	doctor_result_free(&d);
	ok(d.v == NULL && d.n == 0, "doctor_result_free: the result is empty after");
}

int main(void)
{
	test_created();
	test_pool();
	test_snapshot();
	test_snapshots();
	test_free();
	free(err_text);
	return done_testing();
}
