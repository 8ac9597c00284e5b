/* test_llm.c: LLM client pieces: SSE parsing, backoff schedule, key redaction, providers, concurrent calls. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "llm/llm.h"
#include "llm/prompt.h"
#include "llm/sse.h"
#include "util/conf.h"
#include "util/sb.h"

struct events { struct sb all; int n; };

static int on_ev(void *ctx, const char *data, size_t n)
{
	struct events *e = ctx;

	sb_printf(&e->all, "[%.*s]", (int)n, data);
	e->n++;
	return 0;
}

static void sse_whole_and_split(void **st)
{
	const char *stream = ": keep-alive\r\ndata: {\"a\":1}\r\n\r\ndata: line1\ndata:line2\n\nevent: x\nid: 3\ndata: [DONE]\n\n";
	struct events e = {SB_INIT, 0};
	struct sse p;

	(void)st;
	/* fed whole */
	sse_init(&p);
	sse_feed(&p, stream, strlen(stream), on_ev, &e);
	assert_string_equal(sb_cstr(&e.all), "[{\"a\":1}][line1\nline2][[DONE]]");
	sse_free(&p);
	/* fed one byte at a time: every split point, including inside \r\n */
	for (size_t step = 1; step <= 7; step++) {
		struct events f = {SB_INIT, 0};

		sse_init(&p);
		for (size_t i = 0; i < strlen(stream); i += step) {
			size_t n = strlen(stream) - i < step ? strlen(stream) - i : step;

			sse_feed(&p, stream + i, n, on_ev, &f);
		}
		assert_string_equal(sb_cstr(&f.all), sb_cstr(&e.all));
		assert_int_equal(p.events, 3);
		sse_free(&p);
		sb_free(&f.all);
	}
	/* an event without the closing blank line is not dispatched (broken stream) */
	{
		struct events g = {SB_INIT, 0};

		sse_init(&p);
		sse_feed(&p, "data: partial", 13, on_ev, &g);
		assert_int_equal(g.n, 0);
		sse_free(&p);
		sb_free(&g.all);
	}
	sb_free(&e.all);
}

static void backoff_schedule(void **st)
{
	unsigned seed = 42;

	(void)st;
	for (int trial = 0; trial < 200; trial++) {
		long prev_cap = 0;

		for (int r = 0; r < 8; r++) {
			long d = llm_backoff_ms(500, 8000, r, &seed);
			long cap = 500L << r;

			if (cap > 8000)
				cap = 8000;
			/* equal jitter: within [cap/2, cap], never above the maximum */
			assert_true(d >= cap - cap / 2 && d <= cap);
			assert_true(cap >= prev_cap);
			prev_cap = cap;
		}
	}
	/* jitter actually varies */
	{
		long a = llm_backoff_ms(1000, 8000, 2, &seed), b;
		int differ = 0;

		for (int i = 0; i < 20 && !differ; i++)
			differ = (b = llm_backoff_ms(1000, 8000, 2, &seed)) != a;
		assert_true(differ);
	}
	assert_true(llm_backoff_ms(0, 0, 0, &seed) >= 0);
}

static void redaction(void **st)
{
	char s[] = "Incorrect API key provided: sk-abc123456 (sk-abc123456)";

	(void)st;
	llm_redact(s, "sk-abc123456");
	assert_null(strstr(s, "sk-abc"));
	assert_non_null(strstr(s, "************"));
	llm_redact(s, "");      /* no secret: unchanged, no crash */
	llm_redact(NULL, "x");
}

static void providers(void **st)
{
	char err[200];
	struct llm *l;
	struct llm_reply r;
	struct llm_msg m = {"user", "hi"};

	(void)st;
	conf_set("llm_base_url", "", "test");
	assert_null(llm_open("openai", err, sizeof err));
	assert_non_null(strstr(err, "llm_base_url"));
	assert_null(llm_open("gemini", err, sizeof err));
	assert_non_null(l = llm_open("builtin", err, sizeof err));
	assert_true(llm_is_builtin(l));
	assert_string_equal(llm_name(l), "builtin");
	assert_int_equal(llm_chat(l, &m, 1, NULL, NULL, &r), ERR_INPUT);
	assert_non_null(r.error);
	llm_reply_free(&r);
	llm_close(l);
}

