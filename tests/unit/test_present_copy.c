/* test_present_copy.c: the presenters of cp, diff and apply on results
 * made by hand: the CLI's text (a pipe's, and diff's on a terminal, where
 * control characters show as ^X), the --json object, and diff's text for
 * the model. Conflicts, refusals, a failed write, names that must be
 * quoted. The expected text is t45-cp.sh's and t46-copy.sh's where they
 * test the same. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "present_check.h"
#include "results.h"
#include "tap.h"
#include "util.h"

#define ID "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
#define DIR "/home/u/proj"
#define VCS "version-control metadata, which a tool on the host would obey: apply never " \
	    "writes it, not even with --force (read it here; copy it by hand if you must)"

static void test_cp(void)
{
	char *buf = NULL;
	struct jv t = {0};
	struct cp_result r = {.workspace = "sb-1", .dest = ":copy", .files = 4, .dirs = 3, .links = 2,
			      .bytes = 300021};
	TEXT_OF(cp_text, &r, buf);
	check_text(buf, "copied 4 files, 3 directories, 2 links (300021 bytes) to :copy\n",
		   "cp: files, directories, links, bytes and where");
	is_str(err_text, "", "cp: nothing on stderr");
	cp_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"direction\":\"in\",\"destination\":\":copy\",\"files\":4,"
		       "\"directories\":3,\"links\":2,\"bytes\":300021,\"skipped\":0}\n",
		   "cp --json: in, every count");

	r = (struct cp_result){.workspace = "sb-1", .dest = ":one.txt", .files = 1, .bytes = 6};
	TEXT_OF(cp_text, &r, buf);
	check_text(buf, "copied 1 file (6 bytes) to :one.txt\n", "cp: one file, no zero counts");
	r = (struct cp_result){.workspace = "sb-1", .dest = "d", .dirs = 1, .links = 1, .bytes = 1,
			       .out = true};
	TEXT_OF(cp_text, &r, buf);
	check_text(buf, "copied 1 directory, 1 link (1 byte) to d\n", "cp: one directory, one link, one byte");
	cp_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"direction\":\"out\",\"destination\":\"d\",\"files\":0,"
		       "\"directories\":1,\"links\":1,\"bytes\":1,\"skipped\":0}\n",
		   "cp --json: out");
	r = (struct cp_result){.workspace = "sb-1", .dest = "e\x1b[2J"};
	TEXT_OF(cp_text, &r, buf);
	check_text(buf, "copied nothing (0 bytes) to \"e\\033[2J\"\n",
		   "cp: nothing copied says so; a destination with an escape is quoted");
	r.dest = "\"q";
	TEXT_OF(cp_text, &r, buf);
	check_text(buf, "copied nothing (0 bytes) to \"\\\"q\"\n", "cp: a destination that starts with a quote");

	r = (struct cp_result){.workspace = "sb-1", .dest = "spout", .out = true, .files = 1, .dirs = 1,
			       .bytes = 1, .skipped = 1, .first_skipped = xstrdup("sp/fifo")};
	TEXT_OF(cp_text, &r, buf);
	check_text(buf, "copied 1 file, 1 directory (1 byte) to spout\n", "cp, a FIFO skipped: what was copied");
	is_str(err_text, "sandbox: cp: skipped 1 device, FIFO or socket (the first: sp/fifo): cp copies "
			 "files, directories and links only\n",
	       "cp: the one skipped is named on stderr");
	cp_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"direction\":\"out\",\"destination\":\"spout\",\"files\":1,"
		       "\"directories\":1,\"links\":0,\"bytes\":1,\"skipped\":1}\n",
		   "cp --json: skipped");
	cp_result_free(&r);
	r = (struct cp_result){.workspace = "sb-1", .dest = "-", .out = true, .stream = true, .files = 2,
			       .skipped = 3};
	TEXT_OF(cp_text, &r, buf);
	check_text(buf, "", "cp to -: the tar stream was the output, no text after it");
	is_str(err_text, "sandbox: cp: skipped 3 devices, FIFOs or sockets (the first: ?): cp copies "
			 "files, directories and links only\n",
	       "cp to -: those skipped still said, plural");
	cp_result_free(&r);
}

/* A change of type t ('f', 'd', 'l') on each side, with the modes a
 * tree would have, and its part of the diff. */
