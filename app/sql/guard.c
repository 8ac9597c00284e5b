/* guard.c: the SQL guard: PostgreSQL's parser (libpg_query) decides what may run, never patterns. */
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <pg_query.h>
#include <cjson/cJSON.h>
#include "sql/guard.h"
#include "util/json.h"
#include "util/sb.h"

#define GUARD_MAX_SQL (100 * 1024)
#define GUARD_MAX_TOKENS 10000  /* an analyst query is far below; bounds tree depth */
#define GUARD_MAX_PM_RUN 256   /* see pm_run */
#define GUARD_MAX_LIST 500     /* tables/columns/warnings reported at most */

/* Scanner token codes of libpg_query 15 (pg_query.proto enum Token). */
#define TOK_SEMI 59
#define TOK_UIDENT 259
#define TOK_SCONST 261
#define TOK_USCONST 262
#define TOK_SQL_COMMENT 275
#define TOK_C_COMMENT 276

struct deny { const char *pat, *why; };

#define DENY_FUNC(p, w) {p, w},
#define DENY_REL(p, w)
#define ALLOW_SETTING(p)
static const struct deny deny_funcs[] = {
#include "sql/guard_denylist.def"
};
#undef DENY_FUNC
#undef DENY_REL
#define DENY_FUNC(p, w)
#define DENY_REL(p, w) {p, w},
static const struct deny deny_rels[] = {
#include "sql/guard_denylist.def"
};
#undef DENY_REL
#undef ALLOW_SETTING
#define DENY_REL(p, w)
#define ALLOW_SETTING(p) p,
static const char *const allow_settings[] = {
#include "sql/guard_denylist.def"
};
#undef DENY_FUNC
#undef DENY_REL
#undef ALLOW_SETTING

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Raw parse node types a SELECT may contain; anything else is refused. */
static const char *const allowed_nodes[] = {
	"SelectStmt", "ResTarget", "ColumnRef", "A_Star", "A_Const", "A_Expr", "A_Indirection",
	"A_Indices", "A_ArrayExpr", "BoolExpr", "NullTest", "BooleanTest", "CaseExpr", "CaseWhen",
	"CoalesceExpr", "MinMaxExpr", "RowExpr", "SubLink", "FuncCall", "TypeCast", "TypeName",
	"CollateClause", "SortBy", "WindowDef", "RangeVar", "RangeSubselect", "RangeFunction",
	"RangeTableSample", "RangeTableFunc", "RangeTableFuncCol", "JoinExpr", "WithClause",
	"CommonTableExpr", "CTESearchClause", "CTECycleClause", "GroupingSet", "GroupingFunc",
	"SQLValueFunction", "XmlExpr", "XmlSerialize", "NamedArgExpr", "List", "String", "Integer",
	"Float", "Boolean", "BitString", "Alias",
};

/* Statement node names as people write them, for reasons. */
static const struct { const char *node, *text; } stmt_names[] = {
	{"InsertStmt", "INSERT"}, {"UpdateStmt", "UPDATE"}, {"DeleteStmt", "DELETE"},
	{"MergeStmt", "MERGE"}, {"CopyStmt", "COPY"}, {"CallStmt", "CALL"}, {"DoStmt", "DO"},
	{"VariableSetStmt", "SET/RESET"}, {"VariableShowStmt", "SHOW"}, {"LockStmt", "LOCK"},
	{"PrepareStmt", "PREPARE"}, {"ExecuteStmt", "EXECUTE"}, {"DeallocateStmt", "DEALLOCATE"},
	{"ListenStmt", "LISTEN"}, {"UnlistenStmt", "UNLISTEN"}, {"NotifyStmt", "NOTIFY"},
	{"VacuumStmt", "VACUUM/ANALYZE"}, {"ExplainStmt", "EXPLAIN"},
	{"TransactionStmt", "transaction control"}, {"CreateTableAsStmt", "CREATE TABLE AS"},
	{"TruncateStmt", "TRUNCATE"}, {"DropStmt", "DROP"}, {"CreateStmt", "CREATE TABLE"},
	{"AlterTableStmt", "ALTER TABLE"}, {"GrantStmt", "GRANT/REVOKE"}, {"DeclareCursorStmt", "DECLARE CURSOR"},
	{"FetchStmt", "FETCH"}, {"ClosePortalStmt", "CLOSE"}, {"CheckPointStmt", "CHECKPOINT"},
	{"DiscardStmt", "DISCARD"}, {"LoadStmt", "LOAD"}, {"ReindexStmt", "REINDEX"},
	{"ClusterStmt", "CLUSTER"}, {"RefreshMatViewStmt", "REFRESH MATERIALIZED VIEW"},
	{"ViewStmt", "CREATE VIEW"}, {"CreateFunctionStmt", "CREATE FUNCTION"},
	{"IndexStmt", "CREATE INDEX"}, {"RuleStmt", "CREATE RULE"}, {"CreateRoleStmt", "CREATE ROLE"},
	{"AlterRoleStmt", "ALTER ROLE"}, {"AlterSystemStmt", "ALTER SYSTEM"},
	{"CreateExtensionStmt", "CREATE EXTENSION"}, {"CommentStmt", "COMMENT"},
	{"SecLabelStmt", "SECURITY LABEL"}, {"CreateSchemaStmt", "CREATE SCHEMA"},
};

struct strlist { char **v; int n, cap; };

/* A FROM item visible to column references: alias -> relation (NULL: subquery/function). */
struct item { char *alias, *rel; };

/* One SELECT's name scope: the CTE names it sees and its FROM items. */
struct scope {
	struct scope *up;
	char **ctes; int nctes, capctes;
	struct item *items; int nitems, capitems;
	int nrels;                  /* items that are real relations */
	int joins;                  /* joins in this SELECT's own FROM (comma items and JOIN ... ON) */
};

struct gctx {
	const char *sql;
	const struct guard_opts *opts;
	struct guard_tok *toks; int ntoks;
	int refused;
	char *reason;
	int loc;                    /* byte offset of the problem, -1 unknown */
	int lastloc;                /* last node location seen, for nodes without one */
	struct strlist tables, columns, warnings;
	int joins;                  /* the most joins of any one SELECT (not summed over UNION arms or subqueries) */
	int depth, maxdepth;
	struct scope *sc;
	enum err err;
};

