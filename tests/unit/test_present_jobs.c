/* test_present_jobs.c: the presenters of the background jobs (jobs,
 * logs, kill, wait) on results made by hand: the CLI's text, the --json
 * object, and the text for the model of job_list, job_output and
 * job_kill. A job in each state: running, exited, killed by a signal
 * with a name and by one without, lost. The expected text is
 * t44-jobs.sh's where it tests the same. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "present_check.h"
#include "results.h"
#include "tap.h"
#include "util.h"

#define NOW 1000000LL

static const struct job_state running = {JOB_RUNNING, 0, false, true};
static const struct job_state exited3 = {JOB_EXITED, 3, true, false};
static const struct job_state killed_kill = {JOB_KILLED, SIGKILL, true, false};
static const struct job_state killed_40 = {JOB_KILLED, 40, true, false};
static const struct job_state lost = {JOB_LOST, 0, false, false};

static void add_job(struct jobs_result *r, const char *id, long long started,
		    struct job_state st, const char *command)
{
	r->rows = xrealloc(r->rows, (r->n + 1) * sizeof(*r->rows));
	struct job_row *j = &r->rows[r->n++];
	memset(j, 0, sizeof(*j));
	snprintf(j->id, sizeof(j->id), "%s", id);
	j->started = started;
	j->st = st;
	j->command = xstrdup(command);
}

static void test_jobs(void)
{
	char *buf = NULL;
	struct sbuf m = {0};
	struct jv t = {0};
	struct jobs_result r = {.workspace = "sb-1", .now = NOW};
	add_job(&r, "1", NOW - 5, running, "sleep 100");
	add_job(&r, "2", NOW - 7200, exited3, "sh -c exit 3");
	add_job(&r, "12", -1, killed_kill, "yes");
	add_job(&r, "13", NOW - 100, lost, "printf a\\nb");
	add_job(&r, "999999999", NOW - 3 * 86400, killed_40, "sh");
	TEXT_OF(jobs_text, &r, buf);
	check_text(buf,
		   "JOB       STATE          AGE   COMMAND\n"
		   "1         running        5s    sleep 100\n"
		   "2         exited 3       2h    sh -c exit 3\n"
		   "12        killed KILL    -     yes\n"
		   "13        lost           100s  printf a\\nb\n"
		   "999999999 killed 40      3d    sh\n",
		   "jobs: a table: the state with its status or signal, the age, - when unknown");
	is_str(err_text, "", "jobs: nothing on stderr");
	jobs_model(&m, &r);
	check_model(&m,
		    "job 1: running (started 5s ago): sleep 100\n"
		    "job 2: exited 3 (started 2h ago): sh -c exit 3\n"
		    "job 12: killed KILL (started ? ago): yes\n"
		    "job 13: lost (started 100s ago): printf a\\nb\n"
		    "job 999999999: killed 40 (started 3d ago): sh\n",
		    "jobs, model: a sentence a job");
	static const char *const rows =
		"{\"workspace\":\"sb-1\",\"jobs\":["
		"{\"job\":\"1\",\"state\":\"running\",\"exit_code\":null,\"signal\":null,"
		"\"started\":999995,\"age_s\":5,\"command\":\"sleep 100\"},"
		"{\"job\":\"2\",\"state\":\"exited\",\"exit_code\":3,\"signal\":null,"
		"\"started\":992800,\"age_s\":7200,\"command\":\"sh -c exit 3\"},"
		"{\"job\":\"12\",\"state\":\"killed\",\"exit_code\":137,\"signal\":\"KILL\","
		"\"command\":\"yes\"},"
		"{\"job\":\"13\",\"state\":\"lost\",\"exit_code\":null,\"signal\":null,"
		"\"started\":999900,\"age_s\":100,\"command\":\"printf a\\\\nb\"},"
		"{\"job\":\"999999999\",\"state\":\"killed\",\"exit_code\":168,\"signal\":40,"
		"\"started\":740800,\"age_s\":259200,\"command\":\"sh\"}]";
	char *exp = xasprintf("%s,\"more\":false}\n", rows);
	jobs_tree(&t, &r);
	check_tree(&t, exp, "jobs --json: exit_code as wait exits, the signal by name or number, no start when unknown");
	free(exp);

	r.more = true;
	TEXT_OF(jobs_text, &r, buf);
	free(buf);
	is_str(err_text, "sandbox: jobs: more than 5 jobs; the others are not shown\n",
	       "jobs: more than were listed: stderr says so");
	exp = xasprintf("%s,\"more\":true}\n", rows);
	jobs_tree(&t, &r);
	check_tree(&t, exp, "jobs --json: more true");
	free(exp);
	jobs_result_free(&r);

	struct jobs_result none = {.workspace = "sb-1", .now = NOW};
	TEXT_OF(jobs_text, &none, buf);
	check_text(buf, "JOB       STATE          AGE   COMMAND\n", "jobs: none, the header alone");
	jobs_model(&m, &none);
	check_model(&m, "No jobs.\n", "jobs, model: none says so");
	jobs_tree(&t, &none);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"jobs\":[],\"more\":false}\n", "jobs --json: none");
}

/* A stream of logs: asked from offset, the bytes kept from start. */
static void stream(struct logs_stream *s, unsigned long long offset, unsigned long long start,
		   const char *data)
{
	*s = (struct logs_stream){.asked = true, .offset = offset, .start = start, .seen = true};
	sbuf_adds(&s->data, data);
	s->next = start + strlen(data);
}

