/* test_http.c: request parsing (urlencoded, cookies, multipart, UTF-8), local redirect targets, SQL highlighting and chart escaping. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "http/http.h"
#include "pages/chart.h"
#include "pages/sqlfmt.h"
#include "util/arena.h"

static void test_utf8(void **st)
{
	(void)st;
	assert_true(req_utf8_ok("abc", 3));
	assert_true(req_utf8_ok("한글", strlen("한글")));
	assert_true(req_utf8_ok("\xf0\x9f\x98\x80", 4));        /* emoji */
	assert_false(req_utf8_ok("\xc3\x28", 2));               /* bad continuation */
	assert_false(req_utf8_ok("\xc0\xaf", 2));               /* overlong '/' */
	assert_false(req_utf8_ok("\xed\xa0\x80", 3));           /* surrogate */
	assert_false(req_utf8_ok("\xf4\x90\x80\x80", 4));       /* past U+10FFFF */
	assert_false(req_utf8_ok("a\0b", 3));                   /* NUL */
	assert_false(req_utf8_ok("\xe2\x82", 2));               /* truncated */
}

/* next= values after form decoding: which ones a redirect may follow (docs/auth.md) */
static void test_local_path(void **st)
{
	static const char *const yes[] = {"/", "/history", "/runs/12?page=2&sort=1", "/history?q=a%2Fb",
	                                  "/admin/users#x", "/%41bc", "/~x", "/x%25y", "/x%C3%A9", NULL};
	static const char *const no[] = {"", "history", "//evil.example", "/\\evil.example",
	                                 "/\t/127.0.0.1:9999/x", "\t//evil", " /x", "/ /x", "/x y", "/x\ny", "/x\ry",
	                                 "/x\x7fy", "/x\x01y", "/%09/evil", "/%2F/evil", "/%2fevil", "/%5Cevil",
	                                 "/%5c/evil", "/%20/evil", "/%25/evil", "/x%09y", "/x%0Ay", "/x%20y",
	                                 "/x%5Cy", "/x%7Fy", "/x%", "/x%4", "/x%zz", "/?q=1", "/#top",
	                                 "/\xe3\x80\x80/evil", "/x\xc2\xa0y", "https://evil.example/",
	                                 "javascript:alert(1)", "/x\\y", NULL};

	(void)st;
	for (int i = 0; yes[i]; i++)
		if (!resp_local_path(yes[i]))
			fail_msg("refused a local path: %s", yes[i]);
	assert_false(resp_local_path(NULL));
	for (int i = 0; no[i]; i++)
		if (resp_local_path(no[i]))
			fail_msg("accepted: %s", no[i]);
}

static void test_urlencoded(void **st)
{
	struct arena a = {0};
	struct kv *kv = NULL;
	int n = 0;
	const char *s = "q=heart+rate%20%ED%95%9C&empty=&flag&x=1%3D2;y=3";

	(void)st;
	assert_int_equal(req_parse_urlencoded(&a, s, strlen(s), &kv, &n, 16), OK);
	assert_int_equal(n, 5);
	assert_string_equal(kv[0].key, "q");
	assert_string_equal(kv[0].val, "heart rate \xed\x95\x9c");
	assert_string_equal(kv[1].val, "");
	assert_string_equal(kv[2].key, "flag");
	assert_string_equal(kv[3].val, "1=2");
	assert_string_equal(kv[4].key, "y");
	n = 0;
	kv = NULL;
	assert_int_equal(req_parse_urlencoded(&a, "a=%zz", 5, &kv, &n, 16), ERR_INPUT);
	assert_int_equal(req_parse_urlencoded(&a, "a=%4", 4, &kv, &n, 16), ERR_INPUT);
	assert_int_equal(req_parse_urlencoded(&a, "a=%FF", 5, &kv, &n, 16), ERR_INPUT);
	assert_int_equal(req_parse_urlencoded(&a, "a=%00", 5, &kv, &n, 16), ERR_INPUT);
	n = 0;
	assert_int_equal(req_parse_urlencoded(&a, "a=1&b=2&c=3", 11, &kv, &n, 2), ERR_LIMIT);
	arena_free(&a);
}

static void test_cookies(void **st)
{
	struct arena a = {0};
	struct kv *kv = NULL;
	int n = 0;

	(void)st;
	assert_int_equal(req_parse_cookies(&a, "askql_sid=abc; askql_lang=en;bad; =x; z=", &kv, &n), OK);
	assert_int_equal(n, 3);
	assert_string_equal(kv[0].key, "askql_sid");
	assert_string_equal(kv[0].val, "abc");
	assert_string_equal(kv[1].val, "en");
	assert_string_equal(kv[2].key, "z");
	arena_free(&a);
}

