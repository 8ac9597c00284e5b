/* explain.c: EXPLAIN (FORMAT JSON) walked with cJSON into findings and suggestions; hypopg checks of suggested indexes. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <cjson/cJSON.h>
#include "sql/explain.h"
#include "sql/guard.h"
#include "store/db.h"
#include "store/level.h"
#include "util/conf.h"
#include "util/json.h"
#include "util/sb.h"

#define SEQ_ROWS 10000.0        /* react-framework.md 6.3: scans over this many rows */
#define LOOP_OUTER_ROWS 1000.0  /* nested loop: repetitions worth a look */
#define LOOP_RESCAN_COST 1e6    /* nested loop: outer rows x inner cost */
#define HIGH_COST 1e6
#define TUPLE_OVERHEAD 24       /* bytes per tuple in memory beyond its width (as cost_sort) */
#define HASH_MEM_MULT 2.0       /* PostgreSQL 15 default hash_mem_multiplier */
#define EXPLAIN_PREFIX "EXPLAIN (FORMAT JSON) "

const char *explain_kind_name(enum explain_kind k)
{
	static const char *const names[] = {"seq_scan", "nested_loop", "sort_spill", "hash_spill", "high_cost"};

	return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "unknown";
}

/* ---- reading plan nodes ------------------------------------------------------------ */

static double jnum(const cJSON *n, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(n, k);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static const cJSON *child(const cJSON *n, int i)
{
	return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(n, "Plans"), i);
}

/* human: 128815 -> "128,815"; 1.2e9 -> "1,200,000,000". */
static void human(char *buf, size_t n, double v)
{
	char raw[64];
	size_t len, o = 0;

	snprintf(raw, sizeof raw, "%.0f", v < 0 ? 0 : v);
	len = strlen(raw);
	for (size_t i = 0; i < len && o + 2 < n; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = raw[i];
	}
	buf[o] = '\0';
}

static void bytes_h(char *buf, size_t n, double b)
{
	if (b >= 1024.0 * 1024 * 1024)
		snprintf(buf, n, "%.1f GB", b / (1024.0 * 1024 * 1024));
	else if (b >= 1024.0 * 1024)
		snprintf(buf, n, "%.0f MB", b / (1024.0 * 1024));
	else
		snprintf(buf, n, "%.0f kB", b / 1024.0);
}

/* ---- columns in a filter ----------------------------------------------------------- */

/*
 * Filters are PostgreSQL's own deparsed text, e.g.
 *   ((sbp > '140'::double precision) AND ((name)::text = 'k'::text))
 * so a small scanner is enough: skip literals and casts, take identifiers that a
 * comparison operator follows.  Equality columns first (they lead a btree index).
 */
struct fcols {
	char name[4][64];
	int eq[4];
	int n;
};

static int kw(const char *s, size_t n)
{
	static const char *const words[] = {"AND", "OR", "NOT", "NULL", "TRUE", "FALSE", "ANY", "ALL",
	                                     "IS", "SubPlan", "hashed", "CASE", "WHEN", "THEN", "ELSE",
	                                     "END", "LIKE", "ILIKE", "IN", "DISTINCT", "FROM", "ARRAY"};

	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strlen(words[i]) == n && !strncasecmp(s, words[i], n))
			return 1;
	return 0;
}

/* ident: read an identifier at s (plain or "quoted") into out; returns bytes used. */
static size_t ident(const char *s, char *out, size_t outn)
{
	size_t i = 0, o = 0;

	if (s[0] == '"') {
		for (i = 1; s[i]; i++) {
			if (s[i] == '"') {
				if (s[i + 1] != '"')
					break;
				i++;
			}
			if (o + 1 < outn)
				out[o++] = s[i];
		}
		out[o] = '\0';
		return s[i] ? i + 1 : i;
	}
	while (isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '$') {
		if (o + 1 < outn)
			out[o++] = s[i];
		i++;
	}
	out[o] = '\0';
	return i;
}

/* skip_cast: after "::", skip a type name such as "timestamp without time zone" or "text[]". */
static size_t skip_cast(const char *s)
{
	static const char *const more[] = {"without", "with", "time", "zone", "varying", "precision"};
	size_t i = 0;
	char w[64];

	i += ident(s + i, w, sizeof w);
	for (;;) {
		size_t j = i, k;
		int ok = 0;

		while (s[j] == ' ')
			j++;
		k = ident(s + j, w, sizeof w);
		for (size_t m = 0; k && m < sizeof more / sizeof more[0]; m++)
			ok |= !strcmp(w, more[m]);
		if (!ok)
			break;
		i = j + k;
	}
	while (s[i] == '[' || s[i] == ']')
		i++;
	return i;
}

static void add_col(struct fcols *f, const char *name, int eq)
{
	for (int i = 0; i < f->n; i++) {
		if (!strcmp(f->name[i], name)) {
			f->eq[i] |= eq;
			return;
		}
	}
	if (f->n == 4)
		return;
	snprintf(f->name[f->n], sizeof f->name[0], "%s", name);
	f->eq[f->n++] = eq;
}

