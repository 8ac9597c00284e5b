/* sqlrefs.c: which catalog tables and columns an SQL text uses, and whether a prompt block names them (askql eval --context; docs/context.md). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include <pg_query.h>
#include "catalog/catalog_int.h"

#define MAXALIAS 64
#define MAXCOLREF 256

struct walk {
	const struct catalog *c;
	int tabs[MAXALIAS], ntabs;                   /* catalog tables seen */
	char *alias[MAXALIAS]; int alias_t[MAXALIAS], nalias;
	char *cq[MAXCOLREF], *cn[MAXCOLREF]; int ncol; /* column refs: qualifier (may be NULL), name */
};

static void lower(char *s)
{
	for (; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

static int has(const int *l, int n, int v)
{
	for (int i = 0; i < n; i++)
		if (l[i] == v)
			return 1;
	return 0;
}

static const char *sv(const cJSON *n)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(n, "String"), *v;

	v = s ? cJSON_GetObjectItemCaseSensitive(s, "sval") : NULL;
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void walk(struct walk *w, const cJSON *n)
{
	const cJSON *it;

	if (!n)
		return;
	if (cJSON_IsObject(n)) {
		const cJSON *rv = cJSON_GetObjectItemCaseSensitive(n, "RangeVar");
		const cJSON *cr = cJSON_GetObjectItemCaseSensitive(n, "ColumnRef");

		if (rv) {
			const cJSON *rn = cJSON_GetObjectItemCaseSensitive(rv, "relname");
			const cJSON *al = cJSON_GetObjectItemCaseSensitive(rv, "alias");
			const cJSON *an = al ? cJSON_GetObjectItemCaseSensitive(al, "aliasname") : NULL;
			int t = cJSON_IsString(rn) ? cat_find_table(w->c, rn->valuestring) : -1;

			if (t >= 0) {
				if (!has(w->tabs, w->ntabs, t) && w->ntabs < MAXALIAS)
					w->tabs[w->ntabs++] = t;
				if (w->nalias < MAXALIAS) {
					w->alias[w->nalias] = strdup(cJSON_IsString(an) ? an->valuestring : rn->valuestring);
					w->alias_t[w->nalias++] = t;
				}
			}
		}
		if (cr && w->ncol < MAXCOLREF) {
			const cJSON *f = cJSON_GetObjectItemCaseSensitive(cr, "fields");
			int nf = cJSON_GetArraySize(f);
			const char *last = nf ? sv(cJSON_GetArrayItem(f, nf - 1)) : NULL;
			const char *qual = nf >= 2 ? sv(cJSON_GetArrayItem(f, nf - 2)) : NULL;

			if (last) {
				w->cq[w->ncol] = qual ? strdup(qual) : NULL;
				w->cn[w->ncol++] = strdup(last);
			}
		}
	}
	cJSON_ArrayForEach(it, n)
		walk(w, it);
}

static int column_of(const struct catalog *c, int t, const char *name)
{
	for (int k = 0; k < c->tables[t].ncols; k++)
		if (!strcmp(c->columns[c->tables[t].first_col + k].name, name))
			return c->tables[t].first_col + k;
	return -1;
}

/* add table t (column ci, or -1 for the table itself) to out once */
static int add(struct cat_ref *out, int n, int max, const struct catalog *c, int t, int ci)
{
	const char *tn = c->tables[t].name, *cn = ci >= 0 ? c->columns[ci].name : NULL;

	for (int i = 0; i < n; i++)
		if (!strcmp(out[i].table, tn) && ((!cn && !out[i].column) || (cn && out[i].column && !strcmp(out[i].column, cn))))
			return n;
	if (n < max)
		out[n++] = (struct cat_ref){tn, cn};
	return n;
}

/* SQL that libpg_query does not parse (SQLite functions and quoting): identifiers matched
 * against the catalog's table names, then t.col and bare column names of those tables */
static int scan(const struct catalog *c, const char *sql, struct cat_ref *out, int max)
{
	int tabs[MAXALIAS], nt = 0, n = 0;
	char word[256];

	for (int pass = 0; pass < 2; pass++) {
		const char *p = sql;

		while (*p) {
			size_t len = 0;

			if (!(isalpha((unsigned char)*p) || *p == '_')) {
				p++;
				continue;
			}
			while ((isalnum((unsigned char)p[len]) || p[len] == '_' || p[len] == '.') && len < sizeof word - 1)
				len++;
			memcpy(word, p, len);
			word[len] = 0;
			p += len;
			lower(word);
			char *dot = strchr(word, '.');
			if (pass == 0) {
				int t = cat_find_table(c, dot ? (*dot = 0, word) : word);

				if (t >= 0 && !has(tabs, nt, t) && nt < MAXALIAS)
					tabs[nt++] = t;
				continue;
			}
			if (dot) {
				int t;

				*dot = 0;
				if ((t = cat_find_table(c, word)) >= 0 && column_of(c, t, dot + 1) >= 0)
					n = add(out, n, max, c, t, column_of(c, t, dot + 1));
				continue;
			}
			for (int i = 0; i < nt; i++)
				if (column_of(c, tabs[i], word) >= 0) {
					n = add(out, n, max, c, tabs[i], column_of(c, tabs[i], word));
					break;
				}
		}
	}
	for (int i = 0; i < nt; i++)
		n = add(out, n, max, c, tabs[i], -1);
	return n;
}

int catalog_sql_refs(struct catalog *cat, const char *sql, struct cat_ref *out, int max, int *parsed)
{
	const struct catalog *c = cat;
	PgQueryParseResult pr;
	struct walk w;
	cJSON *tree;
	int n = 0;

	*parsed = 0;
	if (!c || !sql || max <= 0)
		return 0;
	pr = pg_query_parse(sql);
	tree = !pr.error && pr.parse_tree ? cJSON_Parse(pr.parse_tree) : NULL;
	pg_query_free_parse_result(pr);
	if (!tree)
		return scan(c, sql, out, max);
	*parsed = 1;
	memset(&w, 0, sizeof w);
	w.c = c;
	walk(&w, tree);
	cJSON_Delete(tree);
	for (int i = 0; i < w.ntabs; i++)
		n = add(out, n, max, c, w.tabs[i], -1);
	for (int i = 0; i < w.ncol; i++) {
		int ci = -1, t = -1;

		if (w.cq[i]) {
			for (int a = 0; a < w.nalias && t < 0; a++)
				if (!strcmp(w.alias[a], w.cq[i]))
					t = w.alias_t[a];
			if (t >= 0)
				ci = column_of(c, t, w.cn[i]);
		} else {
			/* a bare name: the first table of the query that has it (else an output alias) */
			for (int k = 0; k < w.ntabs && ci < 0; k++)
				if ((ci = column_of(c, w.tabs[k], w.cn[i])) >= 0)
					t = w.tabs[k];
		}
		if (ci >= 0)
			n = add(out, n, max, c, t, ci);
	}
	for (int i = 0; i < w.nalias; i++)
		free(w.alias[i]);
	for (int i = 0; i < w.ncol; i++) {
		free(w.cq[i]);
		free(w.cn[i]);
	}
	return n;
}

int catalog_block_names(const char *block, const char *table, const char *column)
{
	char head[320];
	const char *s = NULL, *e, *p;
	size_t cl;

	if (!block || !table)
		return 0;
	/* "Table: name (~N rows)", "Table: name -- comment" or "Table: name" at a line end */
	snprintf(head, sizeof head, "Table: %s", table);
	for (p = strstr(block, head); p; p = strstr(p + 1, head)) {
		char after = p[strlen(head)];

		if ((p == block || p[-1] == '\n') && (after == ' ' || after == '\n' || after == '\0')) {
			s = p;
			break;
		}
	}
	if (!s)
		return 0;
	if (!column)
		return 1;
	e = strstr(s + 1, "\nTable: ");
	if (!e)
		e = strstr(s, "\n\n");
	cl = strlen(column);
	for (p = strstr(s + strlen(head), column); p && (!e || p < e); p = strstr(p + 1, column)) {
		char b = p[-1], a = p[cl];

		if ((b == ' ' || b == ',' || b == '(') && (a == ':' || a == ',' || a == ')' || a == '\n' || a == ' '))
			return 1;
	}
	return 0;
}

int catalog_table_columns(struct catalog *cat, const char *table, struct cat_ref *out, int max)
{
	const struct catalog *c = cat;
	int t, n = 0;

	if (!c || !table || max <= 0)
		return 0;
	if ((t = cat_find_table(c, table)) < 0 && !strncmp(table, "public.", 7))
		t = cat_find_table(c, table + 7);
	if (t < 0)
		return 0;
	for (int k = 0; k < c->tables[t].ncols && n < max; k++)
		out[n++] = (struct cat_ref){c->tables[t].name, c->columns[c->tables[t].first_col + k].name};
	return n;
}
