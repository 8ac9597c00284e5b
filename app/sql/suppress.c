/* suppress.c: the safe aggregate form (aggregate access level, files for release): a check on PostgreSQL's parse tree, then a rewrite that counts each group's patients inside the statement and has PostgreSQL drop the small groups (issue 27). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <cjson/cJSON.h>
#include <pg_query.h>
#include "sql/guard.h"
#include "sql/suppress.h"

#define MAX_REFS 32     /* table references of one FROM clause */
#define MAX_PAIRS 64    /* column equalities of ON, USING and WHERE */
#define MAX_QUALS 32    /* ON clauses */
#define MAX_GROUPS 64   /* GROUP BY items */
#define MAX_AGGS 64     /* aggregate calls of the results */
#define MAX_EDITS 256   /* edits of the text */
#define MAX_DEPTH 200   /* nesting of the parse tree walked */

/* Token codes of libpg_query 15 (pg_query.proto enum Token). */
#define T_LPAREN 40
#define T_RPAREN 41
#define T_COMMA 44
#define T_SEMI 59
#define T_SQL_COMMENT 275
#define T_C_COMMENT 276
#define T_ALL 285
#define T_ASC 295
#define T_BY 315
#define T_DESC 385
#define T_DISTINCT 390
#define T_FETCH 418
#define T_FIRST 421
#define T_FOR 424
#define T_FROM 429
#define T_GROUP 438
#define T_HAVING 442
#define T_LAST 483
#define T_LIMIT 491
#define T_NULLS 535
#define T_OFFSET 540
#define T_ORDER 549
#define T_WINDOW 715
#define T_WITHIN 717
#define T_NULLS_LA 738

/* The English words of each refusal; conf/i18n/ko.decline.tsv has them in Korean (the test
 * test_suppress.c fails when one is missing there). */
static const char *const formats[SUPP__MAX] = {
	[SUPP_OK] = "",
	[SUPP_PARSE] = "the SQL does not parse: %s",
	[SUPP_NOT_ONE_SELECT] = "only one SELECT may run",
	[SUPP_SET_OP] = "only aggregate results may be read: a UNION, INTERSECT or EXCEPT joins results "
	                "that are each checked alone; ask one SELECT with GROUP BY",
	[SUPP_VALUES] = "only aggregate results may be read: a VALUES list reads no table; "
	                "ask one SELECT with GROUP BY over the tables",
	[SUPP_CTE] = "a WITH query is not allowed here: it can stand in for a table under the table's name "
	             "and change what is counted; write one SELECT over the tables",
	[SUPP_SUBQUERY] = "a subquery is not allowed here: the patients it reads are not counted in the "
	                  "groups; write one SELECT with joins",
	[SUPP_LATERAL] = "LATERAL is not allowed here: write one SELECT with joins",
	[SUPP_FROM_FUNCTION] = "%s in FROM makes rows, it is no table of the database; read the tables themselves",
	[SUPP_FROM_OTHER] = "%s in FROM is not allowed here; read the tables themselves",
	[SUPP_NATURAL] = "NATURAL JOIN is not allowed here; name the join columns with ON or USING",
	[SUPP_WINDOW] = "a window function (OVER) is not allowed here: it reads across the groups, "
	                "the small ones included",
	[SUPP_SRF] = "%s returns a set of rows; it is not allowed here",
	[SUPP_DISTINCT_ON] = "only aggregate results may be read: DISTINCT ON picks one row of each group",
	[SUPP_GROUPING_SETS] = "ROLLUP, CUBE and GROUPING SETS are not allowed here: a total beside its groups "
	                       "tells a group that was left out by subtraction",
	[SUPP_NOT_AGGREGATE] = "only aggregate results may be read: count or summarise the rows (count, sum, "
	                       "avg), by groups with GROUP BY, instead of listing them",
	[SUPP_STAR] = "%s (every column) cannot be an aggregate result; name the grouped columns and the aggregates",
	[SUPP_GROUP_IDENT] = "GROUP BY %s makes a group of each patient or episode of care; group by a category "
	                     "or a band of dates or ages instead",
	[SUPP_GROUP_SHAPE] = "GROUP BY takes columns and bands of them (date_trunc, extract, floor, width_bucket, "
	                     "arithmetic with constants, CASE with constant results); %s is not one",
	[SUPP_AGG_EXTREME] = "%s gives one row's value of each group, one patient's; use avg, a percentile or a "
	                     "count instead",
	[SUPP_AGG_LISTS] = "%s lists each row's value, whatever the size of the group; count or summarise instead",
	[SUPP_AGG_OTHER] = "the aggregate %s is not allowed here; use count, sum, avg, stddev, variance or "
	                   "percentile_disc",
	[SUPP_AGG_FILTER] = "FILTER (WHERE ...) on %s counts a part of a group, which may hold fewer patients "
	                    "than the group; put the condition in WHERE or GROUP BY instead",
	[SUPP_AGG_ORDER] = "ORDER BY inside %s is not allowed here",
	[SUPP_PERCENTILE] = "a percentile needs one constant fraction, a multiple of 0.05, above 1/k and at most "
	                    "1 - 1/k (k = %s): nearer the edges it is the lowest or highest patient's value, and a "
	                    "finer fraction can be moved until it tells the group's size",
	[SUPP_IDENT] = "%s identifies a patient or an episode of care: here it may only be counted "
	               "(count, count DISTINCT) or joined on (an equality of two columns)",
	[SUPP_ITEM] = "%s is neither grouped (GROUP BY) nor an aggregate",
	[SUPP_FUNCTION] = "the function %s is not allowed in an aggregate result",
	[SUPP_NO_KEY] = "a query must read a table with the patient key (%s) so that groups of few patients "
	                "can be left out",
	[SUPP_UNLINKED] = "%s holds patients' rows without a patient key and is not joined to a table with one "
	                  "on that table's unique key (as ON x.caseid = c.caseid), so its patients cannot be counted",
	[SUPP_TOO_LARGE] = "the query has too many %s for this check",
	[SUPP_AGG_ARG] = "the argument of %s must be a column, a 0/1 condition (CASE WHEN ... THEN 1 ELSE 0 END), "
	                 "a difference of two columns or date_part('epoch', a - b), or one of these times or divided "
	                 "by a constant: other arithmetic (a constant added, DISTINCT) lets a group's size be worked out",
	[SUPP_INTERPOLATE] = "%s interpolates between two patients' values, and how it does tells the group's size; "
	                     "use percentile_disc, a value one of the patients has",
};

/* Aggregates the form allows; percentile_* only WITHIN GROUP with one constant fraction. */
static const char *const allowed_aggs[] = {
	"count", "sum", "avg", "stddev", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop",
	"percentile_cont", "percentile_disc", NULL,
};
/* Aggregates whose result is one row's value (min, max) or says whether some row has one. */
static const char *const extreme_aggs[] = {
	"min", "max", "mode", "any_value", "bool_and", "bool_or", "every", "bit_and", "bit_or", "bit_xor",
	"range_agg", "range_intersect_agg", NULL,
};
/* Aggregates whose result lists the rows' own values. */
static const char *const list_aggs[] = {
	"array_agg", "string_agg", "json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg",
	"json_object_agg_strict", "jsonb_object_agg_strict", "json_object_agg_unique",
	"jsonb_object_agg_unique", "xmlagg", "json_arrayagg", "json_objectagg", NULL,
};
/* Other aggregates of PostgreSQL, known so that they are named as aggregates in a refusal. */
static const char *const other_aggs[] = {
	"corr", "covar_pop", "covar_samp", "regr_avgx", "regr_avgy", "regr_count", "regr_intercept", "regr_r2",
	"regr_slope", "regr_sxx", "regr_sxy", "regr_syy", "rank", "dense_rank", "percent_rank", "cume_dist",
	NULL,
};
/* Scalar functions a result (select list, HAVING, ORDER BY) may apply to grouped values and aggregates. */
static const char *const result_funcs[] = {
	"round", "trunc", "floor", "ceil", "ceiling", "abs", "sign", "sqrt", "cbrt", "power", "pow", "exp", "ln",
	"log", "log10", "mod", "div", "date_trunc", "date_part", "extract", "to_char", "concat", "left", "right",
	"substr", "substring", "upper", "lower", "initcap", "length", "char_length", "width_bucket", "timezone",
	"date", "make_date", "justify_interval", "justify_hours", "justify_days", NULL,
};
/* Functions a GROUP BY band may apply to one column. */
static const char *const band_funcs[] = {
	"date_trunc", "date_part", "extract", "floor", "ceil", "ceiling", "trunc", "round", "width_bucket",
	"to_char", "left", "substr", "substring", "lower", "upper", "timezone", "div", "mod", "abs", "date", NULL,
};
/* Functions returning sets of rows. */
static const char *const set_funcs[] = {
	"generate_series", "generate_subscripts", "unnest", "regexp_matches", "regexp_split_to_table",
	"string_to_table", "json_array_elements", "json_array_elements_text", "jsonb_array_elements",
	"jsonb_array_elements_text", "json_each", "json_each_text", "jsonb_each", "jsonb_each_text",
	"json_object_keys", "jsonb_object_keys", "json_populate_recordset", "jsonb_populate_recordset",
	"json_to_recordset", "jsonb_to_recordset", "jsonb_path_query", "pg_get_keywords", "ts_stat",
	"ts_debug", "ts_parse", "ts_token_type", "pg_ls_dir", "pg_options_to_table", "aclexplode",
	"pg_timezone_names", "pg_timezone_abbrevs", "txid_snapshot_xip", "pg_snapshot_xip", NULL,
};