/* filter_cols: columns compared in expr; alias non-NULL: only those qualified by it. */
static void filter_cols(const char *s, const char *alias, struct fcols *f)
{
	size_t i = 0;

	memset(f, 0, sizeof *f);
	while (s && s[i]) {
		char a[64], b[64];
		size_t j, start;
		const char *qual = NULL, *col;

		if (s[i] == '\'') {
			for (i++; s[i]; i++)
				if (s[i] == '\'' && s[++i] != '\'')
					break;
			continue;
		}
		if (s[i] == ':' && s[i + 1] == ':') {
			i += 2 + skip_cast(s + i + 2);
			continue;
		}
		if (!(isalpha((unsigned char)s[i]) || s[i] == '_' || s[i] == '"')) {
			i++;
			continue;
		}
		start = i;
		j = i + ident(s + i, a, sizeof a);
		col = a;
		if (s[j] == '.' && (isalpha((unsigned char)s[j + 1]) || s[j + 1] == '_' || s[j + 1] == '"')) {
			j += 1 + ident(s + j + 1, b, sizeof b);
			qual = a;
			col = b;
		}
		i = j;
		if (s[j] == '(' || (!qual && kw(col, strlen(col))))
			continue;       /* a function call or a keyword */
		if (alias && (!qual || strcmp(qual, alias)))
			continue;
		/* past closing parens and casts to the operator */
		for (;;) {
			while (s[j] == ' ' || s[j] == ')')
				j++;
			if (s[j] == ':' && s[j + 1] == ':')
				j += 2 + skip_cast(s + j + 2);
			else
				break;
		}
		if (s[j] == '=' && s[j + 1] != '>') {
			add_col(f, col, 1);
		} else if (s[j] == '<' || s[j] == '>' || !strncmp(s + j, "~~", 2) || !strncmp(s + j, "IS ", 3)) {
			add_col(f, col, 0);
		} else {
			/* the right-hand side of a comparison: "(v.hr > l.result)" */
			size_t k = start;

			while (k > 0 && (s[k - 1] == ' ' || s[k - 1] == '('))
				k--;
			if (k > 0 && strchr("=<>", s[k - 1]))
				add_col(f, col, s[k - 1] == '=' && (k < 2 || !strchr("<>!", s[k - 2])));
		}
	}
}

/* index_cols: "a, b" for CREATE INDEX: equality columns, then at most one range column. */
static int index_cols(const struct fcols *f, struct sb *out)
{
	int n = 0;

	for (int pass = 1; pass >= 0; pass--) {
		for (int i = 0; i < f->n && n < 2; i++) {
			if (f->eq[i] != pass)
				continue;
			if (n++)
				sb_puts(out, ", ");
			sb_puts(out, f->name[i]);
			if (!pass)
				return n;
		}
	}
	return n;
}

/* ---- the walk ---------------------------------------------------------------------- */

struct walk {
	struct explain_result *res;
	long work_mem_kb;
	explain_rows_fn rows_fn;
	void *rows_ctx;
	const cJSON *root;
	int cap;
	enum err rc;
};

static struct explain_finding *add(struct walk *w, enum explain_kind k, int warning, const char *node)
{
	struct explain_result *r = w->res;
	struct explain_finding *f;

	if (r->nfindings == w->cap) {
		int nc = w->cap ? w->cap * 2 : 8;
		struct explain_finding *nf = realloc(r->findings, (size_t)nc * sizeof *nf);

		if (!nf) {
			w->rc = ERR_NOMEM;
			return NULL;
		}
		r->findings = nf;
		w->cap = nc;
	}
	f = &r->findings[r->nfindings++];
	memset(f, 0, sizeof *f);
	f->kind = k;
	f->warning = warning;
	f->node = strdup(node);
	return f;
}

static char *vdup(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *vdup(const char *fmt, ...)
{
	struct sb sb = SB_INIT;
	va_list ap;

	va_start(ap, fmt);
	sb_vprintf(&sb, fmt, ap);
	va_end(ap);
	return sb_steal(&sb);
}

static void node_label(const cJSON *n, char *buf, size_t len)
{
	const char *t = json_str(n, "Node Type"), *rel = json_str(n, "Relation Name"), *al = json_str(n, "Alias");

	if (rel && al && strcmp(rel, al))
		snprintf(buf, len, "%s on %s %s", t ? t : "?", rel, al);
	else if (rel)
		snprintf(buf, len, "%s on %s", t ? t : "?", rel);
	else
		snprintf(buf, len, "%s", t ? t : "?");
}

/* find_scan: the first scan node in n's subtree; seq=1: only sequential ones. */
static const cJSON *find_scan(const cJSON *n, int seq)
{
	const char *t = json_str(n, "Node Type");
	const cJSON *p, *c;

	if (t && json_str(n, "Relation Name") && (!seq || !strcmp(t, "Seq Scan")))
		return n;
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(n, "Plans"))
		if ((p = find_scan(c, seq)))
			return p;
	return NULL;
}

static int has_index_scan(const cJSON *n)
{
	const char *t = json_str(n, "Node Type");
	const cJSON *c;

	if (t && strstr(t, "Index"))
		return 1;
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(n, "Plans"))
		if (has_index_scan(c))
			return 1;
	return 0;
}

