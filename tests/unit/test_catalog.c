/* test_catalog.c: RRF, FK paths, value mapping, Korean tokens and the builtin embedding, on an in-memory catalog. */
#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "catalog/catalog_int.h"
#include "catalog/lexicon.h"
#include "catalog/embed.h"
#include "catalog/text.h"

#define DIM 256

static void test_rrf(void **state)
{
	double s[8] = {0};
	int ax1[] = {0, 1, 2}, ax2[] = {1, 2, 0}, ax3[] = {1};

	(void)state;
	rrf_add(s, ax1, 3, 60);
	/* the seed's example: rank 1 and rank 3 -> 1/61 + 1/63 */
	rrf_add(s, ax2, 3, 60);
	assert_true(fabs(s[0] - (1.0 / 61 + 1.0 / 63)) < 1e-12);
	assert_true(fabs(s[0] - 0.0323) < 1e-4);
	rrf_add(s, ax3, 1, 60);
	/* found by more axes wins */
	assert_true(s[1] > s[0] && s[1] > s[2]);
	assert_true(fabs(s[1] - (1.0 / 62 + 1.0 / 61 + 1.0 / 61)) < 1e-12);
	rrf_addw(s, ax3, 1, 60, 2.0);
	assert_true(fabs(s[1] - (1.0 / 62 + 3.0 / 61 + 1.0 / 61)) < 1e-12);
	assert_true(s[5] == 0);
}

/* tables a..g with an id column each; edges as given */
static struct catalog *graph(void)
{
	struct catalog *c = cat_new("t", "builtin", DIM);
	const char *names[] = {"a", "b", "c", "d", "e", "x", "g"};
	char err[128];

	for (int i = 0; i < 7; i++) {
		int t = cat_add_table(c, "public", names[i], NULL, NULL, 10);

		cat_add_column(c, t, "id", "integer", NULL, NULL, NULL);
	}
	cat_add_edge(c, 1, 0, 0, 0);   /* b -> a declared */
	cat_add_edge(c, 2, 1, 0, 0);   /* c -> b declared */
	cat_add_edge(c, 3, 2, 0, 0);   /* d -> c declared */
	cat_add_edge(c, 3, 0, 1, 0);   /* d -> a inferred: shorter */
	cat_add_edge(c, 4, 1, 0, 0);   /* e -> b declared (a-b-e) */
	cat_add_edge(c, 4, 5, 1, 0);   /* e -> x inferred */
	cat_add_edge(c, 5, 0, 1, 0);   /* x -> a inferred (a-x-e) */
	assert_int_equal(cat_finish(c, err, sizeof err), OK);
	return c;
}

static void test_fk_paths(void **state)
{
	struct catalog *c = graph();
	int path[3], h;

	(void)state;
	assert_int_equal(cat_fk_path(c, 0, 0, 3, path), 0);
	/* direct edge */
	h = cat_fk_path(c, 0, 1, 3, path);
	assert_int_equal(h, 1);
	assert_int_equal(path[0], 0);
	/* shortest first: a-d is one inferred hop rather than three declared ones */
	h = cat_fk_path(c, 0, 3, 3, path);
	assert_int_equal(h, 1);
	assert_true(c->edges[path[0]].inferred);
	/* equal length: the declared route a-b-e beats a-x-e */
	h = cat_fk_path(c, 0, 4, 3, path);
	assert_int_equal(h, 2);
	assert_false(c->edges[path[0]].inferred);
	assert_false(c->edges[path[1]].inferred);
	assert_int_equal(c->edges[path[0]].from_t, 1);
	assert_int_equal(c->edges[path[1]].from_t, 4);
	/* path order starts at the first table */
	h = cat_fk_path(c, 4, 2, 3, path);
	assert_int_equal(h, 2);
	/* no edge to g; and the hop limit */
	assert_int_equal(cat_fk_path(c, 0, 6, 3, path), -1);
	assert_int_equal(cat_fk_path(c, 2, 4, 1, path), -1);
	/* importance: a is referenced most */
	assert_true(c->tables[0].importance >= c->tables[2].importance);
	cat_free(c);
}

/* a small clinical catalog like the demo */
static struct catalog *clinical(void)
{
	struct catalog *c = cat_new("demo", "builtin", DIM);
	int t, caseid, subj, vcase, hr, lcase, lname, city, k;
	char err[128];