static void render(void **st)
{
	const char *k[] = {"q", "n"}, *v[] = {"환자 수", "3"};
	char *s = prompt_render("Q={{q}} n={{n}} keep={{other}} {{", k, v, 2);

	(void)st;
	assert_string_equal(s, "Q=환자 수 n=3 keep={{other}} {{");
	free(s);
}

/* The fake server's process and directory, removed by the teardown even when an assert fails. */
static pid_t fake_pid;
static char fake_dir[64];

static int fake_teardown(void **st)
{
	char cmd[128];

	(void)st;
	if (fake_pid > 0) {
		kill(fake_pid, SIGTERM);
		waitpid(fake_pid, NULL, 0);
		fake_pid = 0;
	}
	if (fake_dir[0]) {
		snprintf(cmd, sizeof cmd, "rm -rf %s", fake_dir);
		if (system(cmd) != 0)
			return -1;
		fake_dir[0] = '\0';
	}
	return 0;
}

/* Two requests against the fake server, each answered after 1500 ms: concurrent, not serial. */
static void chat_many_concurrent(void **st)
{
	char *dir, port[32] = "", path[256], url[128], err[200];
	struct llm_msg m1[] = {{"user", "first"}}, m2[] = {{"user", "second"}};
	struct llm_req reqs[2] = {{m1, 1, NULL, NULL}, {m2, 1, NULL, NULL}};
	struct llm_reply reps[2];
	enum err errs[2];
	struct timespec t0, t1;
	struct llm *l;
	pid_t pid;
	FILE *f;
	double ms;

	(void)st;
	if (access("tests/lib/fake_llm.py", R_OK) || system("python3 -c 1 >/dev/null 2>&1")) {
		skip();
		return;
	}
	snprintf(fake_dir, sizeof fake_dir, "/tmp/test_llm.XXXXXX");
	assert_non_null(dir = mkdtemp(fake_dir));
	snprintf(path, sizeof path, "%s/s.json", dir);
	f = fopen(path, "w");
	fputs("[{\"repeat\": true, \"delay_ms\": 1500, \"text\": \"pong\", \"usage\": {\"prompt_tokens\": 7, \"completion_tokens\": 1}}]", f);
	fclose(f);
	if ((pid = fork()) == 0) {
		char pf[256];

		prctl(PR_SET_PDEATHSIG, SIGTERM);   /* never outlive the test */
		snprintf(pf, sizeof pf, "%s/port", dir);
		execlp("python3", "python3", "tests/lib/fake_llm.py", "--script", path, "--port-file", pf, (char *)NULL);
		_exit(127);
	}
	fake_pid = pid;
	snprintf(path, sizeof path, "%s/port", dir);
	for (int i = 0; i < 100 && !(f = fopen(path, "r")); i++)
		usleep(50000);
	assert_non_null(f);
	assert_non_null(fgets(port, sizeof port, f));
	fclose(f);
	snprintf(url, sizeof url, "http://127.0.0.1:%s/v1/", port);
	conf_set("llm_base_url", url, "test");
	conf_set("llm_api_key", "sk-unit", "test");
	conf_set("llm_stream", "0", "test");
	assert_non_null(l = llm_open("openai", err, sizeof err));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(llm_chat_many(l, reqs, 2, reps, errs), OK);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (double)(t1.tv_sec - t0.tv_sec) * 1000 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	for (int i = 0; i < 2; i++) {
		assert_int_equal(errs[i], OK);
		assert_string_equal(reps[i].text, "pong");
		assert_int_equal(reps[i].tokens_in, 7);
		assert_int_equal(reps[i].attempts, 1);
		assert_int_equal(reps[i].http_status, 200);
		llm_reply_free(&reps[i]);
	}
	llm_close(l);
	if (ms >= 2900)
		print_error("two 1500 ms answers took %.0f ms: not concurrent\n", ms);
	assert_true(ms < 2900);   /* serial would be >= 3000 */
}

int main(void)
{
	const char *e;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sse_whole_and_split),
		cmocka_unit_test(backoff_schedule),
		cmocka_unit_test(redaction),
		cmocka_unit_test(providers),
		cmocka_unit_test(render),
		cmocka_unit_test_teardown(chat_many_concurrent, fake_teardown),
	};

	conf_load("/dev/null", &e);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