/* One table reference of the FROM clause. */
struct ref {
	const char *schema, *table, *alias;   /* into the parse tree; schema and alias may be NULL */
	const char *key;    /* the first patient key its table has, NULL: none */
	int tied;           /* its rows belong to persons or episodes (or it has a patient key) */
	int anchored;       /* its patients are counted: a patient key, or joined to an anchored
	                     * reference on that one's unique column */
};

/* An equality a.ca = b.cb between two references' columns (a conjunct of ON or WHERE, or USING). */
struct pair { int ra, rb; const char *ca, *cb; };

/* An aggregate call of a result: count (rounded), sum (rounded), or another of the values; sum,
 * avg, stddev, variance and percentile_cont are held to the minority rule (measure).  Not
 * percentile_disc: it takes any type (a date, a text), whose values '0' would not cast to. */
struct agg {
	const cJSON *fc;
	int count, star, sum, measure;
	int avg, spread;     /* avg; stddev or variance of any kind */
	unsigned long id;    /* the measure's columns hashed (0: a 0/1 condition), a tag of its cell key */
};

/* An edit of the text: at byte pos, drop del bytes and put ins (heap). */
struct edit { int pos, del; char *ins; };

struct sx {
	const char *sql;
	const struct suppress_opts *o;
	const struct suppress_db *db;
	struct suppress_refusal *why;
	int refused;
	enum err err;
	const cJSON *sel, *targets;
	struct ref refs[MAX_REFS]; int nrefs;
	struct pair pairs[MAX_PAIRS]; int npairs;
	const cJSON *quals[MAX_QUALS]; int nquals;
	const cJSON *groups[MAX_GROUPS]; int ngroups;
	struct agg aggs[MAX_AGGS]; int naggs;
	struct guard_tok *toks; int ntoks;
	struct edit edits[MAX_EDITS]; int nedits;
};

/* ---- the parse tree -------------------------------------------------------------------- */

static cJSON *get(const cJSON *o, const char *k)
{
	return o && cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, k) : NULL;
}

/* type: the node's type ("ColumnRef", "FuncCall", ...): a node is an object of one member */
static const char *type(const cJSON *n)
{
	return cJSON_IsObject(n) && n->child ? n->child->string : NULL;
}

static int is(const cJSON *n, const char *t)
{
	const char *nt = type(n);

	return nt && !strcmp(nt, t);
}

/* body: the node's fields (n's one member) */
static const cJSON *body(const cJSON *n)
{
	return cJSON_IsObject(n) ? n->child : NULL;
}

static const char *sval(const cJSON *n)
{
	return cJSON_GetStringValue(get(get(n, "String"), "sval"));
}

/* loc: the first location in n (depth first), -1 when none */
static int loc(const cJSON *n)
{
	const cJSON *c, *l;
	int v;

	if (!cJSON_IsObject(n) && !cJSON_IsArray(n))
		return -1;
	if ((l = get(n, "location")) && cJSON_IsNumber(l) && l->valueint >= 0)
		return l->valueint;
	cJSON_ArrayForEach(c, n)
		if ((v = loc(c)) >= 0)
			return v;
	return -1;
}

/* num: a number member's value, dflt when it is absent (libpg_query leaves out a zero) */
static int num(const cJSON *n, int dflt)
{
	return cJSON_IsNumber(n) ? n->valueint : dflt;
}

static int in_list(const char *name, const char *const *list)
{
	for (int i = 0; name && list[i]; i++)
		if (!strcasecmp(name, list[i]))
			return 1;
	return 0;
}

/* call_name: the last part of a FuncCall's name ("pg_catalog.count" -> "count"), or "" */
static const char *call_name(const cJSON *fc)
{
	const cJSON *last = NULL, *n;
	const char *s;

	cJSON_ArrayForEach(n, get(fc, "funcname"))
		last = n;
	return (s = sval(last)) ? s : "";
}

/* is_agg: a FuncCall that aggregates (by its name or its syntax) */
static int is_agg(const cJSON *fc)
{
	const char *name = call_name(fc);

	return cJSON_IsTrue(get(fc, "agg_star")) || cJSON_IsTrue(get(fc, "agg_distinct")) ||
	       cJSON_IsTrue(get(fc, "agg_within_group")) || get(fc, "agg_filter") || get(fc, "agg_order") ||
	       in_list(name, allowed_aggs) || in_list(name, extreme_aggs) || in_list(name, list_aggs) ||
	       in_list(name, other_aggs);
}

/* has_agg: an aggregate call anywhere in n */
static int has_agg(const cJSON *n)
{
	const cJSON *c;

	if (is(n, "FuncCall") && !get(body(n), "over") && is_agg(body(n)))
		return 1;
	if (cJSON_IsObject(n) || cJSON_IsArray(n))
		cJSON_ArrayForEach(c, n)
			if (has_agg(c))
				return 1;
	return 0;
}

/* has_col_ref: a column reference anywhere in n */
static int has_col_ref(const cJSON *n)
{
	const cJSON *c;

	if (is(n, "ColumnRef"))
		return 1;
	if (cJSON_IsObject(n) || cJSON_IsArray(n))
		cJSON_ArrayForEach(c, n)
			if (has_col_ref(c))
				return 1;
	return 0;
}

/* A column reference's parts: [[catalog.]schema.]qual.col; col NULL for qual.* */
struct colref { const char *schema, *qual, *col; int star; };

static void colref_b(const cJSON *b, struct colref *c)
{
	const char *f[4] = {0};
	const cJSON *it;
	int nf = 0;

	memset(c, 0, sizeof *c);
	cJSON_ArrayForEach(it, get(b, "fields")) {
		if (get(it, "A_Star"))
			c->star = 1;
		else if (nf < 4)
			f[nf++] = sval(it);
	}
	if (c->star) {
		c->qual = nf ? f[nf - 1] : NULL;
		c->schema = nf > 1 ? f[nf - 2] : NULL;
		return;
	}
	c->col = nf ? f[nf - 1] : NULL;
	c->qual = nf > 1 ? f[nf - 2] : NULL;
	c->schema = nf > 2 ? f[nf - 3] : NULL;
}

static void colref(const cJSON *n, struct colref *c)
{
	colref_b(body(n), c);
}

/* col_text_b: a column reference (its fields b) as written, its parts joined by dots, into buf */
static const char *col_text_b(const cJSON *b, char *buf, size_t len)
{
	struct sb t = SB_INIT;
	const cJSON *it;

	cJSON_ArrayForEach(it, get(b, "fields")) {
		const char *p = get(it, "A_Star") ? "*" : sval(it);

		if (sb_cstr(&t)[0])
			sb_putc(&t, '.');
		sb_puts(&t, p ? p : "");
	}
	snprintf(buf, len, "%s", sb_cstr(&t));
	sb_free(&t);
	return buf;
}

static const char *col_text(const cJSON *n, char *buf, size_t len)
{
	return col_text_b(body(n), buf, len);
}

/* ---- refusals ---------------------------------------------------------------------------- */

/* pos1: 1-based character position of byte offset off in s (0 when unknown) */
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

/* refuse: the first reason found is the one given */
static void refuse(struct sx *s, enum suppress_code c, int at, const char *arg)
{
	if (s->refused)
		return;
	s->refused = 1;
	s->why->code = c;
	snprintf(s->why->arg, sizeof s->why->arg, "%s", arg ? arg : "");
	s->why->position = pos1(s->sql, at);
}

const char *suppress_format(enum suppress_code c)
{
	return (unsigned)c < SUPP__MAX && formats[c] ? formats[c] : "";
}

void suppress_reason(const struct suppress_refusal *why, struct sb *out)
{
	const char *f = suppress_format(why->code);

	/* the formats have at most one %s (the argument) */
	if (strstr(f, "%s"))
		sb_printf(out, f, why->arg);
	else
		sb_puts(out, f);
}

/* ---- the tables ---------------------------------------------------------------------------- */

static int db_has(struct sx *s, const struct ref *r, const char *col)
{
	return s->db && col && s->db->has_col(s->db->ctx, r->schema, r->table, col);
}

/* ref_of: the reference a column belongs to: by its qualifier, or (unqualified) the one
 * reference whose table has it; -1 unknown or ambiguous */
static int ref_of(struct sx *s, const struct colref *c)
{
	int found = -1;

	for (int i = 0; i < s->nrefs; i++) {
		const struct ref *r = &s->refs[i];

		if (c->qual) {
			/* an alias hides the table's name, as in PostgreSQL */
			if (r->alias ? !strcmp(r->alias, c->qual) && !c->schema
			             : !strcmp(r->table, c->qual) && (!c->schema || (r->schema && !strcmp(r->schema, c->schema))))
				return i;
			continue;
		}
		if (db_has(s, r, c->col)) {
			if (found >= 0)
				return -1;
			found = i;
		}
	}
	return found;
}

static int is_key_name(const struct sx *s, const char *col)
{
	for (int i = 0; col && i < s->o->nkeys; i++)
		if (!strcmp(s->o->keys[i], col))
			return 1;
	return 0;
}

/* ident: a column reference that identifies a patient, an episode of care or a row of one: a
 * patient key by name, a person or episode key by its name (the PHI rules), or a unique column of
 * a table of persons' rows */