	t = cat_add_table(c, "public", "clinical_data_table", "one row per surgical case", "Clinical case data", 6388);
	caseid = cat_add_column(c, t, "caseid", "integer", "Case ID", "Case ID", NULL);
	subj = cat_add_column(c, t, "subjectid", "integer", "patient id", "Subject (patient) ID", NULL);
	city = cat_add_column(c, t, "city", "text", "home city", NULL, NULL);
	c->columns[caseid].is_pk = 1;
	t = cat_add_table(c, "public", "vital_data_table", "vital signs", NULL, 100000);
	vcase = cat_add_column(c, t, "caseid", "integer", NULL, NULL, NULL);
	cat_add_column(c, t, "sbp", "real", "Systolic blood pressure", "Systolic blood pressure", "mmHg");
	hr = cat_add_column(c, t, "hr", "real", "Heart rate", "Heart rate", "bpm");
	t = cat_add_table(c, "public", "lab_data_table", "lab results", NULL, 90000);
	lcase = cat_add_column(c, t, "caseid", "integer", NULL, NULL, NULL);
	lname = cat_add_column(c, t, "name", "text", "lab code", NULL, NULL);
	cat_add_column(c, t, "result", "double precision", NULL, NULL, NULL);
	cat_add_edge(c, vcase, caseid, 0, 0);
	cat_add_edge(c, lcase, caseid, 0, 0);
	k = cat_add_value(c, lname, "k");
	cat_add_value(c, lname, "lac");
	cat_add_value(c, city, "서울");
	cat_add_value(c, city, "hydroxyethylstarchsolution");
	cat_add_term(c, "potassium", TK_VALUE, k, 2.0f);
	cat_add_term(c, "칼륨", TK_VALUE, k, 2.0f);
	cat_add_term(c, "심박수", TK_COLUMN, hr, 2.0f);
	cat_add_term(c, "환자", TK_COLUMN, subj, 2.0f);
	assert_int_equal(cat_finish(c, err, sizeof err), OK);
	return c;
}

static const struct ret_value *mapping(const struct retrieval *r, const char *value)
{
	for (int i = 0; i < r->nvalues; i++)
		if (!strcmp(r->values[i].value, value))
			return &r->values[i];
	return NULL;
}

static void test_value_mapping(void **state)
{
	struct catalog *c = clinical();
	struct retrieval r;
	const struct ret_value *v;

	(void)state;
	/* synonym from metadata */
	assert_int_equal(catalog_retrieve(c, "칼륨 수치가 높은 환자", NULL, &r), OK);
	assert_non_null(v = mapping(&r, "k"));
	assert_string_equal(v->how, "synonym");
	assert_string_equal(v->table, "lab_data_table");
	assert_string_equal(v->column, "name");
	retrieval_free(&r);
	/* exact stored value */
	assert_int_equal(catalog_retrieve(c, "lac results", NULL, &r), OK);
	assert_non_null(v = mapping(&r, "lac"));
	assert_string_equal(v->how, "exact");
	retrieval_free(&r);
	/* progressive prefix shortening: 서울특별시 -> 서울 */
	assert_int_equal(catalog_retrieve(c, "서울특별시에 사는 환자", NULL, &r), OK);
	assert_non_null(v = mapping(&r, "서울"));
	assert_string_equal(v->how, "prefix");
	retrieval_free(&r);
	/* trigram similarity >= 0.8 for a misspelling prefixes cannot fix */
	assert_int_equal(catalog_retrieve(c, "cases of hydroxyethylstorchsolution", NULL, &r), OK);
	assert_non_null(v = mapping(&r, "hydroxyethylstarchsolution"));
	assert_string_equal(v->how, "trigram");
	assert_true(v->score >= 0.7);
	retrieval_free(&r);
	/* nothing close: no mapping */
	assert_int_equal(catalog_retrieve(c, "heart rate by city", NULL, &r), OK);
	assert_null(mapping(&r, "lac"));
	retrieval_free(&r);
	cat_free(c);
}

static int has_col(const struct retrieval *r, const char *t, const char *n)
{
	for (int i = 0; i < r->ncolumns; i++)
		if (!strcmp(r->columns[i].table, t) && !strcmp(r->columns[i].name, n))
			return 1;
	return 0;
}