static struct copy_change *add_change(struct copy_change **v, size_t *n, const char *path, char kind,
				      char old_type, char new_type, const char *text)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	struct copy_change *c = &(*v)[(*n)++];
	memset(c, 0, sizeof(*c));
	c->path = xstrdup(path);
	c->kind = kind;
	c->old_type = old_type;
	c->new_type = new_type;
	c->old_mode = old_type == 'd' ? 040755 : old_type == 'l' ? 0120777 : 0100644;
	c->new_mode = new_type == 'd' ? 040755 : new_type == 'l' ? 0120777 : 0100644;
	sbuf_adds(&c->text, text ? text : "");
	return c;
}

static const char *const blob_diff = "diff --git a/blob.bin b/blob.bin\n"
				     "Binary files a/blob.bin and b/blob.bin differ\n";
static const char *const newdir_diff = "diff --git a/newdir b/newdir\nnew directory mode 040755\n";
static const char *const old_diff = "diff --git a/old.txt b/old.txt\ndeleted file mode 100644\n"
				    "--- a/old.txt\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-a\n-b\n-c\n";
static const char *const run_diff = "diff --git a/run.sh b/run.sh\nold mode 100755\nnew mode 100644\n";
static const char *const new_diff = "diff --git a/src/new.c b/src/new.c\nnew file mode 100644\n"
				    "--- /dev/null\n+++ b/src/new.c\n@@ -0,0 +1,2 @@\n+new file\n+line 2\n";

/* The changes of t46's workspace, in a few kinds. */
static void diff_five(struct diff_result *r)
{
	*r = (struct diff_result){.workspace = "sb-1", .dir = xstrdup(DIR), .id = ID};
	add_change(&r->v, &r->n, "blob.bin", 'M', 'f', 'f', blob_diff)->binary = true;
	add_change(&r->v, &r->n, "newdir", 'A', 0, 'd', newdir_diff);
	add_change(&r->v, &r->n, "old.txt", 'D', 'f', 0, old_diff)->deletions = 3;
	add_change(&r->v, &r->n, "run.sh", 'm', 'f', 'f', run_diff)->old_mode = 0100755;
	add_change(&r->v, &r->n, "src/new.c", 'A', 0, 'f', new_diff)->insertions = 2;
}

static const char *const review = "sandbox: diff: review " ID ": to write exactly these changes, "
				  "sandbox apply -w sb-1 --expect " ID "\n";