/* relation_of: the relation behind alias (or the only relation when alias is NULL). */
static const char *relation_of(const cJSON *n, const char *alias, int *count)
{
	const char *rel = json_str(n, "Relation Name"), *al = json_str(n, "Alias"), *found = NULL;
	const cJSON *c;

	if (rel) {
		(*count)++;
		if (alias && al && !strcmp(al, alias))
			return rel;
		if (!alias)
			found = rel;
	}
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(n, "Plans")) {
		const char *r = relation_of(c, alias, count);

		if (r && (alias || !found))
			found = r;
		if (r && alias)
			return r;
	}
	return found;
}

static void check_seq_scan(struct walk *w, const cJSON *n, const char *label)
{
	const char *rel = json_str(n, "Relation Name"), *filter = json_str(n, "Filter");
	double prows = jnum(n, "Plan Rows"), trows = w->rows_fn && rel ? w->rows_fn(w->rows_ctx, rel) : -1;
	double scanned = trows > prows ? trows : prows;
	char hs[32], hk[32];
	struct explain_finding *f;
	struct fcols fc;
	struct sb cols = SB_INIT;

	if (scanned <= SEQ_ROWS || !(f = add(w, EXPLAIN_SEQ_SCAN, 1, label)))
		return;
	f->rows = scanned;
	human(hs, sizeof hs, scanned);
	human(hk, sizeof hk, prows);
	if (!filter) {
		f->text = vdup("Reads every row of %s (about %s rows).", rel, hs);
		f->suggestion = strdup("If you do not need every row, add a condition on an indexed column "
		                       "(or a LIMIT for a preview); for a full extraction this scan is expected.");
		return;
	}
	f->text = vdup("Reads every row of %s (about %s rows) to keep about %s that match %s.", rel, hs, hk,
	               filter);
	filter_cols(filter, NULL, &fc);
	if (index_cols(&fc, &cols) && (trows <= 0 || prows <= 0.3 * trows) && sb_ok(&cols)) {
		f->index_table = strdup(rel);
		f->index_columns = sb_steal(&cols);
		f->suggestion = vdup("An index on %s (%s) would let PostgreSQL read only the matching rows.",
		                     rel, f->index_columns);
	} else {
		f->suggestion = strdup("The condition keeps a large share of the rows, so an index would not "
		                       "help much; narrow the condition if fewer rows are enough.");
	}
	sb_free(&cols);
}

static void check_nested_loop(struct walk *w, const cJSON *n, const char *label)
{
	const cJSON *outer = child(n, 0), *inner = child(n, 1), *scan;
	double orows = jnum(outer, "Plan Rows"), icost = jnum(inner, "Total Cost");
	int inner_seq = inner && !has_index_scan(inner) && find_scan(inner, 1);
	char ho[32], ilabel[256];
	struct explain_finding *f;

	if (!outer || !inner)
		return;
	if (!(orows > LOOP_OUTER_ROWS && inner_seq) && orows * icost <= LOOP_RESCAN_COST)
		return;
	if (!(f = add(w, EXPLAIN_NESTED_LOOP, 1, label)))
		return;
	f->rows = orows;
	human(ho, sizeof ho, orows);
	node_label(inner, ilabel, sizeof ilabel);
	f->text = vdup("Repeats the inner side (%s) for each of about %s outer rows%s.", ilabel, ho,
	               inner_seq ? ", scanning it again every time" : "");
	scan = find_scan(inner, 1);
	if (scan) {
		const char *jf = json_str(n, "Join Filter") ? json_str(n, "Join Filter") : json_str(scan, "Filter");
		const char *al = json_str(scan, "Alias");
		struct fcols fc;
		struct sb cols = SB_INIT;

		filter_cols(jf, json_str(n, "Join Filter") ? al : NULL, &fc);
		if (jf && index_cols(&fc, &cols) && sb_ok(&cols)) {
			f->index_table = strdup(json_str(scan, "Relation Name"));
			f->index_columns = sb_steal(&cols);
			f->suggestion = vdup("An index on %s (%s) lets each repetition look its rows up "
			                     "instead of scanning.", f->index_table, f->index_columns);
		}
		sb_free(&cols);
	}
	if (!f->suggestion)
		f->suggestion = strdup("Check the join condition: a missing or non-equality condition between "
		                       "the tables forces a nested loop; join on the key columns.");
}