static void test_retrieve(void **state)
{
	struct catalog *c = clinical();
	struct retrieval r;
	cJSON *j;

	(void)state;
	assert_int_equal(catalog_retrieve(c, "환자별 평균 심박수", NULL, &r), OK);
	assert_int_equal(r.intent, INTENT_AGGREGATION);
	assert_true(has_col(&r, "vital_data_table", "hr"));
	assert_true(has_col(&r, "clinical_data_table", "subjectid"));
	assert_int_equal(r.npaths, 1);
	assert_int_equal(r.paths[0].njoins, 1);
	assert_string_equal(r.paths[0].joins[0].to_col, "caseid");
	assert_non_null(strstr(r.prompt_block, "[TABLE RELATIONSHIPS]"));
	j = retrieval_json(&r);
	assert_non_null(cJSON_GetObjectItem(j, "join_paths"));
	cJSON_Delete(j);
	retrieval_free(&r);
	/* HyDE: a hypothetical answer adds its own axis */
	struct retrieval_opts h = {.hyde_text = "SELECT avg(hr) FROM vital_data_table heart rate"};
	assert_int_equal(catalog_retrieve(c, "심박수", &h, &r), OK);
	int hyde = 0;
	for (int i = 0; i < r.ncolumns; i++)
		hyde |= strstr(r.columns[i].sources, "hyde") != NULL;
	assert_true(hyde);
	retrieval_free(&r);
	/* the budget bounds the optional lines; the reached tables stay whatever it is */
	struct retrieval_opts o = {.token_budget = 1500, .whole_schema_tokens = -1};
	assert_int_equal(catalog_retrieve(c, "heart rate and systolic blood pressure", &o, &r), OK);
	int roomy = r.prompt_tokens;
	retrieval_free(&r);
	o.token_budget = 20;
	assert_int_equal(catalog_retrieve(c, "heart rate and systolic blood pressure", &o, &r), OK);
	assert_true(r.prompt_tokens <= roomy);
	assert_non_null(strstr(r.prompt_block, "Table: vital_data_table"));
	retrieval_free(&r);
	/* nothing relevant: suggestions instead of tables */
	assert_int_equal(catalog_retrieve(c, "qwzx vbnm", NULL, &r), OK);
	assert_int_equal(r.ntables, 0);
	assert_true(r.nsuggestions > 1);
	retrieval_free(&r);
	assert_int_equal(catalog_retrieve(c, NULL, NULL, &r), ERR_INPUT);
	/* hints for a missing column: synonyms and spelling */
	const char *sug[3];
	assert_true(catalog_suggest_columns(c, "heartrate", sug, 3) >= 1);
	int n = catalog_suggest_columns(c, "심박수", sug, 3);
	assert_true(n >= 1);
	assert_string_equal(sug[0], "vital_data_table.hr");
	n = catalog_suggest_columns(c, "subject_id", sug, 3);
	assert_true(n >= 1);
	assert_string_equal(sug[0], "clinical_data_table.subjectid");
	assert_int_equal(catalog_suggest_columns(c, "", sug, 3), 0);
	assert_true(catalog_relation_ok(c, NULL, "lab_data_table"));
	assert_true(catalog_relation_ok(c, "public", "vital_data_table"));
	assert_false(catalog_relation_ok(c, NULL, "pg_user"));
	cat_free(c);
}

static double norm(const float *v)
{
	double s = 0;

	for (int i = 0; i < DIM; i++)
		s += (double)v[i] * v[i];
	return sqrt(s);
}

static void test_embedding(void **state)
{
	float a[DIM], b[DIM], c[DIM], d[DIM], z[DIM];
	float *batch = malloc(2 * DIM * sizeof *batch);
	const char *texts[2] = {"heart rate", "심박수"};
	char err[128];

	(void)state;
	embed_builtin("평균 심박수 heart rate", DIM, a);
	embed_builtin("평균 심박수 heart rate", DIM, b);
	assert_memory_equal(a, b, sizeof a);               /* deterministic */
	assert_true(fabs(norm(a) - 1.0) < 1e-5);           /* L2-normalised */
	/* Hangul-aware: particles do not change the vector, shared syllables bring texts close */
	embed_builtin("환자의 심박수를", DIM, c);
	embed_builtin("환자 심박수", DIM, d);
	assert_true(vec_dot(c, d, DIM) > 0.999);
	embed_builtin("심박", DIM, c);
	embed_builtin("심박수", DIM, d);
	assert_true(vec_dot(c, d, DIM) > 0.3);
	embed_builtin("칼륨 검사", DIM, c);
	assert_true(vec_dot(c, d, DIM) < vec_dot(a, d, DIM) + 0.2);
	/* Latin character trigrams: inflections stay close, unrelated words do not */
	embed_builtin("hypotension", DIM, c);
	embed_builtin("hypotensive", DIM, d);
	embed_builtin("potassium", DIM, b);
	assert_true(vec_dot(c, d, DIM) > vec_dot(c, b, DIM));
	embed_builtin("", DIM, z);
	assert_true(norm(z) == 0);
	/* the provider interface */
	assert_int_equal(embed_texts("builtin", DIM, texts, 2, batch, err, sizeof err), OK);
	embed_builtin("심박수", DIM, c);
	assert_memory_equal(batch + DIM, c, sizeof c);
	assert_int_equal(embed_texts("nope", DIM, texts, 2, batch, err, sizeof err), ERR_INPUT);
	assert_non_null(strstr(err, "nope"));
	free(batch);
}