static void test_diff(void)
{
	char *buf = NULL;
	struct sbuf m = {0};
	struct jv t = {0};
	struct diff_result r;
	diff_five(&r);
	char *all = xasprintf("%s%s%s%s%s", blob_diff, newdir_diff, old_diff, run_diff, new_diff);
	TEXT_OF(diff_text, &r, buf);
	check_text(buf, all, "diff: each change's part, in order");
	is_str(err_text, review, "diff: the review's ID on stderr, and the apply that takes it");
	diff_model(&m, &r);
	char *exp = xasprintf("%sReview ID: " ID "\n", all);
	check_model(&m, exp, "diff, model: the diff, then the review's ID");
	free(exp);
	free(all);

	r.name_only = true;
	TEXT_OF(diff_text, &r, buf);
	check_text(buf, "blob.bin\nnewdir\nold.txt\nrun.sh\nsrc/new.c\n", "diff --name-only: a path a line");
	r.name_only = false;
	r.stat = true;
	TEXT_OF(diff_text, &r, buf);
	check_text(buf,
		   " blob.bin   | Bin\n"
		   " newdir/    | added\n"
		   " old.txt    | 3 ---\n"
		   " run.sh     | mode\n"
		   " src/new.c  | 2 ++\n"
		   " 5 paths changed, 2 insertions(+), 3 deletions(-)\n",
		   "diff --stat: Bin, a directory's /, the kind when no line changed, +/-, the sums");
	is_str(err_text, review, "diff --stat: the review's ID too");

	r.n = 1;
	TEXT_OF(diff_text, &r, buf);
	check_text(buf, " blob.bin  | Bin\n 1 path changed, 0 insertions(+), 0 deletions(-)\n",
		   "diff --stat: one path; the column as wide as the longest name and one");
	r.n = 5;

	diff_tree(&t, &r);
	check_tree(&t,
		   "{\"workspace\":\"sb-1\",\"dir\":\"" DIR "\",\"changed\":true,\"id\":\"" ID "\",\"changes\":["
		   "{\"path\":\"blob.bin\",\"kind\":\"modified\",\"type\":\"file\",\"old_mode\":33188,"
		   "\"new_mode\":33188,\"conflict\":false,\"refused\":false,\"binary\":true,\"insertions\":0,"
		   "\"deletions\":0,\"diff\":\"diff --git a/blob.bin b/blob.bin\\nBinary files a/blob.bin and "
		   "b/blob.bin differ\\n\"},"
		   "{\"path\":\"newdir\",\"kind\":\"added\",\"type\":\"directory\",\"new_mode\":16877,"
		   "\"conflict\":false,\"refused\":false,\"binary\":false,\"insertions\":0,\"deletions\":0,"
		   "\"diff\":\"diff --git a/newdir b/newdir\\nnew directory mode 040755\\n\"},"
		   "{\"path\":\"old.txt\",\"kind\":\"deleted\",\"type\":\"file\",\"old_mode\":33188,"
		   "\"conflict\":false,\"refused\":false,\"binary\":false,\"insertions\":0,\"deletions\":3,"
		   "\"diff\":\"diff --git a/old.txt b/old.txt\\ndeleted file mode 100644\\n--- a/old.txt\\n"
		   "+++ /dev/null\\n@@ -1,3 +0,0 @@\\n-a\\n-b\\n-c\\n\"},"
		   "{\"path\":\"run.sh\",\"kind\":\"mode\",\"type\":\"file\",\"old_mode\":33261,"
		   "\"new_mode\":33188,\"conflict\":false,\"refused\":false,\"binary\":false,\"insertions\":0,"
		   "\"deletions\":0,\"diff\":\"diff --git a/run.sh b/run.sh\\nold mode 100755\\nnew mode 100644\\n\"},"
		   "{\"path\":\"src/new.c\",\"kind\":\"added\",\"type\":\"file\",\"new_mode\":33188,"
		   "\"conflict\":false,\"refused\":false,\"binary\":false,\"insertions\":2,\"deletions\":0,"
		   "\"diff\":\"diff --git a/src/new.c b/src/new.c\\nnew file mode 100644\\n--- /dev/null\\n"
		   "+++ b/src/new.c\\n@@ -0,0 +1,2 @@\\n+new file\\n+line 2\\n\"}]}\n",
		   "diff --json: every change: kind, type, the modes of its sides, counts, its diff");
	diff_result_free(&r);

	struct diff_result none = {.workspace = "sb-1", .dir = DIR, .id = ID, .stat = true};
	TEXT_OF(diff_text, &none, buf);
	check_text(buf, "", "diff, no change: nothing on stdout, no sums");
	is_str(err_text, "", "diff, no change: no review to apply");
	diff_model(&m, &none);
	check_model(&m, "No changes since the copy.\n", "diff, model: no change says so");
	diff_tree(&t, &none);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"dir\":\"" DIR "\",\"changed\":false,\"id\":\"" ID "\","
		       "\"changes\":[]}\n",
		   "diff --json, no change: changed false, an empty list");
	none.workspace = NULL;
	none.n = 0;
	struct copy_change one = {.path = "a", .kind = 'A', .new_type = 'f', .new_mode = 0100644};
	none.v = &one;
	none.n = 1;
	TEXT_OF(diff_text, &none, buf);
	free(buf);
	is_str(err_text, "sandbox: diff: review " ID ": to write exactly these changes, sandbox apply "
			 "-w REF --expect " ID "\n",
	       "diff without a workspace's name: REF in the apply to run");
}

/* A conflict, a refusal, a change of type, a name with a newline. */
static void diff_conflicts(struct diff_result *r)
{
	*r = (struct diff_result){.workspace = "sb-1", .dir = xstrdup(DIR), .id = ID};
	struct copy_change *c = add_change(&r->v, &r->n, "src/util.h", 'M', 'f', 'f', "@@ util.h\n");
	c->conflict = true;
	c->insertions = 1;
	c = add_change(&r->v, &r->n, ".git/config", 'M', 'f', 'f', "@@ config\n");
	c->refused = true;
	c->why = VCS;
	c->insertions = 1;
	c = add_change(&r->v, &r->n, "main-link", 'T', 'l', 'f', "@@ main-link\n");
	c->insertions = c->deletions = 1;
	add_change(&r->v, &r->n, "nl\nname", 'A', 0, 'f', "@@ nl\n")->insertions = 1;
}