static int ident(struct sx *s, const cJSON *n)
{
	struct colref c;

	colref(n, &c);
	if (!c.col)
		return 0;
	if (is_key_name(s, c.col))
		return 1;
	if (!s->db)
		return 0;
	if (s->db->ident_name(s->db->ctx, c.col))
		return 1;
	for (int i = 0; i < s->nrefs; i++) {
		const struct ref *r = &s->refs[i];

		if (c.qual && ref_of(s, &c) != i)
			continue;
		if (r->tied && db_has(s, r, c.col) && s->db->unique(s->db->ctx, r->schema, r->table, c.col))
			return 1;
	}
	return 0;
}

/* refs_of: the table references of a FROM item, through its joins; ON clauses kept for later,
 * USING lists become pairs */
static void refs_of(struct sx *s, const cJSON *item)
{
	const cJSON *rv = get(item, "RangeVar"), *j = get(item, "JoinExpr");

	if (s->refused)
		return;
	if (rv) {
		struct ref *r;
		const cJSON *al = get(rv, "alias");

		if (s->nrefs >= MAX_REFS) {
			refuse(s, SUPP_TOO_LARGE, loc(item), "tables");
			return;
		}
		r = &s->refs[s->nrefs++];
		memset(r, 0, sizeof *r);
		r->schema = cJSON_GetStringValue(get(rv, "schemaname"));
		r->table = cJSON_GetStringValue(get(rv, "relname"));
		r->alias = cJSON_GetStringValue(get(al, "aliasname"));
		if (!r->alias)
			r->alias = cJSON_GetStringValue(get(get(al, "Alias"), "aliasname"));
		if (!r->table)
			r->table = "";
		return;
	}
	if (j) {
		int i0 = s->nrefs, i1, i2;
		const cJSON *u;

		if (cJSON_IsTrue(get(j, "isNatural"))) {
			refuse(s, SUPP_NATURAL, loc(item), NULL);
			return;
		}
		refs_of(s, get(j, "larg"));
		i1 = s->nrefs;
		refs_of(s, get(j, "rarg"));
		i2 = s->nrefs;
		if (get(j, "quals")) {
			if (s->nquals >= MAX_QUALS) {
				refuse(s, SUPP_TOO_LARGE, loc(item), "joins");
				return;
			}
			s->quals[s->nquals++] = get(j, "quals");
		}
		/* USING (c): the one reference of each side with column c */
		cJSON_ArrayForEach(u, get(j, "usingClause")) {
			const char *c = sval(u);
			int a = -1, b = -1, na = 0, nb = 0;

			for (int i = i0; c && i < i2; i++)
				if (db_has(s, &s->refs[i], c)) {
					if (i < i1) { a = i; na++; } else { b = i; nb++; }
				}
			if (na == 1 && nb == 1 && s->npairs < MAX_PAIRS)
				s->pairs[s->npairs++] = (struct pair){a, b, c, c};
		}
		return;
	}
	/* subqueries, functions, samples in FROM were refused before */
	refuse(s, SUPP_FROM_OTHER, loc(item), type(item));
}

/* ---- what may appear anywhere ------------------------------------------------------------------ */

/* range_function_name: the (first) function a RangeFunction calls */
static const char *range_function_name(const cJSON *rf)
{
	const cJSON *fs = cJSON_GetArrayItem(get(rf, "functions"), 0);
	const cJSON *fc = get(cJSON_GetArrayItem(get(get(fs, "List"), "items"), 0), "FuncCall");

	return fc ? call_name(fc) : "a function";
}

/* forbid: the constructs refused at any depth (the statement itself is not a subquery) */
static void forbid(struct sx *s, const cJSON *n, int depth)
{
	const cJSON *c;

	if (s->refused || (!cJSON_IsObject(n) && !cJSON_IsArray(n)))
		return;
	if (depth > MAX_DEPTH) {
		refuse(s, SUPP_TOO_LARGE, loc(n), "nested expressions");
		return;
	}
	cJSON_ArrayForEach(c, n) {
		const char *k = c->string;
		int at = loc(c);

		if (!k) {
			forbid(s, c, depth + 1);
			continue;
		}
		if (!strcmp(k, "SubLink") || !strcmp(k, "SelectStmt"))
			refuse(s, SUPP_SUBQUERY, at, NULL);
		else if (!strcmp(k, "RangeSubselect"))
			refuse(s, cJSON_IsTrue(get(c, "lateral")) ? SUPP_LATERAL : SUPP_SUBQUERY, at, NULL);
		else if (!strcmp(k, "WithClause") || !strcmp(k, "CommonTableExpr"))
			refuse(s, SUPP_CTE, at, NULL);
		else if (!strcmp(k, "RangeFunction"))
			refuse(s, cJSON_IsTrue(get(c, "lateral")) ? SUPP_LATERAL : SUPP_FROM_FUNCTION, at,
			       range_function_name(c));
		else if (!strcmp(k, "RangeTableSample"))
			refuse(s, SUPP_FROM_OTHER, at, "TABLESAMPLE");
		else if (!strcmp(k, "RangeTableFunc"))
			refuse(s, SUPP_FROM_OTHER, at, "XMLTABLE");
		else if (!strcmp(k, "WindowDef"))
			refuse(s, SUPP_WINDOW, at, NULL);
		else if (!strcmp(k, "GroupingSet") || !strcmp(k, "GroupingFunc"))
			refuse(s, SUPP_GROUPING_SETS, at, NULL);
		else if (!strcmp(k, "FuncCall") && get(c, "over"))
			refuse(s, SUPP_WINDOW, at, NULL);
		else if (!strcmp(k, "FuncCall") && in_list(call_name(c), set_funcs))
			refuse(s, SUPP_SRF, at, call_name(c));
		else if (!strcmp(k, "ColumnRef")) {
			struct colref cr;

			/* t.* or * outside count(*) (count(*) is no ColumnRef) */
			colref_b(c, &cr);
			if (cr.star) {
				char t[200];

				refuse(s, SUPP_STAR, at, col_text_b(c, t, sizeof t));
			}
		}
		forbid(s, c, depth + 1);
	}
}

/* ---- WHERE and ON: identifiers only in equalities of two columns -------------------------------- */

/* no_ident: every column reference of n is no identifier */
static void no_ident(struct sx *s, const cJSON *n)
{
	const cJSON *c;

	if (s->refused)
		return;
	if (is(n, "ColumnRef")) {
		if (ident(s, n)) {
			char t[200];

			refuse(s, SUPP_IDENT, loc(n), col_text(n, t, sizeof t));
		}
		return;
	}
	if (cJSON_IsObject(n) || cJSON_IsArray(n))
		cJSON_ArrayForEach(c, n)
			no_ident(s, c);
}

/* is_col_eq: n is "a = b" of two plain column references */
static int is_col_eq(const cJSON *n)
{
	const cJSON *e = get(n, "A_Expr");
	const cJSON *op = cJSON_GetArrayItem(get(e, "name"), 0);

	return e && !strcmp(cJSON_GetStringValue(get(e, "kind")) ? cJSON_GetStringValue(get(e, "kind")) : "", "AEXPR_OP") &&
	       cJSON_GetArraySize(get(e, "name")) == 1 && sval(op) && !strcmp(sval(op), "=") &&
	       is(get(e, "lexpr"), "ColumnRef") && is(get(e, "rexpr"), "ColumnRef");
}

/* filter: a WHERE or ON condition: its AND-ed equalities of two columns are joins (pairs, where an
 * identifier may appear); anywhere else an identifier is refused */
static void filter(struct sx *s, const cJSON *n)
{
	const cJSON *b = get(n, "BoolExpr"), *c;

	if (s->refused || !n)
		return;
	if (b && !strcmp(cJSON_GetStringValue(get(b, "boolop")) ? cJSON_GetStringValue(get(b, "boolop")) : "", "AND_EXPR")) {
		cJSON_ArrayForEach(c, get(b, "args"))
			filter(s, c);
		return;
	}
	if (is_col_eq(n)) {
		struct colref a, z;
		int ra, rz;

		colref(get(get(n, "A_Expr"), "lexpr"), &a);
		colref(get(get(n, "A_Expr"), "rexpr"), &z);
		ra = ref_of(s, &a);
		rz = ref_of(s, &z);
		if (ra >= 0 && rz >= 0 && a.col && z.col) {
			if (s->npairs >= MAX_PAIRS) {
				refuse(s, SUPP_TOO_LARGE, loc(n), "joins");
				return;
			}
			s->pairs[s->npairs++] = (struct pair){ra, rz, a.col, z.col};
		}
		return;
	}
	no_ident(s, n);
}

/* ---- the link rule: every table of persons' rows has its patients counted ---------------------------- */

static void link(struct sx *s)
{
	int changed = 1;

	for (int i = 0; i < s->nrefs; i++)
		s->refs[i].anchored = s->refs[i].key != NULL;
	/* a reference without a patient key joined on an anchored one's unique column has the
	 * anchored one's patients: each of its rows meets at most one row there */
	while (changed) {
		changed = 0;
		for (int p = 0; p < s->npairs; p++)
			for (int side = 0; side < 2; side++) {
				int x = side ? s->pairs[p].rb : s->pairs[p].ra, y = side ? s->pairs[p].ra : s->pairs[p].rb;
				const char *cy = side ? s->pairs[p].ca : s->pairs[p].cb;
				struct ref *rx = &s->refs[x], *ry = &s->refs[y];

				if (!rx->anchored && rx->tied && ry->anchored &&
				    s->db->unique(s->db->ctx, ry->schema, ry->table, cy)) {
					rx->anchored = 1;
					changed = 1;
				}
			}
	}
	for (int i = 0; i < s->nrefs; i++)
		if (s->refs[i].tied && !s->refs[i].anchored) {
			refuse(s, SUPP_UNLINKED, -1, s->refs[i].table);
			return;
		}
}

