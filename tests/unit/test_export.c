/* test_export.c: CSV quoting, JSON escaping, NDJSON lines, XLSX contents, no half files, file names. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "export/export_impl.h"
#include "util/conf.h"
#include "util/sb.h"

static int have_db;
static char tmpdir[] = "/tmp/askql_test_export.XXXXXX";

static enum err mem_write(void *ctx, const char *p, size_t n)
{
	sb_append(ctx, p, n);
	return OK;
}

/* Drive a format's sink by hand, as exec_run would, into a string. */
struct fake {
	struct export_opts o;
	struct export_stats st;
	struct export_out out;
	struct sb sb;
	struct exp e;
};

static void fake_init(struct fake *f, enum export_format fmt, const char *sql)
{
	memset(f, 0, sizeof *f);
	f->o.format = fmt;
	f->o.question = "how many \"rows\"?";
	f->out.write = mem_write;
	f->out.ctx = &f->sb;
	f->e.o = &f->o;
	f->e.out = &f->out;
	f->e.sql = sql;
	f->e.st = &f->st;
	f->e.buf = malloc(EXP_BUF);
	f->e.cap = EXP_BUF;
}

static void fake_done(struct fake *f)
{
	if (f->o.format == EXPORT_JSON || f->o.format == EXPORT_NDJSON)
		json_cleanup(&f->e);
	free(f->e.buf);
	sb_free(&f->sb);
}

static const struct exec_col cols3[] = {
	{"id", 23, 1, 0, 0},
	{"note, \"quoted\"", 25, 0, 0, 0},
	{"ok", 16, 0, 0, 1},
};

static void row3(struct fake *f, enum err (*row)(void *, const char *const *, const int *, int),
                 const char *a, const char *b, const char *c)
{
	const char *v[3] = {a, b, c};
	int l[3] = {a ? (int)strlen(a) : 0, b ? (int)strlen(b) : 0, c ? (int)strlen(c) : 0};

	assert_int_equal(row(&f->e, v, l, 3), OK);
}

static void test_csv_quoting(void **state)
{
	struct fake f;

	fake_init(&f, EXPORT_CSV, "SELECT 1");
	f.o.bom = 1;
	assert_int_equal(csv_begin(&f.e, cols3, 3), OK);
	row3(&f, csv_row, "1", "plain", "t");
	row3(&f, csv_row, "2", "a,b", "f");
	row3(&f, csv_row, "3", "say \"hi\"", NULL);
	row3(&f, csv_row, "4", "line1\nline2", "t");
	row3(&f, csv_row, "5", "cr\rhere", "t");
	row3(&f, csv_row, "6", "", "t");          /* empty string: "" */
	row3(&f, csv_row, NULL, NULL, NULL);      /* NULLs: empty fields */
	row3(&f, csv_row, "8", "한글 é", "t");    /* UTF-8 untouched */
	row3(&f, csv_row, "9", "a;b", "t");       /* issue 27: a semicolon or a tab is quoted too */
	row3(&f, csv_row, "10", "a\tb", "t;");
	assert_int_equal(csv_end(&f.e, 10, 0), OK);
	assert_int_equal(exp_flush(&f.e), OK);
	assert_string_equal(sb_cstr(&f.sb),
	                    "\xEF\xBB\xBF"
	                    "id,\"note, \"\"quoted\"\"\",ok\r\n"
	                    "1,plain,t\r\n"
	                    "2,\"a,b\",f\r\n"
	                    "3,\"say \"\"hi\"\"\",\r\n"
	                    "4,\"line1\nline2\",t\r\n"
	                    "5,\"cr\rhere\",t\r\n"
	                    "6,\"\",t\r\n"
	                    ",,\r\n"
	                    "8,한글 é,t\r\n"
	                    "9,\"a;b\",t\r\n"
	                    "10,\"a\tb\",\"t;\"\r\n");
	assert_int_equal(f.st.rows, 10);
	fake_done(&f);
}

static void test_csv_big_value(void **state)
{
	struct fake f;
	size_t n = 3 * EXP_BUF;
	char *big = malloc(n + 1);

	/* a value larger than the buffer, all quotes: doubled, nothing lost */
	memset(big, '"', n);
	big[n] = '\0';
	fake_init(&f, EXPORT_CSV, "SELECT 1");
	assert_int_equal(csv_begin(&f.e, cols3, 3), OK);
	row3(&f, csv_row, "1", big, "t");
	assert_int_equal(exp_flush(&f.e), OK);
	assert_int_equal(f.sb.len, strlen("id,\"note, \"\"quoted\"\"\",ok\r\n") + 2 + 2 * n + 2 + 4);
	free(big);
	fake_done(&f);
}