static void test_diff_conflicts(void)
{
	char *buf = NULL;
	struct sbuf m = {0};
	struct jv t = {0};
	struct diff_result r;
	diff_conflicts(&r);
	TEXT_OF(diff_text, &r, buf);
	check_text(buf, "@@ util.h\n@@ config\n@@ main-link\n@@ nl\n", "diff with conflicts: the whole diff still");
	char *exp = xasprintf("sandbox: diff: src/util.h: changed in DIR since the copy (apply needs --force)\n"
			      "sandbox: diff: .git/config: " VCS "\n%s", review);
	is_str(err_text, exp, "diff: a conflict says apply needs --force; a refusal says why; then the review");
	free(exp);
	diff_model(&m, &r);
	check_model(&m, "@@ util.h\n@@ config\n@@ main-link\n@@ nl\n"
			"apply: conflict: src/util.h: changed in DIR since the copy\n"
			"apply: refused: .git/config: " VCS "\n"
			"Review ID: " ID "\n",
		    "diff, model: what apply would do with the conflict and the refusal");
	r.name_only = true;
	TEXT_OF(diff_text, &r, buf);
	check_text(buf, "src/util.h\n.git/config\nmain-link\n\"nl\\nname\"\n",
		   "diff --name-only: a name with a newline quoted");
	r.name_only = false;
	r.stat = true;
	TEXT_OF(diff_text, &r, buf);
	check_text(buf,
		   " src/util.h   | 1 +\n"
		   " .git/config  | 1 +\n"
		   " main-link    | 2 +-\n"
		   " \"nl\\nname\"   | 1 +\n"
		   " 4 paths changed, 4 insertions(+), 1 deletion(-)\n",
		   "diff --stat: a quoted name in the column; one deletion");
	diff_tree(&t, &r);
	check_tree(&t,
		   "{\"workspace\":\"sb-1\",\"dir\":\"" DIR "\",\"changed\":true,\"id\":\"" ID "\",\"changes\":["
		   "{\"path\":\"src/util.h\",\"kind\":\"modified\",\"type\":\"file\",\"old_mode\":33188,"
		   "\"new_mode\":33188,\"conflict\":true,\"refused\":false,"
		   "\"why\":\"changed in DIR since the copy\",\"binary\":false,\"insertions\":1,"
		   "\"deletions\":0,\"diff\":\"@@ util.h\\n\"},"
		   "{\"path\":\".git/config\",\"kind\":\"modified\",\"type\":\"file\",\"old_mode\":33188,"
		   "\"new_mode\":33188,\"conflict\":false,\"refused\":true,\"why\":\"" VCS "\","
		   "\"binary\":false,\"insertions\":1,\"deletions\":0,\"diff\":\"@@ config\\n\"},"
		   "{\"path\":\"main-link\",\"kind\":\"type\",\"type\":\"file\",\"old_mode\":41471,"
		   "\"new_mode\":33188,\"conflict\":false,\"refused\":false,\"binary\":false,"
		   "\"insertions\":1,\"deletions\":1,\"diff\":\"@@ main-link\\n\"},"
		   "{\"path\":\"nl\\nname\",\"kind\":\"added\",\"type\":\"file\",\"new_mode\":33188,"
		   "\"conflict\":false,\"refused\":false,\"binary\":false,\"insertions\":1,\"deletions\":0,"
		   "\"diff\":\"@@ nl\\n\"}]}\n",
		   "diff --json: why for a conflict and a refusal; a change of type; the exact name");
	diff_result_free(&r);

	/* Over 50 lines: the bar keeps the proportion in 50 characters. */
	r = (struct diff_result){.workspace = "sb-1", .dir = xstrdup(DIR), .id = ID, .stat = true};
	struct copy_change *c = add_change(&r.v, &r.n, "big.txt", 'M', 'f', 'f', NULL);
	c->insertions = 90;
	c->deletions = 10;
	c = add_change(&r.v, &r.n, "gone", 'D', 'd', 0, NULL);
	c = add_change(&r.v, &r.n, "ln", 'A', 0, 'l', NULL);
	c->insertions = 1;
	TEXT_OF(diff_text, &r, buf);
	check_text(buf,
		   " big.txt  | 100 +++++++++++++++++++++++++++++++++++++++++++++-----\n"
		   " gone/    | deleted\n"
		   " ln       | 1 +\n"
		   " 3 paths changed, 91 insertions(+), 10 deletions(-)\n",
		   "diff --stat: 90+10 lines as 45 + and 5 -; a directory deleted keeps its /");
	diff_tree(&t, &r);
	check_tree(&t,
		   "{\"workspace\":\"sb-1\",\"dir\":\"" DIR "\",\"changed\":true,\"id\":\"" ID "\",\"changes\":["
		   "{\"path\":\"big.txt\",\"kind\":\"modified\",\"type\":\"file\",\"old_mode\":33188,"
		   "\"new_mode\":33188,\"conflict\":false,\"refused\":false,\"binary\":false,"
		   "\"insertions\":90,\"deletions\":10,\"diff\":\"\"},"
		   "{\"path\":\"gone\",\"kind\":\"deleted\",\"type\":\"directory\",\"old_mode\":16877,"
		   "\"conflict\":false,\"refused\":false,\"binary\":false,\"insertions\":0,"
		   "\"deletions\":0,\"diff\":\"\"},"
		   "{\"path\":\"ln\",\"kind\":\"added\",\"type\":\"symlink\",\"new_mode\":41471,"
		   "\"conflict\":false,\"refused\":false,\"binary\":false,\"insertions\":1,"
		   "\"deletions\":0,\"diff\":\"\"}]}\n",
		   "diff --json: a directory's type, a link's (symlink), exact counts");
	diff_result_free(&r);
}