/* ---- GROUP BY: columns and bands of them, no identifier --------------------------------------- */

static const char *shape_name(const cJSON *n)
{
	if (is(n, "FuncCall"))
		return call_name(body(n));
	if (is(n, "A_Expr"))
		return "an expression of several columns";
	if (is(n, "CaseExpr"))
		return "a CASE whose results are not constants";
	return "this expression";
}

static void band(struct sx *s, const cJSON *n)
{
	const cJSON *b = body(n), *c;
	const char *t = type(n);

	if (s->refused || !t)
		return;
	if (!strcmp(t, "ColumnRef")) {
		if (ident(s, n)) {
			char tx[200];

			refuse(s, SUPP_GROUP_IDENT, loc(n), col_text(n, tx, sizeof tx));
		}
	} else if (!strcmp(t, "A_Const") || !strcmp(t, "SQLValueFunction")) {
		return;
	} else if (!strcmp(t, "TypeCast") || !strcmp(t, "CollateClause")) {
		band(s, get(b, "arg"));
	} else if (!strcmp(t, "FuncCall") && !is_agg(b) && in_list(call_name(b), band_funcs)) {
		cJSON_ArrayForEach(c, get(b, "args"))
			if (has_col_ref(c))
				band(s, c);
	} else if (!strcmp(t, "A_Expr") &&
	           !strcmp(cJSON_GetStringValue(get(b, "kind")) ? cJSON_GetStringValue(get(b, "kind")) : "", "AEXPR_OP") &&
	           !(has_col_ref(get(b, "lexpr")) && has_col_ref(get(b, "rexpr")))) {
		const char *op = sval(cJSON_GetArrayItem(get(b, "name"), 0));

		if (!op || !strchr("+-*/%", op[0]) || op[1]) {
			refuse(s, SUPP_GROUP_SHAPE, loc(n), "a comparison");
			return;
		}
		band(s, has_col_ref(get(b, "lexpr")) ? get(b, "lexpr") : get(b, "rexpr"));
	} else if (!strcmp(t, "CaseExpr")) {
		/* a band by conditions: the conditions read columns, the results are constants */
		if (get(b, "arg"))
			band(s, get(b, "arg"));
		cJSON_ArrayForEach(c, get(b, "args")) {
			no_ident(s, get(get(c, "CaseWhen"), "expr"));
			if (has_col_ref(get(get(c, "CaseWhen"), "result")))
				refuse(s, SUPP_GROUP_SHAPE, loc(c), shape_name(n));
		}
		if (has_col_ref(get(b, "defresult")))
			refuse(s, SUPP_GROUP_SHAPE, loc(get(b, "defresult")), shape_name(n));
	} else if (!strcmp(t, "CoalesceExpr")) {
		cJSON_ArrayForEach(c, get(b, "args"))
			if (has_col_ref(c))
				band(s, c);
	} else {
		refuse(s, SUPP_GROUP_SHAPE, loc(n), shape_name(n));
	}
}

/* target_named: the select-list item named name (its alias), or NULL */
static const cJSON *target_named(const struct sx *s, const char *name)
{
	const cJSON *t;

	cJSON_ArrayForEach(t, s->targets) {
		const char *nm = cJSON_GetStringValue(get(get(t, "ResTarget"), "name"));

		if (nm && name && !strcmp(nm, name))
			return get(get(t, "ResTarget"), "val");
	}
	return NULL;
}

/* any_has: some reference's table has column col */
static int any_has(struct sx *s, const char *col)
{
	for (int i = 0; i < s->nrefs; i++)
		if (db_has(s, &s->refs[i], col))
			return 1;
	return 0;
}

static void groups(struct sx *s)
{
	const cJSON *g;

	cJSON_ArrayForEach(g, get(s->sel, "groupClause")) {
		const cJSON *e = g, *ac = get(g, "A_Const");

		if (s->refused)
			return;
		if (s->ngroups >= MAX_GROUPS) {
			refuse(s, SUPP_TOO_LARGE, loc(g), "GROUP BY items");
			return;
		}
		if (ac && cJSON_IsObject(get(ac, "ival"))) {
			/* GROUP BY 2: the select list's second item */
			int n = num(get(get(ac, "ival"), "ival"), 0);
			const cJSON *t = cJSON_GetArrayItem(s->targets, n - 1);

			if (n < 1 || !t) {
				refuse(s, SUPP_GROUP_SHAPE, loc(g), "a position past the select list");
				return;
			}
			e = get(get(t, "ResTarget"), "val");
		} else if (is(g, "ColumnRef")) {
			struct colref c;
			const cJSON *t;

			/* an output name, as PostgreSQL reads it: an input column of that name comes first */
			colref(g, &c);
			if (c.col && !c.qual && (t = target_named(s, c.col)) && !any_has(s, c.col))
				e = t;
		}
		band(s, e);
		s->groups[s->ngroups++] = e;
	}
}

/* ---- results: grouped expressions, allowed aggregates, constants ---------------------------------- */

/* same_col: two column references to the same column as far as the text tells (PostgreSQL
 * itself refuses an ungrouped column, so a loose match only lets it say so) */
static int same_col(struct sx *s, const cJSON *a, const cJSON *b)
{
	struct colref x, y;

	colref(a, &x);
	colref(b, &y);
	if (!x.col || !y.col || strcmp(x.col, y.col))
		return 0;
	if (x.qual && y.qual)
		return !strcmp(x.qual, y.qual);
	if (!x.qual && !y.qual)
		return 1;
	return ref_of(s, &x) == ref_of(s, &y) || !s->db;
}

/* same: two expressions alike but for their locations */
static int same(struct sx *s, const cJSON *a, const cJSON *b)
{
	const cJSON *x, *y;

	if (is(a, "ColumnRef") && is(b, "ColumnRef"))
		return same_col(s, a, b);
	if (cJSON_IsObject(a) && cJSON_IsObject(b)) {
		int na = 0, nb = 0;

		cJSON_ArrayForEach(x, a) {
			if (!strcmp(x->string, "location"))
				continue;
			na++;
			if (!(y = get(b, x->string)) || !same(s, x, y))
				return 0;
		}
		cJSON_ArrayForEach(y, b)
			if (strcmp(y->string, "location"))
				nb++;
		return na == nb;
	}
	if (cJSON_IsArray(a) && cJSON_IsArray(b)) {
		if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b))
			return 0;
		for (x = a->child, y = b->child; x && y; x = x->next, y = y->next)
			if (!same(s, x, y))
				return 0;
		return 1;
	}
	return cJSON_Compare(a, b, 1);
}

static int grouped(struct sx *s, const cJSON *n)
{
	for (int i = 0; i < s->ngroups; i++)
		if (same(s, n, s->groups[i]))
			return 1;
	return 0;
}

/* fraction: the constant of a percentile, or -1 */
static double fraction(const cJSON *n)
{
	const cJSON *ac;

	while (is(n, "TypeCast"))
		n = get(get(n, "TypeCast"), "arg");
	if (!(ac = get(n, "A_Const")))
		return -1;
	if (get(ac, "fval")) {
		const char *f = cJSON_GetStringValue(get(get(ac, "fval"), "fval"));

		return f ? atof(f) : -1;
	}
	if (cJSON_IsObject(get(ac, "ival")))
		return num(get(get(ac, "ival"), "ival"), 0);
	return -1;
}

/* op_name: the operator of an A_Expr of one operator ("*", "-", "="), NULL otherwise */
static const char *op_name(const cJSON *e)
{
	const char *k = cJSON_GetStringValue(get(e, "kind"));

	if (!k || strcmp(k, "AEXPR_OP") || cJSON_GetArraySize(get(e, "name")) != 1)
		return NULL;
	return sval(cJSON_GetArrayItem(get(e, "name"), 0));
}

/* nonzero_const: a numeric constant other than zero (cast or not) */
static int nonzero_const(const cJSON *n)
{
	const cJSON *ac;

	while (is(n, "TypeCast"))
		n = get(get(n, "TypeCast"), "arg");
	if (!(ac = get(n, "A_Const")))
		return 0;
	if (get(ac, "fval")) {
		const char *f = cJSON_GetStringValue(get(get(ac, "fval"), "fval"));

		return f && strtod(f, NULL) != 0;
	}
	return cJSON_IsObject(get(ac, "ival")) && num(get(get(ac, "ival"), "ival"), 0) != 0;
}

/* is_cond: a test that is true or false: a comparison, IN, BETWEEN, LIKE, IS [NOT] DISTINCT FROM,
 * AND/OR/NOT, IS [NOT] NULL, IS [NOT] TRUE (not arithmetic, whatever it is cast to) */