static void check_sort(struct walk *w, const cJSON *n, const cJSON *parent, const char *label)
{
	double rows = jnum(n, "Plan Rows"), width = jnum(n, "Plan Width");
	double mem = (double)w->work_mem_kb * 1024.0, est;
	const char *pt = parent ? json_str(parent, "Node Type") : NULL;
	const cJSON *key = cJSON_GetObjectItemCaseSensitive(n, "Sort Key");
	char hr[32], hb[32], hm[32];
	struct explain_finding *f;

	if (pt && !strcmp(pt, "Limit"))   /* a bounded (top-N) sort keeps only the limit's rows */
		rows = jnum(parent, "Plan Rows") < rows ? jnum(parent, "Plan Rows") : rows;
	est = rows * (double)(((long)width + 7) / 8 * 8 + TUPLE_OVERHEAD);
	if (est <= mem || !(f = add(w, EXPLAIN_SORT_SPILL, 1, label)))
		return;
	f->rows = rows;
	human(hr, sizeof hr, rows);
	bytes_h(hb, sizeof hb, est);
	bytes_h(hm, sizeof hm, mem);
	f->text = vdup("Sorts about %s rows (about %s), more than work_mem (%s): the sort will spill to "
	               "temporary files on disk.", hr, hb, hm);
	if (cJSON_GetArraySize(key) == 1 && cJSON_IsString(cJSON_GetArrayItem(key, 0))) {
		/* "v.hr" or "hr": an index on that column can return rows already sorted */
		const char *k = cJSON_GetArrayItem(key, 0)->valuestring;
		char a[64], b[64];
		size_t j = ident(k, a, sizeof a);
		const char *alias = NULL, *colname = a, *rel;
		int count = 0;

		if (k[j] == '.') {
			j += 1 + ident(k + j + 1, b, sizeof b);
			alias = a;
			colname = b;
		}
		rel = relation_of(n, alias, &count);
		if (j && !k[j] && rel && (alias || count == 1)) {
			f->index_table = strdup(rel);
			f->index_columns = strdup(colname);
		}
	}
	if (f->index_table)
		f->suggestion = vdup("Select fewer columns or rows, or an index on %s (%s) can deliver rows "
		                     "already in order.", f->index_table, f->index_columns);
	else
		f->suggestion = strdup("Select fewer columns or rows (or add a LIMIT) so the sort fits in "
		                       "memory.");
}

static void check_hash(struct walk *w, const cJSON *n, const char *label)
{
	double rows = jnum(n, "Plan Rows"), width = jnum(n, "Plan Width");
	double mem = (double)w->work_mem_kb * 1024.0 * HASH_MEM_MULT;
	double est = rows * (double)(((long)width + 7) / 8 * 8 + TUPLE_OVERHEAD + 16);
	const cJSON *scan = find_scan(n, 0);
	char hr[32], hb[32], hm[32];
	struct explain_finding *f;

	if (est <= mem || !(f = add(w, EXPLAIN_HASH_SPILL, 1, label)))
		return;
	f->rows = rows;
	human(hr, sizeof hr, rows);
	bytes_h(hb, sizeof hb, est);
	bytes_h(hm, sizeof hm, mem);
	f->text = vdup("Builds a hash table of about %s rows (about %s), over the memory allowed (%s): "
	               "the join will run in batches through temporary files.", hr, hb, hm);
	f->suggestion = vdup("Filter the hashed side%s%s%s first or select fewer of its columns.",
	                     scan ? " (" : "", scan ? json_str(scan, "Relation Name") : "", scan ? ")" : "");
}

static void walk(struct walk *w, const cJSON *n, const cJSON *parent, int depth)
{
	const char *t = json_str(n, "Node Type");
	const cJSON *c;
	char label[256];

	if (!t || depth > 100 || w->rc != OK)
		return;
	node_label(n, label, sizeof label);
	if (!strcmp(t, "Seq Scan"))
		check_seq_scan(w, n, label);
	else if (!strcmp(t, "Nested Loop"))
		check_nested_loop(w, n, label);
	else if (!strcmp(t, "Sort") || !strcmp(t, "Incremental Sort"))
		check_sort(w, n, parent, label);
	else if (!strcmp(t, "Hash"))
		check_hash(w, n, label);
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(n, "Plans"))
		walk(w, c, n, depth + 1);
}

enum err explain_analyze(const char *plan_json, long work_mem_kb, explain_rows_fn table_rows,
                         void *rows_ctx, struct explain_result *res)
{
	cJSON *doc = cJSON_Parse(plan_json);
	const cJSON *plan = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(doc, 0), "Plan");
	struct walk w = {res, work_mem_kb > 0 ? work_mem_kb : 4096, table_rows, rows_ctx, plan, 0, OK};

	if (!cJSON_IsObject(plan)) {
		cJSON_Delete(doc);
		return ERR_PARSE;
	}
	res->work_mem_kb = w.work_mem_kb;
	res->startup_cost = jnum(plan, "Startup Cost");
	res->total_cost = jnum(plan, "Total Cost");
	res->plan_rows = jnum(plan, "Plan Rows");
	res->plan_width = (int)jnum(plan, "Plan Width");
	if (!res->plan_json)
		res->plan_json = strdup(plan_json);
	walk(&w, plan, NULL, 0);
	if (w.rc == OK && res->total_cost > HIGH_COST) {
		char hc[32], hr[32];
		struct explain_finding *f = add(&w, EXPLAIN_HIGH_COST, 0, json_str(plan, "Node Type"));

		if (f) {
			human(hc, sizeof hc, res->total_cost);
			human(hr, sizeof hr, res->plan_rows);
			f->rows = res->plan_rows;
			f->text = vdup("The planner estimates a large query (cost %s for about %s rows).", hc, hr);
			f->suggestion = strdup("Expect a long run for a full export; narrow the conditions "
			                       "(time range, patients) when a sample is enough.");
		}
	}
	res->efficient = 1;
	for (int i = 0; i < res->nfindings; i++)
		if (res->findings[i].warning)
			res->efficient = 0;
	cJSON_Delete(doc);
	return w.rc;
}