static void test_multipart(void **st)
{
	struct arena a = {0};
	struct kv *kv = NULL;
	int n = 0;
	const char *ct = "multipart/form-data; boundary=----XyZ";
	const char body[] =
		"------XyZ\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\ntok\r\n"
		"------XyZ\r\nContent-Disposition: form-data; name=\"question\"\r\n\r\nline1\r\nline2\r\n"
		"------XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.bin\"\r\n"
		"Content-Type: application/octet-stream\r\n\r\n\xff\x00\x01\r\n"
		"------XyZ--\r\n";

	(void)st;
	assert_int_equal(req_parse_multipart(&a, ct, body, sizeof body - 1, &kv, &n, 16), OK);
	assert_int_equal(n, 3);
	assert_string_equal(kv[0].val, "tok");
	assert_string_equal(kv[1].val, "line1\r\nline2");
	assert_string_equal(kv[2].filename, "a.bin");
	assert_int_equal(kv[2].len, 3);
	n = 0;
	kv = NULL;
	assert_int_equal(req_parse_multipart(&a, "multipart/form-data", body, sizeof body - 1, &kv, &n, 16), ERR_INPUT);
	assert_int_equal(req_parse_multipart(&a, ct, body, 40, &kv, &n, 16), ERR_INPUT);
	arena_free(&a);
}

/* issue 27: a 422 said "Internal Server Error"; every status names its own side */
static void test_status_text(void **st)
{
	(void)st;
	assert_string_equal(resp_status_text(422), "Unprocessable Content");
	assert_string_equal(resp_status_text(429), "Too Many Requests");
	assert_string_equal(resp_status_text(500), "Internal Server Error");
	assert_string_equal(resp_status_text(499), "Client Error");
	assert_string_equal(resp_status_text(599), "Server Error");
	for (int s = 100; s < 700; s++) {
		const char *t = resp_status_text(s);

		assert_non_null(t);
		assert_true(*t);
		if (s != 500)
			assert_string_not_equal(t, "Internal Server Error");
		if (s >= 400 && s < 500)
			assert_null(strstr(t, "Server"));
	}
	assert_int_equal(resp_err_status(ERR_INPUT), 400);
}

static void test_sql_html(void **st)
{
	struct sb s = SB_INIT;

	(void)st;
	sql_html(&s, "select a, '<script>' AS \"<b>\" from t where x > 1 -- </pre>", 1);
	assert_null(strstr(sb_cstr(&s), "<script>"));
	assert_null(strstr(sb_cstr(&s), "<b>"));
	assert_null(strstr(sb_cstr(&s), "</pre>"));
	assert_non_null(strstr(sb_cstr(&s), "<span class=\"k\">select</span>"));
	assert_non_null(strstr(sb_cstr(&s), "<span class=\"s\">&#39;&lt;script&gt;&#39;</span>"));
	assert_non_null(strstr(sb_cstr(&s), "\n<span class=\"k\">from</span>"));
	sb_free(&s);
}

static void test_chart(void **st)
{
	cJSON *cols = cJSON_Parse("[{\"name\":\"<img onerror=x>\",\"type\":\"text\"},{\"name\":\"n\",\"type\":\"int8\"}]");
	cJSON *rows = cJSON_Parse("[[\"<script>a</script>\",3],[\"b\",5],[null,1]]");
	struct sb s = SB_INIT;
	const char *kind = NULL;

	(void)st;
	assert_int_equal(chart_svg(&s, cols, rows, NULL, &kind), 1);
	assert_string_equal(kind, "bar");
	assert_null(strstr(sb_cstr(&s), "<script>"));
	assert_non_null(strstr(sb_cstr(&s), "&lt;script&gt;"));
	sb_free(&s);
	cJSON_Delete(rows);
	/* one row: no chart */
	rows = cJSON_Parse("[[\"a\",1]]");
	assert_int_equal(chart_svg(&s, cols, rows, NULL, &kind), 0);
	sb_free(&s);
	cJSON_Delete(rows);
	cJSON_Delete(cols);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8), cmocka_unit_test(test_local_path), cmocka_unit_test(test_urlencoded), cmocka_unit_test(test_cookies),
		cmocka_unit_test(test_multipart), cmocka_unit_test(test_status_text), cmocka_unit_test(test_sql_html), cmocka_unit_test(test_chart),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