/* What diff_text writes to a terminal: a pty, its output read back from
 * the master as written (no \r added). NULL when there is no pty. */
static char *tty_text(const struct diff_result *r)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0)
		return NULL;
	int s = grantpt(m) == 0 && unlockpt(m) == 0 ? open(ptsname(m), O_RDWR | O_NOCTTY) : -1;
	struct termios tio;
	if (s < 0 || tcgetattr(s, &tio) < 0) {
		close(m);
		if (s >= 0)
			close(s);
		return NULL;
	}
	tio.c_oflag &= ~(tcflag_t)OPOST;
	tcsetattr(s, TCSANOW, &tio);
	FILE *f = fdopen(s, "w"), *e = fopen("/dev/null", "w");
	diff_text(f, e, r);
	fflush(f);
	struct sbuf got = {0};
	char buf[4096];
	struct pollfd p = {m, POLLIN, 0};
	ssize_t n;
	while (poll(&p, 1, got.len ? 100 : 2000) > 0 && (n = read(m, buf, sizeof(buf))) > 0)
		sbuf_add(&got, buf, (size_t)n);
	fclose(f);
	fclose(e);
	close(m);
	return got.buf ? got.buf : xstrdup("");
}

static void test_diff_tty(void)
{
	struct diff_result r = {.workspace = "sb-1", .dir = xstrdup(DIR), .id = ID};
	static const char text[] = "@@ -1 +1 @@\n-a\n+a\x1b[2Jb\x7f\xc2\x9b\x01\tc \xc2\xa0\xc3\xa9\n";
	add_change(&r.v, &r.n, "x", 'M', 'f', 'f', text);
	char *buf = NULL;
	TEXT_OF(diff_text, &r, buf);
	check_text(buf, text, "diff to a pipe: the bytes as they are");
	char *got = tty_text(&r);
	if (!got)
		skip("no pseudo-terminal here");
	else
		check_text(got, "@@ -1 +1 @@\n-a\n+a^[[2Jb^?<U+009B>^A\tc \xc2\xa0\xc3\xa9\n",
			   "diff to a terminal: C0 and DEL as ^X, C1 as <U+00XX>; newline, tab, text kept");
	diff_result_free(&r);
}

/* An apply of t46's kinds: added, deleted, mode, and one DIR has. */
static void apply_four(struct apply_result *r, bool check)
{
	*r = (struct apply_result){.workspace = "sb-1", .dir = xstrdup(DIR), .id = ID, .check = check,
				   .applied = !check};
	add_change(&r->v, &r->n, "src/new.c", 'A', 0, 'f', NULL)->done = !check;
	add_change(&r->v, &r->n, "man/x.5", 'D', 'f', 0, NULL)->done = !check;
	struct copy_change *c = add_change(&r->v, &r->n, "run.sh", 'm', 'f', 'f', NULL);
	c->old_mode = 0100755;
	c->done = !check;
	add_change(&r->v, &r->n, "same.txt", 'M', 'f', 'f', NULL)->noop = true;
}

static const char *const four_changes =
	"{\"path\":\"src/new.c\",\"kind\":\"added\",\"type\":\"file\",\"new_mode\":33188,"
	"\"conflict\":false,\"refused\":false},"
	"{\"path\":\"man/x.5\",\"kind\":\"deleted\",\"type\":\"file\",\"old_mode\":33188,"
	"\"conflict\":false,\"refused\":false},"
	"{\"path\":\"run.sh\",\"kind\":\"mode\",\"type\":\"file\",\"old_mode\":33261,\"new_mode\":33188,"
	"\"conflict\":false,\"refused\":false}";

