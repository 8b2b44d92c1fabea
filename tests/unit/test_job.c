/* test_job.c: the host's side of background jobs (job.h): job numbers,
 * states, signal names, the command line a job keeps, and the answers of
 * the job scripts, checked as the hostile input they are. */
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "tap.h"
#include "util.h"

static void test_ids(void)
{
	const char *good[] = {"1", "9", "42", "999999999"};
	const char *bad[] = {"", "0", "01", "1x", "-1", "+1", " 1", "1 ", "../1", "1/2",
			     "1234567890", "1\n", "x"};
	for (size_t i = 0; i < ARRAY_LEN(good); i++)
		ok(job_id_ok(good[i]), "job id '%s' accepted", good[i]);
	for (size_t i = 0; i < ARRAY_LEN(bad); i++)
		ok(!job_id_ok(bad[i]), "job id '%s' refused", bad[i]);
}

static void state_is(const char *line, enum job_phase phase, int code, bool done, const char *text)
{
	struct job_state st;
	struct sbuf t = {0};
	bool good = job_state_parse(line, &st) == 0;
	if (good)
		job_state_text(&t, &st);
	ok(good && st.phase == phase && st.code == code && st.done == done &&
		   strcmp(t.buf ? t.buf : "", text) == 0,
	   "'%s' is %s", line, text);
	if (good && strcmp(t.buf ? t.buf : "", text) != 0)
		diag("shown as '%s'", t.buf);
	sbuf_free(&t);
}

static void test_states(void)
{
	state_is("J - 1 0", JOB_RUNNING, 0, false, "running");
	state_is("J - 0 0", JOB_LOST, 0, false, "lost");
	state_is("J 0 1 1", JOB_EXITED, 0, true, "exited 0");
	state_is("J 3 0 1", JOB_EXITED, 3, true, "exited 3");
	state_is("J 128 0 1", JOB_EXITED, 128, true, "exited 128");
	state_is("J 137 0 1", JOB_KILLED, 9, true, "killed KILL");
	state_is("J 143 0 0", JOB_KILLED, 15, false, "killed TERM");
	state_is("J 192 0 1", JOB_KILLED, 64, true, "killed 64");
	state_is("J 255 0 1", JOB_EXITED, 255, true, "exited 255");
	/* No status is above 255: the workspace wrote it. */
	state_is("J 300 0 1", JOB_LOST, 0, true, "lost");
	const char *bad[] = {"", "J", "J - 1", "J - 1 0 ", "J - 2 0", "J x 1 0", "J 1234 1 0",
			     "J -1 1 0", "X - 1 0", "J  - 1 0", "J - 1 0 extra", "J - 10 0"};
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		struct job_state st;
		ok(job_state_parse(bad[i], &st) < 0, "state '%s' refused", bad[i]);
	}
	struct job_state st = {.phase = JOB_KILLED, .code = 15};
	ok(job_exit_status(&st) == 143, "killed TERM: wait exits 143");
	st = (struct job_state){.phase = JOB_LOST};
	ok(job_exit_status(&st) == 255 && job_ended(&st), "lost: ended, wait exits 255");
	st = (struct job_state){.phase = JOB_RUNNING};
	ok(!job_ended(&st), "running: not ended");
}

static void test_signals(void)
{
	ok(job_signal_number("TERM") == 15 && job_signal_number("SIGTERM") == 15 &&
		   job_signal_number("term") == 15 && job_signal_number("sigint") == 2,
	   "signal names, with or without SIG, any case");
	ok(job_signal_number("9") == 9 && job_signal_number("64") == 64 &&
		   job_signal_number("1") == 1,
	   "signal numbers 1 to 64");
	const char *bad[] = {"0", "65", "100", "", "SIG", "NOPE", "-9", "9x", "SIGSIGTERM"};
	for (size_t i = 0; i < ARRAY_LEN(bad); i++)
		ok(job_signal_number(bad[i]) < 0, "signal '%s' refused", bad[i]);
	ok(strcmp(job_signal_name(9), "KILL") == 0 && job_signal_name(40) == NULL,
	   "names of signals, none for a realtime one");
}

static void test_command_line(void)
{
	char *argv[] = {"sh", "-c", "echo a\tb\nc\001"};
	struct sbuf s = {0};
	job_command_line(&s, argv, 3);
	ok(strcmp(s.buf, "sh -c echo a\\tb\\nc\\001") == 0, "control bytes escaped, one line: %s",
	   s.buf);
	sbuf_free(&s);
	char *big = xmalloc(1001);
	memset(big, 'x', 1000);
	big[1000] = '\0';
	char *one[] = {big};
	job_command_line(&s, one, 1);
	ok(s.len == JOB_CMD_MAX && strcmp(s.buf + s.len - 3, "...") == 0,
	   "a long command is cut at %d bytes, with ...", JOB_CMD_MAX);
	sbuf_free(&s);
	/* A cut never splits a UTF-8 character. */
	for (size_t i = 0; i + 1 < 1000; i += 2) {
		big[i] = (char)0xc3;
		big[i + 1] = (char)0xa9;
	}
	big[0] = 'a';
	job_command_line(&s, one, 1);
	ok(s.len <= JOB_CMD_MAX && ((unsigned char)s.buf[s.len - 4] & 0xc0) != 0xc0,
	   "cut at a character's start");
	sbuf_free(&s);
	/* Control bytes escape to 4 each: the cut comes as soon. */
	memset(big, '\001', 1000);
	job_command_line(&s, one, 1);
	ok(s.len == JOB_CMD_MAX && s.cap < 1024, "control bytes: cut at %d too, little memory (%zu)",
	   JOB_CMD_MAX, s.cap);
	sbuf_free(&s);
	free(big);
}

