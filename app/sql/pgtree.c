/* pgtree.c: small readers of libpg_query's JSON parse tree (sql/pgtree.h). */
#include <stdio.h>
#include <string.h>
#include <pg_query.h>
#include "sql/pgtree.h"

const cJSON *pgt_body(const cJSON *n, const char **type)
{
	if (!cJSON_IsObject(n) || !n->child || n->child->next)
		return NULL;
	*type = n->child->string;
	return n->child;
}

const char *pgt_last_sval(const cJSON *list)
{
	const char *v = NULL;
	const cJSON *e;
	cJSON_ArrayForEach(e, list) {
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(e, "String");
		const cJSON *sv = s ? cJSON_GetObjectItemCaseSensitive(s, "sval") : NULL;
		if (cJSON_IsString(sv))
			v = sv->valuestring;
	}
	return v;
}

int pgt_const_text(const cJSON *b, char *out, size_t cap)
{
	const cJSON *x;
	if ((x = cJSON_GetObjectItemCaseSensitive(b, "sval"))) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(x, "sval");
		snprintf(out, cap, "%s", cJSON_IsString(v) ? v->valuestring : "");
		return 1;
	}
	if ((x = cJSON_GetObjectItemCaseSensitive(b, "ival"))) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(x, "ival");   /* protobuf elides 0 */
		snprintf(out, cap, "%lld", cJSON_IsNumber(v) ? (long long)v->valuedouble : 0LL);
		return 1;
	}
	if ((x = cJSON_GetObjectItemCaseSensitive(b, "fval"))) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(x, "fval");
		snprintf(out, cap, "%s", cJSON_IsString(v) ? v->valuestring : "0");
		return 1;
	}
	if ((x = cJSON_GetObjectItemCaseSensitive(b, "boolval"))) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(x, "boolval");
		snprintf(out, cap, "%s", cJSON_IsTrue(v) ? "true" : "false");
		return 1;
	}
	return 0;
}

cJSON *pgt_parse_one(const char *sql, const cJSON **stmt)
{
	const char *type;
	*stmt = NULL;
	PgQueryParseResult pr = pg_query_parse(sql);
	cJSON *root = pr.error ? NULL : cJSON_Parse(pr.parse_tree);
	pg_query_free_parse_result(pr);
	const cJSON *stmts = root ? cJSON_GetObjectItemCaseSensitive(root, "stmts") : NULL;
	if (!root || cJSON_GetArraySize(stmts) != 1) {
		cJSON_Delete(root);
		return NULL;
	}
	const cJSON *b = pgt_body(cJSON_GetObjectItemCaseSensitive(stmts->child, "stmt"), &type);
	if (b && !strcmp(type, "SelectStmt"))
		*stmt = b;
	return root;
}