static void test_apply(void)
{
	char *buf = NULL;
	struct jv t = {0};
	struct apply_result r;
	apply_four(&r, true);
	TEXT_OF(apply_text, &r, buf);
	check_text(buf, "A src/new.c\nD man/x.5\nM run.sh\n",
		   "apply --check: a letter and a path a change; a mode is M; one DIR has, not shown");
	is_str(err_text, "sandbox: apply: 3 changes would be written to " DIR "\n",
	       "apply --check: how many would be written, and where");
	apply_tree(&t, &r);
	char *exp = xasprintf("{\"workspace\":\"sb-1\",\"dir\":\"" DIR "\",\"check\":true,\"applied\":false,"
			      "\"id\":\"" ID "\",\"changes\":[%s],\"conflicts\":[]}\n", four_changes);
	check_tree(&t, exp, "apply --check --json: the changes without their text, no conflict");
	free(exp);
	apply_result_free(&r);

	apply_four(&r, false);
	TEXT_OF(apply_text, &r, buf);
	check_text(buf, "A src/new.c\nD man/x.5\nM run.sh\n", "apply: the changes written");
	is_str(err_text, "sandbox: apply: 3 changes written to " DIR "\n", "apply: how many were written");
	apply_tree(&t, &r);
	exp = xasprintf("{\"workspace\":\"sb-1\",\"dir\":\"" DIR "\",\"check\":false,\"applied\":true,"
			"\"id\":\"" ID "\",\"changes\":[%s],\"conflicts\":[]}\n", four_changes);
	check_tree(&t, exp, "apply --json: applied");
	free(exp);
	r.n = 1;
	TEXT_OF(apply_text, &r, buf);
	check_text(buf, "A src/new.c\n", "apply PATH: one line");
	is_str(err_text, "sandbox: apply: 1 change written to " DIR "\n", "apply: one change");
	r.n = 4;
	apply_result_free(&r);

	r = (struct apply_result){.workspace = "sb-1", .dir = xstrdup(DIR), .id = ID, .applied = true};
	TEXT_OF(apply_text, &r, buf);
	check_text(buf, "", "apply, nothing to do: nothing on stdout");
	is_str(err_text, "sandbox: apply: nothing to apply\n", "apply: nothing to apply says so");
	apply_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"dir\":\"" DIR "\",\"check\":false,\"applied\":true,"
		       "\"id\":\"" ID "\",\"changes\":[],\"conflicts\":[]}\n",
		   "apply --json, nothing to do: empty lists");
	add_change(&r.v, &r.n, "same.txt", 'M', 'f', 'f', NULL)->noop = true;
	TEXT_OF(apply_text, &r, buf);
	check_text(buf, "", "apply, DIR has every change: nothing on stdout");
	is_str(err_text, "sandbox: apply: nothing to apply\n", "apply: DIR has them: nothing to apply");
	apply_result_free(&r);
}

/* src/util.c changed in the workspace; src/util.h in DIR too. */
static void apply_conflict(struct apply_result *r, bool check, bool force)
{
	bool written = !check && force;
	*r = (struct apply_result){.workspace = "sb-1", .dir = xstrdup(DIR), .id = ID, .check = check,
				   .force = force, .conflicts = 1, .applied = written};
	add_change(&r->v, &r->n, "src/util.c", 'M', 'f', 'f', NULL)->done = written;
	struct copy_change *c = add_change(&r->v, &r->n, "src/util.h", 'M', 'f', 'f', NULL);
	c->conflict = true;
	c->done = written;
}