void explain_free(struct explain_result *res)
{
	if (!res)
		return;
	for (int i = 0; i < res->nfindings; i++) {
		struct explain_finding *f = &res->findings[i];

		free(f->node);
		free(f->text);
		free(f->suggestion);
		free(f->index_table);
		free(f->index_columns);
	}
	free(res->findings);
	free(res->plan_json);
	free(res->hypo_note);
	memset(res, 0, sizeof *res);
}

/* ---- against the database ------------------------------------------------------------ */

static double pg_table_rows(void *ctx, const char *rel)
{
	PGconn *c = ctx;
	const char *p[1] = {rel};
	PGresult *r = PQexecParams(c, "SELECT reltuples::float8 FROM pg_class WHERE oid = to_regclass(quote_ident($1))",
	                           1, NULL, p, NULL, NULL, 0);
	double v = -1;

	if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1)
		v = atof(PQgetvalue(r, 0, 0));
	PQclear(r);
	return v;
}

/* plan_cost: total cost of the top plan in an EXPLAIN JSON document. */
static double plan_cost(const char *json)
{
	cJSON *doc = cJSON_Parse(json);
	double v = jnum(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(doc, 0), "Plan"), "Total Cost");

	cJSON_Delete(doc);
	return v;
}

static int exec_ok(PGconn *c, const char *sql, struct sb *why)
{
	PGresult *r = PQexec(c, sql);
	int ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;

	if (!ok && why && !why->len)
		sb_puts(why, PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) ?
		             PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : PQerrorMessage(c));
	PQclear(r);
	return ok;
}

/* ro_role: "SET LOCAL ROLE <the executor's user>" into buf when its conninfo names one. */
static int ro_role(PGconn *hc, char *buf, size_t n)
{
	PQconninfoOption *opts = PQconninfoParse(exec_conninfo(), NULL), *o;
	int done = 0;

	for (o = opts; o && o->keyword; o++) {
		if (!strcmp(o->keyword, "user") && o->val && *o->val) {
			char *qi = PQescapeIdentifier(hc, o->val, strlen(o->val));

			if (qi && strlen(qi) + 20 < n) {
				snprintf(buf, n, "SET LOCAL ROLE %s", qi);
				done = 1;
			}
			PQfreemem(qi);
		}
	}
	PQconninfoFree(opts);
	return done;
}

/* hypo_one: would the planner use an index on f's table and columns?  0: checked. */
static int hypo_one(PGconn *hc, const char *gsql, struct explain_finding *f, struct sb *why)
{
	struct sb ddl = SB_INIT, q = SB_INIT;
	char *cols = strdup(f->index_columns), *save = NULL, *tok, *qi, setq[128];
	const char *params[1];
	PGresult *r = NULL;
	int rc = -1;

	snprintf(setq, sizeof setq, "SET LOCAL statement_timeout = %ld", conf_get_int("statement_timeout_ms"));
	if (!cols || !exec_ok(hc, "BEGIN", why) || !exec_ok(hc, setq, why))
		goto out;
	if (!exec_ok(hc, "CREATE EXTENSION IF NOT EXISTS hypopg", why))
		goto out;
	/* identifiers quoted by libpq, never pasted raw */
	qi = PQescapeIdentifier(hc, f->index_table, strlen(f->index_table));
	sb_printf(&ddl, "CREATE INDEX ON %s (", qi ? qi : "\"\"");
	PQfreemem(qi);
	for (tok = strtok_r(cols, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		while (*tok == ' ')
			tok++;
		qi = PQescapeIdentifier(hc, tok, strlen(tok));
		sb_printf(&ddl, "%s%s", ddl.buf[ddl.len - 1] == '(' ? "" : ", ", qi ? qi : "\"\"");
		PQfreemem(qi);
	}
	sb_putc(&ddl, ')');
	params[0] = sb_cstr(&ddl);
	r = PQexecParams(hc, "SELECT indexname FROM hypopg_create_index($1)", 1, NULL, params, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) {
		if (!why->len)
			sb_puts(why, PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) ?
			             PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : "hypopg_create_index failed");
		goto out;
	}
	{
		char *name = strdup(PQgetvalue(r, 0, 0));

		PQclear(r);
		r = NULL;
		/* from here on nothing may write, though EXPLAIN alone never runs the query, and
		 * the plan is made with the reader's privileges: the index stays visible, it is
		 * this backend's */
		exec_ok(hc, "SET LOCAL transaction_read_only = on", NULL);
		if (ro_role(hc, setq, sizeof setq))
			exec_ok(hc, setq, NULL);
		sb_puts(&q, EXPLAIN_PREFIX);
		sb_puts(&q, gsql);
		r = PQexecParams(hc, sb_cstr(&q), 0, NULL, NULL, NULL, NULL, 0);
		if (name && PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1) {
			const char *plan = PQgetvalue(r, 0, 0);

			f->index_checked = 1;
			f->index_used = strstr(plan, name) != NULL;
			f->cost_with = plan_cost(plan);
			rc = 0;
		}
		free(name);
	}
out:
	PQclear(r);
	exec_ok(hc, "SELECT hypopg_reset()", NULL);   /* hypothetical indexes live in the backend */
	exec_ok(hc, "ROLLBACK", NULL);
	free(cols);
	sb_free(&ddl);
	sb_free(&q);
	return rc;
}

