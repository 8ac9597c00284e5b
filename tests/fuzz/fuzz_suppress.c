/* fuzz_suppress.c: libFuzzer target for the safe aggregate form (sql/suppress.h): no crash, no leak, and an accepted statement comes back as one SELECT that parses, counts its patients first and has a HAVING. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include <pg_query.h>
#include "sql/suppress.h"

/* hwanja and ipwon hold the patient key; labs holds persons' rows without it; cm_kcd is a code list */
static int has_col(void *ctx, const char *schema, const char *table, const char *col)
{
	static const char *const cols[] = {"hwanja.subject_id", "hwanja.age", "hwanja.sex", "ipwon.subject_id",
	                                   "ipwon.ipwon_seq", "ipwon.ward_cd", "ipwon.ipwon_dt", "labs.caseid",
	                                   "labs.result", "cm_kcd.kcd_cd", "cm_kcd.kcd_nm", NULL};
	char tc[300];

	snprintf(tc, sizeof tc, "%s.%s", table, col);
	for (int i = 0; cols[i]; i++)
		if (!strcmp(cols[i], tc))
			return 1;
	return 0;
}

static int unique(void *ctx, const char *schema, const char *table, const char *col)
{
	return (!strcmp(table, "hwanja") && !strcmp(col, "subject_id")) || (!strcmp(table, "ipwon") && !strcmp(col, "ipwon_seq")) ||
	       (!strcmp(table, "cm_kcd") && !strcmp(col, "kcd_cd"));
}

static int tied(void *ctx, const char *schema, const char *table)
{
	return strcmp(table, "cm_kcd") != 0;
}

static int ident_name(void *ctx, const char *col)
{
	return !strcmp(col, "caseid") || !strcmp(col, "ipwon_seq");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keys[] = {"subject_id", "patient_id"};
	struct suppress_db db = {has_col, unique, tied, ident_name, NULL};
	struct suppress_opts o = {keys, 2, &db, 11, 0, 0, 0};
	struct suppress_refusal why;
	char *sql, *out = NULL;
	enum err rc;

	if (size > 64 * 1024)
		return 0;
	/* the first byte picks the options: release rounding, the form alone, the release's noise */
	if (size > 0) {
		o.round = data[0] & 1 ? 5 : 0;
		if (data[0] & 2)
			o.db = NULL;
		o.noise = (data[0] & 4) != 0;
		o.noise_key = data[0] & 8 ? -1 : 7;
	}
	if (!(sql = malloc(size + 1)))
		return 0;
	memcpy(sql, data, size);
	sql[size] = '\0';
	rc = suppress_rewrite(sql, &o, &out, &why);
	if (rc == OK && o.db) {
		PgQueryParseResult pr;
		cJSON *root, *sel, *first;

		if (!out)
			abort();
		pr = pg_query_parse(out);
		if (pr.error) {
			fprintf(stderr, "the rewrite does not parse: [%s] -> [%s]: %s\n", sql, out, pr.error->message);
			abort();
		}
		root = cJSON_Parse(pr.parse_tree);
		sel = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(root, "stmts"), 0), "stmt"),
		                          "SelectStmt");
		first = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(sel, "targetList"), 0), "ResTarget");
		if (cJSON_GetArraySize(cJSON_GetObjectItem(root, "stmts")) != 1 || !sel ||
		    strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(first, "name")) ? cJSON_GetStringValue(cJSON_GetObjectItem(first, "name")) : "",
		           SUPPRESS_COLUMN) || !cJSON_GetObjectItem(sel, "havingClause")) {
			fprintf(stderr, "the rewrite lost its count or HAVING: [%s] -> [%s]\n", sql, out);
			abort();
		}
		cJSON_Delete(root);
		pg_query_free_parse_result(pr);
	} else if (rc == OK) {
		if (out)
			abort();
	} else if (rc == ERR_DENIED || rc == ERR_PARSE) {
		struct sb b = SB_INIT;

		if (out || why.code == SUPP_OK)
			abort();
		suppress_reason(&why, &b);
		sb_free(&b);
	}
	free(out);
	free(sql);
	return 0;
}