static void test_csv_formula_escape(void **state)
{
	static const struct exec_col cols[] = {
		{"=name", 25, 0, 0, 0},
		{"n", 1700, 1, 0, 0},
	};
	static const char *const cells[][2] = {
		/* text cell, numeric cell, expected line */
		{"=1+2", "-5"}, {"+SUM(A1)", "-1.5e3"}, {"-2+3", "+7"}, {"@cmd", "0"},
		{"\t=x", "1"}, {"\r=x", "2"}, {"-5", "3"}, {"+1.25", "4"}, {"-1e5", "5"},
		{"a=b", "6"}, {"=\"q\",x", "7"}, {"-", "8"}, {"", "9"},
		/* issue 27: a formula after a separator a spreadsheet may guess stays inside one quoted cell */
		{"x;=HYPERLINK(A2)", "10"}, {"x\t=1+2", "11"},
		/* and one read with ';' or a tab as the separator: each part after one that could run gets ' */
		{"a;-5;b", "12"}, {"=a;=b\t@c", "13"}, {";", "14"}, {"a;\t=b", "15"},
	};
	const char *want =
		"'=name,n\r\n"
		"'=1+2,-5\r\n"
		"'+SUM(A1),-1.5e3\r\n"
		"'-2+3,+7\r\n"
		"'@cmd,0\r\n"
		"\"'\t'=x\",1\r\n"
		"\"'\r=x\",2\r\n"
		"-5,3\r\n"
		"+1.25,4\r\n"
		"-1e5,5\r\n"
		"a=b,6\r\n"
		"\"'=\"\"q\"\",x\",7\r\n"
		"'-,8\r\n"
		"\"\",9\r\n"
		"\"x;'=HYPERLINK(A2)\",10\r\n"
		"\"x\t'=1+2\",11\r\n"
		"\"a;-5;b\",12\r\n"
		"\"'=a;'=b\t'@c\",13\r\n"
		"\";\",14\r\n"
		"\"a;\t'=b\",15\r\n";
	struct fake f;

	for (int escape = 0; escape < 2; escape++) {
		fake_init(&f, EXPORT_CSV, "SELECT 1");
		f.o.escape_formulas = escape;
		assert_int_equal(csv_begin(&f.e, cols, 2), OK);
		for (size_t i = 0; i < sizeof cells / sizeof cells[0]; i++) {
			int l[2] = {(int)strlen(cells[i][0]), (int)strlen(cells[i][1])};

			assert_int_equal(csv_row(&f.e, cells[i], l, 2), OK);
		}
		assert_int_equal(exp_flush(&f.e), OK);
		if (escape) {
			assert_string_equal(sb_cstr(&f.sb), want);
		} else {
			/* off (the CLI's default): the values as the database holds them */
			assert_non_null(strstr(sb_cstr(&f.sb), "=name,n\r\n=1+2,-5\r\n+SUM(A1),-1.5e3\r\n"));
			assert_null(strchr(sb_cstr(&f.sb), '\''));
		}
		fake_done(&f);
	}
}

static void test_json_escaping(void **state)
{
	struct fake f;
	const struct exec_col cols[] = {
		{"n", 1700, 1, 0, 0}, {"s", 25, 0, 0, 0}, {"b", 16, 0, 0, 1}, {"j", 3802, 0, 0, 0}, {"d", 701, 1, 0, 0},
	};
	const char *v1[] = {"1.50", "tab\there \"q\" back\\slash \x01 ctl 한글\n", "t", "{\"k\": [1, 2]}", "NaN"};
	const char *v2[] = {NULL, NULL, NULL, NULL, "-Infinity"};
	int l1[5], l2[5] = {0, 0, 0, 0, 9};
	cJSON *doc, *rows, *r0;

	for (int i = 0; i < 5; i++)
		l1[i] = (int)strlen(v1[i]);
	fake_init(&f, EXPORT_JSON, "SELECT 'x' -- \"quoted\"");
	assert_int_equal(json_begin(&f.e, cols, 5), OK);
	assert_int_equal(json_row(&f.e, v1, l1, 5), OK);
	assert_int_equal(json_row(&f.e, v2, l2, 5), OK);
	assert_int_equal(json_end(&f.e, 2, 1), OK);
	assert_int_equal(exp_flush(&f.e), OK);
	doc = cJSON_Parse(sb_cstr(&f.sb));
	assert_non_null(doc);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "provenance"), "question")->valuestring,
	                    "how many \"rows\"?");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "provenance"), "sql")->valuestring,
	                    "SELECT 'x' -- \"quoted\"");
	rows = cJSON_GetObjectItem(doc, "rows");
	assert_int_equal(cJSON_GetArraySize(rows), 2);
	r0 = cJSON_GetArrayItem(rows, 0);
	assert_true(cJSON_IsNumber(cJSON_GetObjectItem(r0, "n")));
	assert_string_equal(cJSON_GetObjectItem(r0, "s")->valuestring, v1[1]);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(r0, "b")));
	assert_true(cJSON_IsArray(cJSON_GetObjectItem(cJSON_GetObjectItem(r0, "j"), "k")));
	assert_string_equal(cJSON_GetObjectItem(r0, "d")->valuestring, "NaN");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 1), "n")));
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "summary"), "row_count")->valueint, 2);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "summary"), "truncated")));
	cJSON_Delete(doc);
	fake_done(&f);
}