static void test_logs_cli(void)
{
	char *buf = NULL;
	struct jv t = {0};
	struct logs_result r = {.workspace = "sb-1", .job = "7", .st = {JOB_EXITED, 0, true, false}};
	stream(&r.s[0], 0, 0, "abcdef");
	TEXT_OF(logs_text, &r, buf);
	check_text(buf, "", "logs: the bytes went out as they came: nothing after them");
	is_str(err_text, "", "logs: nothing on stderr");
	logs_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"job\":\"7\",\"state\":\"exited\",\"exit_code\":0,"
		       "\"signal\":null,\"stream\":\"stdout\",\"output\":\"abcdef\",\"start\":0,"
		       "\"next_offset\":6,\"truncated\":false,\"more\":false}\n",
		   "logs --json: one stream, its output, where to go on; no more once ended and done");
	logs_result_free(&r);

	r = (struct logs_result){.workspace = "sb-1", .job = "7", .st = {JOB_EXITED, 0, true, false}};
	stream(&r.s[1], 1, 1, "YZ");
	logs_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"job\":\"7\",\"state\":\"exited\",\"exit_code\":0,"
		       "\"signal\":null,\"stream\":\"stderr\",\"output\":\"YZ\",\"start\":1,"
		       "\"next_offset\":3,\"truncated\":false,\"more\":false}\n",
		   "logs --stderr --offset 1 --json: the stream named, from the offset");
	logs_result_free(&r);

	r = (struct logs_result){.workspace = "sb-1", .job = "7", .st = lost, .follow = true};
	stream(&r.s[0], 0, 0, "before\n");
	TEXT_OF(logs_text, &r, buf);
	check_text(buf, "", "logs --follow, lost: nothing on stdout");
	is_str(err_text, "sandbox: logs: job 7 was lost: the workspace stopped or restarted while it ran\n",
	       "logs --follow: a lost job is said on stderr");
	logs_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"job\":\"7\",\"state\":\"lost\",\"exit_code\":null,"
		       "\"signal\":null,\"stream\":\"stdout\",\"output\":\"before\\n\",\"start\":0,"
		       "\"next_offset\":7,\"truncated\":false,\"more\":true}\n",
		   "logs --json, lost: no exit code; more, since its output was not all kept");
	r.follow = false;
	TEXT_OF(logs_text, &r, buf);
	free(buf);
	is_str(err_text, "", "logs without --follow: a lost job is not its matter");
	r.follow = true;
	r.st = exited3;
	TEXT_OF(logs_text, &r, buf);
	free(buf);
	is_str(err_text, "", "logs --follow to the end: nothing said; its status tells");
	logs_result_free(&r);

	r = (struct logs_result){.workspace = "sb-1", .job = "7", .st = exited3};
	stream(&r.s[0], 0, 0, "0123456789");
	r.s[0].cut = true;
	r.s[0].next = 12000000;
	logs_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"job\":\"7\",\"state\":\"exited\",\"exit_code\":3,"
		       "\"signal\":null,\"stream\":\"stdout\",\"output\":\"0123456789\",\"start\":0,"
		       "\"next_offset\":12000000,\"truncated\":true,\"more\":false}\n",
		   "logs --json: the middle cut is truncated; next_offset past all of it");
	logs_result_free(&r);
}