static int is_cond(const cJSON *n)
{
	static const char *const cmp[] = {"=", "<>", "!=", "<", ">", "<=", ">=", "~~", "!~~", "~~*", "!~~*", NULL};
	const cJSON *e = get(n, "A_Expr");
	const char *k = cJSON_GetStringValue(get(e, "kind"));

	if (is(n, "BoolExpr") || is(n, "NullTest") || is(n, "BooleanTest"))
		return 1;
	if (!k)
		return 0;
	if (!strcmp(k, "AEXPR_OP"))
		return op_name(e) && in_list(op_name(e), cmp);
	return strcmp(k, "AEXPR_OP_ANY") && strcmp(k, "AEXPR_OP_ALL") && strcmp(k, "AEXPR_NULLIF") &&
	       strcmp(k, "AEXPR_PAREN");
}

/* zero_one: the constant 0 or 1, or NULL */
static int zero_one(const cJSON *n)
{
	const cJSON *ac;

	while (is(n, "TypeCast"))
		n = get(get(n, "TypeCast"), "arg");
	if (!(ac = get(n, "A_Const")))
		return 0;
	if (cJSON_IsTrue(get(ac, "isnull")))
		return 1;
	if (get(ac, "fval"))
		return fraction(n) == 0 || fraction(n) == 1;
	return cJSON_IsObject(get(ac, "ival")) && (unsigned)num(get(get(ac, "ival"), "ival"), 0) <= 1;
}

/* col_id: the column as table.column (its reference's table, not the alias), hashed into *h */
static void col_id(struct sx *s, const cJSON *n, unsigned long *h)
{
	struct colref c;
	int r;
	const char *parts[2];

	colref(n, &c);
	r = ref_of(s, &c);
	parts[0] = r >= 0 ? s->refs[r].table : c.qual ? c.qual : "";
	parts[1] = c.col ? c.col : "";
	for (int p = 0; p < 2; p++) {
		for (const char *t = parts[p]; *t; t++)
			*h = (*h ^ (unsigned char)*t) * 1099511628211UL;   /* FNV-1a */
		*h = (*h ^ (p ? ';' : '.')) * 1099511628211UL;
	}
}

/* measure_arg: n is a measure (suppress.h): 1 or 0; *id gets its columns hashed (left as it is
 * for a 0/1 condition, whose patients alone say its values) */
static int measure_arg(struct sx *s, const cJSON *n, unsigned long *id, int depth)
{
	const cJSON *b = body(n), *c;
	const char *op;

	if (depth > 8)
		return 0;
	if (is(n, "ColumnRef")) {
		col_id(s, n, id);
		return 1;
	}
	if (is(n, "TypeCast"))
		return is_cond(get(b, "arg")) || measure_arg(s, get(b, "arg"), id, depth + 1);
	if (is(n, "CaseExpr")) {
		/* CASE WHEN cond THEN 1 ELSE 0 END, CASE WHEN cond THEN age END: each result 0, 1, NULL or a
		 * measure, never a constant a measure could be shifted by */
		const cJSON *d = get(b, "defresult");

		if (get(b, "arg") || (d && !zero_one(d) && !measure_arg(s, d, id, depth + 1)))
			return 0;
		cJSON_ArrayForEach(c, get(b, "args")) {
			const cJSON *r = get(get(c, "CaseWhen"), "result");

			if (!zero_one(r) && !measure_arg(s, r, id, depth + 1))
				return 0;
		}
		return 1;
	}
	if (is(n, "A_Expr") && (op = op_name(b))) {
		const cJSON *l = get(b, "lexpr"), *r = get(b, "rexpr");

		if (!strcmp(op, "-"))
			return is(l, "ColumnRef") && is(r, "ColumnRef") && (col_id(s, l, id), col_id(s, r, id), *id ^= 1, 1);
		if (!strcmp(op, "*"))
			return nonzero_const(l) ? measure_arg(s, r, id, depth + 1)
			       : nonzero_const(r) && measure_arg(s, l, id, depth + 1);
		if (!strcmp(op, "/"))
			return nonzero_const(r) && measure_arg(s, l, id, depth + 1);
		return 0;
	}
	if (is(n, "FuncCall") && (!strcasecmp(call_name(b), "date_part") || !strcasecmp(call_name(b), "extract"))) {
		/* a field of a column or of a difference of two: date_part('epoch', out - in), extract(day FROM d) */
		const cJSON *unit = cJSON_GetArrayItem(get(b, "args"), 0), *e = cJSON_GetArrayItem(get(b, "args"), 1);
		const char *u = cJSON_GetStringValue(get(get(get(unit, "A_Const"), "sval"), "sval"));
		const cJSON *eb = get(e, "A_Expr");

		if (cJSON_GetArraySize(get(b, "args")) != 2 || !u ||
		    !(is(e, "ColumnRef") || (eb && op_name(eb) && !strcmp(op_name(eb), "-"))))
			return 0;
		for (const char *t = u; *t; t++)
			*id = (*id ^ (unsigned char)(*t | 0x20)) * 1099511628211UL;
		return measure_arg(s, e, id, depth + 1);
	}
	return 0;
}

static void aggregate(struct sx *s, const cJSON *n)
{
	const cJSON *fc = body(n), *arg;
	const char *name = call_name(fc);
	int count = !strcasecmp(name, "count"), star = cJSON_IsTrue(get(fc, "agg_star"));
	unsigned long id = 14695981039346656037UL;   /* FNV-1a's offset basis */
	char t[200];

	if (get(fc, "agg_filter"))
		refuse(s, SUPP_AGG_FILTER, loc(n), name);
	else if (in_list(name, list_aggs))
		refuse(s, SUPP_AGG_LISTS, loc(n), name);
	else if (in_list(name, extreme_aggs))
		refuse(s, SUPP_AGG_EXTREME, loc(n), name);
	else if (!in_list(name, allowed_aggs))
		refuse(s, SUPP_AGG_OTHER, loc(n), name);
	if (s->refused)
		return;
	if (!strcasecmp(name, "percentile_cont")) {
		refuse(s, SUPP_INTERPOLATE, loc(n), name);
		return;
	}
	if (!strncasecmp(name, "percentile_", 11)) {
		double f = fraction(cJSON_GetArrayItem(get(fc, "args"), 0));
		double k = (double)(s->o->k > 1 ? s->o->k : 2);

		/* with at least k values, a fraction in (1/k, 1 - 1/k] is never the lowest or highest;
		 * steps of 0.05 cannot be moved until the answer changes at the group's size */
		if (!cJSON_IsTrue(get(fc, "agg_within_group")) || cJSON_GetArraySize(get(fc, "args")) != 1 ||
		    cJSON_GetArraySize(get(fc, "agg_order")) != 1 || !(f > 1.0 / k) || !(f <= 1.0 - 1.0 / k) ||
		    f * 20 - (double)(long)(f * 20 + 0.5) > 1e-9 || f * 20 - (double)(long)(f * 20 + 0.5) < -1e-9) {
			snprintf(t, sizeof t, "%ld", s->o->k);
			refuse(s, SUPP_PERCENTILE, loc(n), t);
			return;
		}
		arg = get(get(cJSON_GetArrayItem(get(fc, "agg_order"), 0), "SortBy"), "node");
	} else if (star) {
		arg = NULL;
	} else {
		if (get(fc, "agg_order")) {
			refuse(s, SUPP_AGG_ORDER, loc(n), name);
			return;
		}
		if (cJSON_IsTrue(get(fc, "agg_within_group")) || cJSON_GetArraySize(get(fc, "args")) != 1) {
			refuse(s, SUPP_AGG_OTHER, loc(n), name);
			return;
		}
		arg = cJSON_GetArrayItem(get(fc, "args"), 0);
	}
	/* sum(1) is a count; sum(1000) a count that rounding to a base keeps exact (1000 n) */
	if (arg && !strcasecmp(name, "sum") && !has_col_ref(arg)) {
		refuse(s, SUPP_AGG_OTHER, loc(n), "sum of a constant");
		return;
	}
	/* count(key) and count(DISTINCT key) count patients; anything else of an identifier is
	 * one patient's (sum(subject_id), avg(CASE WHEN caseid = 1 THEN age END)) */
	if (arg && !(count && is(arg, "ColumnRef")))
		no_ident(s, arg);
	if (s->refused)
		return;
	/* a measure's shape: arithmetic that adds a constant (avg(f + 1000) less avg(1000 + 0 * x))
	 * cancels the noise of the release (docs/privacy.md "Differencing") */
	if (arg && !count && (cJSON_IsTrue(get(fc, "agg_distinct")) || !measure_arg(s, arg, &id, 0))) {
		refuse(s, SUPP_AGG_ARG, loc(n), name);
		return;
	}
	if (s->naggs >= MAX_AGGS) {
		refuse(s, SUPP_TOO_LARGE, loc(n), "aggregates");
		return;
	}
	s->aggs[s->naggs++] = (struct agg){n, count, star, !strcasecmp(name, "sum"),
	                                   !count && strcasecmp(name, "percentile_disc"), !strcasecmp(name, "avg"),
	                                   !strncasecmp(name, "stddev", 6) || !strncasecmp(name, "var", 3), id};
}