static void test_tokens(void **state)
{
	char buf[512], *t[16];
	int n;

	(void)state;
	n = text_tokens("환자별 평균 심박수를 보여줘", 0, buf, sizeof buf, t, 16);
	assert_int_equal(n, 4);
	assert_string_equal(t[0], "환자");
	assert_string_equal(t[2], "심박수");
	n = text_tokens("환자들의 칼륨은", 0, buf, sizeof buf, t, 16);
	assert_string_equal(t[0], "환자");
	assert_string_equal(t[1], "칼륨");
	n = text_tokens("death_inhosp preopHtn vital_data_table.hr patients' sbp가", 0, buf, sizeof buf, t, 16);
	assert_int_equal(n, 10);
	assert_string_equal(t[0], "death");
	assert_string_equal(t[2], "preop");
	assert_string_equal(t[3], "htn");
	assert_string_equal(t[7], "hr");
	assert_string_equal(t[8], "patient");
	assert_string_equal(t[9], "sbp");
	/* a particle after a closing parenthesis, a number or an English word; verb endings */
	n = text_tokens("(수축기 90 미만)이 있었던 환자의 BMI를", 0, buf, sizeof buf, t, 16);
	int saw_bmi = 0, saw_particle = 0;
	for (int i = 0; i < n; i++) {
		saw_bmi |= !strcmp(t[i], "bmi");
		saw_particle |= !strcmp(t[i], "이") || !strcmp(t[i], "를") || !strcmp(t[i], "bmi를");
	}
	assert_true(saw_bmi);
	assert_false(saw_particle);
	n = text_tokens("K가 높은 사망한 환자 대한 성인", 0, buf, sizeof buf, t, 16);
	assert_string_equal(t[0], "k");
	assert_string_equal(t[2], "사망");
	assert_string_equal(t[4], "대한");
	assert_string_equal(t[5], "성인");
	/* trigram similarity */
	uint32_t a[64], b[64];
	int na = text_trigrams("word", a, 64), nb = text_trigrams("word", b, 64);
	assert_true(text_trgm_sim(a, na, b, nb) == 1.0);
	nb = text_trigrams("ward", b, 64);
	assert_true(text_trgm_sim(a, na, b, nb) < 0.5);
}

static void collect(void *arg, const char *s)
{
	char *out = arg;

	strcat(out, "[");
	strcat(out, s);
	strcat(out, "]");
}

static void test_literals(void **state)
{
	float v[3];
	char out[256] = "";

	(void)state;
	assert_int_equal(cat_parse_vec("{0.5,-1,2e-3}", v, 3), 0);
	assert_true(v[0] == 0.5f && v[1] == -1.0f && fabsf(v[2] - 0.002f) < 1e-7f);
	assert_int_equal(cat_parse_vec("{0.5,1}", v, 3), -1);        /* wrong dimension */
	assert_int_equal(cat_parse_vec("{1,2,3,4}", v, 3), -1);
	assert_int_equal(cat_parse_vec("0.5,1,2", v, 3), -1);
	cat_each_text("{환자,\"수축기 혈압\",\"a\\\"b\",K}", collect, out);
	assert_string_equal(out, "[환자][수축기 혈압][a\"b][K]");
	out[0] = '\0';
	cat_each_text("{}", collect, out);
	cat_each_text(NULL, collect, out);
	assert_string_equal(out, "");
}

/*
 * A ward database among many unrelated tables: the grouping table is reachable only through a
 * bridge table that nothing in the question names, and lab names live in a dictionary table.
 */
static struct catalog *hospital(void)
{
	struct catalog *c = cat_new("hosp", "builtin", DIM);
	int t, ward_id, ward_name, adm_id, adm_ward, v_adm, item_id, label, l_adm, l_item, hub, prev = -1;
	char err[128], name[32];

	t = cat_add_table(c, "public", "ward", "hospital wards", NULL, 12);
	ward_id = cat_add_column(c, t, "ward_id", "integer", NULL, NULL, NULL);
	ward_name = cat_add_column(c, t, "ward_name", "text", "name of the ward", NULL, NULL);
	c->columns[ward_id].is_pk = 1;
	t = cat_add_table(c, "public", "admission", "hospital stays", NULL, 5000);
	adm_id = cat_add_column(c, t, "adm_id", "integer", NULL, NULL, NULL);
	adm_ward = cat_add_column(c, t, "ward_id", "integer", NULL, NULL, NULL);
	cat_add_column(c, t, "admit_time", "timestamp", "admission time", NULL, NULL);
	c->columns[adm_id].is_pk = 1;
	t = cat_add_table(c, "public", "vitals", "bedside observations", NULL, 90000);
	v_adm = cat_add_column(c, t, "adm_id", "integer", NULL, NULL, NULL);
	cat_add_column(c, t, "hr", "real", "Heart rate", "Heart rate", "bpm");
	cat_add_column(c, t, "sbp", "real", "Systolic blood pressure", NULL, "mmHg");
	t = cat_add_table(c, "public", "d_labitems", "dictionary of laboratory tests", NULL, 700);
	item_id = cat_add_column(c, t, "itemid", "integer", NULL, NULL, NULL);
	label = cat_add_column(c, t, "label", "text", "test name", NULL, NULL);
	c->columns[item_id].is_pk = 1;
	t = cat_add_table(c, "public", "labevents", "laboratory results", NULL, 200000);
	l_adm = cat_add_column(c, t, "adm_id", "integer", NULL, NULL, NULL);
	l_item = cat_add_column(c, t, "itemid", "integer", NULL, NULL, NULL);
	cat_add_column(c, t, "valuenum", "double precision", "numeric result", NULL, NULL);
	/* unrelated tables, many of them pointing at the admission hub so it ranks as important */
	hub = adm_id;
	for (int i = 0; i < 40; i++) {
		int fk;

		snprintf(name, sizeof name, "billing_%02d", i);
		t = cat_add_table(c, "public", name, "charges and payments", NULL, 1000);
		fk = cat_add_column(c, t, "adm_id", "integer", NULL, NULL, NULL);
		cat_add_column(c, t, "amount", "numeric", "amount charged", NULL, NULL);
		cat_add_column(c, t, "payer", "text", "insurer", NULL, NULL);
		cat_add_edge(c, fk, i % 2 ? hub : (prev >= 0 ? prev : hub), 0, 0);
		prev = fk;
	}
	cat_add_edge(c, adm_ward, ward_id, 0, 0);
	cat_add_edge(c, v_adm, adm_id, 0, 0);
	cat_add_edge(c, l_adm, adm_id, 0, 0);
	cat_add_edge(c, l_item, item_id, 1, 0);   /* inferred, as in a database without FKs */
	cat_add_value(c, ward_name, "Medical ICU");
	cat_add_value(c, ward_name, "Surgical ward");
	cat_add_value(c, label, "lactate");
	cat_add_value(c, label, "potassium");
	assert_int_equal(cat_finish(c, err, sizeof err), OK);
	return c;
}