static void test_ndjson_lines(void **state)
{
	struct fake f;
	char *copy, *line, *save = NULL;
	int n = 0;

	fake_init(&f, EXPORT_NDJSON, "SELECT 1");
	assert_int_equal(json_begin(&f.e, cols3, 3), OK);
	row3(&f, json_row, "1", "a\nb", "t");
	row3(&f, json_row, "2", NULL, "f");
	assert_int_equal(json_end(&f.e, 2, 0), OK);
	assert_int_equal(exp_flush(&f.e), OK);
	copy = strdup(sb_cstr(&f.sb));
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save), n++) {
		cJSON *d = cJSON_Parse(line);

		assert_non_null(d);
		if (n == 0)
			assert_non_null(cJSON_GetObjectItem(d, "provenance"));
		if (n == 3)
			assert_non_null(cJSON_GetObjectItem(d, "summary"));
		cJSON_Delete(d);
	}
	assert_int_equal(n, 4);   /* header, two rows, summary */
	free(copy);
	fake_done(&f);
}

static void test_filename(void **state)
{
	char buf[64];
	struct tm tm = {.tm_year = 123, .tm_mon = 11, .tm_mday = 23, .tm_hour = 14, .tm_min = 30, .tm_sec = 52,
	                .tm_isdst = -1};
	enum export_format f;

	export_filename(EXPORT_CSV, mktime(&tm), buf, sizeof buf);
	assert_string_equal(buf, "extraction_20231223_143052.csv");
	assert_int_equal(export_format_parse("XLSX", &f), OK);
	assert_int_equal(f, EXPORT_XLSX);
	assert_int_equal(export_format_parse("pdf", &f), ERR_INPUT);
}

/* count_entries: files in dir (the temp files a failed export must not leave). */
static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.' || strstr(de->d_name, ".tmp.") != NULL;
	if (d)
		closedir(d);
	return n;
}

static char *sh(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	struct sb sb = SB_INIT;
	char buf[4096];
	size_t n;

	while (p && (n = fread(buf, 1, sizeof buf, p)) > 0)
		sb_append(&sb, buf, n);
	if (p)
		pclose(p);
	return sb_steal(&sb);
}

static void test_xlsx_file(void **state)
{
	struct export_opts o = {.format = EXPORT_XLSX, .question = "vitals <&> more"};
	struct export_stats st;
	struct exec_error e = {0};
	char path[256], cmd[512], err[512], *x;

	if (!have_db)
		skip();
	snprintf(path, sizeof path, "%s/out.xlsx", tmpdir);
	assert_int_equal(export_file("SELECT g AS n, g * 1.5 AS x, 'r' || g AS label, "
	                             "date '2024-01-01' + g AS d, timestamp '2024-01-01' + g * interval '1 hour' AS ts, "
	                             "g % 2 = 0 AS even FROM generate_series(1, 3) g",
	                             &o, path, &st, &e, err, sizeof err), OK);
	assert_int_equal(st.rows, 3);
	snprintf(cmd, sizeof cmd, "unzip -p %s xl/worksheets/sheet1.xml", path);
	x = sh(cmd);
	assert_non_null(strstr(x, "state=\"frozen\""));                          /* frozen header */
	assert_non_null(strstr(x, "<c r=\"A1\" s=\"1\" t=\"inlineStr\"><is><t>n</t>"));  /* bold header */
	assert_non_null(strstr(x, "<c r=\"A2\"><v>1</v></c><c r=\"B2\"><v>1.5</v></c>"));  /* numbers */
	assert_non_null(strstr(x, "<c r=\"C2\" t=\"inlineStr\"><is><t>r1</t>"));          /* text */
	assert_non_null(strstr(x, "<v>45293</v>"));                              /* 2024-01-02 as a date */
	assert_non_null(strstr(x, "<v>45292.04166666666</v>"));                  /* 01:00 as a datetime */
	assert_non_null(strstr(x, "t=\"b\"><v>0</v>"));                          /* boolean */
	assert_non_null(strstr(x, "<col min=\"1\" max=\"1\""));                  /* widths */
	free(x);
	snprintf(cmd, sizeof cmd, "unzip -p %s xl/worksheets/sheet2.xml", path);
	x = sh(cmd);
	assert_non_null(strstr(x, "vitals &lt;&amp;&gt; more"));
	assert_non_null(strstr(x, "generate_series(1, 3)"));
	assert_non_null(strstr(x, "truncated"));
	free(x);
	snprintf(cmd, sizeof cmd, "unzip -p %s xl/workbook.xml", path);
	x = sh(cmd);
	assert_non_null(strstr(x, "name=\"provenance\""));
	free(x);
	unlink(path);
}