static void hypo_check(const struct explain_opts *o, const char *gsql, struct explain_result *res)
{
	const char *ci = o && o->hypo_conninfo ? o->hypo_conninfo : conf_get("target_db");
	struct sb why = SB_INIT;
	char err[512];
	PGconn *hc = NULL;
	int any = 0;

	for (int i = 0; i < res->nfindings; i++)
		any |= res->findings[i].index_table != NULL;
	if (!any || !*ci || (!(o && o->hypo_conninfo) && conf_get_int("explain_hypopg") == 0))
		return;
	/* a fresh connection: hypopg's hook stays loaded in a backend once used */
	if (!(hc = db_connect(ci, err, sizeof err))) {
		res->hypo_note = vdup("hypothetical indexes not checked: %s", err);
		return;
	}
	for (int i = 0; i < res->nfindings; i++) {
		struct explain_finding *f = &res->findings[i];

		if (!f->index_table)
			continue;
		/* the same index suggested twice: reuse the answer */
		for (int j = 0; j < i; j++) {
			struct explain_finding *g = &res->findings[j];

			if (g->index_checked && !strcmp(g->index_table, f->index_table) &&
			    !strcmp(g->index_columns, f->index_columns)) {
				f->index_checked = 1;
				f->index_used = g->index_used;
				f->cost_with = g->cost_with;
			}
		}
		if (!f->index_checked && hypo_one(hc, gsql, f, &why) != 0)
			break;
	}
	if (why.len)
		res->hypo_note = vdup("hypothetical indexes not checked: %s", sb_cstr(&why));
	sb_free(&why);
	PQfinish(hc);
}

enum err explain_run(const char *sql, const struct explain_opts *o, struct explain_result *res,
                     struct exec_error *dberr)
{
	struct guard_opts go = {0};
	struct guard_result g = {0};
	struct sb q = SB_INIT;
	char err[512], *form = NULL;
	PGconn *c = NULL;
	PGresult *r = NULL;
	long wm = 4096;
	enum err rc;
	int broken = 0;

	memset(res, 0, sizeof *res);
	if (dberr)
		exec_error_free(dberr);
	/* at the aggregate level a plan is held to the safe aggregate form as a run is (issue 27): a
	 * statement outside it is refused with the reason, one inside is planned as it would run,
	 * HAVING and rounding included (docs/privacy.md "Every path through the form") */
	if (level_conninfo_is_aggregate(o && o->conninfo ? o->conninfo : exec_conninfo())) {
		if ((rc = exec_suppress_form(sql, o ? o->conninfo : NULL, 0, &form, NULL, dberr)) != OK)
			goto out;
		sql = form;
	}
	go.limit = 0;   /* the plan of the whole query, not of a preview */
	go.allow_system_catalogs = conf_get_int("allow_system_catalogs") != 0;
	go.relation_ok = o ? o->relation_ok : NULL;
	go.relation_ctx = o ? o->relation_ctx : NULL;
	if ((rc = guard_check(sql, &go, &g)) != OK)
		goto out;
	if (!g.allowed) {
		if (dberr) {
			dberr->message = strdup(g.reason ? g.reason : "refused by the guard");
			dberr->position = g.position;
		}
		rc = ERR_DENIED;
		goto out;
	}
	if (!(c = exec_pool_get(o ? o->conninfo : NULL, err, sizeof err))) {
		if (dberr)
			dberr->message = strdup(err);
		rc = ERR_NET;
		goto out;
	}
	if ((rc = exec_begin(c, dberr)) != OK)
		goto out;
	sb_puts(&q, EXPLAIN_PREFIX);
	sb_puts(&q, g.sql);
	/* never ANALYZE: the analyst's query is planned, not run */
	r = PQexecParams(c, sb_cstr(&q), 0, NULL, NULL, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) {
		const char *at = strstr(g.sql, sql);
		int off = (int)strlen(EXPLAIN_PREFIX);

		if (at)
			for (const char *p = g.sql; p < at; p++)
				off += ((unsigned char)*p & 0xC0) != 0x80;
		if (dberr)
			exec_error_from_result(dberr, r, off);
		rc = PQstatus(c) == CONNECTION_BAD ? ERR_NET : ERR_DB;
		goto out;
	}
	res->plan_json = strdup(PQgetvalue(r, 0, 0));
	PQclear(r);
	r = PQexec(c, "SELECT setting::bigint FROM pg_settings WHERE name = 'work_mem'");
	if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1)
		wm = atol(PQgetvalue(r, 0, 0));
	PQclear(r);
	r = NULL;
	if ((rc = explain_analyze(res->plan_json, wm, pg_table_rows, c, res)) != OK)
		goto out;
	exec_ok(c, "ROLLBACK", NULL);
	exec_pool_put(c, 0);
	c = NULL;
	/* hypothetical indexes are tried on another connection (the indexing one), never for a
	 * statement of the aggregate level */
	if (!form)
		hypo_check(o, g.sql, res);