static void result(struct sx *s, const cJSON *n)
{
	const cJSON *b = body(n), *c;
	const char *t = type(n);
	char tx[200];

	if (s->refused || !n || grouped(s, n))
		return;
	if (!t) {
		if (cJSON_IsArray(n))
			cJSON_ArrayForEach(c, n)
				result(s, c);
		return;
	}
	if (!strcmp(t, "ColumnRef")) {
		refuse(s, SUPP_ITEM, loc(n), col_text(n, tx, sizeof tx));
	} else if (!strcmp(t, "A_Const") || !strcmp(t, "SQLValueFunction")) {
		return;
	} else if (!strcmp(t, "FuncCall")) {
		if (is_agg(b))
			aggregate(s, n);
		else if (in_list(call_name(b), result_funcs))
			result(s, get(b, "args"));
		else
			refuse(s, SUPP_FUNCTION, loc(n), call_name(b));
	} else if (!strcmp(t, "TypeCast") || !strcmp(t, "CollateClause") || !strcmp(t, "NullTest") ||
	           !strcmp(t, "BooleanTest")) {
		result(s, get(b, "arg"));
	} else if (!strcmp(t, "A_Expr")) {
		result(s, get(b, "lexpr"));
		result(s, get(b, "rexpr"));
	} else if (!strcmp(t, "List")) {
		result(s, get(b, "items"));
	} else if (!strcmp(t, "BoolExpr") || !strcmp(t, "CoalesceExpr") || !strcmp(t, "MinMaxExpr")) {
		result(s, get(b, "args"));
	} else if (!strcmp(t, "CaseExpr")) {
		result(s, get(b, "arg"));
		cJSON_ArrayForEach(c, get(b, "args")) {
			result(s, get(get(c, "CaseWhen"), "expr"));
			result(s, get(get(c, "CaseWhen"), "result"));
		}
		result(s, get(b, "defresult"));
	} else {
		refuse(s, SUPP_ITEM, loc(n), "this expression");
	}
}

static void results(struct sx *s)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, s->targets)
		result(s, get(get(it, "ResTarget"), "val"));
	result(s, get(s->sel, "havingClause"));
	cJSON_ArrayForEach(it, get(s->sel, "sortClause")) {
		const cJSON *e = get(get(it, "SortBy"), "node");
		struct colref c;

		/* ORDER BY 2 and ORDER BY an output name are the results themselves */
		if (get(e, "A_Const"))
			continue;
		if (is(e, "ColumnRef")) {
			colref(e, &c);
			if (c.col && !c.qual && target_named(s, c.col))
				continue;
		}
		result(s, e);
	}
}

/* ---- the text: tokens and edits --------------------------------------------------------------- */

static int real(const struct guard_tok *t)
{
	return t->token != T_SQL_COMMENT && t->token != T_C_COMMENT;
}

/* tok_at: the first token starting at or after byte pos */
static int tok_at(const struct sx *s, int pos)
{
	for (int i = 0; i < s->ntoks; i++)
		if (s->toks[i].start >= pos)
			return i;
	return s->ntoks;
}

/* closing: the index of the ')' matching the '(' at i, or -1 */
static int closing(const struct sx *s, int i)
{
	int d = 0;

	for (; i < s->ntoks; i++) {
		if (s->toks[i].token == T_LPAREN)
			d++;
		else if (s->toks[i].token == T_RPAREN && --d == 0)
			return i;
	}
	return -1;
}

/* next_real: the first real token at or after i */
static int next_real(const struct sx *s, int i)
{
	while (i < s->ntoks && !real(&s->toks[i]))
		i++;
	return i;
}

/* call_parens: the '(' and ')' of a call at byte at (-1 when not found) */
static int call_parens(const struct sx *s, int at, int *close)
{
	int i = tok_at(s, at);

	while (i < s->ntoks && s->toks[i].token != T_LPAREN)
		i++;
	*close = i < s->ntoks ? closing(s, i) : -1;
	return *close < 0 ? -1 : i;
}

/* span_text: the bytes from token a's start to the end of the last real token before token z */
static char *span_text(const struct sx *s, int a, int z)
{
	int e = -1;

	a = next_real(s, a);
	for (int i = a; i < z; i++)
		if (real(&s->toks[i]))
			e = s->toks[i].end;
	if (a >= z || e < 0)
		return NULL;
	return strndup(s->sql + s->toks[a].start, (size_t)(e - s->toks[a].start));
}

/* agg_arg: the text of an aggregate's argument (without DISTINCT), or of a percentile's
 * WITHIN GROUP (ORDER BY ...) expression (without ASC, DESC, NULLS, USING); heap, NULL if unsure */
static char *agg_arg(const struct sx *s, const struct agg *a)
{
	int close, open = call_parens(s, loc(a->fc), &close), i, e;

	if (open < 0)
		return NULL;
	if (!strncasecmp(call_name(body(a->fc)), "percentile_", 11)) {
		/* ... ) WITHIN GROUP ( ORDER BY expr [ASC|DESC] [NULLS FIRST|LAST] ): the sort's own words
		 * are dropped from the end as the parse tree says they are there (a column may be called
		 * desc: "x.desc" is no direction) */
		static const int want[] = {T_WITHIN, T_GROUP, T_LPAREN, T_ORDER, T_BY};
		const cJSON *sb = get(cJSON_GetArrayItem(get(body(a->fc), "agg_order"), 0), "SortBy");
		const char *dir = cJSON_GetStringValue(get(sb, "sortby_dir")), *nulls = cJSON_GetStringValue(get(sb, "sortby_nulls"));

		i = close + 1;
		for (int w = 0; w < 5; w++) {
			i = next_real(s, i);
			if (i >= s->ntoks || s->toks[i].token != want[w])
				return NULL;
			if (w == 2)
				open = i;
			i++;
		}
		if ((close = closing(s, open)) < 0)
			return NULL;
		e = close;
		if (nulls && strcmp(nulls, "SORTBY_NULLS_DEFAULT")) {
			/* NULLS FIRST / NULLS LAST: two words */
			for (int w = 0; w < 2; w++) {
				do
					e--;
				while (e > i && !real(&s->toks[e]));
				if (e <= i || (w == 0 ? s->toks[e].token != T_FIRST && s->toks[e].token != T_LAST
				                      : s->toks[e].token != T_NULLS && s->toks[e].token != T_NULLS_LA))
					return NULL;
			}
		}
		if (dir && (!strcmp(dir, "SORTBY_ASC") || !strcmp(dir, "SORTBY_DESC"))) {
			do
				e--;
			while (e > i && !real(&s->toks[e]));
			if (e <= i || (s->toks[e].token != T_ASC && s->toks[e].token != T_DESC))
				return NULL;
		} else if (dir && strcmp(dir, "SORTBY_DEFAULT")) {
			return NULL;   /* USING an operator: not worth reading */
		}
		return span_text(s, i, e);
	}
	/* an argument given by name (count(x := v)): its text is no expression of its own, and no
	 * aggregate takes one: not read (the caller refuses the statement) */
	const cJSON *arg;
	cJSON_ArrayForEach(arg, get(body(a->fc), "args"))
		if (get(arg, "NamedArgExpr"))
			return NULL;
	i = next_real(s, open + 1);
	if (i < close && (s->toks[i].token == T_DISTINCT || s->toks[i].token == T_ALL))
		i++;
	return span_text(s, i, close);
}

/* word: a character that would glue two tokens together (x + "count" -> one identifier) */
static int word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
	       c == '"' || c == '\'' || (unsigned char)c >= 0x80;
}

/* add_edit: at byte pos, replace del bytes with ins (taken); a blank goes on either side where the
 * text around would otherwise run into it ("SELECT@x", "count(*)from") */
static int add_edit(struct sx *s, int pos, int del, char *ins)
{
	size_t n;

	if (!ins) {
		s->err = ERR_NOMEM;
		return -1;
	}
	n = strlen(ins);
	if (n && (word(ins[0]) || ins[0] == '(') && pos > 0 && word(s->sql[pos - 1]) && ins[0] != ' ') {
		char *t = malloc(n + 2);

		if (!t) {
			free(ins);
			s->err = ERR_NOMEM;
			return -1;
		}
		t[0] = ' ';
		memcpy(t + 1, ins, n + 1);
		free(ins);
		ins = t;
		n++;
	}
	if (n && word(ins[n - 1]) && word(s->sql[pos + del])) {
		char *t = realloc(ins, n + 2);

		if (!t) {
			free(ins);
			s->err = ERR_NOMEM;
			return -1;
		}
		ins = t;
		ins[n] = ' ';
		ins[n + 1] = '\0';
	}
	if (s->nedits >= MAX_EDITS) {
		free(ins);
		refuse(s, SUPP_TOO_LARGE, pos, "edits");
		return -1;
	}
	s->edits[s->nedits++] = (struct edit){pos, del, ins};
	return 0;
}

static int by_pos(const void *a, const void *b)
{
	const struct edit *x = a, *y = b;

	/* at one position, an insertion before the replacement that starts there */
	return x->pos != y->pos ? x->pos - y->pos : x->del - y->del;
}

/* positional: an integer constant directly in a GROUP BY / ORDER BY list moves up by one */
static void positional(struct sx *s, const cJSON *list)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, list) {
		const cJSON *n = get(it, "SortBy") ? get(get(it, "SortBy"), "node") : it;
		const cJSON *ac = get(n, "A_Const"), *iv = get(get(ac, "ival"), "ival");
		int at = num(get(ac, "location"), -1), len = 0;
		char buf[24];

		if (!ac || !cJSON_IsNumber(iv) || at < 0)
			continue;
		while (s->sql[at + len] >= '0' && s->sql[at + len] <= '9')
			len++;
		if (!len)
			continue;
		snprintf(buf, sizeof buf, "%lld", (long long)iv->valueint + 1);
		add_edit(s, at, len, strdup(buf));
	}
}

