/* fuzz_catalog_text.c: libFuzzer target for the catalog's text handling: tokens, trigrams, embedding, retrieval. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "catalog/catalog_int.h"
#include "catalog/embed.h"
#include "catalog/text.h"

static struct catalog *cat;

/* a fixed small catalog with values, terms and edges, built once */
static struct catalog *build(void)
{
	struct catalog *c = cat_new("fuzz", "builtin", 64);
	char err[128];
	int t1 = cat_add_table(c, "public", "clinical_data_table", "cases", "Clinical", 10);
	int id = cat_add_column(c, t1, "caseid", "integer", "Case ID", NULL, NULL);
	int city = cat_add_column(c, t1, "city", "text", "city", NULL, NULL);
	int t2 = cat_add_table(c, "ward", "lab_data_table", "labs", NULL, 10);
	int lc = cat_add_column(c, t2, "caseid", "integer", NULL, NULL, NULL);
	int name = cat_add_column(c, t2, "name", "text", NULL, NULL, NULL);
	int k;

	cat_add_edge(c, lc, id, 1, 0);
	k = cat_add_value(c, name, "k");
	cat_add_value(c, city, "서울");
	cat_add_value(c, city, "hydroxyethylstarchsolution");
	cat_add_term(c, "칼륨", TK_VALUE, k, 2.0f);
	cat_add_term(c, "potassium", TK_VALUE, k, 2.0f);
	if (cat_finish(c, err, sizeof err) != OK)
		abort();
	return c;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), buf[4096], *toks[128];
	uint32_t tg[256];
	float v[64];
	struct retrieval r;
	struct retrieval_opts o = {.token_budget = 200};

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (!cat)
		cat = build();
	text_tokens(s, 0, buf, sizeof buf, toks, 128);
	text_tokens(s, 1, buf, sizeof buf, toks, 128);
	text_trigrams(s, tg, 256);
	embed_builtin(s, 64, v);
	o.hyde_text = size > 8 ? s + 8 : NULL;
	if (catalog_retrieve(cat, s, &o, &r) == OK) {
		cJSON *j = retrieval_json(&r);

		cJSON_Delete(j);
		retrieval_free(&r);
	}
	free(s);
	return 0;
}
