/* test_decline_words.c: every decline reason the agent writes (read from the app/agent sources) has Korean in conf/i18n/ko.decline.tsv; matching, rendering, load errors. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "pages/decline_words.h"
#include "util/sb.h"

#define DIR "conf/i18n"
#define MAX_FMTS 512

/* ---- the formats, read from the C sources as they are at test time ---- */

struct fmts {
	char *v[MAX_FMTS];
	char *where[MAX_FMTS];
	int n;
};

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	long n;
	char *buf;

	if (!f)
		fail_msg("cannot open %s (run from the repository top)", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* blank_comments: comments become spaces (strings and character constants are kept) */
static void blank_comments(char *s)
{
	for (char *p = s; *p; p++) {
		if (*p == '"' || *p == '\'') {
			char q = *p;

			for (p++; *p && *p != q; p++)
				if (*p == '\\' && p[1])
					p++;
			if (!*p)
				return;
		} else if (p[0] == '/' && p[1] == '*') {
			for (; *p && !(p[0] == '*' && p[1] == '/'); p++)
				if (*p != '\n')
					*p = ' ';
			if (!*p)
				return;
			p[0] = p[1] = ' ';
			p++;
		} else if (p[0] == '/' && p[1] == '/') {
			for (; *p && *p != '\n'; p++)
				*p = ' ';
			if (!*p)
				return;
		}
	}
}

/* args: the arguments of the call whose '(' is at open, each a malloc'd trimmed copy; their
 * number (at most max) */
static int args(const char *open, char **out, int max)
{
	int n = 0, depth = 0;
	const char *a = open + 1;

	for (const char *p = open + 1; *p; p++) {
		if (*p == '"' || *p == '\'') {
			char q = *p;

			for (p++; *p && *p != q; p++)
				if (*p == '\\' && p[1])
					p++;
			continue;
		}
		if (*p == '(' || *p == '[' || *p == '{') {
			depth++;
		} else if ((*p == ')' || *p == ']' || *p == '}') && depth) {
			depth--;
		} else if ((*p == ',' && !depth) || *p == ')') {
			const char *e = p;

			while (*a == ' ' || *a == '\t' || *a == '\n')
				a++;
			while (e > a && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n'))
				e--;
			if (n < max)
				out[n++] = strndup(a, (size_t)(e - a));
			a = p + 1;
			if (*p == ')')
				return n;
		}
	}
	return n;
}

/* literal: the text of an argument made only of adjacent string literals ("a " "b"), malloc'd;
 * NULL when it is anything else */
static char *literal(const char *arg)
{
	struct sb s = SB_INIT;
	const char *p = arg;

	if (*p != '"')
		return NULL;
	while (*p) {
		if (*p == ' ' || *p == '\t' || *p == '\n') {
			p++;
			continue;
		}
		if (*p != '"') {
			sb_free(&s);
			return NULL;
		}
		for (p++; *p && *p != '"'; p++) {
			if (*p == '\\' && p[1]) {
				p++;
				sb_putc(&s, *p == 'n' ? '\n' : *p == 't' ? '\t' : *p);
			} else {
				sb_putc(&s, *p);
			}
		}
		if (*p)
			p++;
	}
	return sb_steal(&s);
}

/* printf_format: the format of an argument that is arena_printf(a, "...", ...), malloc'd, or NULL */
static char *printf_format(const char *arg)
{
	char *a[16];
	char *f = NULL;
	int n;

	if (strncmp(arg, "arena_printf(", 13))
		return NULL;
	n = args(arg + 12, a, 16);
	if (n >= 2)
		f = literal(a[1]);
	for (int i = 0; i < n; i++)
		free(a[i]);
	return f;
}

static void add(struct fmts *f, char *fmt, const char *path)
{
	for (int i = 0; i < f->n; i++)
		if (!strcmp(f->v[i], fmt)) {
			free(fmt);
			return;
		}
	assert_true(f->n < MAX_FMTS);
	f->where[f->n] = strdup(path);
	f->v[f->n++] = fmt;
}

/* A reason passed as a variable ("%s", why) is set by the function called with &why before:
 * its file's *why assignments are read. */
struct setter {
	char fn[64], var[32];
};

/* setter_of: the function that sets var before src + at ("planner_timeline(..., &why)") into st;
 * 0 when there is none */
static int setter_of(const char *src, size_t at, const char *var, struct setter *st)
{
	char amp[40];
	const char *hit = NULL, *p, *e;
	int depth = 0;

	snprintf(amp, sizeof amp, "&%s)", var);
	for (p = src; (p = strstr(p, amp)) && (size_t)(p - src) < at; p++)
		hit = p;
	if (!hit)
		return 0;
	/* back to the call's own '(' and the name before it */
	for (p = hit; p > src; p--) {
		if (*p == ')')
			depth++;
		else if (*p == '(' && depth-- == 0)
			break;
	}
	for (e = p; p > src && (p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= '0' && p[-1] <= '9')); p--)
		;
	if (e == p || (size_t)(e - p) >= sizeof st->fn)
		return 0;
	snprintf(st->fn, sizeof st->fn, "%.*s", (int)(e - p), p);
	snprintf(st->var, sizeof st->var, "%s", var);
	return 1;
}

/* defines: src holds the definition of fn (at a line's start: "int fn(") */
static int defines(const char *src, const char *fn)
{
	size_t n = strlen(fn);

	for (const char *p = src; (p = strstr(p, fn)); p++) {
		const char *l = p;

		while (l > src && l[-1] != '\n')
			l--;
		if (p[n] == '(' && p > l && (p[-1] == ' ' || p[-1] == '*') && *l != ' ' && *l != '\t' &&
		    !memchr(l, ';', (size_t)(p - l)) && !memchr(l, '=', (size_t)(p - l)) && !memchr(l, '(', (size_t)(p - l)))
			return 1;
	}
	return 0;
}

/* assignments: every "*var = ..." of src (a literal or arena_printf(a, "...")) */
static void assignments(const char *src, const char *var, const char *path, struct fmts *f)
{
	char pat[40];

	snprintf(pat, sizeof pat, "*%s = ", var);
	for (const char *p = src; (p = strstr(p, pat)); p++) {
		const char *q = p + strlen(pat), *semi = strchr(q, ';');
		char *fmt;

		assert_non_null(semi);
		if (!strncmp(q, "NULL;", 5))
			continue;   /* cleared at the start */
		if (*q == '"') {
			char *lit = strndup(q, (size_t)(semi - q));

			fmt = literal(lit);
			free(lit);
		} else {
			fmt = printf_format(q);
		}
		if (!fmt)
			fail_msg("%s: *%s set to something other than a literal or arena_printf(a, \"...\"): %.40s",
			         path, var, q);
		add(f, fmt, path);
	}
}

/* one file: pf_decline calls, the agent's "...: %s" around a missing; setters of variable
 * reasons are added to st */
static void scan(const char *path, const char *src, struct fmts *f, struct setter *st, int *nst)
{
	for (const char *p = src; (p = strstr(p, "pf_decline(")); p++) {
		char *a[8], *fmt;
		int n;

		/* the definition */
		if (p - src >= 4 && !strncmp(p - 4, "int ", 4))
			continue;
		n = args(p + strlen("pf_decline"), a, 8);
		if (n != 3)
			fail_msg("%s: a pf_decline call with %d arguments", path, n);
		if (!(fmt = literal(a[1])))
			fail_msg("%s: a pf_decline format that is not a string literal: %s", path, a[1]);
		if (!strcmp(fmt, "%s")) {
			free(fmt);
			fmt = literal(a[2]);
			if (!fmt)
				fmt = printf_format(a[2]);
			if (!fmt) {
				if (*nst >= 16 || !setter_of(src, (size_t)(p - src), a[2], &st[*nst]))
					fail_msg("%s: pf_decline(p, \"%%s\", %s): cannot tell its text", path, a[2]);
				++*nst;
			}
		}
		if (fmt)
			add(f, fmt, path);
		for (int i = 0; i < n; i++)
			free(a[i]);
	}
	for (const char *p = src; (p = strstr(p, "sb_printf(&m, ")); p++) {
		char *a[8], *fmt;
		int n = args(p + strlen("sb_printf"), a, 8), missing = 0;

		for (int i = 2; i < n; i++)
			missing |= strstr(a[i], "missing") != NULL;
		if (missing && (fmt = literal(a[1])))
			add(f, fmt, path);
		for (int i = 0; i < n; i++)
			free(a[i]);
	}
}

static void read_formats(struct fmts *f)
{
	glob_t g;
	char *src[128];
	struct setter st[16];
	int nst = 0;

	memset(f, 0, sizeof *f);
	assert_int_equal(glob("app/agent/*.c", 0, NULL, &g), 0);
	assert_true(g.gl_pathc < 128);
	for (size_t k = 0; k < g.gl_pathc; k++) {
		src[k] = slurp(g.gl_pathv[k]);
		blank_comments(src[k]);
		scan(g.gl_pathv[k], src[k], f, st, &nst);
	}
	for (int i = 0; i < nst; i++) {
		int found = 0;

		for (size_t k = 0; k < g.gl_pathc; k++)
			if (defines(src[k], st[i].fn)) {
				assignments(src[k], st[i].var, g.gl_pathv[k], f);
				found = 1;
			}
		if (!found)
			fail_msg("the function %s, which sets a decline reason, is not defined in app/agent", st[i].fn);
	}
	for (size_t k = 0; k < g.gl_pathc; k++)
		free(src[k]);
	globfree(&g);
}

static void free_formats(struct fmts *f)
{
	for (int i = 0; i < f->n; i++) {
		free(f->v[i]);
		free(f->where[i]);
	}
}

/* sample: fmt with its arguments filled (%s "ARG1", "ARG2"..., %d 3, %.2f 0.42) */
static char *sample(const char *fmt)
{
	struct sb s = SB_INIT;
	int k = 0;

	for (const char *p = fmt; *p; p++) {
		if (*p != '%') {
			sb_putc(&s, *p);
			continue;
		}
		p++;
		if (*p == '%') {
			sb_putc(&s, '%');
			continue;
		}
		while (*p == '.' || *p == 'l' || (*p >= '0' && *p <= '9'))
			p++;
		k++;
		if (*p == 's')
			sb_printf(&s, "ARG%d", k);
		else if (*p == 'd')
			sb_puts(&s, "3");
		else
			sb_puts(&s, "0.42");
	}
	return sb_steal(&s);
}

static char *say(const char *lang, const char *text)
{
	struct sb s = SB_INIT;

	decline_words(lang, text, &s);
	return sb_steal(&s);
}

static int setup(void **state)
{
	char err[256] = "";

	if (decline_words_load(DIR, err, sizeof err) != OK)
		fail_msg("%s", err);
	return 0;
}

static int teardown(void **state)
{
	decline_words_free();
	return 0;
}

/* the test the issue asks for: a new decline without Korean fails here */
static void test_every_format_has_korean(void **state)
{
	struct fmts f;
	struct sb missing = SB_INIT;
	int nmiss = 0, decl = 0;

	read_formats(&f);
	/* the reader found the planner's reasons (about 80) and the agent's prefixes */
	assert_true(f.n >= 60);
	for (int i = 0; i < f.n; i++) {
		char *text, *ko;

		decl += !strcmp(f.v[i], "cannot answer from this database: %s");
		if (!decline_words_has("ko", f.v[i])) {
			sb_printf(&missing, "\n  %s: %s", f.where[i], f.v[i]);
			nmiss++;
			continue;
		}
		/* and the sentence is recognised: a sample with its arguments filled in ("ARG1") reads
		 * as Korean, no lower-case English left */
		text = sample(f.v[i]);
		ko = say("ko", text);
		if (!strcmp(ko, text))
			fail_msg("not recognised: %s", text);
		for (const char *p = ko; *p; p++)
			if (*p >= 'a' && *p <= 'z')
				fail_msg("English left in the Korean of '%s': %s", f.v[i], ko);
		free(text);
		free(ko);
	}
	assert_int_equal(decl, 1);
	if (nmiss)
		fail_msg("%d decline reason(s) without Korean in %s/ko.decline.tsv:%s", nmiss, DIR, sb_cstr(&missing));
	sb_free(&missing);
	free_formats(&f);
}

static void expect(const char *lang, const char *text, const char *want)
{
	char *got = say(lang, text);

	if (strcmp(got, want))
		fail_msg("\n  text: %s\n  want: %s\n  got:  %s", text, want, got);
	free(got);
}

static void test_translate(void **state)
{
	const char *issue = "cannot answer from this database: could not link '다음', 'xyz' to any table, column or "
	                    "stored value. Found: '열의' -> fever";

	expect("ko", issue, "이 데이터베이스로는 답할 수 없습니다: '다음', 'xyz'에 해당하는 테이블, 컬럼, 저장된 값을 "
	       "찾지 못했습니다. 찾은 것: '열의' → fever");
	/* the executor's memory gate (issue 27) */
	expect("ko", "refused before it ran: array_agg would collect about 60,000,000 rows in the memory of one database "
	       "process, more than exec_max_agg_rows (10,000,000) allows; count, sum or average them instead, or narrow "
	       "the rows", "실행하기 전에 거절했습니다: array_agg이(가) 약 60,000,000개 행을 데이터베이스 프로세스 하나의 "
	       "메모리에 모으게 되어 exec_max_agg_rows(10,000,000)를 넘습니다. 대신 개수·합계·평균을 구하거나 행을 좁혀 주세요");
	/* English, and a language without a table, as stored */
	expect("en", issue, issue);
	expect("xx", issue, issue);
	expect(NULL, issue, issue);
	/* the reason alone (the planner step's "missing"), several found items */
	expect("ko", "too many joins. Found: 'lactate' -> lab.name, '수술' -> surgery",
	       "조인이 너무 많습니다. 찾은 것: 'lactate' → lab.name, '수술' → surgery");
	/* numbers, and arguments put in another order than the English */
	expect("ko", "the planner is not sure what 'bp' means here (link score 0.41 below 0.50)",
	       "플래너가 여기서 'bp'이(가) 무엇을 뜻하는지 확신하지 못합니다 (연결 점수 0.41, 기준 0.50 미만)");
	expect("ko", "no working SQL after 2 attempts; the planner has no other SQL: too many joins",
	       "2번 시도했지만 실행되는 SQL이 없고, 플래너가 만들 수 있는 다른 SQL도 없습니다: 조인이 너무 많습니다");
	expect("ko", "no working SQL after 1 attempt; the planner has no other SQL: no question shape fits",
	       "1번 시도했지만 실행되는 SQL이 없고, 플래너가 만들 수 있는 다른 SQL도 없습니다: 맞는 질문 형태가 없습니다");
	expect("ko", "'a' and 'b' are two values of visit.kind; whether one or both is meant could not be told",
	       "'a', 'b' 모두 visit.kind의 값이라, 둘 중 하나를 뜻하는지 둘 다를 뜻하는지 알 수 없습니다");
	/* a reason inside a reason; a database error inside is shown as written */
	expect("ko", "the same SQL already failed: it returned no rows", "같은 SQL이 이미 실패했습니다: 결과 행이 없었습니다");
	expect("ko", "the same SQL already failed: 42P01: relation \"x\" does not exist",
	       "같은 SQL이 이미 실패했습니다: 42P01: relation \"x\" does not exist");
	/* a prefix around a reason nobody knows: the prefix in Korean, the rest as written */
	expect("ko", "cannot answer from this database: the moon is not in the catalog",
	       "이 데이터베이스로는 답할 수 없습니다: the moon is not in the catalog");
	/* nothing known: as written, never half-translated */
	expect("ko", "57014: canceling statement due to statement timeout",
	       "57014: canceling statement due to statement timeout");
	expect("ko", "", "");
	expect("ko", "too many joins, really", "too many joins, really");
	expect("ko", "could not link 'x' to any table", "could not link 'x' to any table");
	/* the question's words may hold the tail's marker or the list's separator */
	expect("ko", "could not link 'a. Found: b' to any table, column or stored value. Found: 'c, 'd' -> t.x, 'e' -> u",
	       "'a. Found: b'에 해당하는 테이블, 컬럼, 저장된 값을 찾지 못했습니다. 찾은 것: 'c, 'd' → t.x, 'e' → u");
	/* a tail that is not a list of items is part of the text */
	expect("ko", "too many joins. Found: nothing", "too many joins. Found: nothing");
	/* a %d takes digits only */
	expect("ko", "no working SQL after two attempts; the planner has no other SQL: too many joins",
	       "no working SQL after two attempts; the planner has no other SQL: too many joins");
	{
		struct sb s = SB_INIT;

		decline_words("ko", NULL, &s);
		assert_int_equal(s.len, 0);
		sb_free(&s);
	}
	assert_true(decline_words_has("ko", "too many joins"));
	assert_false(decline_words_has("ko", "too many joins!"));
	assert_false(decline_words_has("en", "too many joins"));
}

/* put: write text as <dir>/ko.decline.tsv */
static void put(const char *dir, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof path, "%s/ko.decline.tsv", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_load_errors(void **state)
{
	char dir[] = "/tmp/askql-decline-XXXXXX", err[256], path[300];
	static const char *const bad[] = {
		"reason\tonly two fields\n",
		"reason\ta\tb\tc\n",
		"reason\t%x marks\tx {1}\n",
		"reason\tone %s\t{2}\n",
		"reason\tone %s\t{0}\n",
		"reason\tone %s\t{1:other}\n",
		"reason\tsame\t하나\nreason\tsame\t둘\n",
		"sentence\ta\tb\n",
		"found\tFound\t찾은 것\n",
		"found\t. Found: %s\t찾은 것\n",
		"found\t. Found: %s\t{1}\nfound\t. Seen: %s\t{1}\n",
		"item\t%s -> %s\t{1}\nitem\t%s => %s\t{1}\n",
		"reason\t\t빈 영어\n",
	};

	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		put(dir, bad[i]);
		err[0] = '\0';
		if (decline_words_load(dir, err, sizeof err) != ERR_PARSE)
			fail_msg("accepted: %s", bad[i]);
		assert_non_null(strstr(err, "ko.decline.tsv:"));
		/* the tables loaded before stay */
		assert_true(decline_words_has("ko", "too many joins"));
	}
	/* comments, blank lines, CRLF; a placeholder used twice or not at all */
	put(dir, "# a test\n\r\nreason\ttoo %d joins of %s\t{2}: 조인 {1}개, 다시 {2}\r\nreason\tcalm %s\t조용함\n");
	assert_int_equal(decline_words_load(dir, err, sizeof err), OK);
	expect("ko", "too 12 joins of lab", "lab: 조인 12개, 다시 lab");
	expect("ko", "calm sea", "조용함");
	/* without a file the language shows English */
	snprintf(path, sizeof path, "%s/ko.decline.tsv", dir);
	unlink(path);
	assert_int_equal(decline_words_load(dir, err, sizeof err), OK);
	expect("ko", "too many joins", "too many joins");
	assert_false(decline_words_has("ko", "too many joins"));
	rmdir(dir);
	assert_int_equal(decline_words_load(DIR, err, sizeof err), OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_format_has_korean),
		cmocka_unit_test(test_translate),
		cmocka_unit_test(test_load_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