/* quote_ident: name in double quotes, inner quotes doubled */
static void quote_ident(struct sb *b, const char *name)
{
	sb_putc(b, '"');
	for (; *name; name++) {
		if (*name == '"')
			sb_putc(b, '"');
		sb_putc(b, *name);
	}
	sb_putc(b, '"');
}

/* ref_key: the reference's patient key as the statement names it ("alias"."key") */
static void ref_key(struct sb *b, const struct ref *r)
{
	quote_ident(b, r->alias ? r->alias : r->table);
	sb_putc(b, '.');
	quote_ident(b, r->key);
}

/* patients: the least of every count of patients: each reference with a patient key, each
 * aggregate argument's non-null values per such reference, and for the argument of a sum, avg,
 * stddev, variance or percentile_cont the patients with a value other than zero and (when there are
 * any) those with zero: a 0/1 flag summed or averaged over a large group is a count of the
 * flagged, so neither side may be a small group (docs/privacy.md "Sums and averages").  The
 * zero side is NULLIF(.., 0): LEAST skips a NULL, so a group with no zero passes. */
static char *patients(struct sx *s)
{
	struct sb b = SB_INIT, one = SB_INIT;
	char *args[MAX_AGGS];
	int measured[MAX_AGGS];
	int nargs = 0, nterms = 0;

	for (int i = 0; i < s->naggs; i++) {
		char *a;
		int dup = -1;

		if (s->aggs[i].star)
			continue;
		if (!(a = agg_arg(s, &s->aggs[i]))) {
			/* the argument's text was not found: no way to count its patients */
			refuse(s, SUPP_AGG_OTHER, loc(s->aggs[i].fc), call_name(body(s->aggs[i].fc)));
			break;
		}
		for (int j = 0; j < nargs; j++)
			if (!strcmp(args[j], a))
				dup = j;
		if (dup >= 0) {
			free(a);
		} else {
			dup = nargs;
			measured[nargs] = 0;
			args[nargs++] = a;
		}
		measured[dup] |= s->aggs[i].measure;
	}
	for (int pass = 0; !s->refused && pass <= nargs; pass++)
		for (int i = 0; i < s->nrefs; i++) {
			const struct ref *r = &s->refs[i];

			if (!r->key)
				continue;
			sb_reset(&one);
			ref_key(&one, r);
			if (nterms++)
				sb_puts(&b, ", ");
			if (!pass) {
				sb_printf(&b, "count(DISTINCT %s)", sb_cstr(&one));
				continue;
			}
			sb_printf(&b, "count(DISTINCT CASE WHEN (%s) IS NOT NULL THEN %s END)", args[pass - 1], sb_cstr(&one));
			if (!measured[pass - 1])
				continue;
			/* '0' untyped: PostgreSQL reads it as the argument's type (a number, an interval) */
			sb_printf(&b, ", count(DISTINCT CASE WHEN (%s) <> '0' THEN %s END)", args[pass - 1], sb_cstr(&one));
			sb_printf(&b, ", NULLIF(count(DISTINCT CASE WHEN (%s) = '0' THEN %s END), 0)", args[pass - 1],
			          sb_cstr(&one));
			nterms += 2;
		}
	for (int j = 0; j < nargs; j++)
		free(args[j]);
	sb_free(&one);
	if (s->refused || !sb_ok(&b) || !nterms) {
		if (!sb_ok(&b))
			s->err = ERR_NOMEM;
		sb_free(&b);
		return NULL;
	}
	if (nterms > 1) {
		struct sb l = SB_INIT;

		sb_printf(&l, "LEAST(%s)", sb_cstr(&b));
		sb_free(&b);
		b = l;
	}
	return sb_ok(&b) ? sb_steal(&b) : (sb_free(&b), s->err = ERR_NOMEM, NULL);
}

/* agg_val: the name PostgreSQL gives n when it is (a cast of) an aggregate the rewrite replaces
 * (count, sum; avg, stddev and variance with noise), NULL when it is none */
static const char *agg_val(const struct sx *s, const cJSON *n)
{
	static const char *const noised[] = {"avg", "stddev", "stddev_samp", "stddev_pop", "variance", "var_samp",
	                                     "var_pop", NULL};
	const char *name;

	while (is(n, "TypeCast"))
		n = get(get(n, "TypeCast"), "arg");
	if (!is(n, "FuncCall"))
		return NULL;
	name = call_name(body(n));
	if (!strcasecmp(name, "count") || !strcasecmp(name, "sum"))
		return name;
	return s->o->noise && in_list(name, noised) ? name : NULL;
}

/* cell_key: SQL of the cell key of the patients behind the argument x's values (nonzero: its
 * non-zero values): the sum of their keys hashed with the install's seed, for every counted
 * reference; the same patients give the same key whatever the statement */
static void cell_key(const struct sx *s, struct sb *b, const char *x, int nonzero)
{
	int n = 0;

	sb_putc(b, '(');
	for (int i = 0; i < s->nrefs; i++) {
		const struct ref *r = &s->refs[i];

		if (!r->key)
			continue;
		if (n++)
			sb_puts(b, " + ");
		sb_printf(b, "coalesce(sum(DISTINCT CASE WHEN (%s) %s THEN hashtextextended((", x,
		          nonzero ? "<> '0'" : "IS NOT NULL");
		ref_key(b, r);
		sb_printf(b, ")::text, %lld) END), 0)", s->o->noise_key);
	}
	if (!n)
		sb_putc(b, '0');
	sb_putc(b, ')');
}

/* draw: SQL of a number in (-2, 2), the sum of two uniform draws (so near 0 more often than near
 * the ends), fixed by the cell key and the tag */
static void draw(const struct sx *s, struct sb *b, const char *key, unsigned long tag)
{
	sb_printf(b, "((hashtextextended(%s::text || ':%lu:1', %lld) %% 1000000 + "
	             "hashtextextended(%s::text || ':%lu:2', %lld) %% 1000000)::numeric / 1000000)",
	          key, tag, s->o->noise_key, key, tag, s->o->noise_key);
}

/* released: SQL that replaces the aggregate a (its call's text call) in the release, NULL when it
 * stays as it is (docs/privacy.md "Differencing") */
static char *released(struct sx *s, const struct agg *a, const char *call)
{
	struct sb b = SB_INIT, key = SB_INIT, num = SB_INIT;
	long r = s->o->round;
	char *x;

	if (a->count)
		return r > 1 ? (sb_printf(&b, "(round(%s::numeric / %ld) * %ld)::bigint", call, r, r), sb_steal(&b)) : NULL;
	if (a->spread && s->o->noise) {
		/* two significant digits: a sample's spread over a population's tells n / (n - 1) */
		sb_printf(&b, "(CASE WHEN (%s) = 0 THEN 0 ELSE round((%s)::numeric, 1 - floor(log(abs((%s)::numeric)))::int) END)",
		          call, call, call);
		return sb_ok(&b) ? sb_steal(&b) : (sb_free(&b), NULL);
	}
	if (!a->sum && !a->avg)
		return NULL;
	if (!s->o->noise)
		return a->sum && r > 1 ? (sb_printf(&b, "(round(%s::numeric / %ld) * %ld)", call, r, r), sb_steal(&b)) : NULL;
	if (!(x = agg_arg(s, a)))
		return NULL;
	/* one patient's worth of noise on the total: the mean absolute non-zero value, times a draw
	 * fixed by the patients with a non-zero value and by the measure's columns */
	cell_key(s, &key, x, 1);
	sb_printf(&num, "(sum(%s) + ", x);
	draw(s, &num, sb_cstr(&key), a->id);
	/* greatest(E, -E): the absolute value of a number and of an interval alike (a duration's
	 * average stays an interval); no value: no noise (coalesce to E's own zero) */
	sb_printf(&num, " * coalesce(avg(greatest((%s), -(%s))) FILTER (WHERE (%s) <> '0'), sum(%s) * 0))", x, x, x, x);
	if (a->sum) {
		if (r > 1)
			sb_printf(&b, "(round(%s / %ld) * %ld)", sb_cstr(&num), r, r);
		else
			sb_puts(&b, sb_cstr(&num));
	} else {
		/* the count of values with a draw of its own patients' cell key */
		sb_reset(&key);
		cell_key(s, &key, x, 0);
		sb_printf(&b, "(%s / NULLIF(count(%s) + ", sb_cstr(&num), x);
		draw(s, &b, sb_cstr(&key), 0);
		sb_puts(&b, ", 0))");
	}
	free(x);
	sb_free(&key);
	sb_free(&num);
	if (!sb_ok(&b)) {
		s->err = ERR_NOMEM;
		sb_free(&b);
		return NULL;
	}
	return sb_steal(&b);
}