static void test_failed_export_leaves_nothing(void **state)
{
	struct export_opts o = {.format = EXPORT_CSV, .chunk_rows = 100};
	struct export_stats st;
	struct exec_error e = {0};
	char path[256], err[512];
	struct stat sb;
	int before = count_entries(tmpdir);

	if (!have_db)
		skip();
	/* fails at row 500, after several chunks were written to the temp file */
	snprintf(path, sizeof path, "%s/half.csv", tmpdir);
	assert_int_equal(export_file("SELECT 1 / (g - 500) AS x FROM generate_series(1, 1000) g", &o, path, &st, &e,
	                             err, sizeof err), ERR_DB);
	assert_true(st.rows > 0);
	assert_string_equal(e.sqlstate, "22012");
	assert_non_null(strstr(err, "division by zero"));
	assert_int_not_equal(stat(path, &sb), 0);
	assert_int_equal(count_entries(tmpdir), before);
	/* the same for XLSX */
	o.format = EXPORT_XLSX;
	snprintf(path, sizeof path, "%s/half.xlsx", tmpdir);
	assert_int_equal(export_file("SELECT 1 / (g - 500) AS x FROM generate_series(1, 1000) g", &o, path, &st, &e,
	                             err, sizeof err), ERR_DB);
	assert_int_not_equal(stat(path, &sb), 0);
	assert_int_equal(count_entries(tmpdir), before);
	/* refused by the guard: nothing either */
	o.format = EXPORT_CSV;
	assert_int_equal(export_file("DROP TABLE vital_data_table", &o, path, &st, &e, err, sizeof err), ERR_DENIED);
	assert_int_equal(count_entries(tmpdir), before);
	/* a directory that is not there: a clear message, before any query */
	assert_int_equal(export_file("SELECT 1", &o, "/nonexistent/dir/x.csv", &st, &e, err, sizeof err), ERR_IO);
	assert_non_null(strstr(err, "/nonexistent/dir"));
	exec_error_free(&e);
}

static void test_export_run_stream(void **state)
{
	struct export_opts o = {.format = EXPORT_CSV, .max_rows = 5};
	struct export_stats st;
	struct exec_error e = {0};
	struct sb sb = SB_INIT;
	struct export_out out = {mem_write, &sb};

	if (!have_db)
		skip();
	assert_int_equal(export_run("SELECT g FROM generate_series(1, 10) g", &o, &out, &st, &e), OK);
	assert_string_equal(sb_cstr(&sb), "g\r\n1\r\n2\r\n3\r\n4\r\n5\r\n");
	assert_int_equal(st.truncated, 1);
	assert_int_equal(st.bytes_out, sb.len);
	/* an error in the statement itself: nothing was sent, so the caller can send an error page */
	sb_reset(&sb);
	assert_int_equal(export_run("SELECT nosuch FROM vital_data_table", &o, &out, &st, &e), ERR_DB);
	assert_int_equal(st.bytes_out, 0);
	/* XLSX over a stream: a complete zip */
	sb_reset(&sb);
	o.format = EXPORT_XLSX;
	o.tmpdir = tmpdir;
	assert_int_equal(export_run("SELECT g FROM generate_series(1, 10) g", &o, &out, &st, &e), OK);
	assert_true(sb.len > 1000);
	assert_memory_equal(sb.buf, "PK\x03\x04", 4);
	sb_free(&sb);
	exec_error_free(&e);
}

static int setup(void **state)
{
	const char *msg;

	assert_non_null(mkdtemp(tmpdir));
	if (getenv("ASKQL_CONF") && conf_load(NULL, &msg) == OK) {
		char err[256];
		PGconn *c = exec_pool_get(NULL, err, sizeof err);

		have_db = c != NULL;
		exec_pool_put(c, 0);
	}
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	exec_pool_close();
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv_quoting),
		cmocka_unit_test(test_csv_big_value),
		cmocka_unit_test(test_csv_formula_escape),
		cmocka_unit_test(test_json_escaping),
		cmocka_unit_test(test_ndjson_lines),
		cmocka_unit_test(test_filename),
		cmocka_unit_test(test_xlsx_file),
		cmocka_unit_test(test_failed_export_leaves_nothing),
		cmocka_unit_test(test_export_run_stream),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