out:
	PQclear(r);
	if (c) {
		if (PQtransactionStatus(c) != PQTRANS_IDLE && !exec_ok(c, "ROLLBACK", NULL))
			broken = 1;
		exec_pool_put(c, broken);
	}
	if (rc != OK && rc != ERR_DENIED && dberr && !dberr->message)
		dberr->message = strdup(err_str(rc));
	sb_free(&q);
	guard_free(&g);
	free(form);
	return rc;
}

/* ---- output ---------------------------------------------------------------------------- */

static void jkv(struct sb *sb, const char *k, const char *v)
{
	sb_printf(sb, ",\"%s\":", k);
	if (v)
		sb_json_str(sb, v);
	else
		sb_puts(sb, "null");
}

char *explain_json(const struct explain_result *res)
{
	struct sb sb = SB_INIT;

	sb_printf(&sb, "{\"total_cost\":%.2f,\"startup_cost\":%.2f,\"rows\":%.0f,\"width\":%d,"
	               "\"work_mem_kb\":%ld,\"efficient\":%s,\"findings\":[",
	          res->total_cost, res->startup_cost, res->plan_rows, res->plan_width, res->work_mem_kb,
	          res->efficient ? "true" : "false");
	for (int i = 0; i < res->nfindings; i++) {
		const struct explain_finding *f = &res->findings[i];

		sb_printf(&sb, "%s{\"kind\":\"%s\",\"severity\":\"%s\",\"rows\":%.0f", i ? "," : "",
		          explain_kind_name(f->kind), f->warning ? "warning" : "info", f->rows);
		jkv(&sb, "node", f->node);
		jkv(&sb, "text", f->text);
		jkv(&sb, "suggestion", f->suggestion);
		if (f->index_table) {
			sb_puts(&sb, ",\"index\":{\"table\":");
			sb_json_str(&sb, f->index_table);
			sb_puts(&sb, ",\"columns\":");
			sb_json_str(&sb, f->index_columns);
			sb_printf(&sb, ",\"checked\":%s", f->index_checked ? "true" : "false");
			if (f->index_checked)
				sb_printf(&sb, ",\"used\":%s,\"cost_with\":%.2f", f->index_used ? "true" : "false",
				          f->cost_with);
			sb_putc(&sb, '}');
		}
		sb_putc(&sb, '}');
	}
	sb_puts(&sb, "]");
	jkv(&sb, "hypopg_note", res->hypo_note);
	sb_putc(&sb, '}');
	return sb_steal(&sb);
}

char *explain_text(const struct explain_result *res)
{
	struct sb sb = SB_INIT;
	char hc[32], hr[32];

	human(hc, sizeof hc, res->total_cost);
	human(hr, sizeof hr, res->plan_rows);
	sb_printf(&sb, "Estimated cost %s for about %s row%s.\n", hc, hr, res->plan_rows == 1 ? "" : "s");
	if (!res->nfindings)
		sb_puts(&sb, "No problems found in the plan.\n");
	for (int i = 0; i < res->nfindings; i++) {
		const struct explain_finding *f = &res->findings[i];

		sb_printf(&sb, "%d. [%s] %s: %s\n   Suggestion: %s\n", i + 1, f->warning ? "warning" : "info",
		          f->node, f->text, f->suggestion);
		if (f->index_checked) {
			char hw[32];

			human(hw, sizeof hw, f->cost_with);
			if (f->index_used)
				sb_printf(&sb, "   Checked with a hypothetical index: the planner would use it "
				               "(cost %s -> %s).\n", hc, hw);
			else
				sb_puts(&sb, "   Checked with a hypothetical index: the planner would not use it, "
				             "so creating it is not worth it for this query.\n");
		}
	}
	if (res->hypo_note)
		sb_printf(&sb, "Note: %s\n", res->hypo_note);
	return sb_steal(&sb);
}

/* ---- the memory gate (issue 27) ------------------------------------------------------------ */

/* aggregates whose state grows with every input row, whatever work_mem says */
static const char *const accumulating[] = {
	"array_agg", "string_agg", "json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg", "xmlagg",
};

/* the name of the first function of names[] that text calls ("name(" as a whole word), or NULL */
static const char *calls(const char *text, const char *const *names, size_t n)
{
	for (size_t i = 0; text && i < n; i++) {
		size_t l = strlen(names[i]);

		for (const char *p = strstr(text, names[i]); p; p = strstr(p + 1, names[i])) {
			int lb = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '.');

			if (lb && p[l] == '(')
				return names[i];
		}
	}
	return NULL;
}