static void test_apply_conflicts(void)
{
	char *buf = NULL;
	struct jv t = {0};
	struct apply_result r;
	const char *note = "sandbox: apply: src/util.h: changed in DIR since the copy\n";
	apply_conflict(&r, false, false);
	TEXT_OF(apply_text, &r, buf);
	check_text(buf, "", "apply, a conflict: nothing written, no line");
	char *exp = xasprintf("%ssandbox: apply: 1 conflict: nothing was written to " DIR "; --force "
			      "writes over them\n", note);
	is_str(err_text, exp, "apply: the conflict, then that nothing was written and what --force does");
	free(exp);
	apply_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"dir\":\"" DIR "\",\"check\":false,\"applied\":false,"
		       "\"id\":\"" ID "\",\"changes\":[{\"path\":\"src/util.c\",\"kind\":\"modified\","
		       "\"type\":\"file\",\"old_mode\":33188,\"new_mode\":33188,\"conflict\":false,"
		       "\"refused\":false}],\"conflicts\":[{\"path\":\"src/util.h\","
		       "\"why\":\"changed in DIR since the copy\",\"refused\":false}]}\n",
		   "apply --json, a conflict: the change in the way among conflicts, not changes");
	r.conflicts = 2;
	TEXT_OF(apply_text, &r, buf);
	free(buf);
	exp = xasprintf("%ssandbox: apply: 2 conflicts: nothing was written to " DIR "; --force "
			"writes over them\n", note);
	is_str(err_text, exp, "apply: two conflicts, plural");
	free(exp);
	apply_result_free(&r);

	apply_conflict(&r, true, false);
	TEXT_OF(apply_text, &r, buf);
	check_text(buf, "M src/util.c\n", "apply --check, a conflict: what would be written without it");
	exp = xasprintf("%ssandbox: apply: 1 conflict: nothing would be written to " DIR "; --force "
			"writes over them\n", note);
	is_str(err_text, exp, "apply --check: nothing would be written");
	free(exp);
	apply_result_free(&r);

	apply_conflict(&r, false, true);
	TEXT_OF(apply_text, &r, buf);
	check_text(buf, "M src/util.c\nM src/util.h\n", "apply --force: the conflict written over too");
	exp = xasprintf("%ssandbox: apply: 2 changes written to " DIR "\n", note);
	is_str(err_text, exp, "apply --force: the conflict named, then what was written");
	free(exp);
	apply_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"dir\":\"" DIR "\",\"check\":false,\"applied\":true,"
		       "\"id\":\"" ID "\",\"changes\":[{\"path\":\"src/util.c\",\"kind\":\"modified\","
		       "\"type\":\"file\",\"old_mode\":33188,\"new_mode\":33188,\"conflict\":false,"
		       "\"refused\":false},{\"path\":\"src/util.h\",\"kind\":\"modified\",\"type\":\"file\","
		       "\"old_mode\":33188,\"new_mode\":33188,\"conflict\":true,\"refused\":false,"
		       "\"why\":\"changed in DIR since the copy\"}],\"conflicts\":[{\"path\":\"src/util.h\","
		       "\"why\":\"changed in DIR since the copy\",\"refused\":false}]}\n",
		   "apply --force --json: the conflict among changes and conflicts both");
	apply_result_free(&r);
}

/* vcs-ok.txt, and .git/config that apply never writes. */
static void apply_refused(struct apply_result *r, bool check, bool force)
{
	bool written = !check && force;
	*r = (struct apply_result){.workspace = "sb-1", .dir = xstrdup(DIR), .id = ID, .check = check,
				   .force = force, .refused = 1, .applied = written};
	struct copy_change *c = add_change(&r->v, &r->n, ".git/config", 'M', 'f', 'f', NULL);
	c->refused = true;
	c->why = VCS;
	add_change(&r->v, &r->n, "vcs-ok.txt", 'A', 0, 'f', NULL)->done = written;
}

static void test_apply_refused(void)
{
	char *buf = NULL;
	struct jv t = {0};
	struct apply_result r;
	const char *note = "sandbox: apply: .git/config: " VCS "\n";
	apply_refused(&r, false, false);
	TEXT_OF(apply_text, &r, buf);
	check_text(buf, "", "apply, a path refused: nothing written, no line");
	char *exp = xasprintf("%ssandbox: apply: 1 path refused: nothing was written to " DIR "; --force "
			      "writes the rest, never it\n", note);
	is_str(err_text, exp, "apply: the refusal and why, then that --force never writes it");
	free(exp);
	apply_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"dir\":\"" DIR "\",\"check\":false,\"applied\":false,"
		       "\"id\":\"" ID "\",\"changes\":[{\"path\":\"vcs-ok.txt\",\"kind\":\"added\","
		       "\"type\":\"file\",\"new_mode\":33188,\"conflict\":false,\"refused\":false}],"
		       "\"conflicts\":[{\"path\":\".git/config\",\"why\":\"" VCS "\",\"refused\":true}]}\n",
		   "apply --json: a refusal among conflicts, refused true");
	r.refused = 2;
	TEXT_OF(apply_text, &r, buf);
	free(buf);
	exp = xasprintf("%ssandbox: apply: 2 paths refused: nothing was written to " DIR "; --force "
			"writes the rest, never them\n", note);
	is_str(err_text, exp, "apply: two refused, plural");
	free(exp);
	apply_result_free(&r);

	apply_refused(&r, false, true);
	TEXT_OF(apply_text, &r, buf);
	check_text(buf, "A vcs-ok.txt\n", "apply --force: the rest written");
	exp = xasprintf("%ssandbox: apply: 1 change written to " DIR "; the refused were not\n", note);
	is_str(err_text, exp, "apply --force: the refused were not written");
	free(exp);
	apply_result_free(&r);

	apply_refused(&r, true, true);
	TEXT_OF(apply_text, &r, buf);
	check_text(buf, "A vcs-ok.txt\n", "apply --check --force: what would be written");
	exp = xasprintf("%ssandbox: apply: 1 change would be written to " DIR "; the refused never\n", note);
	is_str(err_text, exp, "apply --check --force: the refused never would");
	free(exp);
	apply_result_free(&r);
}