/* the block holds "Table: name" and, when col is given, names col in that table's section */
#define block_has catalog_block_names

/* the lexicon: format, matching, weak short codes, malformed lines */
static void test_lexicon(void **state)
{
	char path[] = "/tmp/askql_lex_XXXXXX";
	int fd = mkstemp(path), ids[8], weak, bad, n;
	FILE *f = fdopen(fd, "w");
	struct lexicon *lx;

	(void)state;
	fputs("# comment\nlab\tpotassium\t칼륨|포타슘\tK|K+\n"
	      "demographic\tmale|man\t남성|남자\tM\n"
	      "ward\tintensive care unit\t중환자실\tICU\n"
	      "broken line without tabs\n"
	      "lab\tlaboratory test|lab\t검사\tLAB\n"
	      "drug\tlabetalol\t라베탈롤\tLAB\n"
	      "drug\tmannitol\t만니톨\tMAN\n"
	      "drug\tdobutamine\t도부타민\tDOB\n"
	      "demographic\tdate of birth\t생년월일\tDOB\n", f);
	fclose(f);
	assert_non_null(lx = lexicon_load(path, &bad));
	unlink(path);
	assert_int_equal(lx->n, 8);
	assert_int_equal(bad, 1);
	n = lexicon_exact(lx, " Potassium ", ids, 8, &weak);
	assert_int_equal(n, 1);
	assert_false(weak);
	assert_string_equal(lx->e[ids[0]].ko[0], "칼륨");
	n = lexicon_exact(lx, "k", ids, 8, &weak);
	assert_int_equal(n, 1);
	assert_true(weak);                     /* a one-letter code is weak evidence */
	n = lexicon_exact(lx, "ICU", ids, 8, &weak);
	assert_int_equal(n, 1);
	assert_false(weak);
	assert_int_equal(lexicon_exact(lx, "glucose", ids, 8, &weak), 0);
	/* a code that is another kind's word names that entry only: 'Lab' is the lab tests, not
	 * labetalol (LAB); "man" is a male, not mannitol (MAN) */
	assert_true(lx->e[4].shared[0]);
	assert_false(lx->e[3].shared[0]);
	n = lexicon_exact(lx, "Lab", ids, 8, &weak);
	assert_int_equal(n, 1);
	assert_string_equal(lx->e[ids[0]].en[0], "laboratory test");
	n = lexicon_exact(lx, "man", ids, 8, &weak);
	assert_int_equal(n, 1);
	assert_string_equal(lx->e[ids[0]].en[0], "male");
	/* a code two entries merely share names both: the caller tells them apart (a date column) */
	assert_false(lx->e[6].shared[0]);
	assert_int_equal(lexicon_exact(lx, "dob", ids, 8, &weak), 2);
	/* in text: whole English words, Korean substrings */
	n = lexicon_in_text(lx, "serum_potassium level", ids, 8);
	assert_int_equal(n, 1);
	assert_int_equal(lexicon_in_text(lx, "potassiumx", ids, 8), 0);
	assert_int_equal(lexicon_in_text(lx, "외과중환자실 병상", ids, 8), 1);
	assert_int_equal(lexicon_in_text(lx, "a human resource", ids, 8), 0);   /* "man" is not a word here */
	lexicon_free(lx);
	assert_null(lexicon_load("/nonexistent/lexicon.tsv", &bad));
}