/* the first name of names[] any Output entry (or the Function Call) of node n calls */
static const char *node_calls(const cJSON *n, const char *const *names, size_t nn)
{
	const cJSON *o, *fc = cJSON_GetObjectItemCaseSensitive(n, "Function Call");
	const char *hit;

	if (cJSON_IsString(fc) && (hit = calls(fc->valuestring, names, nn)))
		return hit;
	/* a plan without VERBOSE names a function scan's function alone ("Function Name") */
	const cJSON *fname = cJSON_GetObjectItemCaseSensitive(n, "Function Name");
	for (size_t i = 0; cJSON_IsString(fname) && i < nn; i++)
		if (!strcmp(fname->valuestring, names[i]))
			return names[i];
	cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(n, "Output"))
		if (cJSON_IsString(o) && (hit = calls(o->valuestring, names, nn)))
			return hit;
	return NULL;
}

static void gate_set(struct explain_gate_out *out, enum explain_gate_kind k, double v, double lim, const char *f)
{
	out->kind = k;
	out->value = v;
	out->limit = lim;
	snprintf(out->func, sizeof out->func, "%s", f ? f : "");
}

static void gate_walk(const cJSON *n, const struct explain_gate_limits *lim, struct explain_gate_out *out, int depth)
{
	static const char *const series[] = {"generate_series"};
	const char *type = json_str(n, "Node Type"), *f;
	const cJSON *plans = cJSON_GetObjectItemCaseSensitive(n, "Plans"), *c;

	if (out->kind != GATE_OK || depth > 200 || !cJSON_IsObject(n))
		return;
	if (lim->max_agg_rows > 0 && type && (!strcmp(type, "Aggregate") || !strcmp(type, "WindowAgg")) &&
	    (f = node_calls(n, accumulating, sizeof accumulating / sizeof accumulating[0]))) {
		double in = 0;

		cJSON_ArrayForEach(c, plans)
			in += jnum(c, "Plan Rows");
		if (!cJSON_GetArraySize(plans))
			in = jnum(n, "Plan Rows");
		if (in > lim->max_agg_rows) {
			gate_set(out, GATE_AGG_ROWS, in, lim->max_agg_rows, f);
			return;
		}
	}
	if (lim->max_series_rows > 0 && type && (!strcmp(type, "Function Scan") || !strcmp(type, "ProjectSet")) &&
	    (f = node_calls(n, series, 1)) && jnum(n, "Plan Rows") > lim->max_series_rows) {
		gate_set(out, GATE_SERIES_ROWS, jnum(n, "Plan Rows"), lim->max_series_rows, f);
		return;
	}
	cJSON_ArrayForEach(c, plans)
		gate_walk(c, lim, out, depth + 1);
}

enum err explain_gate(const char *plan_json, const struct explain_gate_limits *lim, struct explain_gate_out *out)
{
	cJSON *doc = plan_json ? cJSON_Parse(plan_json) : NULL;
	const cJSON *plan = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(doc, 0), "Plan");

	memset(out, 0, sizeof *out);
	if (!cJSON_IsObject(plan)) {
		cJSON_Delete(doc);
		return ERR_PARSE;
	}
	gate_walk(plan, lim, out, 0);
	if (out->kind == GATE_OK && lim->max_cost > 0 && jnum(plan, "Total Cost") > lim->max_cost)
		gate_set(out, GATE_COST, jnum(plan, "Total Cost"), lim->max_cost, NULL);
	cJSON_Delete(doc);
	return OK;
}

char *explain_gate_text(const struct explain_gate_out *out)
{
	char v[32], l[32];

	human(v, sizeof v, out->value);
	human(l, sizeof l, out->limit);
	switch (out->kind) {
	case GATE_AGG_ROWS:
		return vdup("refused before it ran: %s would collect about %s rows in the memory of one database "
		            "process, more than exec_max_agg_rows (%s) allows; count, sum or average them instead, "
		            "or narrow the rows", out->func, v, l);
	case GATE_SERIES_ROWS:
		return vdup("refused before it ran: generate_series would make about %s rows, more than "
		            "exec_max_series_rows (%s) allows", v, l);
	case GATE_COST:
		return vdup("refused before it ran: the planner estimates its cost at %s, more than exec_max_cost "
		            "(%s) allows; narrow the conditions (time range, patients) or join on keys", v, l);
	default:
		return strdup("");
	}
}

/* has_verbose_nodes: n or a node under it computes an aggregate, a window or a set-returning
 * function in its target list: what only a VERBOSE plan's output lists can name */
static int has_verbose_nodes(const cJSON *n, int depth)
{
	const char *type = json_str(n, "Node Type");
	const cJSON *c;
	if (!cJSON_IsObject(n) || depth > 200)
		return 0;
	if (type && (!strcmp(type, "Aggregate") || !strcmp(type, "WindowAgg") || !strcmp(type, "ProjectSet")))
		return 1;
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(n, "Plans"))
		if (has_verbose_nodes(c, depth + 1))
			return 1;
	return 0;
}

int explain_gate_needs_verbose(const char *plan_json)
{
	cJSON *doc = plan_json ? cJSON_Parse(plan_json) : NULL;
	int v = has_verbose_nodes(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(doc, 0), "Plan"), 0);
	cJSON_Delete(doc);
	return v;
}
