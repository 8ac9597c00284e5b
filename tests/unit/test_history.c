/* test_history.c: what the history and admin pages rely on that needs no database: the table-prefix
 * pattern (run_like_prefix), a description of every setting in both languages, the zip writer. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "export/export_impl.h"
#include "store/run.h"
#include "util/conf.h"
#include "util/i18n.h"

static void test_like_prefix(void **state)
{
	char b[16];

	(void)state;
	assert_string_equal(run_like_prefix("lab", b, sizeof b), "lab%");
	assert_string_equal(run_like_prefix("", b, sizeof b), "%");
	assert_string_equal(run_like_prefix(NULL, b, sizeof b), "%");
	/* LIKE's metacharacters are literal: "la_" must not match "lab" */
	assert_string_equal(run_like_prefix("la_", b, sizeof b), "la\\_%");
	assert_string_equal(run_like_prefix("a%b\\", b, sizeof b), "a\\%b\\\\%");
	/* too long: cut, still ending in % and never inside a UTF-8 character (검 is 3 bytes) */
	assert_string_equal(run_like_prefix("abcdefghijklmnopqrstuvwxyz", b, sizeof b), "abcdefghijklmn%");
	assert_string_equal(run_like_prefix("abcdefghijkl검사", b, 16), "abcdefghijkl%");
	assert_string_equal(run_like_prefix("abcdefghij검사", b, 16), "abcdefghij검%");
	/* an escape never splits from its character */
	assert_string_equal(run_like_prefix("abcdefghijklm_", b, 16), "abcdefghijklm%");
}

/* every setting the configuration page lists has its description in Korean and English */
static void test_conf_help_both_languages(void **state)
{
	char err[256];
	int n;
	const struct conf_item *it;

	(void)state;
	assert_int_equal(i18n_load("conf/i18n", err, sizeof err), OK);
	{
		const char *msg = NULL;

		assert_int_equal(conf_load(NULL, &msg), OK);
	}
	it = conf_items(&n);
	assert_true(n > 50);
	for (int i = 0; i < n; i++) {
		char key[96];

		snprintf(key, sizeof key, "confhelp.%s", it[i].name);
		for (int l = 0; l < 2; l++) {
			const char *lang = l ? "ko" : "en", *v = i18n_get(lang, key);

			if (!v || !strcmp(v, key) || !*v)
				fail_msg("setting %s has no description in %s (conf/i18n/%s.history.json, %s)",
				         it[i].name, lang, lang, key);
		}
		/* the Korean one is Korean, not a copy of the English */
		assert_string_not_equal(i18n_get("ko", key), i18n_get("en", key));
	}
	i18n_free();
}

/* the zip of a CSV and its provenance: read back with zlib, every header where it should be */
struct mem {
	unsigned char *p;
	size_t n, cap;
};

static enum err mem_write(void *ctx, const char *p, size_t n)
{
	struct mem *m = ctx;

	if (m->n + n > m->cap) {
		m->cap = (m->n + n) * 2;
		m->p = realloc(m->p, m->cap);
	}
	memcpy(m->p + m->n, p, n);
	m->n += n;
	return OK;
}

static uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static unsigned rd16(const unsigned char *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static void test_zip(void **state)
{
	struct mem m = {0};
	struct export_out out = {mem_write, &m};
	struct zipw *z = malloc(sizeof *z);
	char big[100000];
	const char *prov = "{\"provenance\":{}}";

	(void)state;
	for (size_t i = 0; i < sizeof big; i++)
		big[i] = (char)('a' + (i * 7 + i / 13) % 26);
	zip_init(z, &out, 1700000000);
	assert_int_equal(zip_begin(z, "data.csv"), OK);
	assert_int_equal(zip_write(z, big, 40000), OK);
	assert_int_equal(zip_write(z, big + 40000, sizeof big - 40000), OK);
	assert_int_equal(zip_end(z), OK);
	assert_int_equal(zip_begin(z, "provenance.json"), OK);
	assert_int_equal(zip_write(z, prov, strlen(prov)), OK);
	assert_int_equal(zip_end(z), OK);
	assert_int_equal(zip_finish(z), OK);
	zip_cleanup(z);
	/* end record: two entries, central directory where it says */
	{
		const unsigned char *e = m.p + m.n - 22, *c;
		uint32_t cd = rd32(e + 16);

		assert_int_equal(rd32(e), 0x06054b50);
		assert_int_equal(rd16(e + 10), 2);
		c = m.p + cd;
		assert_int_equal(rd32(c), 0x02014b50);
		assert_int_equal(rd32(c + 24), sizeof big);
		assert_memory_equal(c + 46, "data.csv", 8);
		/* inflate the first entry and compare with what went in, and its CRC */
		{
			const unsigned char *l = m.p + rd32(c + 42);
			unsigned char *got = malloc(sizeof big);
			z_stream zs = {0};

			assert_int_equal(rd32(l), 0x04034b50);
			assert_int_equal(inflateInit2(&zs, -15), Z_OK);
			zs.next_in = (Bytef *)(l + 30 + rd16(l + 26));
			zs.avail_in = rd32(c + 20);
			zs.next_out = got;
			zs.avail_out = sizeof big;
			assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
			assert_int_equal(zs.total_out, sizeof big);
			assert_memory_equal(got, big, sizeof big);
			assert_int_equal(crc32(0, (const Bytef *)big, sizeof big), rd32(c + 16));
			inflateEnd(&zs);
			free(got);
		}
	}
	free(z);
	free(m.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_like_prefix),
		cmocka_unit_test(test_conf_help_both_languages),
		cmocka_unit_test(test_zip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
