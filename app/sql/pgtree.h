/* pgtree.h: small readers of libpg_query's JSON parse tree shared by the checks that read SQL (agent/coverage.c, sql/reading.c). */
#ifndef ASKQL_SQL_PGTREE_H
#define ASKQL_SQL_PGTREE_H

#include <stddef.h>
#include <cjson/cJSON.h>

/* pgt_body: the one member of a node object ({"ColumnRef": {...}}) whose value is the node's
 * body, its type name in *type; NULL when n is no node. */
const cJSON *pgt_body(const cJSON *n, const char **type);

/* pgt_last_sval: the last String of a list of names (a column's or a function's own name), or NULL */
const char *pgt_last_sval(const cJSON *list);

/* pgt_const_text: an A_Const body's value as text into out (cap bytes): a string as written, a
 * number in decimal, true/false; 0 when it holds none (NULL) */
int pgt_const_text(const cJSON *aconst, char *out, size_t cap);

/* pgt_parse_one: the parse tree of sql (heap, cJSON_Delete it) and in *stmt the body of its one
 * SelectStmt; NULL when sql does not parse as exactly one statement. *stmt NULL when that
 * statement is no SELECT. */
cJSON *pgt_parse_one(const char *sql, const cJSON **stmt);

#endif