static void test_rows(void)
{
	struct job_row r;
	const char *line = "12 1796142712 3 0 1 sh -c exit 3";
	ok(job_row_parse(line, strlen(line), &r) == 0 && strcmp(r.id, "12") == 0 &&
		   r.started == 1796142712 && r.st.phase == JOB_EXITED && r.st.code == 3 &&
		   strcmp(r.command, "sh -c exit 3") == 0,
	   "a row of the list");
	free(r.command);
	line = "5 - - 1 0 ";
	ok(job_row_parse(line, strlen(line), &r) == 0 && r.started == -1 &&
		   r.st.phase == JOB_RUNNING && strcmp(r.command, "") == 0,
	   "no start time, no command");
	free(r.command);
	line = "7 1 - 0 0 a\033[31mb";
	ok(job_row_parse(line, strlen(line), &r) == 0 && strcmp(r.command, "a\\033[31mb") == 0,
	   "a forged command: escapes, never a terminal's control sequence");
	free(r.command);
	const char *bad[] = {"", "abc 1 - 1 0 x", "0 1 - 1 0 x", "../1 1 - 1 0 x", "1 x - 1 0 x",
			     "1 1 - 7 0 x", "1 1", "1234567890 1 - 1 0 x"};
	for (size_t i = 0; i < ARRAY_LEN(bad); i++)
		ok(job_row_parse(bad[i], strlen(bad[i]), &r) < 0, "row '%s' refused", bad[i]);
	char nul[] = "1 1 - 1 0 a\0b";
	ok(job_row_parse(nul, sizeof(nul) - 1, &r) < 0, "a row holding a NUL refused");
}

struct got {
	struct sbuf s[2];
};

static int got_data(void *ctx, int stream, const char *buf, size_t n)
{
	struct got *g = ctx;
	sbuf_add(&g->s[stream - 1], buf, n);
	return 0;
}

/* Feeds text one byte at a time and all at once: the same verdict. */
static bool read_frames(const char *text, size_t len, unsigned long long mo, unsigned long long me,
			struct got *g, struct job_reader *out)
{
	bool verdict[2];
	for (int pass = 0; pass < 2; pass++) {
		struct job_reader r;
		job_reader_init(&r, mo, me);
		sbuf_reset(&g->s[0]);
		sbuf_reset(&g->s[1]);
		r.data = got_data;
		r.ctx = g;
		if (pass == 0) {
			for (size_t i = 0; i < len; i++)
				job_reader_feed(&r, text + i, 1);
		} else {
			job_reader_feed(&r, text, len);
		}
		verdict[pass] = job_reader_complete(&r);
		*out = r;
	}
	return verdict[0] == verdict[1] && verdict[1];
}

static void test_reader(void)
{
	struct got g = {0};
	struct job_reader r;
	const char both[] = "S 0 3 1 9\nabcS 5 2 0 7\n\nx";
	ok(read_frames(both, sizeof(both) - 1, 10, 10, &g, &r) &&
		   strcmp(g.s[0].buf, "abc") == 0 && memcmp(g.s[1].buf, "\nx", 2) == 0 &&
		   r.s[0].more == 1 && r.s[0].end == 9 && r.s[1].start == 5 && r.s[1].len == 2 &&
		   r.s[1].end == 7,
	   "two frames, bytes as they are, a newline among them");
	const char err_only[] = "S 9 0 0 9\n";
	ok(read_frames(err_only, sizeof(err_only) - 1, 0, 10, &g, &r) && r.s[1].start == 9 &&
		   !g.s[1].len,
	   "stderr alone, empty");
	ok(read_frames("", 0, 0, 0, &g, &r), "nothing asked, nothing said");
	const struct {
		const char *text;
		unsigned long long mo, me;
		const char *why;
	} bad[] = {
		{"S 0 11 0 11\n01234567890", 10, 0, "more bytes than asked for"},
		{"S 0 3 0 3\nabc", 10, 10, "a stream missing"},
		{"S 0 3 0 3\nab", 10, 0, "cut short"},
		{"S 0 3 0 3\nabcx", 10, 0, "bytes after the last frame"},
		{"S 0 3 2 3\nabc", 10, 0, "a bad MORE"},
		{"S x 3 0 3\nabc", 10, 0, "a bad START"},
		{"S 0 3 0 x\nabc", 10, 0, "a bad END"},
		{"S 0 3 0\nabc", 10, 0, "a field missing"},
		{"S 0 3 0 3 0\nabc", 10, 0, "a field too many"},
		{"S 0 3 0 3 \nabc", 10, 0, "a space at the end"},
		{"S 5 3 0 7\nabc", 10, 0, "bytes past the end it gives"},
		{"T 0 3 0 3\nabc", 10, 0, "not a frame"},
		{"S 0 3 0000000000000000000000000000000000000000000000000000000000000000000\n", 10, 0,
		 "an endless line"},
		{"S 0 99999999999999999999 0 0\n", 10, 0, "a length beyond any"},
	};
	for (size_t i = 0; i < ARRAY_LEN(bad); i++)
		ok(!read_frames(bad[i].text, strlen(bad[i].text), bad[i].mo, bad[i].me, &g, &r),
		   "refused: %s", bad[i].why);
	sbuf_free(&g.s[0]);
	sbuf_free(&g.s[1]);
}

int main(void)
{
	test_ids();
	test_states();
	test_signals();
	test_command_line();
	test_rows();
	test_reader();
	return done_testing();
}