static void test_apply_edges(void)
{
	char *buf = NULL;
	struct jv t = {0};
	struct apply_result r = {.workspace = "sb-1", .dir = xstrdup(DIR), .id = ID,
				 .error = xstrdup(DIR "/src/b.c: cannot write: No space left on device")};
	add_change(&r.v, &r.n, "src/a.c", 'A', 0, 'f', NULL)->done = true;
	add_change(&r.v, &r.n, "src/b.c", 'A', 0, 'f', NULL);
	TEXT_OF(apply_text, &r, buf);
	check_text(buf, "A src/a.c\n", "apply, a write failed half-way: the changes written");
	is_str(err_text, "sandbox: apply: " DIR "/src/b.c: cannot write: No space left on device\n",
	       "apply: the failure is the last line");
	apply_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"dir\":\"" DIR "\",\"check\":false,\"applied\":false,"
		       "\"id\":\"" ID "\",\"error\":\"" DIR "/src/b.c: cannot write: No space left on device\","
		       "\"changes\":[{\"path\":\"src/a.c\",\"kind\":\"added\",\"type\":\"file\","
		       "\"new_mode\":33188,\"conflict\":false,\"refused\":false}],\"conflicts\":[]}\n",
		   "apply --json, a failed write: error, and the changes written");
	apply_result_free(&r);

	r = (struct apply_result){.workspace = "sb-1", .dir = xstrdup("/home/u/pro\nj"), .id = ID,
				  .applied = true};
	struct copy_change *c = add_change(&r.v, &r.n, "olddir", 'D', 'd', 0, NULL);
	c->kept = c->done = true;
	add_change(&r.v, &r.n, "main-link", 'T', 'l', 'f', NULL)->done = true;
	add_change(&r.v, &r.n, "\"q", 'A', 0, 'f', NULL)->done = true;
	add_change(&r.v, &r.n, "t\tab", 'A', 0, 'l', NULL)->done = true;
	TEXT_OF(apply_text, &r, buf);
	check_text(buf, "D olddir (a directory kept: it holds other files in DIR)\nT main-link\n"
			"A \"\\\"q\"\nA \"t\\tab\"\n",
		   "apply: a directory kept, a change of type, names quoted");
	is_str(err_text, "sandbox: apply: 4 changes written to \"/home/u/pro\\nj\"\n",
	       "apply: DIR with a newline quoted");
	apply_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"dir\":\"/home/u/pro\\nj\",\"check\":false,\"applied\":true,"
		       "\"id\":\"" ID "\",\"changes\":[{\"path\":\"olddir\",\"kind\":\"deleted\","
		       "\"type\":\"directory\",\"old_mode\":16877,\"conflict\":false,\"refused\":false},"
		       "{\"path\":\"main-link\",\"kind\":\"type\",\"type\":\"file\",\"old_mode\":41471,"
		       "\"new_mode\":33188,\"conflict\":false,\"refused\":false},"
		       "{\"path\":\"\\\"q\",\"kind\":\"added\",\"type\":\"file\",\"new_mode\":33188,"
		       "\"conflict\":false,\"refused\":false},"
		       "{\"path\":\"t\\tab\",\"kind\":\"added\",\"type\":\"symlink\",\"new_mode\":41471,"
		       "\"conflict\":false,\"refused\":false}],\"conflicts\":[]}\n",
		   "apply --json: the exact names and DIR");
	apply_result_free(&r);
}

int main(void)
{
	test_cp();
	test_diff();
	test_diff_conflicts();
	test_diff_tty();
	test_apply();
	test_apply_conflicts();
	test_apply_refused();
	test_apply_edges();
	free(err_text);
	return done_testing();
}