/* MCP's job_output: both streams, each with its offsets. */
static void test_logs_mcp(void)
{
	struct sbuf m = {0};
	struct jv t = {0};
	struct logs_result r = {.workspace = "sb-1", .job = "7", .st = running};
	stream(&r.s[0], 0, 100, "0123456789");
	stream(&r.s[1], 0, 0, "err\n");
	logs_model(&m, &r);
	check_model(&m, "[... 100 bytes before these were not kept ...]\n0123456789\n[stderr]\nerr\n"
			"[job 7 running; for what follows, call job_output with offset=110 and stderr_offset=4]",
		    "job_output, model: what was not kept, each stream, and the offsets to go on from");
	logs_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"job\":\"7\",\"state\":\"running\",\"exit_code\":null,"
		       "\"signal\":null,\"stdout\":\"0123456789\",\"stdout_start\":100,\"next_offset\":110,"
		       "\"stdout_truncated\":false,\"stderr\":\"err\\n\",\"stderr_start\":0,"
		       "\"next_stderr_offset\":4,\"stderr_truncated\":false,\"more\":true}\n",
		   "job_output's tree: each stream's own keys");
	logs_result_free(&r);

	r = (struct logs_result){.workspace = "sb-1", .job = "7", .st = exited3};
	stream(&r.s[0], 0, 0, "out\n");
	stream(&r.s[1], 0, 0, "");
	logs_model(&m, &r);
	check_model(&m, "out\n[job 7 exited 3; that is all of its output]",
		    "job_output, model: ended and all kept: no more to ask for; an empty stream not named");
	r.more = true;
	logs_model(&m, &r);
	check_model(&m, "out\n[job 7 exited 3; for what follows, call job_output with offset=4 and stderr_offset=0]",
		    "job_output, model: more than was read: where to go on");
	r.more = false;
	r.st.done = false;
	logs_model(&m, &r);
	check_model(&m, "out\n[job 7 exited 3; for what follows, call job_output with offset=4 and stderr_offset=0]",
		    "job_output, model: ended, its output not all kept yet: where to go on");
	logs_result_free(&r);

	r = (struct logs_result){.workspace = "sb-1", .job = "8",
				 .st = {JOB_KILLED, SIGTERM, true, false}};
	stream(&r.s[0], 5, 5, "");
	stream(&r.s[1], 2, 2, "boom");
	logs_model(&m, &r);
	check_model(&m, "[stderr]\nboom\n[job 8 killed TERM; that is all of its output]",
		    "job_output, model: stderr alone, a newline after it");
	logs_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"job\":\"8\",\"state\":\"killed\",\"exit_code\":143,"
		       "\"signal\":\"TERM\",\"stdout\":\"\",\"stdout_start\":5,\"next_offset\":5,"
		       "\"stdout_truncated\":false,\"stderr\":\"boom\",\"stderr_start\":2,"
		       "\"next_stderr_offset\":6,\"stderr_truncated\":false,\"more\":false}\n",
		   "job_output's tree: killed, the signal's name and 128+N");
	logs_result_free(&r);

	r = (struct logs_result){.workspace = "sb-1", .job = "9", .st = running};
	stream(&r.s[0], 0, 0, "");
	stream(&r.s[1], 0, 0, "");
	logs_model(&m, &r);
	check_model(&m, "[job 9 running; for what follows, call job_output with offset=0 and stderr_offset=0]",
		    "job_output, model: no output yet: the state alone");
	logs_result_free(&r);
}