static void test_context_invariant(void **state)
{
	struct catalog *c = hospital(), *small;
	struct retrieval_opts o = {.whole_schema_tokens = -1};
	struct retrieval r;
	const char *b;

	(void)state;
	/* a measure grouped by a table only a bridge reaches: vitals -> admission -> ward */
	assert_int_equal(catalog_retrieve(c, "average heart rate per ward name", &o, &r), OK);
	b = r.prompt_block;
	assert_true(block_has(b, "vitals", "hr"));
	assert_true(block_has(b, "ward", "ward_name"));
	assert_true(block_has(b, "admission", "adm_id"));
	assert_true(block_has(b, "admission", "ward_id"));
	assert_non_null(strstr(b, "- vitals.adm_id -> admission.adm_id"));
	assert_non_null(strstr(b, "- admission.ward_id -> ward.ward_id"));
	/* the bridge is not among the best-ranked tables: the connection put it there */
	int bridge_rank = -1;
	for (int i = 0; i < r.ntables; i++)
		if (!strcmp(r.tables[i].name, "admission"))
			bridge_rank = i;
	assert_true(bridge_rank != 0);
	/* each section once */
	assert_null(strstr(strstr(b, "[TABLE RELATIONSHIPS]") + 1, "[TABLE RELATIONSHIPS]"));
	assert_null(strstr(b, "billing_"));
	retrieval_free(&r);
	/* a label that lives in a dictionary table: the dictionary, the event table, the key and the label */
	assert_int_equal(catalog_retrieve(c, "mean lactate", &o, &r), OK);
	b = r.prompt_block;
	assert_true(block_has(b, "d_labitems", "label"));
	assert_true(block_has(b, "labevents", "valuenum"));
	assert_non_null(strstr(b, "- labevents.itemid -> d_labitems.itemid"));
	assert_non_null(strstr(b, "d_labitems.label = 'lactate'"));
	/* a category column shows its values */
	retrieval_free(&r);
	assert_int_equal(catalog_retrieve(c, "admissions per ward", &o, &r), OK);
	assert_non_null(strstr(r.prompt_block, "values: Medical ICU | Surgical ward"));
	retrieval_free(&r);
	/* a schema larger than the whole-schema budget is not sent whole */
	o.whole_schema_tokens = 500;
	assert_int_equal(catalog_retrieve(c, "average heart rate per ward name", &o, &r), OK);
	assert_null(strstr(r.prompt_block, "billing_"));
	retrieval_free(&r);
	cat_free(c);
	/* a small schema goes whole: every table, even one the question does not need */
	small = clinical();
	assert_int_equal(catalog_retrieve(small, "average heart rate", NULL, &r), OK);
	assert_true(block_has(r.prompt_block, "lab_data_table", "result"));
	assert_true(block_has(r.prompt_block, "clinical_data_table", "city"));
	/* ... with every join of the schema, not only the path of the tables the question reached */
	assert_non_null(strstr(r.prompt_block, "- lab_data_table.caseid -> clinical_data_table.caseid"));
	assert_non_null(strstr(r.prompt_block, "- vital_data_table.caseid -> clinical_data_table.caseid"));
	retrieval_free(&r);
	/* ... and also when nothing matched, so a model still sees the schema */
	assert_int_equal(catalog_retrieve(small, "qwzx vbnm", NULL, &r), OK);
	assert_int_equal(r.ntables, 0);
	assert_true(block_has(r.prompt_block, "vital_data_table", "hr"));
	retrieval_free(&r);
	cat_free(small);
}

/*
 * Coded columns whose stored values are bare numbers and single letters, as in a hospital
 * system: route and result codes, a patient number, a one-letter flag and sex.
 */
static struct catalog *codes(void)
{
	struct catalog *c = cat_new("codes", "builtin", DIM);
	int t, adm, route, result, ptno, flag, sex, lab, unit;
	char err[128];

	t = cat_add_table(c, "public", "admission", "hospital stays", NULL, 500);
	adm = cat_add_column(c, t, "adm_id", "integer", NULL, NULL, NULL);
	c->columns[adm].is_pk = 1;
	ptno = cat_add_column(c, t, "ptnt_no", "text", "환자번호", NULL, NULL);
	route = cat_add_column(c, t, "route_cd", "text", "admission route (1 outpatient, 2 emergency, 3 transfer)", NULL, NULL);
	result = cat_add_column(c, t, "rslt_cd", "text", "퇴원결과(1:호전, 2:전원, 3:자의퇴원, 4:사망)", NULL, NULL);
	flag = cat_add_column(c, t, "std_flag", "text", "S for a standard stay, I for an interim one", NULL, NULL);
	sex = cat_add_column(c, t, "sex", "text", "sex of the patient", NULL, NULL);
	cat_add_column(c, t, "los_days", "integer", "length of stay", NULL, "day");
	t = cat_add_table(c, "public", "lab", "laboratory results", NULL, 9000);
	lab = cat_add_column(c, t, "adm_id", "integer", NULL, NULL, NULL);
	cat_add_column(c, t, "albumin", "real", "serum albumin", NULL, "g/dL");
	unit = cat_add_column(c, t, "unit_cd", "text", "unit code", NULL, NULL);
	cat_add_edge(c, lab, adm, 0, 0);
	for (int i = 1; i <= 4; i++) {
		char v[4];

		snprintf(v, sizeof v, "%d", i);
		if (i <= 3)
			cat_add_value(c, route, v);
		cat_add_value(c, result, v);
	}
	cat_add_value(c, unit, "5");
	cat_add_value(c, unit, "12");
	cat_add_value(c, ptno, "10000088");
	cat_add_value(c, flag, "S");
	cat_add_value(c, flag, "I");
	cat_add_value(c, sex, "M");
	cat_add_value(c, sex, "F");
	assert_int_equal(cat_finish(c, err, sizeof err), OK);
	return c;
}