static char *xstrdup(struct gctx *g, const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d)
		g->err = ERR_NOMEM;
	return d;
}

/* strlist_add: append a copy of s unless present (set semantics, order kept). */
static void strlist_add(struct gctx *g, struct strlist *l, const char *s)
{
	if (l->n >= GUARD_MAX_LIST)
		return;     /* enough to report; keeps a pathological text linear */
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return;
	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 8;
		char **nv = realloc(l->v, (size_t)cap * sizeof *nv);

		if (!nv) {
			g->err = ERR_NOMEM;
			return;
		}
		l->v = nv;
		l->cap = cap;
	}
	if ((l->v[l->n] = xstrdup(g, s)))
		l->n++;
}

static void strlist_free(struct strlist *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof *l);
}

/* refuse: record the first reason only (the earliest problem found is the one shown). */
static void refuse(struct gctx *g, int loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void refuse(struct gctx *g, int loc, const char *fmt, ...)
{
	struct sb sb = SB_INIT;
	va_list ap;

	if (g->refused)
		return;
	g->refused = 1;
	g->loc = loc >= 0 ? loc : g->lastloc;
	va_start(ap, fmt);
	sb_vprintf(&sb, fmt, ap);
	va_end(ap);
	if (!sb_ok(&sb))
		g->err = ERR_NOMEM;
	g->reason = sb_steal(&sb);
}

/* pos1: 1-based character position of byte offset off in s (0 when unknown). */
static int pos1(const char *s, int off)
{
	int n = 1;

	if (off < 0)
		return 0;
	for (int i = 0; i < off && s[i]; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			n++;
	return n;
}

/* utf8_bad: byte offset of the first invalid UTF-8 sequence, -1 if valid. */
static int utf8_bad(const unsigned char *s)
{
	for (const unsigned char *p = s; *p;) {
		int n;
		unsigned int cp;

		if (*p < 0x80) { p++; continue; }
		if ((*p & 0xE0) == 0xC0) { n = 1; cp = *p & 0x1F; }
		else if ((*p & 0xF0) == 0xE0) { n = 2; cp = *p & 0x0F; }
		else if ((*p & 0xF8) == 0xF0) { n = 3; cp = *p & 0x07; }
		else return (int)(p - s);
		for (int i = 1; i <= n; i++) {
			if ((p[i] & 0xC0) != 0x80)
				return (int)(p - s);
			cp = (cp << 6) | (p[i] & 0x3F);
		}
		if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
		    cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			return (int)(p - s);
		p += n + 1;
	}
	return -1;
}

/*
 * pm_run: byte offset where a run of '+'/'-' (no "--" in it) grows past GUARD_MAX_PM_RUN,
 * -1 if none.  PostgreSQL's scanner strips such a run one character per token and rescans
 * the rest: quadratic, 100 KB of '+' costs a minute of CPU.  A resource cap on the raw
 * text, not a safety decision (those are made on the parse tree); it may refuse such a
 * run inside a string literal, which no analyst writes.
 */
static int pm_run(const char *s)
{
	int run = 0;

	for (int i = 0; s[i]; i++) {
		if (s[i] == '+' || (s[i] == '-' && !(i > 0 && s[i - 1] == '-')))
			run++;
		else
			run = 0;    /* "--" starts a comment: the scanner does not split it */
		if (run > GUARD_MAX_PM_RUN)
			return i;
	}
	return -1;
}

/* ---- the scanner's token list (protobuf ScanResult decoded by hand: 3 fields) ---- */

static int varint(const unsigned char **p, const unsigned char *e, uint64_t *v)
{
	int shift = 0;

	*v = 0;
	while (*p < e && shift < 64) {
		unsigned char b = *(*p)++;

		*v |= (uint64_t)(b & 0x7F) << shift;
		if (!(b & 0x80))
			return 1;
		shift += 7;
	}
	return 0;
}

/* skipfield: skip a field of wire type w; 0 on malformed input. */
static int skipfield(const unsigned char **p, const unsigned char *e, int w)
{
	uint64_t v;

	switch (w) {
	case 0: return varint(p, e, &v);
	case 1: if (e - *p < 8) return 0; *p += 8; return 1;
	case 5: if (e - *p < 4) return 0; *p += 4; return 1;
	case 2:
		if (!varint(p, e, &v) || v > (uint64_t)(e - *p))
			return 0;
		*p += v;
		return 1;
	default: return 0;
	}
}

/*
 * u_end: the end of a U&'...' or U&"..." token.  libpg_query 15 reports these tokens with
 * a wrong end (the scanner's state change), so find the closing quote: a doubled quote
 * is part of the text, no other escape can hide one.  Returns t->end when unsure.
 */
static int u_end(const char *sql, const struct guard_tok *t)
{
	const char *p = sql + t->start;
	char q;

	if ((p[0] != 'u' && p[0] != 'U') || p[1] != '&' || (p[2] != '\'' && p[2] != '"'))
		return t->end;
	q = p[2];
	for (p += 3; *p; p++) {
		if (*p != q)
			continue;
		if (p[1] == q) {
			p++;
			continue;
		}
		return (int)(p + 1 - sql);
	}
	return t->end;
}

/* scan: tokens of sql (ScanResult.tokens = 2; ScanToken start=1 end=2 token=4). */
static enum err scan(struct gctx *g)
{
	PgQueryScanResult r = pg_query_scan(g->sql);
	const unsigned char *p, *e;
	int cap = 0;
	enum err rc = OK;

	if (r.error) {
		rc = ERR_PARSE;
		goto out;
	}
	p = (const unsigned char *)r.pbuf.data;
	e = p + r.pbuf.len;
	while (p < e) {
		uint64_t key, len;
		const unsigned char *q, *qe;
		struct guard_tok t = {0, 0, 0};

		if (!varint(&p, e, &key)) { rc = ERR_PARSE; goto out; }
		if ((key >> 3) != 2 || (key & 7) != 2) {
			if (!skipfield(&p, e, (int)(key & 7))) { rc = ERR_PARSE; goto out; }
			continue;
		}
		if (!varint(&p, e, &len) || len > (uint64_t)(e - p)) { rc = ERR_PARSE; goto out; }
		q = p;
		qe = p + len;
		p = qe;
		while (q < qe) {
			uint64_t k, v;

			if (!varint(&q, qe, &k)) { rc = ERR_PARSE; goto out; }
			if ((k & 7) != 0) {
				if (!skipfield(&q, qe, (int)(k & 7))) { rc = ERR_PARSE; goto out; }
				continue;
			}
			if (!varint(&q, qe, &v)) { rc = ERR_PARSE; goto out; }
			switch (k >> 3) {
			case 1: t.start = (int)v; break;
			case 2: t.end = (int)v; break;
			case 4: t.token = (int)v; break;
			default: break;
			}
		}
		if (g->ntoks == cap) {
			int ncap = cap ? cap * 2 : 64;
			struct guard_tok *nt = realloc(g->toks, (size_t)ncap * sizeof *nt);

			if (!nt) { rc = ERR_NOMEM; goto out; }
			g->toks = nt;
			cap = ncap;
		}
		if (t.token == TOK_USCONST || t.token == TOK_UIDENT)
			t.end = u_end(g->sql, &t);
		g->toks[g->ntoks++] = t;
	}
out:
	pg_query_free_scan_result(r);
	return rc;
}

enum err guard_scan(const char *sql, struct guard_tok **toks, int *ntoks)
{
	struct gctx g;
	enum err rc;

	memset(&g, 0, sizeof g);
	g.sql = sql;
	rc = scan(&g);
	if (rc != OK) {
		free(g.toks);
		g.toks = NULL;
		g.ntoks = 0;
	}
	*toks = g.toks;
	*ntoks = g.ntoks;
	return rc;
}

static int real_tok(const struct guard_tok *t)
{
	return t->token != TOK_SQL_COMMENT && t->token != TOK_C_COMMENT && t->token != TOK_SEMI;
}

/* first_tok_at: byte offset of the first real token at or after off (-1: none). */
static int first_tok_at(const struct gctx *g, int off)
{
	for (int i = 0; i < g->ntoks; i++)
		if (g->toks[i].start >= off && real_tok(&g->toks[i]))
			return g->toks[i].start;
	return -1;
}

/* tok_is: does token i spell word (case-insensitive)? */
static int tok_is(const struct gctx *g, int i, const char *word)
{
	size_t n = (size_t)(g->toks[i].end - g->toks[i].start);

	return n == strlen(word) && !strncasecmp(g->sql + g->toks[i].start, word, n);
}

/* locking_loc: offset of a FOR UPDATE/SHARE/NO KEY/KEY clause keyword, -1 if none found. */
static int locking_loc(const struct gctx *g)
{
	for (int i = 0; i + 1 < g->ntoks; i++)
		if (tok_is(g, i, "for") && (tok_is(g, i + 1, "update") || tok_is(g, i + 1, "share") ||
		                            tok_is(g, i + 1, "no") || tok_is(g, i + 1, "key")))
			return g->toks[i].start;
	return -1;
}

/* ---- policy lookups ---- */

static const struct deny *deny_func(const char *name)
{
	for (size_t i = 0; i < NELEM(deny_funcs); i++) {
		const char *p = deny_funcs[i].pat;
		size_t n = strlen(p);

		if (p[n - 1] == '*' ? !strncasecmp(name, p, n - 1) : !strcasecmp(name, p))
			return &deny_funcs[i];
	}
	return NULL;
}

static const struct deny *deny_rel(const char *name)
{
	for (size_t i = 0; i < NELEM(deny_rels); i++)
		if (!strcasecmp(name, deny_rels[i].pat))
			return &deny_rels[i];
	return NULL;
}

static int setting_ok(const char *name)
{
	for (size_t i = 0; i < NELEM(allow_settings); i++)
		if (!strcasecmp(name, allow_settings[i]))
			return 1;
	return 0;
}

static int node_allowed(const char *type)
{
	for (size_t i = 0; i < NELEM(allowed_nodes); i++)
		if (!strcmp(type, allowed_nodes[i]))
			return 1;
	return 0;
}

static const char *stmt_text(const char *node)
{
	for (size_t i = 0; i < NELEM(stmt_names); i++)
		if (!strcmp(node, stmt_names[i].node))
			return stmt_names[i].text;
	return NULL;
}

static int is_stmt_node(const char *type)
{
	size_t n = strlen(type);

	return n > 4 && !strcmp(type + n - 4, "Stmt");
}

/* ---- small cJSON helpers over the parse tree ---- */

static int jint(const cJSON *o, const char *key, int dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? v->valueint : dflt;
}

static const cJSON *jget(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* node_body: for a wrapper {"Type": {...}} return the body and set *type. */
static const cJSON *node_body(const cJSON *n, const char **type)
{
	if (!cJSON_IsObject(n) || !n->child || n->child->next || !n->child->string)
		return NULL;
	*type = n->child->string;
	return n->child;
}

/* sval: the text of a {"String":{"sval":..}} node (NULL otherwise). */
static const char *sval(const cJSON *n)
{
	const char *type;
	const cJSON *b = node_body(n, &type);

	return b && !strcmp(type, "String") ? json_str(b, "sval") : NULL;
}

/* ---- scopes ---- */

static void scope_push(struct gctx *g, struct scope *s)
{
	memset(s, 0, sizeof *s);
	s->up = g->sc;
	g->sc = s;
}

static void scope_pop(struct gctx *g, struct scope *s)
{
	if (s->joins > g->joins)
		g->joins = s->joins;
	for (int i = 0; i < s->nctes; i++)
		free(s->ctes[i]);
	for (int i = 0; i < s->nitems; i++) {
		free(s->items[i].alias);
		free(s->items[i].rel);
	}
	free(s->ctes);
	free(s->items);
	g->sc = s->up;
}

static void scope_cte(struct gctx *g, const char *name)
{
	struct scope *s = g->sc;

	if (s->nctes == s->capctes) {
		int cap = s->capctes ? s->capctes * 2 : 4;
		char **n = realloc(s->ctes, (size_t)cap * sizeof *n);

		if (!n) { g->err = ERR_NOMEM; return; }
		s->ctes = n;
		s->capctes = cap;
	}
	if ((s->ctes[s->nctes] = xstrdup(g, name)))
		s->nctes++;
}

static void scope_item(struct gctx *g, const char *alias, const char *rel)
{
	struct scope *s = g->sc;

	if (!alias)
		return;
	if (s->nitems == s->capitems) {
		int cap = s->capitems ? s->capitems * 2 : 4;
		struct item *n = realloc(s->items, (size_t)cap * sizeof *n);

		if (!n) { g->err = ERR_NOMEM; return; }
		s->items = n;
		s->capitems = cap;
	}
	s->items[s->nitems].alias = xstrdup(g, alias);
	s->items[s->nitems].rel = rel ? xstrdup(g, rel) : NULL;
	s->nitems++;
	if (rel)
		s->nrels++;
}

static int is_cte(const struct gctx *g, const char *name)
{
	for (const struct scope *s = g->sc; s; s = s->up)
		for (int i = 0; i < s->nctes; i++)
			if (!strcmp(s->ctes[i], name))
				return 1;
	return 0;
}

/* resolve: the relation an alias stands for (nearest scope first); *found set when the
 * alias exists at all (a subquery alias resolves to NULL). */
static const char *resolve(const struct gctx *g, const char *alias, int *found)
{
	*found = 0;
	for (const struct scope *s = g->sc; s; s = s->up)
		for (int i = 0; i < s->nitems; i++)
			if (!strcmp(s->items[i].alias, alias)) {
				*found = 1;
				return s->items[i].rel;
			}
	return NULL;
}

/* ---- the walk ---- */

static void walk(struct gctx *g, const cJSON *n);
static void visit(struct gctx *g, const char *type, const cJSON *b);

static void visit_select(struct gctx *g, const cJSON *b);

/* relname_of: "schema.name" or "name" of a RangeVar body (heap). */
static char *relname_of(struct gctx *g, const cJSON *rv)
{
	const char *schema = json_str(rv, "schemaname"), *name = json_str(rv, "relname");
	struct sb sb = SB_INIT;

	if (schema)
		sb_printf(&sb, "%s.", schema);
	sb_puts(&sb, name ? name : "");
	if (!sb_ok(&sb))
		g->err = ERR_NOMEM;
	return sb_steal(&sb);
}

static int system_schema(const char *s)
{
	return !strcasecmp(s, "pg_catalog") || !strcasecmp(s, "information_schema") ||
	       !strncasecmp(s, "pg_toast", 8) || !strncasecmp(s, "pg_temp", 7);
}

/* check_rel: a RangeVar in FROM: CTE reference, system catalog, or catalog relation. */
static void check_rel(struct gctx *g, const cJSON *rv)
{
	const char *schema = json_str(rv, "schemaname"), *name = json_str(rv, "relname");
	const char *catname = json_str(rv, "catalogname");
	int loc = jint(rv, "location", -1);
	const struct deny *d;
	char *full;

	if (!name)
		return;
	if (catname) {
		refuse(g, loc, "relation %s.%s.%s: cross-database references are not allowed",
		       catname, schema ? schema : "", name);
		return;
	}
	if (!schema && is_cte(g, name))
		return;
	if (!(full = relname_of(g, rv)))
		return;
	strlist_add(g, &g->tables, full);
	if ((schema && system_schema(schema)) || (!schema && !strncasecmp(name, "pg_", 3))) {
		if ((d = deny_rel(name)))
			refuse(g, loc, "relation %s is not allowed (%s)", full, d->why);
		else if (!g->opts->allow_system_catalogs)
			refuse(g, loc, "relation %s is a system catalog (not allowed by configuration)", full);
	} else if (g->opts->relation_ok && !g->opts->relation_ok(g->opts->relation_ctx, schema, name)) {
		refuse(g, loc, "relation %s is not in the indexed catalog of this target", full);
	}
	free(full);
}

/* check_func: a function call: denylist by last name, qualification, current_setting. */
static void check_func(struct gctx *g, const cJSON *fc)
{
	const cJSON *names = jget(fc, "funcname"), *n, *args;
	const char *parts[4] = {0};
	int np = 0, loc = jint(fc, "location", -1);
	const char *name, *schema = NULL;
	const struct deny *d;

	cJSON_ArrayForEach(n, names) {
		const char *s = sval(n);

		if (!s || np == 4) {
			refuse(g, loc, "function call with an unusual name is not allowed");
			return;
		}
		parts[np++] = s;
	}
	if (!np)
		return;
	name = parts[np - 1];
	if (np > 1)
		schema = parts[np - 2];
	if (!strcasecmp(name, "current_setting")) {
		const char *type, *setting = NULL;
		const cJSON *a0, *b;

		args = jget(fc, "args");
		a0 = cJSON_IsArray(args) ? args->child : NULL;
		if (a0 && (b = node_body(a0, &type)) && !strcmp(type, "A_Const") &&
		    cJSON_IsObject(jget(b, "sval")))
			setting = json_str(jget(b, "sval"), "sval");
		if (!setting || !setting_ok(setting) || (schema && strcasecmp(schema, "pg_catalog"))) {
			refuse(g, loc, "current_setting(%s%s%s) is not allowed (only non-secret settings "
			       "named by a constant, see guard_denylist.def)",
			       setting ? "'" : "", setting ? setting : "...", setting ? "'" : "");
		}
		return;
	}
	if ((d = deny_func(name))) {
		refuse(g, loc, "function %s is not allowed (side effects): %s", name, d->why);
		return;
	}
	if (schema && strcasecmp(schema, "pg_catalog"))
		refuse(g, loc, "function %s.%s: schema-qualified calls are allowed only for pg_catalog",
		       schema, name);
	else if (np > 2)
		refuse(g, loc, "function %s: cross-database references are not allowed", name);
}

/* column_ref: record a column reference; refuse attribute notation of a denied function. */
static void column_ref(struct gctx *g, const cJSON *cr)
{
	const cJSON *f, *fields = jget(cr, "fields");
	const char *parts[4] = {0};
	int np = 0, star = 0, found;
	struct sb sb = SB_INIT;
	const char *rel;

	cJSON_ArrayForEach(f, fields) {
		const char *type;

		if (np == 4)
			break;
		if (node_body(f, &type) && !strcmp(type, "A_Star")) {
			star = 1;
			parts[np++] = "*";
		} else if (sval(f)) {
			parts[np++] = sval(f);
		} else {
			return;
		}
	}
	if (!np)
		return;
	/* t.f may call f(t) (functional notation): refuse denied names there too */
	if (np > 1 && !star && deny_func(parts[np - 1]) && strcasecmp(parts[np - 1], "current_setting")) {
		refuse(g, jint(cr, "location", -1), "%s.%s: %s is a denied function name (%s)",
		       parts[np - 2], parts[np - 1], parts[np - 1], deny_func(parts[np - 1])->why);
		return;
	}
	if (np == 1) {
		/* an unqualified column belongs to the only relation in scope, if there is one */
		if (g->sc && g->sc->nrels == 1 && g->sc->nitems == 1)
			sb_printf(&sb, "%s.%s", g->sc->items[0].rel, parts[0]);
		else
			sb_puts(&sb, parts[0]);
	} else if (np == 2 && (rel = resolve(g, parts[0], &found)) != NULL) {
		sb_printf(&sb, "%s.%s", rel, parts[1]);
	} else {
		for (int i = 0; i < np; i++)
			sb_printf(&sb, "%s%s", i ? "." : "", parts[i]);
	}
	if (!sb_ok(&sb))
		g->err = ERR_NOMEM;
	else
		strlist_add(g, &g->columns, sb_cstr(&sb));
	sb_free(&sb);
}

/* from_register: make a FROM item's names visible (before walking it, for LATERAL). */
static void from_register(struct gctx *g, const cJSON *n)
{
	const char *type;
	const cJSON *b = node_body(n, &type), *alias;
	const char *aname;

	if (!b)
		return;
	alias = jget(b, "alias");
	aname = cJSON_IsObject(alias) ? json_str(alias, "aliasname") : NULL;
	if (!strcmp(type, "RangeVar")) {
		const char *name = json_str(b, "relname");
		char *full;

		if (!name)
			return;
		if (!json_str(b, "schemaname") && is_cte(g, name)) {
			scope_item(g, aname ? aname : name, NULL);
			return;
		}
		full = relname_of(g, b);
		scope_item(g, aname ? aname : name, full);
		free(full);
	} else if (!strcmp(type, "RangeTableSample")) {
		from_register(g, jget(b, "relation"));
	} else if (!strcmp(type, "JoinExpr")) {
		from_register(g, jget(b, "larg"));
		from_register(g, jget(b, "rarg"));
		if (aname)
			scope_item(g, aname, NULL);
	} else if (aname) {
		scope_item(g, aname, NULL);
	}
}

/* walk_except: walk every field of body b but skip (the caller walks that one itself). */
static void walk_except(struct gctx *g, const cJSON *b, const char *skip)
{
	const cJSON *k;

	cJSON_ArrayForEach(k, b)
		if (strcmp(k->string, skip))
			walk(g, k);
}

static void walk_sub_select(struct gctx *g, const cJSON *n)
{
	g->depth++;
	walk(g, n);
	g->depth--;
}

static void visit_cte(struct gctx *g, const cJSON *b)
{
	const cJSON *q = jget(b, "ctequery");
	const char *type, *name = json_str(b, "ctename");
	int loc = jint(b, "location", -1);

	if (q && node_body(q, &type) && strcmp(type, "SelectStmt")) {
		const char *what = stmt_text(type);

		refuse(g, loc, "WITH query \"%s\" is a data-modifying statement (%s): not allowed",
		       name ? name : "?", what ? what : type);
		return;
	}
	walk_except(g, b, "ctequery");
	walk_sub_select(g, q);
}

static void visit_with(struct gctx *g, const cJSON *w)
{
	const cJSON *ctes = jget(w, "ctes"), *c;
	int recursive = cJSON_IsTrue(jget(w, "recursive"));

	/* WITH RECURSIVE: every name is visible to every body; otherwise only earlier ones,
	 * so "WITH t AS (SELECT * FROM t)" checks the real relation t. */
	if (recursive)
		cJSON_ArrayForEach(c, ctes) {
			const char *type;
			const cJSON *b = node_body(c, &type);

			if (b && json_str(b, "ctename"))
				scope_cte(g, json_str(b, "ctename"));
		}
	cJSON_ArrayForEach(c, ctes) {
		const char *type;
		const cJSON *b = node_body(c, &type);

		if (!b || strcmp(type, "CommonTableExpr")) {
			walk(g, c);
			continue;
		}
		visit_cte(g, b);
		if (!recursive && json_str(b, "ctename"))
			scope_cte(g, json_str(b, "ctename"));
	}
}

static void visit_select(struct gctx *g, const cJSON *b)
{
	struct scope s;
	const cJSON *k, *from = jget(b, "fromClause"), *f;
	int nfrom = 0;
	const char *op = json_str(b, "op");

	if (g->depth > g->maxdepth)
		g->maxdepth = g->depth;
	if (jget(b, "intoClause")) {
		const cJSON *rel = jget(jget(b, "intoClause"), "rel");

		refuse(g, jint(rel, "location", -1), "SELECT INTO is not allowed (it creates a table)");
		return;
	}
	if (jget(b, "lockingClause")) {
		refuse(g, locking_loc(g), "FOR UPDATE/FOR SHARE (row locks) is not allowed");
		return;
	}
	scope_push(g, &s);
	if (jget(b, "withClause"))
		visit_with(g, jget(b, "withClause"));
	if (op && strcmp(op, "SETOP_NONE")) {
		/* arms of UNION/INTERSECT/EXCEPT are at the same depth; they are SelectStmt
		 * bodies without the {"SelectStmt": ..} wrapper, so visit them as such */
		if (cJSON_IsObject(jget(b, "larg")))
			visit_select(g, jget(b, "larg"));
		if (cJSON_IsObject(jget(b, "rarg")))
			visit_select(g, jget(b, "rarg"));
	}
	cJSON_ArrayForEach(f, from) {
		from_register(g, f);
		walk(g, f);
		nfrom++;
	}
	if (nfrom > 1)
		s.joins += nfrom - 1;
	cJSON_ArrayForEach(k, b) {
		if (!strcmp(k->string, "withClause") || !strcmp(k->string, "fromClause") ||
		    !strcmp(k->string, "larg") || !strcmp(k->string, "rarg"))
			continue;
		walk(g, k);
	}
	scope_pop(g, &s);
}

static void visit(struct gctx *g, const char *type, const cJSON *b)
{
	int loc = jint(b, "location", -1);
	const char *what;

	if (loc >= 0)
		g->lastloc = loc;
	if (!strcmp(type, "SelectStmt")) {
		visit_select(g, b);
		return;
	}
	if (is_stmt_node(type)) {
		what = stmt_text(type);
		refuse(g, loc, "%s is not allowed here: only SELECT may run", what ? what : type);
		return;
	}
	if (!strcmp(type, "LockingClause")) {
		refuse(g, locking_loc(g), "FOR UPDATE/FOR SHARE (row locks) is not allowed");
		return;
	}
	if (!strcmp(type, "IntoClause")) {
		refuse(g, loc, "SELECT INTO is not allowed (it creates a table)");
		return;
	}
	if (!strcmp(type, "ParamRef")) {
		refuse(g, loc, "parameters ($n) are not supported: write the value in the query");
		return;
	}
	if (!node_allowed(type)) {
		refuse(g, loc, "%s is not supported in a read-only query", type);
		return;
	}
	if (!strcmp(type, "RangeVar")) {
		check_rel(g, b);
		return;
	}
	if (!strcmp(type, "FuncCall"))
		check_func(g, b);
	else if (!strcmp(type, "ColumnRef"))
		column_ref(g, b);
	else if (!strcmp(type, "JoinExpr") && g->sc)
		g->sc->joins++;     /* a JOIN belongs to the SELECT whose FROM holds it */
	else if (!strcmp(type, "A_Expr")) {
		/* OPERATOR(schema.op): only pg_catalog operators may be named by schema */
		const cJSON *names = jget(b, "name");

		if (cJSON_GetArraySize(names) > 1 && sval(names->child) &&
		    strcasecmp(sval(names->child), "pg_catalog"))
			refuse(g, loc, "operator in schema %s is not allowed", sval(names->child));
	} else if (!strcmp(type, "A_Indirection")) {
		const cJSON *i;

		cJSON_ArrayForEach(i, jget(b, "indirection"))
			if (sval(i) && deny_func(sval(i)))
				refuse(g, loc, "(...).%s: %s is a denied function name", sval(i), sval(i));
	} else if (!strcmp(type, "CommonTableExpr")) {
		visit_cte(g, b);
		return;
	} else if (!strcmp(type, "SubLink")) {
		walk_except(g, b, "subselect");
		walk_sub_select(g, jget(b, "subselect"));
		return;
	} else if (!strcmp(type, "RangeSubselect")) {
		walk_except(g, b, "subquery");
		walk_sub_select(g, jget(b, "subquery"));
		return;
	}
	walk(g, b);
}

/* walk: every value of the tree; a key starting upper-case names a node type. */
static void walk(struct gctx *g, const cJSON *n)
{
	const cJSON *c;

	if (!n || g->refused || g->err)
		return;
	if (cJSON_IsArray(n)) {
		cJSON_ArrayForEach(c, n)
			walk(g, c);
		return;
	}
	if (!cJSON_IsObject(n))
		return;
	/* An embedded (unwrapped) struct: only RangeVar (a relname) needs a check of its own;
	 * in a SELECT it only appears under INTO, refused earlier, but never let one pass. */
	if (json_str(n, "relname"))
		check_rel(g, n);
	if (jget(n, "intoClause"))
		refuse(g, -1, "SELECT INTO is not allowed (it creates a table)");
	if (jget(n, "lockingClause"))
		refuse(g, locking_loc(g), "FOR UPDATE/FOR SHARE (row locks) is not allowed");
	cJSON_ArrayForEach(c, n) {
		if (g->refused || g->err)
			return;
		if (c->string && isupper((unsigned char)c->string[0]) && cJSON_IsObject(c))
			visit(g, c->string, c);
		else
			walk(g, c);
	}
}

/* ---- LIMIT ---- */

/* strip_locations: remove "location" keys so two trees can be compared structurally. */
static void strip_locations(cJSON *n)
{
	cJSON *c;

	cJSON_DeleteItemFromObjectCaseSensitive(n, "location");
	cJSON_ArrayForEach(c, n)
		if (cJSON_IsObject(c) || cJSON_IsArray(c))
			strip_locations(c);
}

/* tree_equal: structural equality of two trees from the same serializer (same key order),
 * in linear time: cJSON_Compare looks every key up both ways and is exponential in depth. */
static int tree_equal(const cJSON *a, const cJSON *b)
{
	const cJSON *x, *y;

	if ((a->type & 0xFF) != (b->type & 0xFF))
		return 0;
	if (cJSON_IsNumber(a))
		return a->valuedouble == b->valuedouble;
	if (cJSON_IsString(a))
		return !strcmp(a->valuestring, b->valuestring);
	if (!cJSON_IsArray(a) && !cJSON_IsObject(a))
		return 1;
	for (x = a->child, y = b->child; x && y; x = x->next, y = y->next) {
		if (cJSON_IsObject(a) && strcmp(x->string, y->string))
			return 0;
		if (!tree_equal(x, y))
			return 0;
	}
	return !x && !y;
}

/* const_limit: the integer of a LIMIT/FETCH count that is a plain constant; 0 if not. */
static int const_limit(const cJSON *lc, long *v)
{
	const char *type;
	const cJSON *b = node_body(lc, &type), *iv;

	if (!b || strcmp(type, "A_Const") || !(iv = jget(b, "ival")) || !cJSON_IsObject(iv))
		return 0;
	*v = (long)jint(iv, "ival", 0);   /* protobuf elides zero: {"ival":{}} is LIMIT 0 */
	return 1;
}

/* parse_top: the SelectStmt body of a one-statement text (tree owned by *root). */
static const cJSON *parse_top(const char *sql, cJSON **root)
{
	PgQueryParseResult r = pg_query_parse(sql);
	const cJSON *st, *b = NULL;
	const char *type;

	*root = NULL;
	if (!r.error && (*root = cJSON_Parse(r.parse_tree)) &&
	    cJSON_GetArraySize(jget(*root, "stmts")) == 1 &&
	    (st = jget(jget(*root, "stmts")->child, "stmt")) && (b = node_body(st, &type)) &&
	    strcmp(type, "SelectStmt"))
		b = NULL;
	pg_query_free_parse_result(r);
	return b;
}

/*
 * add_limit: build res->sql from the statement text [s, e) (first to last real token),
 * adding or capping the LIMIT.  The rewrite is checked by parsing it again: the new
 * tree must be the old one plus our LIMIT (append) or the old one inside our wrapper,
 * so no comment or quoting trick in the text can change what runs.
 */
static void add_limit(struct gctx *g, const cJSON *top, int s, int e, struct guard_result *res)
{
	long lim = g->opts->limit, have;
	const cJSON *lc = jget(top, "limitCount");
	const char *lopt = json_str(top, "limitOption");
	struct sb sb = SB_INIT;
	cJSON *orig = NULL, *root = NULL, *newb = NULL;
	const cJSON *nb;
	int wrap = 0, ok = 0;

	if (lim <= 0 || (lc && const_limit(lc, &have) && have >= 0 && have <= lim &&
	                 !(lopt && !strcmp(lopt, "LIMIT_OPTION_WITH_TIES")))) {
		sb_append(&sb, g->sql + s, (size_t)(e - s));
		goto done;
	}
	wrap = lc != NULL;
	if (wrap)
		sb_printf(&sb, "SELECT * FROM (\n%.*s\n) AS q LIMIT %ld", e - s, g->sql + s, lim);
	else
		sb_printf(&sb, "%.*s LIMIT %ld", e - s, g->sql + s, lim);
	if (!sb_ok(&sb))
		goto done;
	if (!(orig = cJSON_Duplicate(top, 1)) || !(nb = parse_top(sb_cstr(&sb), &root)))
		goto verify;
	if (!(newb = cJSON_Duplicate(nb, 1)))
		goto verify;
	{
		long got;
		const cJSON *nlc = jget(newb, "limitCount");

		if (!nlc || !const_limit(nlc, &got) || got != lim)
			goto verify;
	}
	if (wrap) {
		/* SELECT * FROM (<orig>) AS q LIMIT n: exactly that shape */
		const cJSON *from = jget(newb, "fromClause"), *rs, *sub, *al;
		const char *type;

		if (cJSON_GetArraySize(from) != 1 || !(rs = node_body(from->child, &type)) ||
		    strcmp(type, "RangeSubselect") || !(sub = jget(rs, "subquery")) ||
		    !(al = jget(rs, "alias")) || !json_str(al, "aliasname") || strcmp(json_str(al, "aliasname"), "q") ||
		    jget(newb, "whereClause") || jget(newb, "withClause") || jget(newb, "sortClause") ||
		    jget(newb, "limitOffset") || cJSON_GetArraySize(jget(newb, "targetList")) != 1 ||
		    !(sub = node_body(sub, &type)) || strcmp(type, "SelectStmt"))
			goto verify;
		cJSON *subc = cJSON_Duplicate(sub, 1);
		if (!subc)
			goto verify;
		strip_locations(subc);
		strip_locations(orig);
		ok = tree_equal(subc, orig);
		cJSON_Delete(subc);
	} else {
		cJSON_DeleteItemFromObjectCaseSensitive(newb, "limitCount");
		cJSON_DeleteItemFromObjectCaseSensitive(newb, "limitOption");
		cJSON_DeleteItemFromObjectCaseSensitive(orig, "limitOption");
		strip_locations(newb);
		strip_locations(orig);
		ok = tree_equal(newb, orig);
	}
verify:
	if (!ok) {
		refuse(g, -1, "could not add LIMIT %ld safely: rewrite the query with an explicit LIMIT", lim);
		sb_free(&sb);
	} else if (wrap) {
		res->limit_clamped = 1;
	} else {
		res->limit_added = 1;
	}
done:
	cJSON_Delete(orig);
	cJSON_Delete(root);
	cJSON_Delete(newb);
	if (!sb_ok(&sb))
		g->err = ERR_NOMEM;
	else if (!g->refused)
		res->sql = sb_steal(&sb);
	sb_free(&sb);
}

/* ---- entry points ---- */

static void take_list(struct strlist *l, char ***v, int *n)
{
	*v = l->v;
	*n = l->n;
	memset(l, 0, sizeof *l);
}

static enum err check(const char *sql, const struct guard_opts *opts, struct guard_result *res,
                      int verify_only);

enum err guard_check(const char *sql, const struct guard_opts *opts, struct guard_result *res)
{
	static const struct guard_opts none = {0};

	memset(res, 0, sizeof *res);
	if (!sql)
		return ERR_INPUT;
	if (strlen(sql) > GUARD_MAX_SQL)
		return ERR_LIMIT;
	return check(sql, opts ? opts : &none, res, 0);
}

static enum err check(const char *sql, const struct guard_opts *opts, struct guard_result *res,
                      int verify_only)
{
	struct gctx g;
	PgQueryParseResult pr = {0};
	PgQueryFingerprintResult fr = {0};
	PgQueryNormalizeResult nr = {0};
	cJSON *root = NULL;
	const cJSON *stmts, *st, *top;
	const char *type;
	int nst, bad, s = -1, e = -1;
	int parsed = 0, fingerprinted = 0, normalized = 0;

	memset(&g, 0, sizeof g);
	g.sql = sql;
	g.opts = opts;
	g.loc = -1;
	g.lastloc = -1;
	if ((bad = utf8_bad((const unsigned char *)sql)) >= 0) {
		refuse(&g, bad, "the text is not valid UTF-8");
		goto out;
	}
	if ((bad = pm_run(sql)) >= 0) {
		refuse(&g, bad, "a run of more than %d '+'/'-' characters (the scanner is quadratic on them)",
		       GUARD_MAX_PM_RUN);
		goto out;
	}
	/* Tokens first (the scanner is iterative): a cap on their number bounds the depth of
	 * the tree, which libpg_query's recursive walkers (JSON output, fingerprint,
	 * normalize) need: "SELECT 1+1+...+1" 50,000 terms deep overflows normalize's stack. */
	if ((g.err = scan(&g)) != OK && g.err != ERR_PARSE)
		goto out;
	g.err = OK;
	if (g.ntoks > GUARD_MAX_TOKENS) {
		refuse(&g, g.toks[GUARD_MAX_TOKENS].start, "the query is too long (%d tokens, at most %d)",
		       g.ntoks, GUARD_MAX_TOKENS);
		goto out;
	}
	pr = pg_query_parse(sql);
	parsed = 1;
	if (pr.error) {
		refuse(&g, -1, "syntax error: %s", pr.error->message ? pr.error->message : "?");
		g.loc = -1;
		res->position = pr.error->cursorpos > 0 ? pr.error->cursorpos : 0;
		goto out;
	}
	if (!(root = cJSON_Parse(pr.parse_tree))) {
		/* cJSON stops at 1000 levels: a tree that deep is not an analyst's query */
		refuse(&g, -1, "the query is nested too deeply");
		goto out;
	}
	if (!verify_only) {
		/* only now, with the depth known to be sane */
		fr = pg_query_fingerprint(sql);
		fingerprinted = 1;
		nr = pg_query_normalize(sql);
		normalized = 1;
		if (!fr.error && fr.fingerprint_str && !(res->fingerprint = strdup(fr.fingerprint_str)))
			g.err = ERR_NOMEM;
		if (!nr.error && nr.normalized_query && !(res->normalized = strdup(nr.normalized_query)))
			g.err = ERR_NOMEM;
	}
	stmts = jget(root, "stmts");
	nst = cJSON_GetArraySize(stmts);
	if (nst == 0) {
		refuse(&g, -1, "empty statement: send one SELECT");
		g.loc = -1;
		goto out;
	}
	if (nst > 1) {
		const cJSON *second = cJSON_GetArrayItem(stmts, 1);

		refuse(&g, first_tok_at(&g, jint(second, "stmt_location", 0)),
		       "statement 2 of %d: more than one statement (send exactly one SELECT)", nst);
		goto out;
	}
	st = stmts->child;
	s = first_tok_at(&g, jint(st, "stmt_location", 0));
	for (int i = 0; i < g.ntoks; i++)
		if (real_tok(&g.toks[i]))
			e = g.toks[i].end;
	if (s < 0 || e <= s) {
		refuse(&g, -1, "empty statement: send one SELECT");
		goto out;
	}
	if (!(top = node_body(jget(st, "stmt"), &type))) {
		refuse(&g, s, "unrecognised statement");
		goto out;
	}
	if (strcmp(type, "SelectStmt")) {
		const char *what = stmt_text(type);

		refuse(&g, s, "%s is not allowed: only a single SELECT (WITH, UNION, VALUES, TABLE) may run",
		       what ? what : type);
		goto out;
	}
	g.lastloc = s;
	visit(&g, type, top);
	if (g.err || g.refused)
		goto out;
	if (!opts->standard_strings) {
		/* a backslash in '...' (or N'...') is an escape when the server has
		 * standard_conforming_strings=off: the string would end elsewhere and text the
		 * guard read as a literal would run as SQL.  E'...' and $$...$$ read the same way
		 * in both modes, so only plain literals with a backslash are refused. */
		for (int i = 0; i < g.ntoks; i++) {
			const struct guard_tok *t = &g.toks[i];

			if (t->token == TOK_SCONST && sql[t->start] == '\'' &&
			    memchr(sql + t->start, '\\', (size_t)(t->end - t->start))) {
				refuse(&g, t->start, "a backslash in a '...' string literal: write E'...' "
				       "(its meaning depends on standard_conforming_strings)");
				goto out;
			}
		}
	}
	if (g.joins > 3) {
		char w[128];

		snprintf(w, sizeof w, "%d JOINs (more than 3): check the join keys or simplify", g.joins);
		strlist_add(&g, &g.warnings, w);
	}
	if (g.maxdepth > 2) {
		char w[128];

		snprintf(w, sizeof w, "subquery depth %d (more than 2): consider CTEs", g.maxdepth);
		strlist_add(&g, &g.warnings, w);
	}
	if (verify_only) {
		res->sql = xstrdup(&g, "");
		goto out;
	}
	add_limit(&g, top, s, e, res);
	if (!g.refused && !g.err && (res->limit_added || res->limit_clamped)) {
		/* the text that runs passes the whole guard too */
		struct guard_result v;
		struct guard_opts o = *opts;
		enum err rc;

		o.limit = 0;
		memset(&v, 0, sizeof v);
		rc = check(res->sql, &o, &v, 1);
		if (rc != OK)
			g.err = rc;
		else if (!v.allowed)
			refuse(&g, -1, "the rewritten query was refused: %s", v.reason ? v.reason : "?");
		guard_free(&v);
	}
out:
	if (parsed)
		pg_query_free_parse_result(pr);
	if (fingerprinted)
		pg_query_free_fingerprint_result(fr);
	if (normalized)
		pg_query_free_normalize_result(nr);
	cJSON_Delete(root);
	free(g.toks);
	res->allowed = !g.refused && !g.err;
	if (g.refused) {
		res->reason = g.reason;
		g.reason = NULL;
		if (g.loc >= 0)
			res->position = pos1(sql, g.loc);
		free(res->sql);
		res->sql = NULL;
		res->limit_added = res->limit_clamped = 0;
	}
	free(g.reason);
	take_list(&g.warnings, &res->warnings, &res->nwarnings);
	take_list(&g.tables, &res->tables, &res->ntables);
	take_list(&g.columns, &res->columns, &res->ncolumns);
	if (g.err) {
		enum err rc = g.err;

		guard_free(res);
		return rc;
	}
	return OK;
}

void guard_free(struct guard_result *res)
{
	struct strlist l;

	if (!res)
		return;
	free(res->sql);
	free(res->reason);
	free(res->fingerprint);
	free(res->normalized);
	l = (struct strlist){res->warnings, res->nwarnings, res->nwarnings};
	strlist_free(&l);
	l = (struct strlist){res->tables, res->ntables, res->ntables};
	strlist_free(&l);
	l = (struct strlist){res->columns, res->ncolumns, res->ncolumns};
	strlist_free(&l);
	memset(res, 0, sizeof *res);
}

static cJSON *str_array(char **v, int n)
{
	cJSON *a = cJSON_CreateArray();

	for (int i = 0; a && i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
	return a;
}

static void add_str(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

char *guard_result_json(const struct guard_result *res)
{
	cJSON *o = cJSON_CreateObject();
	char *s;

	if (!o)
		return NULL;
	cJSON_AddBoolToObject(o, "allowed", res->allowed);
	add_str(o, "sql", res->sql);
	add_str(o, "reason", res->reason);
	cJSON_AddNumberToObject(o, "position", res->position);
	cJSON_AddItemToObject(o, "warnings", str_array(res->warnings, res->nwarnings));
	cJSON_AddItemToObject(o, "tables", str_array(res->tables, res->ntables));
	cJSON_AddItemToObject(o, "columns", str_array(res->columns, res->ncolumns));
	add_str(o, "fingerprint", res->fingerprint);
	add_str(o, "normalized", res->normalized);
	cJSON_AddBoolToObject(o, "limit_added", res->limit_added);
	cJSON_AddBoolToObject(o, "limit_clamped", res->limit_clamped);
	s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return s;
}