static void test_kill(void)
{
	char *buf = NULL;
	struct sbuf m = {0};
	struct jv t = {0};
	struct kill_result r = {.workspace = "sb-1", .job = "4", .outcome = "gone",
				.st = {JOB_KILLED, SIGTERM, true, false}};
	TEXT_OF(kill_text, &r, buf);
	check_text(buf, "job 4: killed TERM\n", "kill: the job's state after TERM");
	is_str(err_text, "", "kill: nothing on stderr");
	kill_model(&m, &r);
	check_model(&m, "job 4: killed TERM", "job_kill, model: the state");
	kill_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"job\":\"4\",\"outcome\":\"gone\",\"state\":\"killed\","
		       "\"exit_code\":143,\"signal\":\"TERM\"}\n",
		   "kill --json: the outcome and the state");
	ok(!kill_result_type.is_error(&r), "job_kill: a job gone is no error for the model");

	r.st = killed_kill;
	TEXT_OF(kill_text, &r, buf);
	check_text(buf, "job 4: killed KILL\n", "kill: KILL when TERM was not enough");

	r.st = lost;
	TEXT_OF(kill_text, &r, buf);
	check_text(buf, "job 4: lost\n", "kill of a lost job: lost");

	r = (struct kill_result){.workspace = "sb-1", .job = "4", .outcome = "ended",
				 .st = {JOB_EXITED, 5, true, false}};
	TEXT_OF(kill_text, &r, buf);
	check_text(buf, "job 4: had already ended: exited 5\n", "kill of an ended job: its status");
	kill_model(&m, &r);
	check_model(&m, "job 4: had already ended; exited 5", "job_kill, model: had already ended");
	kill_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"job\":\"4\",\"outcome\":\"ended\",\"state\":\"exited\","
		       "\"exit_code\":5,\"signal\":null}\n",
		   "kill --json: ended, with its status");

	r = (struct kill_result){.workspace = "sb-1", .job = "4", .outcome = "sent", .signal = SIGINT,
				 .st = running};
	TEXT_OF(kill_text, &r, buf);
	check_text(buf, "job 4: sent INT; running\n", "kill --signal: the signal sent, by name");
	kill_model(&m, &r);
	check_model(&m, "job 4: signal sent; running", "job_kill, model: signal sent");
	r.signal = 40;
	TEXT_OF(kill_text, &r, buf);
	check_text(buf, "job 4: sent the signal; running\n", "kill --signal 40: a signal without a name");

	r.outcome = "alive";
	r.signal = 0;
	TEXT_OF(kill_text, &r, buf);
	check_text(buf, "", "kill, still alive: nothing on stdout");
	is_str(err_text, "sandbox: kill: job 4 is still alive after KILL\n",
	       "kill: still alive after KILL is said on stderr");
	kill_model(&m, &r);
	check_model(&m, "job 4: still alive after KILL; running", "job_kill, model: still alive");
	kill_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"job\":\"4\",\"outcome\":\"alive\",\"state\":\"running\","
		       "\"exit_code\":null,\"signal\":null}\n",
		   "kill --json: alive, running");
	ok(kill_result_type.is_error(&r), "job_kill: still alive after KILL is an error for the model");
	kill_result_free(&r);
}

static void test_wait(void)
{
	char *buf = NULL;
	struct jv t = {0};
	struct wait_result r = {.workspace = "sb-1", .job = "5", .st = exited3};
	TEXT_OF(wait_text, &r, buf);
	check_text(buf, "job 5: exited 3\n", "wait: the job's status");
	is_str(err_text, "", "wait: nothing on stderr");
	wait_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"job\":\"5\",\"state\":\"exited\",\"exit_code\":3,"
		       "\"signal\":null,\"timed_out\":false}\n",
		   "wait --json: the state, not timed out");

	r.st = killed_kill;
	TEXT_OF(wait_text, &r, buf);
	check_text(buf, "job 5: killed KILL\n", "wait: killed, by the signal's name");
	wait_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"job\":\"5\",\"state\":\"killed\",\"exit_code\":137,"
		       "\"signal\":\"KILL\",\"timed_out\":false}\n",
		   "wait --json: killed, 128+9");

	r.st = running;
	r.timed_out = true;
	TEXT_OF(wait_text, &r, buf);
	check_text(buf, "", "wait --timeout, still running: nothing on stdout");
	is_str(err_text, "sandbox: wait: job 5 is still running\n", "wait --timeout: still running, on stderr");
	wait_tree(&t, &r);
	check_tree(&t, "{\"workspace\":\"sb-1\",\"job\":\"5\",\"state\":\"running\",\"exit_code\":null,"
		       "\"signal\":null,\"timed_out\":true}\n",
		   "wait --json: timed out");

	r.st = lost;
	r.timed_out = false;
	TEXT_OF(wait_text, &r, buf);
	check_text(buf, "", "wait, lost: nothing on stdout");
	is_str(err_text, "sandbox: wait: job 5 was lost: the workspace stopped or restarted while it ran\n",
	       "wait: a lost job is said on stderr");
	wait_result_free(&r);
}

int main(void)
{
	test_jobs();
	test_logs_cli();
	test_logs_mcp();
	test_kill();
	test_wait();
	free(err_text);
	return done_testing();
}
