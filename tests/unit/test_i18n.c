/* test_i18n.c: conf/i18n/{en,ko}.json have the same keys and placeholders; lookups, fallbacks, tables, formats. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include <glob.h>
#include "util/i18n.h"
#include "util/tpl.h"

#define DIR "conf/i18n"

static cJSON *load_file(const char *path)
{
	char *buf;
	FILE *f;
	long n;
	cJSON *doc;

	f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open %s (run from the repository top)", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	doc = cJSON_Parse(buf);
	free(buf);
	if (!doc)
		fail_msg("%s is not valid JSON", path);
	return doc;
}

/* load: <lang>.json with every <lang>.<part>.json merged in (as i18n_load does) */
static cJSON *load(const char *lang)
{
	char path[128];
	glob_t g;
	cJSON *doc, *part, *it;

	snprintf(path, sizeof path, "%s/%s.json", DIR, lang);
	doc = load_file(path);
	snprintf(path, sizeof path, "%s/%s.*.json", DIR, lang);
	if (glob(path, 0, NULL, &g) == 0) {
		for (size_t k = 0; k < g.gl_pathc; k++) {
			part = load_file(g.gl_pathv[k]);
			while ((it = part->child)) {
				cJSON_DetachItemViaPointer(part, it);
				if (cJSON_GetObjectItemCaseSensitive(doc, it->string))
					fail_msg("%s: key %s defined twice", g.gl_pathv[k], it->string);
				cJSON_AddItemToObject(doc, it->string, it);
			}
			cJSON_Delete(part);
		}
		globfree(&g);
	}
	return doc;
}

/* placeholders: the sorted "{a}{b}" signature of s, into buf */
static void placeholders(const char *s, char *buf, size_t n)
{
	char names[16][32];
	int k = 0;
	const char *o, *c;

	while ((o = strchr(s, '{')) && (c = strchr(o, '}')) && k < 16) {
		snprintf(names[k++], sizeof names[0], "%.*s", (int)(c - o + 1), o);
		s = c + 1;
	}
	qsort(names, (size_t)k, sizeof names[0], (int (*)(const void *, const void *))strcmp);
	buf[0] = '\0';
	for (int i = 0; i < k; i++)
		strncat(buf, names[i], n - strlen(buf) - 1);
}

static void test_same_keys(void **state)
{
	cJSON *en = load("en"), *ko = load("ko");
	const cJSON *it, *other;
	int missing = 0, n = 0;
	char pa[256], pb[256];

	(void)state;
	cJSON_ArrayForEach(it, en) {
		n++;
		assert_true(cJSON_IsString(it));
		assert_true(it->valuestring[0] != '\0');
		other = cJSON_GetObjectItemCaseSensitive(ko, it->string);
		if (!cJSON_IsString(other)) {
			fprintf(stderr, "  ko.json lacks %s\n", it->string);
			missing++;
			continue;
		}
		assert_true(other->valuestring[0] != '\0');
		placeholders(it->valuestring, pa, sizeof pa);
		placeholders(other->valuestring, pb, sizeof pb);
		if (strcmp(pa, pb)) {
			fprintf(stderr, "  %s: placeholders differ: en %s, ko %s\n", it->string, pa, pb);
			missing++;
		}
	}
	cJSON_ArrayForEach(it, ko) {
		assert_true(cJSON_IsString(it));
		if (!cJSON_GetObjectItemCaseSensitive(en, it->string)) {
			fprintf(stderr, "  en.json lacks %s\n", it->string);
			missing++;
		}
	}
	assert_int_equal(missing, 0);
	assert_int_equal(cJSON_GetArraySize(en), cJSON_GetArraySize(ko));
	assert_true(n > 150);
	cJSON_Delete(en);
	cJSON_Delete(ko);
}

static void test_lookup(void **state)
{
	char err[256] = "";
	struct sb sb = SB_INIT;

	(void)state;
	assert_int_equal(i18n_load(DIR, err, sizeof err), OK);
	assert_string_equal(i18n_get("en", "nav.ask"), "Ask");
	assert_string_equal(i18n_get("ko", "nav.ask"), "질문하기");
	assert_string_equal(i18n_get("fr", "nav.ask"), "Ask");
	assert_string_equal(i18n_get(NULL, "nav.history"), "History");
	assert_string_equal(i18n_get("ko", "no.such.key"), "no.such.key");

	i18n_format(&sb, "en", "run.attempt", (const char *[]){"n", "2", "m", "3", NULL});
	assert_string_equal(sb_cstr(&sb), "Attempt 2 of 3");
	sb_reset(&sb);
	i18n_format(&sb, "ko", "run.attempt", (const char *[]){"m", "3", "n", "2", NULL});
	assert_string_equal(sb_cstr(&sb), "3회 중 2번째 시도");
	sb_reset(&sb);
	/* unknown placeholders stay; values are not re-expanded */
	i18n_format(&sb, "en", "run.attempt", (const char *[]){"n", "{m}", NULL});
	assert_string_equal(sb_cstr(&sb), "Attempt {m} of {m}");
	sb_reset(&sb);
	i18n_format(&sb, "en", "nav.ask", NULL);
	assert_string_equal(sb_cstr(&sb), "Ask");
	sb_free(&sb);

	assert_string_equal(i18n_lang("ko-KR,ko;q=0.9,en-US;q=0.8,en;q=0.7"), "ko");
	assert_string_equal(i18n_lang("en-US,en;q=0.9,ko;q=0.8"), "en");
	assert_string_equal(i18n_lang("fr-FR, ko;q=0.5"), "ko");
	assert_string_equal(i18n_lang("ko;q=0, en;q=0.1"), "en");
	assert_string_equal(i18n_lang("KO"), "ko");
	assert_string_equal(i18n_lang("de"), "en");
	assert_string_equal(i18n_lang(""), "en");
	assert_string_equal(i18n_lang(NULL), "en");
	i18n_free();
}