/* rewrite: the edits of the accepted statement */
static void rewrite(struct sx *s)
{
	int first = loc(cJSON_GetArrayItem(s->targets, 0)), i0, base = 0, from = -1, having = -1, end = -1,
	    d = 0, item = 0;
	int ends[MAX_GROUPS * 4];
	char *n = patients(s);
	struct sb b = SB_INIT;

	if (!n)
		return;
	if (first < 0 || (size_t)first > strlen(s->sql)) {
		refuse(s, SUPP_ITEM, -1, "an empty select list");
		goto out;
	}
	/* the statement's own level of parentheses: (SELECT ...) is read as SELECT ... */
	i0 = tok_at(s, first);
	for (int i = 0; i < i0; i++)
		base += s->toks[i].token == T_LPAREN ? 1 : s->toks[i].token == T_RPAREN ? -1 : 0;
	d = base;
	for (int i = i0; i < s->ntoks; i++) {
		const struct guard_tok *t = &s->toks[i];

		if (!real(t))
			continue;
		if (t->token == T_LPAREN) {
			d++;
			continue;
		}
		if (t->token == T_RPAREN && --d < base)
			break;   /* the end of (SELECT ...) */
		if (d != base)
			continue;
		if (from < 0 && t->token == T_COMMA && item < (int)(sizeof ends / sizeof ends[0]))
			ends[item++] = end;   /* the end of a select-list item */
		else if (from < 0 && t->token == T_FROM) {
			if (item < (int)(sizeof ends / sizeof ends[0]))
				ends[item++] = end;
			from = i;
		} else if (from >= 0 && t->token == T_HAVING)
			having = i;
		else if (from >= 0 && (t->token == T_ORDER || t->token == T_LIMIT || t->token == T_OFFSET ||
		                       t->token == T_FETCH || t->token == T_FOR || t->token == T_WINDOW ||
		                       t->token == T_SEMI))
			break;   /* the clauses after HAVING */
		end = t->end;
	}
	if (from < 0 || end < 0) {
		refuse(s, SUPP_NO_KEY, -1, "FROM");
		goto out;
	}
	sb_printf(&b, "%s AS " SUPPRESS_COLUMN ", ", n);
	add_edit(s, first, 0, sb_ok(&b) ? sb_steal(&b) : NULL);
	sb_free(&b);
	if (having >= 0) {
		int h = next_real(s, having + 1);

		if (h >= s->ntoks) {
			refuse(s, SUPP_PARSE, -1, "HAVING without a condition");
			goto out;
		}
		add_edit(s, s->toks[h].start, 0, strdup("("));
		sb_printf(&b, ") AND %s >= %ld", n, s->o->k);
	} else {
		sb_printf(&b, " HAVING %s >= %ld", n, s->o->k);
	}
	add_edit(s, end, 0, sb_ok(&b) ? sb_steal(&b) : NULL);
	sb_free(&b);
	positional(s, get(s->sel, "groupClause"));
	positional(s, get(s->sel, "sortClause"));
	if (s->o->round > 1 || s->o->noise) {
		/* counts and sums to a multiple of round, where they are shown and where they are
		 * compared (a sum of a 0/1 column is a count); with noise, sums and averages perturbed
		 * and spreads coarse (released above).  A sum of an interval cannot be cast to numeric
		 * and fails in PostgreSQL: refused, never exact */
		for (int i = 0; i < s->naggs && !s->refused && !s->err; i++) {
			int close, at = loc(s->aggs[i].fc);
			char *call, *rel;

			if (call_parens(s, at, &close) < 0)
				continue;
			if (!(call = strndup(s->sql + at, (size_t)(s->toks[close].end - at)))) {
				s->err = ERR_NOMEM;
				break;
			}
			if ((rel = released(s, &s->aggs[i], call)))
				add_edit(s, at, s->toks[close].end - at, rel);
			free(call);
		}
		for (int i = 0; i < item && i < cJSON_GetArraySize(s->targets); i++) {
			const cJSON *rt = get(cJSON_GetArrayItem(s->targets, i), "ResTarget");
			const char *nm = agg_val(s, get(rt, "val"));
			char as[40];

			if (!get(rt, "name") && nm && ends[i] > 0) {
				snprintf(as, sizeof as, " AS %s", nm);
				add_edit(s, ends[i], 0, strdup(as));
			}
		}
	}
out:
	sb_free(&b);
	free(n);
}

/* apply: the text with every edit, built front to back */
static char *apply(struct sx *s)
{
	struct sb b = SB_INIT;
	int at = 0;

	qsort(s->edits, (size_t)s->nedits, sizeof s->edits[0], by_pos);
	for (int i = 0; i < s->nedits; i++) {
		const struct edit *e = &s->edits[i];

		if (e->pos > at)
			sb_append(&b, s->sql + at, (size_t)(e->pos - at));
		sb_puts(&b, e->ins);
		if (e->pos + e->del > at)
			at = e->pos + e->del;
	}
	sb_puts(&b, s->sql + at);
	return sb_ok(&b) ? sb_steal(&b) : (sb_free(&b), NULL);
}

enum err suppress_rewrite(const char *sql, const struct suppress_opts *o, char **out,
                          struct suppress_refusal *why)
{
	PgQueryParseResult pr = pg_query_parse(sql ? sql : "");
	struct sx *s = calloc(1, sizeof *s);
	cJSON *root = NULL, *stmts;
	const cJSON *dc;
	enum err rc = ERR_DENIED;

	if (out)
		*out = NULL;
	memset(why, 0, sizeof *why);
	if (!s) {
		pg_query_free_parse_result(pr);
		return ERR_NOMEM;
	}
	s->sql = sql ? sql : "";
	s->o = o;
	s->db = o->db;
	s->why = why;
	if (pr.error) {
		refuse(s, SUPP_PARSE, pr.error->cursorpos > 0 ? pr.error->cursorpos - 1 : -1, pr.error->message);
		rc = ERR_PARSE;
		goto out;
	}
	if (!(root = cJSON_Parse(pr.parse_tree))) {
		/* cJSON stops at 1000 levels of nesting: no analyst query is that deep */
		refuse(s, SUPP_TOO_LARGE, -1, "nested expressions");
		goto out;
	}
	stmts = get(root, "stmts");
	s->sel = get(get(cJSON_GetArrayItem(stmts, 0), "stmt"), "SelectStmt");
	if (cJSON_GetArraySize(stmts) != 1 || !s->sel) {
		refuse(s, SUPP_NOT_ONE_SELECT, -1, NULL);
		goto out;
	}
	s->targets = get(s->sel, "targetList");
	/* the statement's shape first: these say most plainly what to ask instead */
	if (get(s->sel, "larg") || strcmp(cJSON_GetStringValue(get(s->sel, "op")) ? cJSON_GetStringValue(get(s->sel, "op")) : "SETOP_NONE", "SETOP_NONE"))
		refuse(s, SUPP_SET_OP, -1, NULL);
	else if (get(s->sel, "valuesLists"))
		refuse(s, SUPP_VALUES, loc(get(s->sel, "valuesLists")), NULL);
	else if (get(s->sel, "withClause"))
		refuse(s, SUPP_CTE, loc(get(s->sel, "withClause")), NULL);
	else if ((dc = get(s->sel, "distinctClause")) && cJSON_GetArraySize(dc) > 0 && body(cJSON_GetArrayItem(dc, 0)))
		refuse(s, SUPP_DISTINCT_ON, loc(dc), NULL);
	else if (get(s->sel, "windowClause"))
		refuse(s, SUPP_WINDOW, loc(get(s->sel, "windowClause")), NULL);
	forbid(s, s->sel, 0);
	if (!s->refused && !get(s->sel, "groupClause") && !has_agg(s->targets) && !has_agg(get(s->sel, "havingClause")))
		refuse(s, SUPP_NOT_AGGREGATE, loc(s->targets), NULL);
	{
		const cJSON *it;

		cJSON_ArrayForEach(it, get(s->sel, "fromClause"))
			refs_of(s, it);
	}
	if (s->db && !s->refused) {
		int keyed = 0;

		for (int i = 0; i < s->nrefs; i++) {
			struct ref *r = &s->refs[i];

			for (int k = 0; !r->key && k < o->nkeys; k++)
				if (db_has(s, r, o->keys[k]))
					r->key = o->keys[k];
			r->tied = r->key || s->db->tied(s->db->ctx, r->schema, r->table);
			keyed |= r->key != NULL;
		}
		if (!keyed) {
			char keys[sizeof why->arg] = "";

			for (int k = 0; k < o->nkeys; k++)
				snprintf(keys + strlen(keys), sizeof keys - strlen(keys), "%s%s", k ? ", " : "", o->keys[k]);
			refuse(s, SUPP_NO_KEY, loc(get(s->sel, "fromClause")), o->nkeys ? keys : "none configured");
		}
	}
	filter(s, get(s->sel, "whereClause"));
	for (int i = 0; i < s->nquals; i++)
		filter(s, s->quals[i]);
	if (s->db && !s->refused)
		link(s);
	groups(s);
	results(s);
	if (s->refused || s->err)
		goto out;
	rc = OK;
	if (!out || !s->db)
		goto out;
	if (guard_scan(s->sql, &s->toks, &s->ntoks) != OK) {
		refuse(s, SUPP_PARSE, -1, "the scanner failed");
		rc = ERR_PARSE;
		goto out;
	}
	rewrite(s);
	if (s->refused || s->err) {
		rc = s->err ? s->err : ERR_DENIED;
		goto out;
	}
	if (!(*out = apply(s)))
		rc = ERR_NOMEM;
out:
	if (s->err)
		rc = s->err;
	if (rc == OK)
		memset(why, 0, sizeof *why);
	for (int i = 0; i < s->nedits; i++)
		free(s->edits[i].ins);
	free(s->toks);
	free(s);
	cJSON_Delete(root);
	pg_query_free_parse_result(pr);
	return rc;
}