/* the mapping of value in column col, NULL when the question was not mapped to it */
static const struct ret_value *mapped(struct catalog *c, const char *question, struct retrieval *r,
                                      const char *col, const char *value)
{
	assert_int_equal(catalog_retrieve(c, question, NULL, r), OK);
	for (int i = 0; i < r->nvalues; i++)
		if (!strcmp(r->values[i].column, col) && !strcmp(r->values[i].value, value))
			return &r->values[i];
	return NULL;
}

/* numbers that count, bound or measure something are not codes; a number tied to its column is */
static void test_number_mappings(void **state)
{
	struct catalog *c = codes();
	struct retrieval r;
	static const struct { const char *q, *col, *value; } quantities[] = {
		{"top 3 admissions by length of stay", "route_cd", "3"},
		{"admissions in the last 3 months", "route_cd", "3"},
		{"admissions lasting 3 months", "rslt_cd", "3"},
		{"albumin above 3.0 g/dL", "route_cd", "3"},
		{"albumin of 3.0", "rslt_cd", "3"},
		{"patients with more than 3 admissions", "route_cd", "3"},
		{"patients with at least 2 admissions", "route_cd", "2"},
		{"admissions over 12 weeks", "unit_cd", "12"},
		{"12 admissions", "unit_cd", "12"},
		{"glucose 5.5 mmol/L", "unit_cd", "5"},
		{"3개월 이상 입원한 환자", "route_cd", "3"},
		{"입원 4주 이내", "rslt_cd", "4"},
		{"4 이상", "rslt_cd", "4"},
		{"stays of 2 or more days", "route_cd", "2"},
		{"admissions on 03/2100", "route_cd", "3"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof quantities / sizeof *quantities; i++) {
		const struct ret_value *v = mapped(c, quantities[i].q, &r, quantities[i].col, quantities[i].value);

		if (v)
			fail_msg("\"%s\" mapped to %s = '%s'", quantities[i].q, quantities[i].col, quantities[i].value);
		retrieval_free(&r);
	}
	/* the word before the number names the column: its name, its comment, a Korean compound */
	assert_non_null(mapped(c, "admissions with route code 2", &r, "route_cd", "2"));
	retrieval_free(&r);
	assert_non_null(mapped(c, "결과코드 4 환자", &r, "rslt_cd", "4"));
	retrieval_free(&r);
	assert_non_null(mapped(c, "labs with unit code 12", &r, "unit_cd", "12"));
	retrieval_free(&r);
	/* a quoted number is a literal */
	assert_non_null(mapped(c, "admissions whose route is '3'", &r, "route_cd", "3"));
	retrieval_free(&r);
	/* a long number identifies something by itself */
	assert_non_null(mapped(c, "show 10000088 admissions", &r, "ptnt_no", "10000088"));
	retrieval_free(&r);
	assert_non_null(mapped(c, "10000088번 환자 입원", &r, "ptnt_no", "10000088"));
	retrieval_free(&r);
	cat_free(c);
}

/* a single letter is a code only when the question writes it as one */
static void test_letter_mappings(void **state)
{
	struct catalog *c = codes();
	struct retrieval r;

	(void)state;
	/* the s of a possessive, the pronoun I, a lower-case letter standing for nothing */
	assert_null(mapped(c, "each patient's admissions", &r, "std_flag", "S"));
	retrieval_free(&r);
	assert_null(mapped(c, "I want the admissions of last year", &r, "std_flag", "I"));
	retrieval_free(&r);
	assert_null(mapped(c, "admissions per ward, s and t", &r, "std_flag", "S"));
	retrieval_free(&r);
	/* quoted, right after the column's name, or a capital standing alone in the sentence */
	assert_non_null(mapped(c, "admissions marked 's'", &r, "std_flag", "S"));
	retrieval_free(&r);
	assert_non_null(mapped(c, "admissions by sex m", &r, "sex", "M"));
	retrieval_free(&r);
	assert_non_null(mapped(c, "how many admissions of M patients", &r, "sex", "M"));
	retrieval_free(&r);
	cat_free(c);
}

/* a vocabulary table that event tables point at, with more labels than a category shows */
static struct catalog *vocabulary(int dictionary)
{
	struct catalog *c = cat_new("vocab", "builtin", DIM);
	int t, cid, cname, ev, ecid, other;
	char err[128], v[32];

	t = cat_add_table(c, "public", "concept", "standard vocabulary", NULL, 40);
	cid = cat_add_column(c, t, "concept_id", "integer", NULL, NULL, NULL);
	c->columns[cid].is_pk = 1;
	cname = cat_add_column(c, t, "concept_name", "text", "name of the concept", NULL, NULL);
	t = cat_add_table(c, "public", "event", "clinical events", NULL, 20000);
	ev = cat_add_column(c, t, "event_id", "integer", NULL, NULL, NULL);
	c->columns[ev].is_pk = 1;
	ecid = cat_add_column(c, t, "concept_id", "integer", "what happened", NULL, NULL);
	cat_add_column(c, t, "event_date", "date", "when", NULL, NULL);
	t = cat_add_table(c, "public", "note", "free-text notes", NULL, 30);
	cat_add_column(c, t, "note_id", "integer", NULL, NULL, NULL);
	other = cat_add_column(c, t, "author", "text", "who wrote it", NULL, NULL);
	if (dictionary)
		cat_add_edge(c, ecid, cid, 0, 0);
	for (int i = 1; i <= 40; i++) {
		snprintf(v, sizeof v, "Condition number %02d", i);
		cat_add_value(c, cname, v);
		snprintf(v, sizeof v, "Author %02d", i);
		cat_add_value(c, other, v);
	}
	assert_int_equal(cat_finish(c, err, sizeof err), OK);
	return c;
}

/* a whole schema lists the labels of a small dictionary, within the whole-schema budget */
static void test_dictionary_labels(void **state)
{
	struct catalog *c = vocabulary(1);
	struct retrieval r;
	struct retrieval_opts o = {0};
	int w;

	(void)state;
	assert_int_equal(catalog_retrieve(c, "events per concept", NULL, &r), OK);
	assert_true(block_has(r.prompt_block, "note", "author"));   /* the whole schema */
	assert_non_null(strstr(r.prompt_block, "values: Condition number 01 | Condition number 02"));
	assert_non_null(strstr(r.prompt_block, "| Condition number 40\n"));
	/* a table nothing points at is no dictionary */
	assert_null(strstr(r.prompt_block, "Author 01"));
	retrieval_free(&r);
	/* the smallest budget that takes the schema whole has no room for the list: the schema
	 * still goes whole, without it, rather than overflowing or falling back to retrieval */
	for (w = 50; w < 3000; w += 10) {
		o.whole_schema_tokens = w;
		assert_int_equal(catalog_retrieve(c, "events per concept", &o, &r), OK);
		int whole = block_has(r.prompt_block, "note", "author");
		if (whole)
			assert_null(strstr(r.prompt_block, "Condition number 01"));
		retrieval_free(&r);
		if (whole)
			break;
	}
	assert_true(w < 3000);
	o.whole_schema_tokens = w + 400;
	assert_int_equal(catalog_retrieve(c, "events per concept", &o, &r), OK);
	assert_non_null(strstr(r.prompt_block, "Condition number 40"));
	retrieval_free(&r);
	/* retrieval mode lists no dictionary */
	o.whole_schema_tokens = -1;
	assert_int_equal(catalog_retrieve(c, "events per concept", &o, &r), OK);
	assert_null(strstr(r.prompt_block, "Condition number 40"));
	retrieval_free(&r);
	cat_free(c);
	/* without a key pointing at it the same table is no dictionary */
	c = vocabulary(0);
	assert_int_equal(catalog_retrieve(c, "events per concept", NULL, &r), OK);
	assert_null(strstr(r.prompt_block, "Condition number 40"));
	retrieval_free(&r);
	cat_free(c);
}

/* one word stored in two columns: the column whose texts fit the rest of the question first */
static void test_ambiguous_order(void **state)
{
	struct catalog *c = cat_new("amb", "builtin", DIM);
	struct retrieval r;
	int t, site, vocab;
	char err[128];

	(void)state;
	t = cat_add_table(c, "public", "care_site", "departments, clinics and wards", NULL, 11);
	site = cat_add_column(c, t, "site_src", "text", "department code in the hospital system", NULL, NULL);
	t = cat_add_table(c, "public", "vocabulary", "standard terms", NULL, 80);
	vocab = cat_add_column(c, t, "term_src", "text", "code in the source vocabulary", NULL, NULL);
	cat_add_value(c, site, "ER");
	cat_add_value(c, vocab, "ER");
	assert_int_equal(cat_finish(c, err, sizeof err), OK);
	assert_int_equal(catalog_retrieve(c, "visits to the ER department", NULL, &r), OK);
	assert_true(r.nvalues >= 2);
	assert_string_equal(r.values[0].column, "site_src");
	retrieval_free(&r);
	assert_int_equal(catalog_retrieve(c, "ER in the source vocabulary", NULL, &r), OK);
	assert_true(r.nvalues >= 2);
	assert_string_equal(r.values[0].column, "term_src");
	retrieval_free(&r);
	cat_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rrf),
		cmocka_unit_test(test_fk_paths),
		cmocka_unit_test(test_value_mapping),
		cmocka_unit_test(test_retrieve),
		cmocka_unit_test(test_context_invariant),
		cmocka_unit_test(test_number_mappings),
		cmocka_unit_test(test_letter_mappings),
		cmocka_unit_test(test_dictionary_labels),
		cmocka_unit_test(test_ambiguous_order),
		cmocka_unit_test(test_lexicon),
		cmocka_unit_test(test_embedding),
		cmocka_unit_test(test_tokens),
		cmocka_unit_test(test_literals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