/* the table drives templates as {{t.section.key}}, escaped like any value */
static void test_table_in_template(void **state)
{
	cJSON *data = cJSON_CreateObject();
	struct sb out = SB_INIT;
	const char *tpl = "<a>{{t.nav.ask}}</a>|{{t.run.status.done}}|{{t.missing}}";

	(void)state;
	assert_int_equal(i18n_load(DIR, NULL, 0), OK);
	cJSON_AddItemReferenceToObject(data, "t", (cJSON *)i18n_table("ko"));
	assert_int_equal(tpl_render(tpl, strlen(tpl), data, NULL, &out, NULL, 0), OK);
	assert_string_equal(sb_cstr(&out), "<a>질문하기</a>|완료|");
	cJSON_Delete(data);  /* a reference: the table stays */
	assert_non_null(cJSON_GetObjectItem(i18n_table("ko"), "nav"));
	assert_non_null(cJSON_GetObjectItem(i18n_table("en"), "nav"));
	sb_free(&out);
	i18n_free();
}

static char tmp[64];

static void put(const char *lang, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s.json", tmp, lang);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_fallbacks_and_errors(void **state)
{
	char err[256], path[128];

	(void)state;
	strcpy(tmp, "/tmp/test_i18n.XXXXXX");
	assert_non_null(mkdtemp(tmp));

	/* ko lacks a key: English shows; the nested table is completed too */
	put("en", "{\"a.x\":\"X\",\"a.y\":\"Y <b>\"}");
	put("ko", "{\"a.x\":\"엑스\"}");
	assert_int_equal(i18n_load(tmp, err, sizeof err), OK);
	assert_string_equal(i18n_get("ko", "a.x"), "엑스");
	assert_string_equal(i18n_get("ko", "a.y"), "Y <b>");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(i18n_table("ko"), "a"), "y")->valuestring,
			    "Y <b>");

	/* a part file adds keys; a key defined twice is refused */
	put("en.page", "{\"p.z\":\"Zed\"}");
	put("ko.page", "{\"p.z\":\"제트\"}");
	assert_int_equal(i18n_load(tmp, err, sizeof err), OK);
	assert_string_equal(i18n_get("ko", "p.z"), "제트");
	assert_string_equal(i18n_get("en", "p.z"), "Zed");
	put("ko.page", "{\"a.x\":\"twice\"}");
	assert_int_equal(i18n_load(tmp, err, sizeof err), ERR_PARSE);
	assert_non_null(strstr(err, "defined twice"));
	assert_string_equal(i18n_get("ko", "p.z"), "제트");
	snprintf(path, sizeof path, "%s/ko.page.json", tmp);
	unlink(path);
	snprintf(path, sizeof path, "%s/en.page.json", tmp);
	unlink(path);

	/* broken files are refused and the previous tables stay */
	put("ko", "{\"a\":\"clash\",\"a.x\":\"y\"}");
	assert_int_equal(i18n_load(tmp, err, sizeof err), ERR_PARSE);
	assert_non_null(strstr(err, "clashes"));
	put("ko", "{\"a.x\": 3}");
	assert_int_equal(i18n_load(tmp, err, sizeof err), ERR_PARSE);
	assert_non_null(strstr(err, "not a string"));
	put("ko", "[1,2]");
	assert_int_equal(i18n_load(tmp, err, sizeof err), ERR_PARSE);
	put("ko", "{\"a.x\":");
	assert_int_equal(i18n_load(tmp, err, sizeof err), ERR_PARSE);
	assert_string_equal(i18n_get("ko", "a.x"), "엑스");

	/* no ko.json: Korean is English; no en.json: an error */
	snprintf(path, sizeof path, "%s/ko.json", tmp);
	unlink(path);
	assert_int_equal(i18n_load(tmp, err, sizeof err), OK);
	assert_string_equal(i18n_get("ko", "a.x"), "X");
	snprintf(path, sizeof path, "%s/en.json", tmp);
	unlink(path);
	assert_int_equal(i18n_load(tmp, err, sizeof err), ERR_NOTFOUND);
	rmdir(tmp);
	i18n_free();

	/* nothing loaded and nothing loadable: keys show through, the table is empty */
	assert_int_equal(i18n_load("/nonexistent/dir", err, sizeof err), ERR_NOTFOUND);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_keys),
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_table_in_template),
		cmocka_unit_test(test_fallbacks_and_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
