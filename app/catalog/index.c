/* index.c: askql index: introspect a target, read metadata and docs, sample values, infer joins, store a catalog version. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <cjson/cJSON.h>
#include "catalog/catalog_int.h"
#include "catalog/lexicon.h"
#include "catalog/embed.h"
#include "catalog/phi.h"
#include "catalog/text.h"
#include "store/target.h"
#include "store/target_conn.h"
#include "store/db.h"
#include "util/conf.h"
#include "util/file.h"
#include "util/log.h"
#include "util/sb.h"

#define MAXDOC (1024 * 1024)
/* distinct values kept per text column: enough for the labels of a dictionary table (lab tests,
 * drugs, diagnoses), which the planner and value search link question words to */
#define MAXVALUES 10000
#define MAXCHECKS 3000

void cat_table_text(const struct catalog *c, int t, struct sb *sb);
void cat_column_text(const struct catalog *c, int col, struct sb *sb);
void cat_vec_literal(const float *v, int dim, char *buf, size_t n);

/* a list of strings owned by the index run's arena */
struct strs { char **s; int n, cap; };

struct doc { char *path, *kind, *table, *title, *body; char hash[17]; float *vec; };

struct colx {                 /* what the indexer knows beyond struct cat_column */
	int attnum;
	double n_distinct;        /* pg_stats; NAN when unknown */
	int unique;
	struct strs syn;
	struct phi_verdict *phi;  /* the classifier's verdict (changed tables only; arena) */
	int phi_fixed;            /* an admin's correction (enum phi_class), 0: none */
};
struct tabx { char kind; int selectable, changed; char hash[17]; struct strs syn; char *doc;
              uint64_t vhash; /* of the values sampling saw: part of the change check */ };
struct valx { char *full_name, *unit; int has_range; double lo, hi; struct strs syn; int meta; };
struct conx { struct strs syn, cols; char *alt_sql; };
struct edgex { double score; };

struct run {
	const struct index_opts *o;
	const struct phi_rules *phi;   /* conf/phi/rules.tsv */
	struct index_result res;
	char *err; size_t errlen;
	struct arena a;
	PGconn *tgt, *app;
	cJSON *meta;
	cJSON *edits;              /* askql.catalog_edits by table: {"t": [{kind, col, phrase, value}]} */
	struct catalog *c;
	struct tabx *tx; struct colx *cx; struct valx *vx; int capvx; struct conx *kx;
	struct edgex *ex; int capex;
	struct doc *docs; int ndocs, capdocs;
	struct strs warnings;
	float *zero;
	long prev_version;
	char *prev_provider; int prev_dim;
	struct strmap prev_hash;   /* "schema.name" -> index into prev_hashes */
	char **prev_hashes;
	char global_hash[17];
	char *prev_global;
};

static void warn(struct run *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int find_value(const struct catalog *c, int col, const char *v);

static void strs_add(struct run *x, struct strs *l, const char *s)
{
	if (!s || !*s)
		return;
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->s[i], s))
			return;
	if (l->n == l->cap) {
		int nc = l->cap ? l->cap * 2 : 4;
		char **p = arena_realloc(&x->a, l->s, (size_t)l->cap * sizeof *p, (size_t)nc * sizeof *p);

		if (!p)
			return;
		l->s = p;
		l->cap = nc;
	}
	l->s[l->n++] = arena_strdup(&x->a, s);
}

static void warn(struct run *x, const char *fmt, ...)
{
	char buf[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	strs_add(x, &x->warnings, buf);
	x->res.warnings++;
}

/* progress: one line for the caller's on_progress (no-op without one) */
static void progress(struct run *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void progress(struct run *x, const char *fmt, ...)
{
	char buf[600];
	va_list ap;

	if (!x->o->on_progress)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	x->o->on_progress(x->o->progress_ctx, buf);
}

static enum err fail(struct run *x, enum err rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static enum err fail(struct run *x, enum err rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(x->err, x->errlen, fmt, ap);
	va_end(ap);
	return rc;
}

/* ---- files: metadata JSON and Markdown docs ------------------------------------------ */

static char *slurp(const char *path, size_t max, size_t *len, char *why, size_t whylen)
{
	char *buf = file_read(path, max, len);

	if (!buf) {
		if (errno == EFBIG)
			snprintf(why, whylen, "larger than %zu bytes", max);
		else
			snprintf(why, whylen, "%s", strerror(errno));
	}
	return buf;
}

static const char *const meta_types[][2] = {
	{"tables", "object"}, {"columns", "object"}, {"values", "array"}, {"relationships", "array"},
	{"concepts", "array"}, {"hierarchy", "array"}, {"abbreviations", "object"},
	{"reference_time", "string"}, {NULL, NULL}};

static enum err read_metadata(struct run *x)
{
	char why[128];
	size_t n;
	char *s;

	if (!x->o->metadata_file || !*x->o->metadata_file)
		return OK;
	if (!(s = slurp(x->o->metadata_file, 16 * MAXDOC, &n, why, sizeof why)))
		return fail(x, ERR_IO, "metadata %s: %s", x->o->metadata_file, why);
	x->meta = cJSON_ParseWithLength(s, n);
	if (!x->meta || !cJSON_IsObject(x->meta)) {
		const char *at = cJSON_GetErrorPtr();
		long off = at && at >= s && at <= s + n ? (long)(at - s) : -1;
		int line = 1;

		for (long i = 0; i < off; i++)
			line += s[i] == '\n';
		free(s);
		return fail(x, ERR_PARSE, "metadata %s: not a JSON object (syntax error near line %d)",
		            x->o->metadata_file, line);
	}
	free(s);
	for (int i = 0; meta_types[i][0]; i++) {
		cJSON *it = cJSON_GetObjectItem(x->meta, meta_types[i][0]);
		int ok = !it || (!strcmp(meta_types[i][1], "object") ? cJSON_IsObject(it) :
		                 !strcmp(meta_types[i][1], "array") ? cJSON_IsArray(it) : cJSON_IsString(it));

		if (!ok)
			return fail(x, ERR_PARSE, "metadata %s: \"%s\" must be a JSON %s",
			            x->o->metadata_file, meta_types[i][0], meta_types[i][1]);
	}
	return OK;
}

static int add_doc(struct run *x, const char *rel, const char *kind, const char *body, size_t n)
{
	struct doc *d;
	const char *p = body, *e;

	if (x->ndocs == x->capdocs) {
		int nc = x->capdocs ? x->capdocs * 2 : 16;
		struct doc *nd = arena_realloc(&x->a, x->docs, (size_t)x->capdocs * sizeof *nd, (size_t)nc * sizeof *nd);

		if (!nd)
			return -1;
		x->docs = nd;
		x->capdocs = nc;
	}
	d = &x->docs[x->ndocs];
	memset(d, 0, sizeof *d);
	while (*p == '\n' || *p == '\r' || *p == ' ' || *p == '\t')
		p++;
	e = strchr(p, '\n');
	if (!e)
		e = p + strlen(p);
	d->title = arena_strndup(&x->a, p, (size_t)(e - p));
	while (d->title && *d->title && (d->title[strlen(d->title) - 1] == '\r' || d->title[strlen(d->title) - 1] == ' '))
		d->title[strlen(d->title) - 1] = '\0';
	d->path = arena_strdup(&x->a, rel);
	d->kind = arena_strdup(&x->a, kind);
	d->body = arena_strndup(&x->a, body, n);
	snprintf(d->hash, sizeof d->hash, "%016llx", (unsigned long long)text_hash(body, n, TEXT_HASH_SEED));
	if (!d->title || !d->path || !d->body)
		return -1;
	x->ndocs++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* one directory level: *.md files in name order */
static enum err read_doc_dir(struct run *x, const char *dir, const char *sub, const char *kind)
{
	char path[4096], *names[2048];
	int nn = 0;
	DIR *d;
	struct dirent *de;
	enum err rc = OK;

	snprintf(path, sizeof path, "%s%s%s", dir, sub ? "/" : "", sub ? sub : "");
	if (!(d = opendir(path))) {
		if (sub && errno == ENOENT)
			return OK;
		return fail(x, ERR_IO, "docs directory %s: %s", path, strerror(errno));
	}
	while ((de = readdir(d)) && nn < 2048) {
		size_t l = strlen(de->d_name);

		if (l > 3 && !strcmp(de->d_name + l - 3, ".md") && de->d_name[0] != '.')
			names[nn++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, (size_t)nn, sizeof *names, cmp_str);
	for (int i = 0; i < nn && rc == OK; i++) {
		char full[4200], rel[600], why[128];
		size_t n;
		char *body;
		long bad;

		snprintf(full, sizeof full, "%s/%s", path, names[i]);
		snprintf(rel, sizeof rel, "%s%s%s", sub ? sub : "", sub ? "/" : "", names[i]);
		if (!(body = slurp(full, MAXDOC, &n, why, sizeof why))) {
			rc = fail(x, ERR_IO, "doc %s: %s", full, why);
			break;
		}
		if ((bad = text_bad_utf8(body, n)) >= 0) {
			rc = fail(x, ERR_PARSE, "doc %s: invalid UTF-8 or NUL byte at offset %ld", full, bad);
		} else {
			const char *p = body;

			while (*p == '\n' || *p == '\r' || *p == ' ')
				p++;
			if (!strcmp(kind, "table") && strncmp(p, "# Table:", 8))
				rc = fail(x, ERR_PARSE, "doc %s: a table document must start with '# Table: NAME' "
				          "(see rag-agent-integration.md format)", full);
			else if (strncmp(p, "# ", 2))
				rc = fail(x, ERR_PARSE, "doc %s: a knowledge document must start with a '# Title' line", full);
			else if (add_doc(x, rel, kind, body, n))
				rc = fail(x, ERR_NOMEM, "out of memory reading docs");
		}
		free(body);
	}
	for (int i = 0; i < nn; i++)
		free(names[i]);
	return rc;
}

static enum err read_docs(struct run *x)
{
	enum err rc;

	if (!x->o->docs_dir || !*x->o->docs_dir)
		return OK;
	if ((rc = read_doc_dir(x, x->o->docs_dir, NULL, "table")) != OK)
		return rc;
	return read_doc_dir(x, x->o->docs_dir, "knowledge", "knowledge");
}

/* The admin's decisions on this target's catalog (002_web.sql, 011_catalog_model.sql; written by
 * edit.c): synonyms and mappings added or removed, descriptions set.  Rows without a target
 * (older than 011) belong to the configured default target. */
static enum err read_edits(struct run *x)
{
	const char *p[2] = {x->o->target_name, conf_get("target_name")};
	PGresult *r;

	x->edits = cJSON_CreateObject();
	if (!x->edits)
		return fail(x, ERR_NOMEM, "out of memory");
	if (!(r = db_query(x->app, "SELECT to_regclass('askql.catalog_edits') IS NOT NULL", 0, NULL, x->err, x->errlen)))
		return ERR_DB;
	int have = *PQgetvalue(r, 0, 0) == 't';
	PQclear(r);
	if (!have)
		return OK;
	if (!(r = db_query(x->app, "SELECT kind, tbl, col, phrase, value, op, lang FROM askql.catalog_edits "
	                   "WHERE coalesce(target, $2) = $1 ORDER BY id", 2, p, x->err, x->errlen)))
		return ERR_DB;
	for (int i = 0; i < PQntuples(r); i++) {
		cJSON *arr = cJSON_GetObjectItem(x->edits, PQgetvalue(r, i, 1)), *e = cJSON_CreateObject();

		if (!arr)
			cJSON_AddItemToObject(x->edits, PQgetvalue(r, i, 1), arr = cJSON_CreateArray());
		cJSON_AddStringToObject(e, "kind", PQgetvalue(r, i, 0));
		cJSON_AddStringToObject(e, "col", PQgetvalue(r, i, 2));
		cJSON_AddStringToObject(e, "phrase", PQgetvalue(r, i, 3));
		cJSON_AddStringToObject(e, "value", PQgetvalue(r, i, 4));
		cJSON_AddStringToObject(e, "op", PQgetvalue(r, i, 5));
		cJSON_AddStringToObject(e, "lang", PQgetvalue(r, i, 6));
		cJSON_AddItemToArray(arr, e);
	}
	PQclear(r);
	return OK;
}

/* ---- introspection -------------------------------------------------------------------- */

#define REL_FILTER \
	"c.relkind IN ('r','v','m','p','f') AND NOT c.relispartition " \
	"AND n.nspname NOT IN ('pg_catalog','information_schema') " \
	"AND n.nspname NOT LIKE 'pg_toast%' AND n.nspname NOT LIKE 'pg_temp%' " \
	"AND n.nspname <> 'askql_limited' "   /* the access levels' own views (store/level.h) */

static const char *Q_TABLES =
	"SELECT n.nspname, c.relname, c.relkind, greatest(c.reltuples, -1)::bigint, "
	"obj_description(c.oid, 'pg_class'), has_table_privilege(c.oid, 'SELECT') "
	"FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE " REL_FILTER
	"ORDER BY n.nspname COLLATE \"C\", c.relname COLLATE \"C\"";

static const char *Q_COLUMNS =
	"SELECT n.nspname, c.relname, a.attname, a.attnum, format_type(a.atttypid, a.atttypmod), "
	"NOT a.attnotnull, col_description(c.oid, a.attnum), "
	"EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary AND a.attnum = ANY (i.indkey)), "
	"EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indkey[0] = a.attnum), "
	"EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisunique AND i.indnkeyatts = 1 "
	"        AND i.indkey[0] = a.attnum), "
	"s.n_distinct "
	"FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
	"JOIN pg_namespace n ON n.oid = c.relnamespace "
	"LEFT JOIN pg_stats s ON s.schemaname = n.nspname AND s.tablename = c.relname "
	"  AND s.attname = a.attname AND NOT s.inherited "
	"WHERE a.attnum > 0 AND NOT a.attisdropped AND " REL_FILTER
	"ORDER BY n.nspname COLLATE \"C\", c.relname COLLATE \"C\", a.attnum";

static const char *Q_FKS =
	"SELECT sn.nspname, sc.relname, sa.attname, tn.nspname, tc.relname, ta.attname "
	"FROM pg_constraint k CROSS JOIN LATERAL unnest(k.conkey, k.confkey) AS u(f, t) "
	"JOIN pg_class sc ON sc.oid = k.conrelid JOIN pg_namespace sn ON sn.oid = sc.relnamespace "
	"JOIN pg_attribute sa ON sa.attrelid = k.conrelid AND sa.attnum = u.f "
	"JOIN pg_class tc ON tc.oid = k.confrelid JOIN pg_namespace tn ON tn.oid = tc.relnamespace "
	"JOIN pg_attribute ta ON ta.attrelid = k.confrelid AND ta.attnum = u.t "
	"WHERE k.contype = 'f' ORDER BY 1, 2, 3";

static int grow_side(struct run *x)
{
	struct catalog *c = x->c;
	size_t nt = (size_t)c->captables, nc = (size_t)c->capcolumns;

	/* side arrays follow the catalog's capacities */
	x->tx = realloc(x->tx, nt * sizeof *x->tx);
	x->cx = realloc(x->cx, nc * sizeof *x->cx);
	return x->tx && x->cx ? 0 : -1;
}

static enum err introspect(struct run *x)
{
	PGresult *rt = NULL, *rc = NULL, *rf = NULL;
	enum err e = OK;
	int ci = 0, nsel = 0;

	if (!(rt = db_query(x->tgt, Q_TABLES, 0, NULL, x->err, x->errlen)) ||
	    !(rc = db_query(x->tgt, Q_COLUMNS, 0, NULL, x->err, x->errlen)) ||
	    !(rf = db_query(x->tgt, Q_FKS, 0, NULL, x->err, x->errlen))) {
		char tmp[512];

		snprintf(tmp, sizeof tmp, "%s", x->err);
		e = fail(x, ERR_DB, "reading the target's catalog failed: %s", tmp);
		goto out;
	}
	for (int i = 0; i < PQntuples(rt); i++) {
		const char *sch = PQgetvalue(rt, i, 0), *tn = PQgetvalue(rt, i, 1);
		int sel = *PQgetvalue(rt, i, 5) == 't';

		if (!sel) {
			warn(x, "no SELECT privilege on %s.%s: skipped", sch, tn);
			while (ci < PQntuples(rc) && !strcmp(PQgetvalue(rc, ci, 0), sch) && !strcmp(PQgetvalue(rc, ci, 1), tn))
				ci++;
			continue;
		}
		nsel++;
		int t = cat_add_table(x->c, sch, tn, PQgetisnull(rt, i, 4) ? NULL : PQgetvalue(rt, i, 4), NULL,
		                      atol(PQgetvalue(rt, i, 3)));
		if (t < 0 || grow_side(x))
			goto nomem;
		memset(&x->tx[t], 0, sizeof x->tx[t]);
		x->tx[t].kind = *PQgetvalue(rt, i, 2);
		x->tx[t].selectable = 1;
		for (; ci < PQntuples(rc) && !strcmp(PQgetvalue(rc, ci, 0), sch) && !strcmp(PQgetvalue(rc, ci, 1), tn); ci++) {
			int k = cat_add_column(x->c, t, PQgetvalue(rc, ci, 2), PQgetvalue(rc, ci, 4),
			                       PQgetisnull(rc, ci, 6) ? NULL : PQgetvalue(rc, ci, 6), NULL, NULL);
			struct cat_column *col;

			if (k < 0 || grow_side(x))
				goto nomem;
			col = &x->c->columns[k];
			memset(&x->cx[k], 0, sizeof x->cx[k]);
			x->cx[k].attnum = atoi(PQgetvalue(rc, ci, 3));
			col->nullable = *PQgetvalue(rc, ci, 5) == 't';
			col->is_pk = *PQgetvalue(rc, ci, 7) == 't';
			col->indexed = *PQgetvalue(rc, ci, 8) == 't';
			x->cx[k].unique = *PQgetvalue(rc, ci, 9) == 't' || col->is_pk;
			col->is_unique = x->cx[k].unique;
			x->cx[k].n_distinct = PQgetisnull(rc, ci, 10) ? NAN : atof(PQgetvalue(rc, ci, 10));
		}
	}
	if (PQntuples(rt) > 0 && nsel == 0) {
		e = fail(x, ERR_DENIED, "the target role may not SELECT any of the %d tables of the target "
		         "(GRANT SELECT ON ALL TABLES IN SCHEMA ... TO the indexing role)", PQntuples(rt));
		goto out;
	}
	for (int i = 0; i < PQntuples(rf); i++) {
		char a[600], b[600];
		int fc, tc;

		snprintf(a, sizeof a, "%s.%s.%s", PQgetvalue(rf, i, 0), PQgetvalue(rf, i, 1), PQgetvalue(rf, i, 2));
		snprintf(b, sizeof b, "%s.%s.%s", PQgetvalue(rf, i, 3), PQgetvalue(rf, i, 4), PQgetvalue(rf, i, 5));
		if ((fc = cat_find_column(x->c, a)) >= 0 && (tc = cat_find_column(x->c, b)) >= 0)
			cat_add_edge(x->c, fc, tc, 0, 0);
	}
	goto out;
nomem:
	e = fail(x, ERR_NOMEM, "out of memory reading the target's catalog");
out:
	PQclear(rt);
	PQclear(rc);
	PQclear(rf);
	return e;
}

/* ---- metadata and docs onto the catalog ------------------------------------------------ */

static const char *jstr(cJSON *o, const char *k)
{
	cJSON *it = cJSON_GetObjectItem(o, k);

	return cJSON_IsString(it) && *it->valuestring ? it->valuestring : NULL;
}

static void jsyn(struct run *x, struct strs *l, cJSON *o)
{
	cJSON *a = cJSON_GetObjectItem(o, "synonyms"), *it;

	cJSON_ArrayForEach(it, a)
		if (cJSON_IsString(it))
			strs_add(x, l, it->valuestring);
}

static int jrange(cJSON *o, double *lo, double *hi)
{
	cJSON *r = cJSON_GetObjectItem(o, "normal_range");

	if (!cJSON_IsArray(r) || cJSON_GetArraySize(r) != 2 || !cJSON_IsNumber(cJSON_GetArrayItem(r, 0)) ||
	    !cJSON_IsNumber(cJSON_GetArrayItem(r, 1)))
		return 0;
	*lo = cJSON_GetArrayItem(r, 0)->valuedouble;
	*hi = cJSON_GetArrayItem(r, 1)->valuedouble;
	return 1;
}

/* column "t.c" or "s.t.c" from metadata; warns when absent */
static int meta_col(struct run *x, const char *q, const char *where)
{
	int ci = q ? cat_find_column(x->c, q) : -1;

	if (ci < 0)
		warn(x, "metadata %s: column %s not found in the target", where, q ? q : "(missing)");
	return ci;
}

static const char *const builtin_abbrev[][2] = {
	{"dt", "date time"}, {"ts", "timestamp"}, {"no", "number"}, {"num", "number"}, {"cnt", "count"},
	{"amt", "amount"}, {"qty", "quantity"}, {"dob", "date of birth"}, {"pt", "patient"},
	{"dx", "diagnosis"}, {"tx", "treatment"}, {"rx", "prescription"}, {"adm", "admission"},
	{"desc", "description"}, {"yr", "year"}, {"mo", "month"}, {"avg", "average"}, {"temp", "temperature"},
	{"bp", "blood pressure"}, {"hosp", "hospital"}, {"dept", "department"}, {"addr", "address"},
	{"tel", "telephone"}, {"stat", "status"}, {"org", "organization"}, {"emp", "employee"},
	{"cust", "customer"}, {"prod", "product"}, {"inv", "invoice"}, {"qty", "quantity"},
	{"id", "identifier"}, {"los", "length of stay"}, {"icu", "intensive care unit"},
	{"preop", "preoperative"}, {"postop", "postoperative"}, {"intraop", "intraoperative"},
	{"inhosp", "in hospital"}, {"ane", "anesthesia"}, {"op", "operation"}, {NULL, NULL}};

static const char *abbrev(struct run *x, const char *w)
{
	cJSON *ab = x->meta ? cJSON_GetObjectItem(x->meta, "abbreviations") : NULL;
	const char *s = ab ? jstr(ab, w) : NULL;

	if (s)
		return s;
	for (int i = 0; builtin_abbrev[i][0]; i++)
		if (!strcmp(builtin_abbrev[i][0], w))
			return builtin_abbrev[i][1];
	return NULL;
}

/* derived synonyms: snake_case/camelCase split, abbreviations expanded ("preop_htn" ->
 * "preop htn", "preoperative hypertension") */
static void derive(struct run *x, const char *name, struct strs *syn)
{
	char buf[512], *toks[16], exp[1024];
	int nt = text_tokens(name, 1, buf, sizeof buf, toks, 16), any = 0;
	size_t el = 0;

	if (nt > 1) {
		char sp[512];
		size_t sl = 0;

		for (int i = 0; i < nt; i++)
			sl += (size_t)snprintf(sp + sl, sizeof sp - sl, "%s%s", i ? " " : "", toks[i]);
		strs_add(x, syn, sp);
	}
	for (int i = 0; i < nt && el < sizeof exp; i++) {
		const char *e = abbrev(x, toks[i]);

		any |= e != NULL;
		el += (size_t)snprintf(exp + el, sizeof exp - el, "%s%s", i ? " " : "", e ? e : toks[i]);
	}
	if (any && el < sizeof exp)
		strs_add(x, syn, exp);
}

static void apply_metadata(struct run *x)
{
	struct catalog *c = x->c;
	cJSON *m = x->meta, *it;

	for (int i = 0; i < c->ntables; i++) {
		const char *bare = strchr(c->tables[i].name, '.') ? strchr(c->tables[i].name, '.') + 1 : c->tables[i].name;

		derive(x, bare, &x->tx[i].syn);
	}
	for (int i = 0; i < c->ncolumns; i++)
		derive(x, c->columns[i].name, &x->cx[i].syn);
	if (!m)
		return;
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(m, "tables")) {
		int t = cat_find_table(c, it->string);

		if (t < 0) {
			warn(x, "metadata tables: %s not found in the target", it->string);
			continue;
		}
		if (jstr(it, "full_name"))
			c->tables[t].full_name = arena_strdup(&c->mem, jstr(it, "full_name"));
		if (jstr(it, "concept"))
			c->tables[t].concept = arena_strdup(&c->mem, jstr(it, "concept"));
		if (jstr(it, "description") && !c->tables[t].comment)
			c->tables[t].comment = arena_strdup(&c->mem, jstr(it, "description"));
		if (jstr(it, "description_ko"))
			c->tables[t].description_ko = arena_strdup(&c->mem, jstr(it, "description_ko"));
		jsyn(x, &x->tx[t].syn, it);
	}
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(m, "columns")) {
		int ci = meta_col(x, it->string, "columns");
		struct cat_column *col;

		if (ci < 0)
			continue;
		col = &c->columns[ci];
		if (jstr(it, "full_name"))
			col->full_name = arena_strdup(&c->mem, jstr(it, "full_name"));
		if (jstr(it, "unit"))
			col->unit = arena_strdup(&c->mem, jstr(it, "unit"));
		if (jstr(it, "description"))
			col->description = arena_strdup(&c->mem, jstr(it, "description"));
		if (jstr(it, "description_ko"))
			col->description_ko = arena_strdup(&c->mem, jstr(it, "description_ko"));
		col->has_range = jrange(it, &col->lo, &col->hi);
		jsyn(x, &x->cx[ci].syn, it);
	}
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(m, "relationships")) {
		int a = meta_col(x, jstr(it, "from"), "relationships"), b;

		if (a < 0 || (b = meta_col(x, jstr(it, "to"), "relationships")) < 0)
			continue;
		cat_add_edge(c, a, b, 0, 1);
	}
}

/* the metadata object for a table (column NULL) or "table.column", created when missing: admin
 * synonyms go into the stored metadata too, which the offline planner reads (planner_snap.c) */
static cJSON *meta_item(struct run *x, const char *table, const char *q)
{
	cJSON *sec, *it;

	if (!x->meta && !(x->meta = cJSON_CreateObject()))
		return NULL;
	if (!cJSON_IsObject(sec = cJSON_GetObjectItem(x->meta, q ? "columns" : "tables")))
		sec = cJSON_AddObjectToObject(x->meta, q ? "columns" : "tables");
	if (!cJSON_IsObject(it = cJSON_GetObjectItem(sec, q ? q : table)))
		it = cJSON_AddObjectToObject(sec, q ? q : table);
	return it;
}

/* add (once) or remove s in the string list o[key] (created when adding) */
static void meta_list(cJSON *o, const char *key, const char *s, int add)
{
	cJSON *a = o ? cJSON_GetObjectItem(o, key) : NULL;
	int i = 0;

	if (!o)
		return;
	if (!cJSON_IsArray(a)) {
		if (!add)
			return;
		cJSON_DeleteItemFromObject(o, key);
		a = cJSON_AddArrayToObject(o, key);
	}
	for (cJSON *it = a->child, *nx; it; it = nx, i++) {
		nx = it->next;
		if (cJSON_IsString(it) && !strcmp(it->valuestring, s)) {
			if (add)
				return;
			cJSON_DeleteItemFromArray(a, i--);
		}
	}
	if (add)
		cJSON_AddItemToArray(a, cJSON_CreateString(s));
}

static void strs_remove(struct strs *l, const char *s)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->s[i], s)) {
			memmove(&l->s[i], &l->s[i + 1], (size_t)(l->n - i - 1) * sizeof *l->s);
			l->n--;
			i--;
		}
}

/* an edit's table and column: 0 with *t (and *ci, -1 for the table) set, -1 when gone */
static int edit_target(struct run *x, const char *table, cJSON *e, int *t, int *ci, char *q, size_t qn)
{
	const char *col = jstr(e, "col");

	*ci = -1;
	if ((*t = cat_find_table(x->c, table)) < 0)
		return -1;
	if (col) {
		snprintf(q, qn, "%s.%s", x->c->tables[*t].name, col);
		if ((*ci = cat_find_column(x->c, q)) < 0) {
			warn(x, "catalog edits: column %s not found in the target", q);
			return -1;
		}
	}
	return 0;
}

/* admin edits, before the hashes: synonyms added onto tables/columns; mappings become value
 * dictionary entries (checked against the target like the metadata file's); descriptions set */
static void apply_edits(struct run *x)
{
	cJSON *tab, *e;

	cJSON_ArrayForEach(tab, x->edits) {
		int t, ci;
		char q[600];

		if (cat_find_table(x->c, tab->string) < 0) {
			warn(x, "catalog edits: table %s not found in the target", tab->string);
			continue;
		}
		cJSON_ArrayForEach(e, tab) {
			const char *kind = jstr(e, "kind") ? jstr(e, "kind") : "", *op = jstr(e, "op") ? jstr(e, "op") : "add";
			const char *ph = jstr(e, "phrase");

			if (edit_target(x, tab->string, e, &t, &ci, q, sizeof q) < 0)
				continue;
			if (!strcmp(kind, "description")) {
				const char *lang = jstr(e, "lang") ? jstr(e, "lang") : "en";
				char *text = ph ? arena_strdup(&x->c->mem, ph) : NULL;
				int ko = !strcmp(lang, "ko");

				if (ci >= 0 && ko)
					x->c->columns[ci].description_ko = text;
				else if (ci >= 0)
					x->c->columns[ci].description = text;
				else if (ko)
					x->c->tables[t].description_ko = text;
				else
					x->c->tables[t].comment = text;
				continue;
			}
			if (strcmp(op, "add") || !ph)
				continue;
			if (!strcmp(kind, "synonym")) {
				strs_add(x, ci >= 0 ? &x->cx[ci].syn : &x->tx[t].syn, ph);
				meta_list(meta_item(x, x->c->tables[t].name, ci >= 0 ? q : NULL), "synonyms", ph, 1);
			} else if (ci >= 0 && jstr(e, "value")) {
				cJSON *vals = x->meta ? cJSON_GetObjectItem(x->meta, "values") : NULL, *v, *syn;

				if (!x->meta)
					x->meta = cJSON_CreateObject();
				if (!vals)
					cJSON_AddItemToObject(x->meta, "values", vals = cJSON_CreateArray());
				v = cJSON_CreateObject();
				cJSON_AddStringToObject(v, "column", q);
				cJSON_AddStringToObject(v, "value", jstr(e, "value"));
				syn = cJSON_AddArrayToObject(v, "synonyms");
				cJSON_AddItemToArray(syn, cJSON_CreateString(ph));
				cJSON_AddItemToArray(vals, v);
			}
		}
	}
}

/* admin removals, last: a synonym or mapping removed goes whatever gave it (metadata file, docs,
 * names, lexicon), from the catalog rows and from the stored metadata alike */
static void apply_removals(struct run *x)
{
	cJSON *tab, *e;

	cJSON_ArrayForEach(tab, x->edits) {
		cJSON_ArrayForEach(e, tab) {
			const char *kind = jstr(e, "kind") ? jstr(e, "kind") : "", *ph = jstr(e, "phrase");
			int t, ci;
			char q[600];

			if (strcmp(jstr(e, "op") ? jstr(e, "op") : "", "remove") || !ph ||
			    edit_target(x, tab->string, e, &t, &ci, q, sizeof q) < 0)
				continue;
			if (!strcmp(kind, "synonym")) {
				strs_remove(ci >= 0 ? &x->cx[ci].syn : &x->tx[t].syn, ph);
				meta_list(meta_item(x, x->c->tables[t].name, ci >= 0 ? q : NULL), "synonyms", ph, 0);
			} else if (!strcmp(kind, "mapping") && ci >= 0 && jstr(e, "value")) {
				int k = find_value(x->c, ci, jstr(e, "value"));
				cJSON *v, *vals = x->meta ? cJSON_GetObjectItem(x->meta, "values") : NULL;

				if (k >= 0)
					strs_remove(&x->vx[k].syn, ph);
				cJSON_ArrayForEach(v, vals)
					if (jstr(v, "column") && !strcmp(jstr(v, "column"), q) && jstr(v, "value") &&
					    !strcmp(jstr(v, "value"), jstr(e, "value")))
						meta_list(v, "synonyms", ph, 0);
			}
		}
	}
}

/* docs: "# Table: NAME" attaches the document to a table; the Alias column of its
 * columns table becomes synonyms */
static void apply_docs(struct run *x)
{
	for (int i = 0; i < x->ndocs; i++) {
		struct doc *d = &x->docs[i];
		char name[300];
		int t;

		if (strcmp(d->kind, "table"))
			continue;
		snprintf(name, sizeof name, "%s", d->title + 8);
		char *n = name;
		while (*n == ' ')
			n++;
		for (char *e = n + strlen(n); e > n && isspace((unsigned char)e[-1]);)
			*--e = '\0';
		if ((t = cat_find_table(x->c, n)) < 0) {
			warn(x, "doc %s: table %s not found in the target", d->path, n);
			continue;
		}
		d->table = x->c->tables[t].name;
		x->tx[t].doc = d->body;
		/* | Column | Alias | Type | Description | rows */
		for (const char *p = d->body; (p = strstr(p, "\n|")); p++) {
			char line[1024], *cells[6];
			int nc = 0;
			const char *e = strchr(p + 1, '\n');
			size_t l = e ? (size_t)(e - p - 1) : strlen(p + 1);

			if (l >= sizeof line)
				continue;
			memcpy(line, p + 1, l);
			line[l] = '\0';
			for (char *s = strtok(line, "|"); s && nc < 6; s = strtok(NULL, "|")) {
				while (*s == ' ')
					s++;
				for (char *z = s + strlen(s); z > s && z[-1] == ' ';)
					*--z = '\0';
				cells[nc++] = s;
			}
			if (nc < 2 || !strcmp(cells[0], "Column") || cells[0][0] == '-')
				continue;
			/* "casestart, caseend" rows describe several columns */
			char names[256];
			snprintf(names, sizeof names, "%s", cells[0]);
			for (char *cn = strtok(names, ","); cn; cn = strtok(NULL, ",")) {
				char q[600];
				int ci;

				while (*cn == ' ')
					cn++;
				snprintf(q, sizeof q, "%s.%s", x->c->tables[t].name, cn);
				if ((ci = cat_find_column(x->c, q)) < 0)
					continue;
				char al[512];
				snprintf(al, sizeof al, "%s", cells[1]);
				for (char *sv, *s = strtok_r(al, ",/", &sv); s; s = strtok_r(NULL, ",/", &sv)) {
					while (*s == ' ')
						s++;
					for (char *z = s + strlen(s); z > s && z[-1] == ' ';)
						*--z = '\0';
					strs_add(x, &x->cx[ci].syn, s);
				}
			}
		}
	}
}

/* ---- hashes and change detection --------------------------------------------------- */

static void hs(uint64_t *h, const char *s)
{
	*h = text_hash(s ? s : "\x01", s ? strlen(s) + 1 : 1, *h);
}

static void hash_json(uint64_t *h, cJSON *j)
{
	char *s = j ? cJSON_PrintUnformatted(j) : NULL;

	hs(h, s);
	free(s);
}


/* ---- the clinical lexicon (docs/lexicon.md): its terms become synonyms of every target ---- */

/* add the terms of lexicon entry i to syn: its Korean terms always, its English ones only when
 * english is set (for values and exact names: two English columns must not come to share an
 * English synonym of a third word); the analysis words are never schema synonyms */
static void lex_add(struct run *x, const struct lexicon *lx, int i, struct strs *syn, int english)
{
	const struct lex_entry *e = &lx->e[i];

	if (!strcmp(e->category, "analysis"))
		return;
	for (int k = 0; english && k < e->nen; k++)
		strs_add(x, syn, e->en[k]);
	for (int k = 0; k < e->nko; k++)
		strs_add(x, syn, e->ko[k]);
}

/* fitting_entries: of the n entries in ids named by a column's name, those that can be what a
 * column of its type holds: a date or time column is no drug, test or vital sign (dob is the date
 * of birth, not dobutamine).  Returns how many are kept, in order */
static int fitting_entries(const struct lexicon *lx, const struct cat_column *col, int *ids, int n)
{
	static const char *const measured[] = {"drug", "drug_class", "lab", "vital", "unit", "route", NULL};
	int timeish = col->type && (strstr(col->type, "timestamp") || strstr(col->type, "date") ||
	                            !strcmp(col->type, "time") || strstr(col->type, "time "));
	int k = 0;
	for (int i = 0; i < n; i++) {
		int m = 0;
		while (timeish && measured[m] && strcmp(measured[m], lx->e[ids[i]].category))
			m++;
		if (!timeish || !measured[m])
			ids[k++] = ids[i];
	}
	return k;
}

/* tables and columns: entries named by the name (as words, or exactly as a code such as
 * "sbp") or by the comment and full name */
static void apply_lexicon(struct run *x)
{
	const struct lexicon *lx = lexicon_get(NULL);
	struct catalog *c = x->c;
	int ids[8], n, weak;
	char text[1200];

	for (int t = 0; t < c->ntables && lx->n; t++) {
		const struct cat_table *tb = &c->tables[t];
		const char *bare = strchr(tb->name, '.') ? strchr(tb->name, '.') + 1 : tb->name;

		snprintf(text, sizeof text, "%s %s %s", bare, tb->comment ? tb->comment : "", tb->full_name ? tb->full_name : "");
		n = lexicon_in_text(lx, text, ids, 4);
		for (int i = 0; i < n; i++)
			lex_add(x, lx, ids[i], &x->tx[t].syn, 0);
	}
	for (int ci = 0; ci < c->ncolumns && lx->n; ci++) {
		const struct cat_column *col = &c->columns[ci];

		int exact;

		n = lexicon_exact(lx, col->name, ids, 2, &weak);
		if (weak)
			n = 0;
		n = fitting_entries(lx, col, ids, n);
		exact = n > 0;
		if (!n) {
			snprintf(text, sizeof text, "%s %s %s", col->name, col->comment ? col->comment : "",
			         col->full_name ? col->full_name : "");
			n = lexicon_in_text(lx, text, ids, 3);
		}
		for (int i = 0; i < n; i++)
			lex_add(x, lx, ids[i], &x->cx[ci].syn, exact);
	}
}

/* spaced_codes: "(M 남자, F 여자)", "(1 외래, 2 응급실, 3 타병원 전원)": a list in parentheses whose
 * every item (two or more, split by commas) is a short code (up to 4 characters, a digit or a capital
 * in it), a space and a name; each pair passed to fn; returns how many (0 for a list with any item
 * of prose: "(department or ward name)", "(in hospital, at home)") */
static int spaced_codes(const char *comment, void (*fn)(void *, const char *, const char *), void *arg)
{
	int total = 0;
	for (const char *open = strchr(comment, '('); open; open = strchr(open + 1, '(')) {
		const char *close = strchr(open + 1, ')');
		if (!close)
			break;
		char code[8][16], name[8][200];
		int n = 0, ok = 1;
		for (const char *q = open + 1; q < close && ok;) {
			while (q < close && *q == ' ')
				q++;
			size_t cl = 0, nl = 0;
			while (q < close && (isalnum((unsigned char)*q) || *q == '_' || *q == '-' || *q == '+') && cl < sizeof code[0] - 1)
				code[n < 8 ? n : 7][cl++] = *q++;
			if (!cl || cl > 8 || q >= close || *q != ' ' || n >= 8) {
				ok = 0;
				break;
			}
			code[n][cl] = 0;
			while (q < close && *q == ' ')
				q++;
			while (q < close && *q != ',' && nl < sizeof name[0] - 1)
				name[n][nl++] = *q++;
			while (nl && name[n][nl - 1] == ' ')
				nl--;
			name[n][nl] = 0;
			int upper = 0;
			for (size_t k = 0; k < cl; k++)
				upper |= isdigit((unsigned char)code[n][k]) || isupper((unsigned char)code[n][k]);
			if (!nl || !upper || cl > 4)
				ok = 0;   /* a code is short, a digit or a capital in it: "(in hospital, at home)" is prose */
			n++;
			if (q < close && *q == ',')
				q++;
		}
		if (!ok || n < 2)
			continue;
		for (int i = 0; i < n; i++)
			fn(arg, code[i], name[i]);
		total += n;
	}
	return total;
}

/* "K=potassium, NA=sodium" or "(K: 칼륨, NA: 나트륨)" in a column comment: code -> name pairs,
 * each passed to fn; returns how many */
static int comment_codes(const char *comment, void (*fn)(void *, const char *, const char *), void *arg)
{
	const char *p = comment;
	int n = 0;

	while (p && *p) {
		char code[64], name[200];
		size_t cl = 0, nl = 0;

		while (*p && !isalnum((unsigned char)*p) && (unsigned char)*p < 0x80)
			p++;
		while (*p && (isalnum((unsigned char)*p) || *p == '_' || *p == '-' || *p == '+') && cl < sizeof code - 1)
			code[cl++] = *p++;
		code[cl] = 0;
		while (*p == ' ')
			p++;
		if (!cl || (*p != '=' && *p != ':')) {
			if (!cl)   /* not a word: on to the next piece */
				while (*p && *p != ',' && *p != ';' && *p != '(' && *p != '/')
					p++;
			continue;   /* a word of prose ("lab code: K=..."): the next word may be a code */
		}
		p++;
		while (*p == ' ')
			p++;
		while (*p && *p != ',' && *p != ';' && *p != ')' && *p != '(' && *p != '\n' && *p != '=' && nl < sizeof name - 1)
			name[nl++] = *p++;
		if (*p == '=') {
			/* "code: K=potassium": the name ran into the next code; that code starts again */
			size_t w = nl;
			while (w && name[w - 1] != ' ')
				w--;
			p -= nl - w;
			nl = w;
		}
		while (nl && name[nl - 1] == ' ')
			nl--;
		name[nl] = 0;
		if (nl) {
			fn(arg, code, name);
			n++;
		}
	}
	return n ? n : spaced_codes(comment, fn, arg);
}

static void code_ignored(void *arg, const char *code, const char *name)
{
	(void)arg, (void)code, (void)name;
}

struct codectx { struct run *x; const struct lexicon *lx; int col; };
static void code_named(void *arg, const char *code, const char *name)
{
	struct codectx *k = arg;
	struct catalog *c = k->x->c;
	int ids[4], n, weak;

	for (int i = 0; i < c->nvalues; i++) {
		if (c->values[i].col != k->col || strcasecmp(c->values[i].value, code))
			continue;
		strs_add(k->x, &k->x->vx[i].syn, name);
		if (!k->x->vx[i].full_name)
			k->x->vx[i].full_name = arena_strdup(&k->x->a, name);
		if ((n = lexicon_exact(k->lx, name, ids, 4, &weak)) == 0)
			n = lexicon_in_text(k->lx, name, ids, 2);
		for (int j = 0; j < n; j++)
			lex_add(k->x, k->lx, ids[j], &k->x->vx[i].syn, 1);
	}
}

/* stored values of changed tables: a value that is a lexicon term or code gets the entry's
 * terms (a code of one or two characters only when another value of the column is a short
 * code of the same category, as M and F are); a comment's code list names values too */
static void apply_lexicon_values(struct run *x)
{
	const struct lexicon *lx = lexicon_get(NULL);
	struct catalog *c = x->c;

	for (int ci = 0; ci < c->ncolumns && lx->n; ci++) {
		const struct cat_column *col = &c->columns[ci];
		int first = -1, nshort = 0;
		const char *cat = NULL;

		if (!col->nvalues || !x->tx[col->table].changed)
			continue;
		/* a comment that lists the codes says what they mean: no guessing from short codes (1 and 2
		 * of a discharge result are not the lexicon's sex codes) */
		int listed = col->comment && comment_codes(col->comment, code_ignored, NULL) > 0;
		/* pass 1: the category of short-code matches, when two values share one */
		for (int i = 0; i < c->nvalues; i++) {
			int ids[4], n, weak;

			if (c->values[i].col != ci)
				continue;
			if (first < 0)
				first = i;
			n = lexicon_exact(lx, c->values[i].value, ids, 4, &weak);
			if (n && weak) {
				if (!cat)
					cat = lx->e[ids[0]].category;
				nshort += !strcmp(cat, lx->e[ids[0]].category);
			}
		}
		for (int i = first; i >= 0 && i < c->nvalues; i++) {
			int ids[4], n, weak;

			if (c->values[i].col != ci)
				continue;
			n = lexicon_exact(lx, c->values[i].value, ids, 4, &weak);
			if (n && weak && (listed || nshort < 2 || strcmp(cat, lx->e[ids[0]].category)))
				continue;
			for (int j = 0; j < n; j++)
				if (!weak || !strcmp(lx->e[ids[j]].category, cat))
					lex_add(x, lx, ids[j], &x->vx[i].syn, 1);
		}
		if (col->comment) {
			struct codectx k = {x, lx, ci};

			comment_codes(col->comment, code_named, &k);
		}
	}
}
static void table_hashes(struct run *x)
{
	struct catalog *c = x->c;
	cJSON *mcols = x->meta ? cJSON_GetObjectItem(x->meta, "columns") : NULL;
	cJSON *mtabs = x->meta ? cJSON_GetObjectItem(x->meta, "tables") : NULL;
	cJSON *mvals = x->meta ? cJSON_GetObjectItem(x->meta, "values") : NULL;
	cJSON *ab = x->meta ? cJSON_GetObjectItem(x->meta, "abbreviations") : NULL;

	for (int t = 0; t < c->ntables; t++) {
		struct cat_table *tb = &c->tables[t];
		uint64_t h = TEXT_HASH_SEED;
		char buf[64];

		hs(&h, c->embed_provider);
		snprintf(buf, sizeof buf, "lexicon %016llx values %016llx", (unsigned long long)lexicon_get(NULL)->hash,
		         (unsigned long long)x->tx[t].vhash);
		hs(&h, buf);
		snprintf(buf, sizeof buf, "phi %016llx", (unsigned long long)phi_rules_hash(x->phi));
		hs(&h, buf);
		snprintf(buf, sizeof buf, "%d %c %d", c->dim, x->tx[t].kind, tb->rows < 1 ? 0 : (int)log10((double)tb->rows));
		hs(&h, buf);
		hs(&h, tb->schema);
		hs(&h, tb->name);
		hs(&h, tb->comment);
		hs(&h, x->tx[t].doc);
		hash_json(&h, ab);
		if (mtabs)
			hash_json(&h, cJSON_GetObjectItem(mtabs, tb->name));
		hash_json(&h, x->edits ? cJSON_GetObjectItem(x->edits, tb->name) : NULL);
		for (int k = 0; k < tb->ncols; k++) {
			const struct cat_column *col = &c->columns[tb->first_col + k];
			const struct colx *cx = &x->cx[tb->first_col + k];
			char q[600];

			snprintf(buf, sizeof buf, "%d%d%d%d %.0f", col->nullable, col->is_pk, col->indexed, col->is_flag,
			         isnan(cx->n_distinct) ? -9.0 : cx->n_distinct > 0 ? log10(cx->n_distinct) : cx->n_distinct * 10);
			hs(&h, col->name);
			hs(&h, col->type);
			hs(&h, col->comment);
			hs(&h, buf);
			/* a correction changes which values are kept (a direct identifier's are not) */
			if (cx->phi_fixed)
				hs(&h, phi_class_name((enum phi_class)cx->phi_fixed));
			snprintf(q, sizeof q, "%s.%s", tb->name, col->name);
			if (mcols)
				hash_json(&h, cJSON_GetObjectItem(mcols, q));
			cJSON *v;
			cJSON_ArrayForEach(v, mvals)
				if (jstr(v, "column") && !strcmp(jstr(v, "column"), q))
					hash_json(&h, v);
		}
		snprintf(x->tx[t].hash, sizeof x->tx[t].hash, "%016llx", (unsigned long long)h);
	}
}

static enum err load_previous(struct run *x)
{
	const char *p[1] = {x->o->target_name};
	PGresult *r;

	if (!(r = db_query(x->app, "SELECT version, embed_provider, embed_dim, global_hash FROM askql.cat_targets "
	                   "WHERE name = $1", 1, p, x->err, x->errlen)))
		return ERR_DB;
	x->prev_version = -1;
	if (PQntuples(r) == 1) {
		x->prev_version = atol(PQgetvalue(r, 0, 0));
		x->prev_provider = arena_strdup(&x->a, PQgetvalue(r, 0, 1));
		x->prev_dim = atoi(PQgetvalue(r, 0, 2));
		x->prev_global = PQgetisnull(r, 0, 3) ? NULL : arena_strdup(&x->a, PQgetvalue(r, 0, 3));
	}
	PQclear(r);
	if (!(r = db_query(x->app, "SELECT schema_name || '.' || name, hash FROM askql.cat_tables WHERE target = $1",
	                   1, p, x->err, x->errlen)))
		return ERR_DB;
	x->prev_hashes = arena_alloc(&x->a, (size_t)(PQntuples(r) + 1) * sizeof *x->prev_hashes);
	for (int i = 0; i < PQntuples(r) && x->prev_hashes; i++) {
		x->prev_hashes[i] = arena_strdup(&x->a, PQgetvalue(r, i, 1));
		strmap_put(&x->prev_hash, &x->a, PQgetvalue(r, i, 0), i);
	}
	PQclear(r);
	return OK;
}

/* ---- values ------------------------------------------------------------------------------- */

static void quote_ident(struct sb *sb, const char *s)
{
	sb_putc(sb, '"');
	for (; *s; s++) {
		if (*s == '"')
			sb_putc(sb, '"');
		sb_putc(sb, *s);
	}
	sb_putc(sb, '"');
}

static void rel_name(struct sb *sb, const struct cat_table *t)
{
	const char *bare = strchr(t->name, '.') ? strchr(t->name, '.') + 1 : t->name;

	quote_ident(sb, t->schema);
	sb_putc(sb, '.');
	quote_ident(sb, bare);
}

static int low_cardinality(const struct catalog *c, const struct colx *cx, const struct cat_column *col)
{
	long rows = c->tables[col->table].rows;

	if (!col->textual)
		return 0;
	if (isnan(cx->n_distinct))
		return rows < 200000;   /* no statistics: try, the LIMIT tells */
	if (cx->n_distinct > 0)
		return cx->n_distinct <= MAXVALUES;
	return -cx->n_distinct * (double)(rows > 0 ? rows : 1) <= MAXVALUES;
}

/* an integer column that may be a yes/no attribute (checked: only 0 and 1 occur) */
static int maybe_flag(const struct colx *cx, const struct cat_column *col)
{
	return col->numeric && strstr(col->type, "int") && !cx->unique && !col->idlike &&
	       !strstr(col->name, "id") && (isnan(cx->n_distinct) || (cx->n_distinct > 0 && cx->n_distinct <= 2));
}

static int add_val(struct run *x, int col, const char *v)
{
	int k = cat_add_value(x->c, col, v);

	if (k < 0)
		return -1;
	if (x->c->capvalues > x->capvx) {
		struct valx *nv = realloc(x->vx, (size_t)x->c->capvalues * sizeof *nv);

		if (!nv)
			return -1;
		memset(nv + x->capvx, 0, (size_t)(x->c->capvalues - x->capvx) * sizeof *nv);
		x->vx = nv;
		x->capvx = x->c->capvalues;
	}
	return k;
}

/* one query per changed table: the distinct values of its low-cardinality text columns */
static enum err sample_values(struct run *x, int t)
{
	struct catalog *c = x->c;
	const struct cat_table *tb = &c->tables[t];
	struct sb q = SB_INIT;
	int cols[256], n = 0;
	PGresult *r;
	char err[512];

	for (int k = 0; k < tb->ncols && n < 256; k++) {
		int ci = tb->first_col + k;

		c->columns[ci].is_flag = 0;
		if (low_cardinality(c, &x->cx[ci], &c->columns[ci]) || maybe_flag(&x->cx[ci], &c->columns[ci]))
			cols[n++] = ci;
	}
	if (!n)
		return OK;
	for (int i = 0; i < n; i++) {
		int text = c->columns[cols[i]].textual;

		sb_printf(&q, "%s(SELECT %d, v::text FROM (SELECT DISTINCT ", i ? " UNION ALL " : "", i);
		quote_ident(&q, c->columns[cols[i]].name);
		sb_puts(&q, " AS v FROM ");
		rel_name(&q, tb);
		if (tb->rows > 1000000)
			sb_printf(&q, " TABLESAMPLE SYSTEM (%.4f)", 100.0 * 500000.0 / (double)tb->rows);
		sb_puts(&q, " WHERE ");
		quote_ident(&q, c->columns[cols[i]].name);
		sb_printf(&q, " IS NOT NULL LIMIT %d) s)", text ? MAXVALUES + 1 : 3);
	}
	if (!sb_ok(&q)) {
		sb_free(&q);
		return fail(x, ERR_NOMEM, "out of memory");
	}
	r = db_query(x->tgt, sb_cstr(&q), 0, NULL, err, sizeof err);
	sb_free(&q);
	if (!r) {
		warn(x, "sampling values of %s failed: %s", tb->name, err);
		return OK;
	}
	for (int i = 0; i < n; i++) {
		int cnt = 0;

		for (int j = 0; j < PQntuples(r); j++)
			cnt += atoi(PQgetvalue(r, j, 0)) == i;
		if (!c->columns[cols[i]].textual) {
			int ok = cnt == 2;   /* exactly the values 0 and 1 */

			for (int j = 0; ok && j < PQntuples(r); j++)
				if (atoi(PQgetvalue(r, j, 0)) == i)
					ok = !strcmp(PQgetvalue(r, j, 1), "0") || !strcmp(PQgetvalue(r, j, 1), "1");
			c->columns[cols[i]].is_flag = ok;
			continue;
		}
		if (cnt > MAXVALUES)
			continue;   /* not low-cardinality after all */
		for (int j = 0; j < PQntuples(r); j++)
			if (atoi(PQgetvalue(r, j, 0)) == i && strlen(PQgetvalue(r, j, 1)) <= 200 &&
			    add_val(x, cols[i], PQgetvalue(r, j, 1)) < 0) {
				PQclear(r);
				return fail(x, ERR_NOMEM, "out of memory");
			}
	}
	PQclear(r);
	return OK;
}

static int find_value(const struct catalog *c, int col, const char *v)
{
	for (int i = 0; i < c->nvalues; i++)
		if (c->values[i].col == col && !strcmp(c->values[i].value, v))
			return i;
	return -1;
}

/* metadata value dictionaries of changed tables, each verified to exist in the target */
static enum err meta_values(struct run *x)
{
	struct catalog *c = x->c;
	cJSON *it;

	if (!x->meta)
		return OK;
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(x->meta, "values")) {
		const char *cq = jstr(it, "column"), *v = jstr(it, "value");
		int ci = cq ? cat_find_column(c, cq) : -1, k;

		if (ci < 0 || !v) {
			warn(x, "metadata values: %s%s%s not found in the target", cq ? cq : "(no column)",
			     v ? " = " : "", v ? v : "");
			continue;
		}
		if (!x->tx[c->columns[ci].table].changed)
			continue;
		if ((k = find_value(c, ci, v)) < 0) {
			struct sb q = SB_INIT;
			const char *p[1] = {v};
			PGresult *r;
			char err[256];

			sb_puts(&q, "SELECT 1 FROM ");
			rel_name(&q, &c->tables[c->columns[ci].table]);
			sb_puts(&q, " WHERE ");
			quote_ident(&q, c->columns[ci].name);
			sb_puts(&q, "::text = $1 LIMIT 1");
			r = db_query(x->tgt, sb_cstr(&q), 1, p, err, sizeof err);
			sb_free(&q);
			if (!r || PQntuples(r) == 0) {
				warn(x, "metadata values: %s = '%s' does not occur in the target: skipped", cq, v);
				PQclear(r);
				continue;
			}
			PQclear(r);
			if ((k = add_val(x, ci, v)) < 0)
				return fail(x, ERR_NOMEM, "out of memory");
		}
		struct valx *vx = &x->vx[k];
		vx->meta = 1;
		vx->full_name = jstr(it, "full_name") ? arena_strdup(&x->a, jstr(it, "full_name")) : NULL;
		vx->unit = jstr(it, "unit") ? arena_strdup(&x->a, jstr(it, "unit")) : NULL;
		vx->has_range = jrange(it, &vx->lo, &vx->hi);
		jsyn(x, &vx->syn, it);
	}
	return OK;
}

/* ---- FK inference ------------------------------------------------------------------------ */

static int type_cat(const char *t)
{
	if (!strncmp(t, "integer", 7) || !strncmp(t, "bigint", 6) || !strncmp(t, "smallint", 8) ||
	    (!strncmp(t, "numeric", 7) && !strchr(t, ',')))
		return 1;
	if (!strncmp(t, "text", 4) || !strncmp(t, "character", 9) || !strncmp(t, "varchar", 7))
		return 2;
	if (!strncmp(t, "uuid", 4))
		return 3;
	return 0;   /* floats, dates, ...: never join keys */
}

static void key_norm(const char *s, char *out, size_t n)
{
	size_t k = 0;

	for (; *s && k + 1 < n; s++)
		if (*s != '_')
			out[k++] = (char)tolower((unsigned char)*s);
	out[k] = '\0';
}

static double uniqueness(const struct catalog *c, const struct colx *cx, const struct cat_column *col)
{
	long rows = c->tables[col->table].rows;

	if (cx->unique)
		return 2;
	if (isnan(cx->n_distinct))
		return 0;
	if (cx->n_distinct < 0)
		return -cx->n_distinct;
	return rows > 0 ? cx->n_distinct / (double)rows : 0;
}

static int connected(const struct catalog *c, int a, int b)
{
	for (int i = 0; i < c->nedges; i++) {
		const struct cat_edge *e = &c->edges[i];

		if ((e->from_c == a && e->to_c == b) || (e->from_c == b && e->to_c == a))
			return 1;
	}
	return 0;
}

/* share of distinct child values (sample of 100) present in the parent column (0 when the child
 * column is all NULL); -1: unknown (an empty table) */
static double overlap(struct run *x, int child, int parent)
{
	struct catalog *c = x->c;
	const struct cat_column *cc = &c->columns[child], *pc = &c->columns[parent];
	struct sb q = SB_INIT;
	PGresult *r;
	double res = -1;

	if (c->tables[cc->table].rows == 0 || c->tables[pc->table].rows == 0)
		return -1;
	sb_puts(&q, "SELECT count(*), count(*) FILTER (WHERE EXISTS (SELECT 1 FROM ");
	rel_name(&q, &c->tables[pc->table]);
	sb_puts(&q, " p WHERE p.");
	quote_ident(&q, pc->name);
	sb_puts(&q, " = s.v)) FROM (SELECT DISTINCT ");
	quote_ident(&q, cc->name);
	sb_puts(&q, " AS v FROM ");
	rel_name(&q, &c->tables[cc->table]);
	sb_puts(&q, " WHERE ");
	quote_ident(&q, cc->name);
	sb_puts(&q, " IS NOT NULL LIMIT 100) s");
	if ((r = db_query(x->tgt, sb_cstr(&q), 0, NULL, NULL, 0))) {
		long n = atol(PQgetvalue(r, 0, 0)), hit = atol(PQgetvalue(r, 0, 1));

		res = n > 0 ? (double)hit / (double)n : 0;   /* rows, but no value: nothing to join on */
		PQclear(r);
	}
	sb_free(&q);
	return res;
}

/* share of name tokens two tables have in common (Jaccard) */
static double name_sim(const struct catalog *c, int a, int b)
{
	char ba[512], bb[512], *ta[16], *tb[16];
	int na = text_tokens(c->tables[a].name, 0, ba, sizeof ba, ta, 16);
	int nb = text_tokens(c->tables[b].name, 0, bb, sizeof bb, tb, 16), both = 0;

	for (int i = 0; i < na; i++)
		for (int j = 0; j < nb; j++)
			if (!strcmp(ta[i], tb[j])) {
				both++;
				break;
			}
	return na + nb - both > 0 ? (double)both / (double)(na + nb - both) : 0;
}

static void add_inferred(struct run *x, int child, int parent, double ov)
{
	struct catalog *c = x->c;
	int e;

	if ((e = cat_add_edge(c, child, parent, 1, 0)) < 0)
		return;
	if (x->capex < c->capedges) {
		struct edgex *ne = realloc(x->ex, (size_t)c->capedges * sizeof *ne);

		if (!ne)
			return;
		x->ex = ne;
		x->capex = c->capedges;
	}
	x->ex[e].score = ov < 0 ? 0.5 : ov;
	x->res.inferred_fks++;
}

static void try_edge(struct run *x, int child, int parent, int *checks)
{
	double ov;

	if (connected(x->c, child, parent) || *checks >= MAXCHECKS)
		return;
	(*checks)++;
	ov = overlap(x, child, parent);
	if (ov >= 0 && ov < 0.8)
		return;
	add_inferred(x, child, parent, ov);
}

/* the code suffix of a key-like name ("_cd", "_code", "_no", "id"), or NULL */
static const char *key_suffix(const char *n)
{
	static const char *const suf[] = {"_cd", "_code", "_no", "_key", "id", NULL};
	size_t l = strlen(n);
	for (int k = 0; suf[k]; k++)
		if (l > strlen(suf[k]) && !strcmp(n + l - strlen(suf[k]), suf[k]))
			return suf[k];
	return NULL;
}

/* rule 3: a code column with no reference yet whose values are all keys of one small code table
 * (a stay's ward code among the department-and-ward codes): same key suffix, the parent a primary
 * key of a table at most a quarter the child's size (when both sizes are known), every sampled
 * value found there, and no second table that would do as well */
static void infer_code_tables(struct run *x, int *checks)
{
	struct catalog *c = x->c;
	for (int i = 0; i < c->ncolumns; i++) {
		const struct cat_column *col = &c->columns[i];
		const char *suf = key_suffix(col->name);
		int out = 0, bp = -1, full = 0;
		for (int e = 0; e < c->nedges && !out; e++)
			out = c->edges[e].from_c == i;
		if (!suf || !col->idlike || col->is_pk || out || !type_cat(col->type))
			continue;
		long crows = c->tables[col->table].rows;
		for (int p = 0; p < c->ncolumns && *checks < MAXCHECKS; p++) {
			const struct cat_column *pc = &c->columns[p];
			const char *ps = key_suffix(pc->name);
			long prows = c->tables[pc->table].rows;
			/* sizes unknown (a database not analysed yet): the values decide alone */
			if (!pc->is_pk || pc->table == col->table || !ps || strcmp(ps, suf) ||
			    type_cat(pc->type) != type_cat(col->type) || (prows > 0 && crows > 0 && prows * 4 > crows))
				continue;
			(*checks)++;
			if (overlap(x, i, p) >= 0.999) {
				full++;
				bp = p;
			}
		}
		if (full == 1)
			add_inferred(x, i, bp, 1.0);
	}
}

static void infer_fks(struct run *x)
{
	struct catalog *c = x->c;
	struct strmap byname = {0};
	int *next = calloc((size_t)(c->ncolumns ? c->ncolumns : 1), sizeof *next), checks = 0;
	struct arena tmp = {0};

	if (!next)
		return;
	/* rule 1: the same key-like name in several tables ("subject_id" = "subjectid"):
	 * every other occurrence points at the most unique one */
	for (int i = c->ncolumns - 1; i >= 0; i--) {
		char k[256];
		const struct cat_column *col = &c->columns[i];

		key_norm(col->name, k, sizeof k);
		/* surrogate row numbers are not join keys */
		if (!col->idlike || !strcmp(k, "id") || !strcmp(k, "rowid") || !strcmp(k, "oid") ||
		    !strcmp(k, "seqid") || !type_cat(col->type)) {
			next[i] = -2;
			continue;
		}
		next[i] = strmap_get(&byname, k);
		strmap_put(&byname, &tmp, k, i);
	}
	for (size_t s = 0; s < byname.cap; s++) {
		int head, parent = -1;
		double best = -1;

		if (!byname.keys[s])
			continue;
		head = byname.vals[s];
		if (next[head] < 0)
			continue;   /* a single occurrence */
		for (int i = head; i >= 0; i = next[i]) {
			double u = uniqueness(c, &x->cx[i], &c->columns[i]);
			long rows = c->tables[c->columns[i].table].rows;

			if (u > best || (u == best && parent >= 0 && rows >= 0 && rows < c->tables[c->columns[parent].table].rows)) {
				best = u;
				parent = i;
			}
		}
		/* a name that is unique in three or more tables is each table's own key
		 * (a naming convention), not a reference */
		int members = 0, uniq = 0;
		for (int i = head; i >= 0; i = next[i]) {
			members++;
			uniq += uniqueness(c, &x->cx[i], &c->columns[i]) >= 0.999;
		}
		if (members >= 3 && uniq == members)
			continue;
		/* every (nearly) unique member may be the referenced side ("itemid" of d_items and of
		 * d_labitems); each other member points at the one its values overlap best */
		for (int i = head; i >= 0; i = next[i]) {
			int bp = -1;
			double bov = -2;

			if (uniqueness(c, &x->cx[i], &c->columns[i]) >= 0.95 && i != parent)
				continue;   /* a key of its own */
			for (int p = head; p >= 0; p = next[p]) {
				double ov;

				if (p == i || c->columns[p].table == c->columns[i].table ||
				    type_cat(c->columns[p].type) != type_cat(c->columns[i].type) ||
				    (p != parent && uniqueness(c, &x->cx[p], &c->columns[p]) < 0.95) ||
				    connected(c, i, p) || checks >= MAXCHECKS)
					continue;
				checks++;
				ov = overlap(x, i, p);
				/* unknown overlap (empty tables): the parent whose table name is most like
				 * the child's (diagnoses_icd -> d_icd_diagnoses), still below any measured one */
				double e = ov >= 0 ? ov : -1 + 0.5 * name_sim(c, c->columns[i].table, c->columns[p].table);
				if ((ov >= 0.8 || ov < 0) && e > bov) {
					bov = e;
					bp = p;
				}
			}
			if (bp >= 0 && i != parent)
				add_inferred(x, i, bp, bov >= 0 ? bov : -1);
		}
	}
	/* rule 2: "<table>_id" / "<table>id" -> that table's primary key (patients.id) */
	for (int i = 0; i < c->ncolumns; i++) {
		const struct cat_column *col = &c->columns[i];
		char k[256], stem[256];
		size_t l;

		if (!col->idlike || !type_cat(col->type))
			continue;
		key_norm(col->name, k, sizeof k);
		l = strlen(k);
		if (l <= 2 || strcmp(k + l - 2, "id"))
			continue;
		snprintf(stem, sizeof stem, "%.*s", (int)(l - 2), k);
		for (int t = 0; t < c->ntables; t++) {
			char tn[256];
			const char *bare = strchr(c->tables[t].name, '.') ? strchr(c->tables[t].name, '.') + 1 : c->tables[t].name;
			size_t tl;

			if (t == col->table)
				continue;
			key_norm(bare, tn, sizeof tn);
			tl = strlen(tn);
			if (strcmp(tn, stem) && !(tl == strlen(stem) + 1 && tn[tl - 1] == 's' && !strncmp(tn, stem, tl - 1)) &&
			    !(tl == strlen(stem) + 2 && !strcmp(tn + tl - 2, "es") && !strncmp(tn, stem, tl - 2)))
				continue;
			for (int m = 0; m < c->tables[t].ncols; m++) {
				int pc = c->tables[t].first_col + m;

				if ((c->columns[pc].is_pk || !strcmp(c->columns[pc].name, "id")) &&
				    type_cat(c->columns[pc].type) == type_cat(col->type))
					try_edge(x, i, pc, &checks);
			}
		}
	}
	infer_code_tables(x, &checks);
	free(next);
	strmap_free(&byname);
	arena_free(&tmp);
}

/* drop_empty_keys: a declared key whose column holds no value at all in a table with rows
 * (person.care_site_id "not populated") joins nothing; it is left out of the catalog's join
 * graph, so no path runs through it */
static void drop_empty_keys(struct run *x)
{
	struct catalog *c = x->c;
	for (int i = 0; i < c->nedges; i++) {
		struct cat_edge *e = &c->edges[i];
		if (e->from_c < 0 || e->inferred)
			continue;   /* inferred keys were checked on their values already */
		const struct cat_column *col = &c->columns[e->from_c];
		struct sb q = SB_INIT;
		PGresult *r;
		sb_puts(&q, "SELECT EXISTS (SELECT 1 FROM ");
		rel_name(&q, &c->tables[col->table]);
		sb_puts(&q, ") AND NOT EXISTS (SELECT 1 FROM ");
		rel_name(&q, &c->tables[col->table]);
		sb_puts(&q, " WHERE ");
		quote_ident(&q, col->name);
		sb_puts(&q, " IS NOT NULL)");
		if (sb_ok(&q) && (r = db_query(x->tgt, sb_cstr(&q), 0, NULL, NULL, 0))) {
			if (PQntuples(r) == 1 && !strcmp(PQgetvalue(r, 0, 0), "t")) {
				progress(x, "join key %s.%s holds no value: not used for joins", c->tables[col->table].name, col->name);
				e->from_c = -1;
			}
			PQclear(r);
		}
		sb_free(&q);
	}
}

static enum err apply_decisions(struct run *x)
{
	const char *p[1] = {x->o->target_name};
	PGresult *r = db_query(x->app, "SELECT from_schema || '.' || from_table || '.' || from_col, "
	                       "to_schema || '.' || to_table || '.' || to_col, decision "
	                       "FROM askql.cat_fk_decisions WHERE target = $1", 1, p, x->err, x->errlen);

	if (!r)
		return ERR_DB;
	for (int i = 0; i < PQntuples(r); i++) {
		int a = cat_find_column(x->c, PQgetvalue(r, i, 0)), b = cat_find_column(x->c, PQgetvalue(r, i, 1));

		/* an admin-confirmed edge exists whether or not anything declares it */
		if (a >= 0 && b >= 0 && !strcmp(PQgetvalue(r, i, 2), "confirmed") && !connected(x->c, a, b))
			cat_add_edge(x->c, a, b, 0, 1);
		for (int e = 0; a >= 0 && b >= 0 && e < x->c->nedges; e++) {
			struct cat_edge *ed = &x->c->edges[e];

			if (ed->from_c != a || ed->to_c != b)
				continue;
			if (!strcmp(PQgetvalue(r, i, 2), "confirmed"))
				ed->confirmed = 1;
			else
				ed->from_c = -1;   /* removed: skipped when written */
		}
	}
	PQclear(r);
	return OK;
}

/* ---- PHI classification (catalog/phi.h) ---------------------------------------------------- */

/* the class that decides: an admin's correction, else the classifier's verdict of this run */
static enum phi_class phi_effective(const struct run *x, int ci)
{
	if (x->cx[ci].phi_fixed)
		return (enum phi_class)x->cx[ci].phi_fixed;
	return x->cx[ci].phi ? x->cx[ci].phi->cls : PHI_UNCLASSIFIED;
}

/* admins' corrections (askql phi set), which win over the classifier and survive re-indexing */
static enum err read_phi_corrections(struct run *x)
{
	const char *p[1] = {x->o->target_name};
	PGresult *r = db_query(x->app, "SELECT schema_name || '.' || table_name || '.' || column_name, class "
	                       "FROM askql.phi_corrections WHERE target = $1", 1, p, x->err, x->errlen);

	if (!r)
		return ERR_DB;
	for (int i = 0; i < PQntuples(r); i++) {
		int ci = cat_find_column(x->c, PQgetvalue(r, i, 0));
		enum phi_class k;

		if (ci < 0) {
			warn(x, "PHI correction of %s: the column is no longer in the target (kept)", PQgetvalue(r, i, 0));
			continue;
		}
		if (!phi_class_parse(PQgetvalue(r, i, 1), &k))
			x->cx[ci].phi_fixed = (int)k;
	}
	PQclear(r);
	return OK;
}

/* rows looked at per table; a large table is read through a page sample of about 20x that */
#define PHI_SAMPLE_ROWS 200

/* one changed table: a bounded row sample of its text and long-number columns (read, classified,
 * never stored), the catalog's distinct values of each column, and each column's verdict */
static enum err classify_table(struct run *x, int t, const int *vstart, const int *vidx)
{
	struct catalog *c = x->c;
	const struct cat_table *tb = &c->tables[t];
	const char **names = calloc((size_t)tb->ncols + 1, sizeof *names);
	const char **comments = calloc((size_t)tb->ncols + 1, sizeof *comments);
	const char **vals = calloc(PHI_SAMPLE_ROWS + 1, sizeof *vals), **dist = NULL;
	int *sampled = calloc((size_t)tb->ncols + 1, sizeof *sampled), ns = 0, maxd = 0;
	struct phi_table_in ti;
	struct phi_context ctx;
	struct sb q = SB_INIT;
	PGresult *r = NULL;
	enum err rc = OK;
	char err[512];

	if (!names || !comments || !vals || !sampled) {
		rc = fail(x, ERR_NOMEM, "out of memory");
		goto out;
	}
	for (int k = 0; k < tb->ncols; k++) {
		const struct cat_column *col = &c->columns[tb->first_col + k];
		int ci = tb->first_col + k;

		names[k] = col->name;
		comments[k] = col->comment;
		sampled[k] = -1;
		/* registration and telephone numbers are text, or (losing a leading zero) long numbers;
		 * ages are integers */
		if (ns < 128 && (col->textual || !strncmp(col->type, "bigint", 6) || !strncmp(col->type, "numeric", 7) ||
		                 !strncmp(col->type, "integer", 7) || !strncmp(col->type, "smallint", 8))) {
			sb_printf(&q, "%sleft(", ns ? ", " : "SELECT ");
			quote_ident(&q, col->name);
			sb_printf(&q, "::text, %d)", PHI_VALUE_MAX + 1);
			sampled[k] = ns++;
		}
		if (vstart[ci + 1] - vstart[ci] > maxd)
			maxd = vstart[ci + 1] - vstart[ci];
	}
	if (ns) {
		sb_puts(&q, " FROM ");
		rel_name(&q, tb);
		if (tb->rows > 20 * 20 * PHI_SAMPLE_ROWS)
			sb_printf(&q, " TABLESAMPLE SYSTEM (%.4f)", 100.0 * 20.0 * PHI_SAMPLE_ROWS / (double)tb->rows);
		sb_printf(&q, " LIMIT %d", PHI_SAMPLE_ROWS);
		if (!sb_ok(&q)) {
			rc = fail(x, ERR_NOMEM, "out of memory");
			goto out;
		}
		if (!(r = db_query(x->tgt, sb_cstr(&q), 0, NULL, err, sizeof err)))
			warn(x, "sampling %s for PHI classification failed (classified from names and comments only): %s",
			     tb->name, err);
	}
	if (maxd && !(dist = calloc((size_t)maxd, sizeof *dist))) {
		rc = fail(x, ERR_NOMEM, "out of memory");
		goto out;
	}
	ti.name = strchr(tb->name, '.') ? strchr(tb->name, '.') + 1 : tb->name;
	ti.comment = tb->comment;
	ti.colnames = names;
	ti.colcomments = comments;
	ti.ncols = tb->ncols;
	phi_table_context(x->phi, &ti, &ctx);
	for (int k = 0; k < tb->ncols; k++) {
		int ci = tb->first_col + k, nv = 0, nd = 0;
		const struct cat_column *col = &c->columns[ci];
		struct phi_column_in in = {0};

		if (r && sampled[k] >= 0)
			for (int j = 0; j < PQntuples(r) && nv < PHI_SAMPLE_ROWS; j++)
				vals[nv++] = PQgetisnull(r, j, sampled[k]) ? NULL : PQgetvalue(r, j, sampled[k]);
		for (int j = vstart[ci]; j < vstart[ci + 1] && nd < PHI_DISTINCT_MAX; j++)
			dist[nd++] = c->values[vidx[j]].value;
		in.name = col->name;
		in.type = col->type;
		in.comment = col->comment;
		in.description = col->description;
		in.full_name = col->full_name;
		in.values = vals;
		in.nvalues = nv;
		in.distinct = dist;
		in.ndistinct = nd;
		if (!(x->cx[ci].phi = arena_alloc(&x->a, sizeof *x->cx[ci].phi))) {
			rc = fail(x, ERR_NOMEM, "out of memory");
			goto out;
		}
		/* an overlong comment is not classified (PHI_UNCLASSIFIED: treated as direct) and said so */
		if (phi_classify(x->phi, &ctx, &in, x->cx[ci].phi) == ERR_INPUT)
			warn(x, "PHI classification of %s.%s: %s", tb->name, col->name, x->cx[ci].phi->evidence);
	}
out:
	PQclear(r);
	sb_free(&q);
	free(names);
	free(comments);
	free(vals);
	free(dist);
	free(sampled);
	return rc;
}

/* every changed table; the catalog's distinct values are grouped by column once (CSR) */
static enum err classify_tables(struct run *x)
{
	struct catalog *c = x->c;
	int *vstart = calloc((size_t)c->ncolumns + 2, sizeof *vstart);
	int *vidx = malloc(((size_t)c->nvalues + 1) * sizeof *vidx), *fill = NULL;
	enum err rc = OK;
	int n = 0;

	if (!vstart || !vidx || !(fill = calloc((size_t)c->ncolumns + 1, sizeof *fill))) {
		rc = fail(x, ERR_NOMEM, "out of memory");
		goto out;
	}
	for (int i = 0; i < c->nvalues; i++)
		vstart[c->values[i].col + 1]++;
	for (int ci = 0; ci < c->ncolumns; ci++)
		vstart[ci + 1] += vstart[ci];
	for (int i = 0; i < c->nvalues; i++) {
		int col = c->values[i].col;

		vidx[vstart[col] + fill[col]++] = i;
	}
	for (int t = 0; t < c->ntables && rc == OK; t++)
		if (x->tx[t].changed) {
			rc = classify_table(x, t, vstart, vidx);
			n++;
		}
	if (rc == OK && n)
		progress(x, "classified the columns of %d tables (PHI)", n);
out:
	free(vstart);
	free(vidx);
	free(fill);
	return rc;
}

/* ---- writing ------------------------------------------------------------------------------ */

/* COPY text format field */
static void cf(struct sb *sb, const char *s, int last)
{
	if (!s) {
		sb_puts(sb, "\\N");
	} else {
		for (; *s; s++) {
			switch (*s) {
			case '\\': sb_puts(sb, "\\\\"); break;
			case '\t': sb_puts(sb, "\\t"); break;
			case '\n': sb_puts(sb, "\\n"); break;
			case '\r': sb_puts(sb, "\\r"); break;
			default: sb_putc(sb, *s);
			}
		}
	}
	sb_putc(sb, last ? '\n' : '\t');
}

/* array literal {"a","b"} of strs */
static void arr_lit(struct sb *sb, const struct strs *l)
{
	struct sb a = SB_INIT;

	sb_putc(&a, '{');
	for (int i = 0; i < l->n; i++) {
		sb_puts(&a, i ? ",\"" : "\"");
		for (const char *s = l->s[i]; *s; s++) {
			if (*s == '"' || *s == '\\')
				sb_putc(&a, '\\');
			sb_putc(&a, *s);
		}
		sb_putc(&a, '"');
	}
	sb_putc(&a, '}');
	cf(sb, sb_cstr(&a), 0);
	sb_free(&a);
}

static void vec_field(struct sb *sb, const float *v, int dim, int last)
{
	char *buf = malloc((size_t)dim * 16 + 8);

	if (!v || !buf) {
		cf(sb, NULL, last);
	} else {
		cat_vec_literal(v, dim, buf, (size_t)dim * 16 + 8);
		cf(sb, buf, last);
	}
	free(buf);
}

static void num_field(struct sb *sb, int has, double v, int last)
{
	char b[40];

	snprintf(b, sizeof b, "%.17g", v);
	cf(sb, has ? b : NULL, last);
}

static enum err copy_in(struct run *x, const char *sql, struct sb *data)
{
	PGresult *r = PQexec(x->app, sql);
	enum err rc = OK;

	if (PQresultStatus(r) != PGRES_COPY_IN) {
		rc = fail(x, ERR_DB, "%s: %s", sql, PQerrorMessage(x->app));
		PQclear(r);
		return rc;
	}
	PQclear(r);
	if (!sb_ok(data) || PQputCopyData(x->app, sb_cstr(data), (int)data->len) != 1 ||
	    PQputCopyEnd(x->app, NULL) != 1)
		rc = fail(x, ERR_DB, "COPY failed: %s", PQerrorMessage(x->app));
	while ((r = PQgetResult(x->app))) {
		if (PQresultStatus(r) != PGRES_COMMAND_OK && rc == OK)
			rc = fail(x, ERR_DB, "COPY failed: %s", PQresultErrorMessage(r));
		PQclear(r);
	}
	return rc;
}

static char *redact(struct run *x, const char *conninfo)
{
	char *e = NULL;
	PQconninfoOption *o = PQconninfoParse(conninfo, &e), *p;
	struct sb sb = SB_INIT;
	char *res;

	if (!o) {
		PQfreemem(e);
		return arena_strdup(&x->a, "(unparsable)");
	}
	for (p = o; p->keyword; p++) {
		if (!p->val || !strcmp(p->keyword, "password") || !strcmp(p->keyword, "sslpassword"))
			continue;
		sb_printf(&sb, "%s%s='", sb.len ? " " : "", p->keyword);
		for (const char *s = p->val; *s; s++) {
			if (*s == '\'' || *s == '\\')
				sb_putc(&sb, '\\');
			sb_putc(&sb, *s);
		}
		sb_putc(&sb, '\'');
	}
	PQconninfoFree(o);
	res = arena_strdup(&x->a, sb_cstr(&sb));
	sb_free(&sb);
	return res;
}

static char *hierarchy_text(struct run *x)
{
	cJSON *h = x->meta ? cJSON_GetObjectItem(x->meta, "hierarchy") : NULL, *it;
	struct sb sb = SB_INIT;
	char *res;

	if (!h || !cJSON_GetArraySize(h))
		return NULL;
	cJSON_ArrayForEach(it, h) {
		cJSON *lv = cJSON_GetObjectItem(it, "level"), *tabs = cJSON_GetObjectItem(it, "tables"), *t;
		int first = 1;

		sb_printf(&sb, "%sLevel %d: %s%s%s%s", sb.len ? "\n" : "", cJSON_IsNumber(lv) ? lv->valueint : 0,
		          jstr(it, "concept") ? jstr(it, "concept") : "?", jstr(it, "ko") ? " (" : "",
		          jstr(it, "ko") ? jstr(it, "ko") : "", jstr(it, "ko") ? ")" : "");
		if (jstr(it, "key"))
			sb_printf(&sb, " key %s", jstr(it, "key"));
		cJSON_ArrayForEach(t, tabs)
			if (cJSON_IsString(t)) {
				sb_printf(&sb, "%s%s", first ? " tables: " : ", ", t->valuestring);
				first = 0;
			}
	}
	res = arena_strdup(&x->a, sb_cstr(&sb));
	sb_free(&sb);
	return res;
}

static enum err write_catalog(struct run *x, int *changed)
{
	struct catalog *c = x->c;
	const char *name = x->o->target_name;
	char dim[16], ver[32];
	struct sb d = SB_INIT, keep = SB_INIT;
	PGresult *r = NULL;
	enum err rc;
	int any = 0;
	const char *p[10];

	snprintf(dim, sizeof dim, "%d", c->dim);
	if ((rc = db_exec(x->app, "BEGIN", 0, NULL, x->err, x->errlen)) != OK)
		return rc;
	p[0] = name;
	p[1] = redact(x, x->o->conninfo);
	p[2] = c->embed_provider;
	p[3] = dim;
	if ((rc = db_exec(x->app, "INSERT INTO askql.cat_targets (name, conninfo, embed_provider, embed_dim) "
	                  "VALUES ($1, $2, $3, $4::int) ON CONFLICT (name) DO NOTHING", 4, p, x->err, x->errlen)) != OK)
		goto fail;
	if (!(r = db_query(x->app, "SELECT version FROM askql.cat_targets WHERE name = $1 FOR UPDATE", 1, p,
	                   x->err, x->errlen))) {
		rc = ERR_DB;
		goto fail;
	}
	if (x->prev_version >= 0 && atol(PQgetvalue(r, 0, 0)) != x->prev_version) {
		rc = fail(x, ERR_DB, "catalog %s changed while indexing (another askql index run?); try again", name);
		goto fail;
	}
	PQclear(r);
	r = NULL;
	/* tables that disappeared */
	sb_putc(&keep, '{');
	for (int t = 0; t < c->ntables; t++) {
		sb_printf(&keep, "%s\"", t ? "," : "");
		for (const char *s = c->tables[t].schema; *s; s++) {
			if (*s == '"' || *s == '\\')
				sb_putc(&keep, '\\');
			sb_putc(&keep, *s);
		}
		sb_putc(&keep, '.');
		const char *bare = strchr(c->tables[t].name, '.') ? strchr(c->tables[t].name, '.') + 1 : c->tables[t].name;
		for (const char *s = bare; *s; s++) {
			if (*s == '"' || *s == '\\')
				sb_putc(&keep, '\\');
			sb_putc(&keep, *s);
		}
		sb_putc(&keep, '"');
	}
	sb_putc(&keep, '}');
	p[1] = sb_cstr(&keep);
	if (!(r = db_query(x->app, "DELETE FROM askql.cat_tables WHERE target = $1 AND "
	                   "NOT (schema_name || '.' || name = ANY ($2::text[])) RETURNING 1", 2, p, x->err, x->errlen))) {
		rc = ERR_DB;
		goto fail;
	}
	any |= PQntuples(r) > 0;
	PQclear(r);
	r = NULL;
	/* changed tables: replace their rows (columns and values cascade) */
	for (int t = 0; t < c->ntables; t++) {
		const struct cat_table *tb = &c->tables[t];
		const char *bare = strchr(tb->name, '.') ? strchr(tb->name, '.') + 1 : tb->name;
		char kind[2] = {x->tx[t].kind, 0}, rows[32];

		if (!x->tx[t].changed)
			continue;
		any = 1;
		p[1] = tb->schema;
		p[2] = bare;
		if ((rc = db_exec(x->app, "DELETE FROM askql.cat_tables WHERE target = $1 AND schema_name = $2 AND name = $3",
		                  3, p, x->err, x->errlen)) != OK)
			goto fail;
		snprintf(rows, sizeof rows, "%ld", tb->rows);
		cf(&d, name, 0); cf(&d, tb->schema, 0); cf(&d, bare, 0); cf(&d, kind, 0); cf(&d, rows, 0);
		cf(&d, tb->comment, 0); cf(&d, tb->full_name, 0); cf(&d, tb->concept, 0);
		arr_lit(&d, &x->tx[t].syn);
		cf(&d, x->tx[t].doc, 0); cf(&d, x->tx[t].hash, 0); cf(&d, tb->description_ko, 0);
		vec_field(&d, tb->vec, c->dim, 1);
	}
	if (d.len && (rc = copy_in(x, "COPY askql.cat_tables (target, schema_name, name, kind, row_estimate, "
	                           "comment, full_name, concept, synonyms, doc, hash, description_ko, embedding) FROM STDIN", &d)) != OK)
		goto fail;
	sb_reset(&d);
	for (int ci = 0; ci < c->ncolumns; ci++) {
		const struct cat_column *col = &c->columns[ci];
		const struct cat_table *tb = &c->tables[col->table];
		const char *bare = strchr(tb->name, '.') ? strchr(tb->name, '.') + 1 : tb->name;
		char num[32];

		if (!x->tx[col->table].changed)
			continue;
		cf(&d, name, 0); cf(&d, tb->schema, 0); cf(&d, bare, 0); cf(&d, col->name, 0);
		snprintf(num, sizeof num, "%d", x->cx[ci].attnum);
		cf(&d, num, 0); cf(&d, col->type, 0);
		cf(&d, col->nullable ? "t" : "f", 0); cf(&d, col->is_pk ? "t" : "f", 0); cf(&d, col->indexed ? "t" : "f", 0);
		cf(&d, col->is_unique ? "t" : "f", 0); cf(&d, col->is_flag ? "t" : "f", 0);
		num_field(&d, !isnan(x->cx[ci].n_distinct), x->cx[ci].n_distinct, 0);
		cf(&d, col->comment, 0); cf(&d, col->full_name, 0); cf(&d, col->description, 0); cf(&d, col->unit, 0);
		num_field(&d, col->has_range, col->lo, 0); num_field(&d, col->has_range, col->hi, 0);
		arr_lit(&d, &x->cx[ci].syn);
		cf(&d, col->description_ko, 0);
		{
			const struct phi_verdict *pv = x->cx[ci].phi;

			cf(&d, pv && pv->cls != PHI_UNCLASSIFIED ? phi_class_name(pv->cls) : NULL, 0);
			cf(&d, pv && *pv->rule ? pv->rule : NULL, 0);
			cf(&d, pv ? pv->evidence : NULL, 0);
		}
		vec_field(&d, col->vec, c->dim, 1);
	}
	if (d.len && (rc = copy_in(x, "COPY askql.cat_columns (target, schema_name, table_name, name, ordinal, type, "
	                           "nullable, is_pk, indexed, is_unique, is_flag, n_distinct, comment, full_name, description, "
	                           "unit, range_lo, range_hi, synonyms, description_ko, phi_class, phi_rule, phi_evidence, "
	                           "embedding) FROM STDIN", &d)) != OK)
		goto fail;
	sb_reset(&d);
	for (int i = 0; i < c->nvalues; i++) {
		const struct cat_value *v = &c->values[i];
		const struct cat_column *col = &c->columns[v->col];
		const struct cat_table *tb = &c->tables[col->table];
		const char *bare = strchr(tb->name, '.') ? strchr(tb->name, '.') + 1 : tb->name;
		const struct valx *vx = &x->vx[i];

		if (!x->tx[col->table].changed || phi_effective(x, v->col) == PHI_DIRECT)
			continue;   /* a direct identifier's values stay out of the catalog (and so of prompts) */
		cf(&d, name, 0); cf(&d, tb->schema, 0); cf(&d, bare, 0); cf(&d, col->name, 0); cf(&d, v->value, 0);
		cf(&d, vx->full_name, 0); cf(&d, vx->unit, 0);
		num_field(&d, vx->has_range, vx->lo, 0); num_field(&d, vx->has_range, vx->hi, 0);
		arr_lit(&d, &vx->syn);
		d.buf[d.len - 1] = '\n';
	}
	if (d.len && (rc = copy_in(x, "COPY askql.cat_values (target, schema_name, table_name, column_name, value, "
	                           "full_name, unit, range_lo, range_hi, synonyms) FROM STDIN", &d)) != OK)
		goto fail;
	sb_reset(&d);
	/* global part: edges, concepts, docs */
	if (!x->prev_global || strcmp(x->prev_global, x->global_hash) || any) {
		any = 1;
		if ((rc = db_exec(x->app, "DELETE FROM askql.cat_fks WHERE target = $1", 1, p, x->err, x->errlen)) != OK ||
		    (rc = db_exec(x->app, "DELETE FROM askql.cat_concepts WHERE target = $1", 1, p, x->err, x->errlen)) != OK ||
		    (rc = db_exec(x->app, "DELETE FROM askql.cat_docs WHERE target = $1", 1, p, x->err, x->errlen)) != OK)
			goto fail;
		for (int i = 0; i < c->nedges; i++) {
			const struct cat_edge *e = &c->edges[i];
			const struct cat_table *a, *b;
			char sc[32];

			if (e->from_c < 0)
				continue;
			a = &c->tables[e->from_t];
			b = &c->tables[e->to_t];
			cf(&d, name, 0);
			cf(&d, a->schema, 0); cf(&d, strchr(a->name, '.') ? strchr(a->name, '.') + 1 : a->name, 0);
			cf(&d, c->columns[e->from_c].name, 0);
			cf(&d, b->schema, 0); cf(&d, strchr(b->name, '.') ? strchr(b->name, '.') + 1 : b->name, 0);
			cf(&d, c->columns[e->to_c].name, 0);
			cf(&d, e->inferred ? "t" : "f", 0); cf(&d, e->confirmed ? "t" : "f", 0);
			snprintf(sc, sizeof sc, "%.3f", e->inferred && x->ex && i < x->capex ? x->ex[i].score : 1.0);
			cf(&d, sc, 1);
		}
		if (d.len && (rc = copy_in(x, "COPY askql.cat_fks (target, from_schema, from_table, from_col, to_schema, "
		                           "to_table, to_col, inferred, confirmed, score) FROM STDIN", &d)) != OK)
			goto fail;
		sb_reset(&d);
		for (int i = 0; i < c->nconcepts; i++) {
			const struct cat_concept *k = &c->concepts[i];

			cf(&d, name, 0); cf(&d, k->name, 0); cf(&d, k->ko, 0);
			arr_lit(&d, &x->kx[i].syn);
			cf(&d, k->definition, 0); cf(&d, k->sql, 0); cf(&d, x->kx[i].alt_sql, 0);
			arr_lit(&d, &x->kx[i].cols);
			vec_field(&d, k->vec, c->dim, 1);
		}
		if (d.len && (rc = copy_in(x, "COPY askql.cat_concepts (target, name, ko, synonyms, definition, sql, "
		                           "alt_sql, columns, embedding) FROM STDIN", &d)) != OK)
			goto fail;
		sb_reset(&d);
		for (int i = 0; i < x->ndocs; i++) {
			const struct doc *dc = &x->docs[i];

			cf(&d, name, 0); cf(&d, dc->path, 0); cf(&d, dc->kind, 0); cf(&d, dc->table, 0);
			cf(&d, dc->title, 0); cf(&d, dc->body, 0); cf(&d, dc->hash, 0);
			vec_field(&d, dc->vec, c->dim, 1);
		}
		if (d.len && (rc = copy_in(x, "COPY askql.cat_docs (target, path, kind, table_name, title, body, hash, "
		                           "embedding) FROM STDIN", &d)) != OK)
			goto fail;
	}
	{
		char *meta = x->meta ? cJSON_PrintUnformatted(x->meta) : NULL;
		char stats[256];

		snprintf(stats, sizeof stats, "{\"tables\": %d, \"columns\": %d, \"values\": %d, \"fks\": %d, "
		         "\"inferred_fks\": %d, \"concepts\": %d, \"docs\": %d, \"warnings\": %d}",
		         c->ntables, c->ncolumns, c->nvalues, c->nedges, x->res.inferred_fks, c->nconcepts,
		         x->ndocs, x->res.warnings);
		p[1] = redact(x, x->o->conninfo);
		p[2] = c->embed_provider;
		p[3] = dim;
		p[4] = c->now_ref;
		p[5] = x->global_hash;
		p[6] = c->hierarchy;
		p[7] = meta;
		p[8] = stats;
		p[9] = any ? "1" : "0";
		r = db_query(x->app, "UPDATE askql.cat_targets SET conninfo = $2, embed_provider = $3, embed_dim = $4::int, "
		             "now_ref = $5, global_hash = $6, hierarchy = $7, metadata = $8::jsonb, stats = $9::jsonb, "
		             "indexed_at = now(), version = version + $10::int, "
		             "changed_at = CASE WHEN $10::int = 1 THEN now() ELSE changed_at END "
		             "WHERE name = $1 RETURNING version", 10, p, x->err, x->errlen);
		free(meta);
		if (!r) {
			rc = ERR_DB;
			goto fail;
		}
		snprintf(ver, sizeof ver, "%s", PQgetvalue(r, 0, 0));
		x->res.version = atol(ver);
		PQclear(r);
		r = NULL;
	}
	if ((rc = db_exec(x->app, "COMMIT", 0, NULL, x->err, x->errlen)) != OK)
		goto fail;
	*changed = any;
	sb_free(&d);
	sb_free(&keep);
	return OK;
fail:
	PQclear(r);
	{
		char keeperr[1024];

		snprintf(keeperr, sizeof keeperr, "%s", x->err);
		db_exec(x->app, "ROLLBACK", 0, NULL, NULL, 0);
		snprintf(x->err, x->errlen, "writing the catalog failed, previous catalog kept: %s", keeperr);
	}
	sb_free(&d);
	sb_free(&keep);
	return rc ? rc : ERR_DB;
}

/* ---- the run ---------------------------------------------------------------------------- */

static char *join_strs(struct run *x, const struct strs *l)
{
	struct sb sb = SB_INIT;
	char *r;

	for (int i = 0; i < l->n; i++)
		sb_printf(&sb, "%s%s", i ? ", " : "", l->s[i]);
	r = l->n ? arena_strdup(&x->a, sb_cstr(&sb)) : NULL;
	sb_free(&sb);
	return r;
}

static void concepts_from_meta(struct run *x)
{
	struct catalog *c = x->c;
	cJSON *it;
	int n = x->meta ? cJSON_GetArraySize(cJSON_GetObjectItem(x->meta, "concepts")) : 0;

	x->kx = arena_alloc(&x->a, (size_t)(n + 1) * sizeof *x->kx);
	if (!x->meta || !x->kx)
		return;
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(x->meta, "concepts")) {
		const char *nm = jstr(it, "name");
		cJSON *cols = cJSON_GetObjectItem(it, "columns"), *cc;
		int k;

		if (!nm) {
			warn(x, "metadata concepts: an entry without a name was skipped");
			continue;
		}
		if ((k = cat_add_concept(c, nm, jstr(it, "ko"), jstr(it, "definition"), jstr(it, "sql"))) < 0)
			return;
		jsyn(x, &x->kx[k].syn, it);
		x->kx[k].alt_sql = jstr(it, "alt_sql") ? arena_strdup(&x->a, jstr(it, "alt_sql")) : NULL;
		cJSON_ArrayForEach(cc, cols)
			if (cJSON_IsString(cc)) {
				if (cat_find_column(c, cc->valuestring) < 0)
					warn(x, "metadata concept %s: column %s not found", nm, cc->valuestring);
				else
					strs_add(x, &x->kx[k].cols, cc->valuestring);
			}
	}
}

enum err catalog_index(PGconn *app, const struct index_opts *o, char *err, size_t errlen)
{
	struct run *x = calloc(1, sizeof *x);
	struct timespec t0, t1;
	enum err rc = OK;
	int changed = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!x) {
		snprintf(err, errlen, "out of memory");
		return ERR_NOMEM;
	}
	x->o = o;
	x->err = err;
	x->errlen = errlen;
	x->app = app;
	if (!o->target_name || !*o->target_name || !o->conninfo) {
		rc = fail(x, ERR_INPUT, "index: target name and conninfo are required");
		goto out;
	}
	/* files first: a malformed metadata, doc or PHI rules file must not touch anything */
	if ((rc = read_metadata(x)) != OK || (rc = read_docs(x)) != OK)
		goto out;
	{
		char perr[512];

		if (!(x->phi = phi_rules_get(perr, sizeof perr))) {
			rc = fail(x, ERR_PARSE, "%s", perr);
			goto out;
		}
	}
	{
		char cerr[512];
		struct target_conn_out why;

		/* by askql's deadline for every host together, never the peer's words (issue 27) */
		if (!(x->tgt = target_conn_open(o->conninfo, target_conn_deadline(), &why))) {
			target_conn_text(&why, cerr, sizeof cerr);
			rc = fail(x, ERR_NET, "target %s: cannot connect: %s", o->target_name, cerr);
			goto out;
		}
		/* issue 27: indexing samples values; askql's own database is never read as a target */
		if (target_conn_is_app(x->app, x->tgt) == 1) {
			rc = fail(x, ERR_DENIED, "target %s: the connection leads to askql's own database: refused",
			          o->target_name);
			goto out;
		}
	}
	progress(x, "connected to %s", o->target_name);
	/* read-only, bounded: sampling and overlap checks must never hang the indexer */
	db_exec(x->tgt, "SET default_transaction_read_only = on", 0, NULL, NULL, 0);
	db_exec(x->tgt, "SET statement_timeout = '10s'", 0, NULL, NULL, 0);
	if (!(x->c = cat_new(o->target_name, embed_conf_provider(), embed_conf_dim()))) {
		rc = fail(x, ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((rc = load_previous(x)) != OK || (rc = introspect(x)) != OK)
		goto out;
	if (!(x->zero = arena_alloc(&x->a, (size_t)x->c->dim * sizeof *x->zero))) {
		rc = fail(x, ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((rc = read_edits(x)) != OK || (rc = read_phi_corrections(x)) != OK)
		goto out;
	progress(x, "read the schema: %d tables, %d columns", x->c->ntables, x->c->ncolumns);
	apply_metadata(x);
	apply_docs(x);
	apply_edits(x);
	apply_lexicon(x);
	if (x->meta && jstr(x->meta, "reference_time"))
		x->c->now_ref = arena_strdup(&x->c->mem, jstr(x->meta, "reference_time"));
	x->c->hierarchy = hierarchy_text(x);
	/* values first, for every table: what sampling sees is part of each table's change
	 * check, so values that appear later (or were missed before) are picked up */
	for (int t = 0; t < x->c->ntables; t++) {
		uint64_t h = TEXT_HASH_SEED;

		if ((rc = sample_values(x, t)) != OK)
			goto out;
		for (int i = 0; i < x->c->nvalues; i++)
			if (x->c->columns[x->c->values[i].col].table == t)
				hs(&h, x->c->values[i].value);
		x->tx[t].vhash = h;
	}
	progress(x, "sampled the stored values of %d tables: %d values", x->c->ntables, x->c->nvalues);
	table_hashes(x);
	/* what changed: new or different tables, or everything when the embedding changed */
	{
		int all = o->force || !x->prev_provider || strcmp(x->prev_provider, x->c->embed_provider) ||
		          x->prev_dim != x->c->dim;

		for (int t = 0; t < x->c->ntables; t++) {
			char q[600];
			int pi;

			snprintf(q, sizeof q, "%s.%s", x->c->tables[t].schema,
			         strchr(x->c->tables[t].name, '.') ? strchr(x->c->tables[t].name, '.') + 1 : x->c->tables[t].name);
			pi = strmap_get(&x->prev_hash, q);
			x->tx[t].changed = all || pi < 0 || strcmp(x->prev_hashes[pi], x->tx[t].hash);
			x->res.tables_reindexed += x->tx[t].changed;
			if (!x->tx[t].changed) {
				/* unchanged: nothing to embed or sample, its stored rows stay */
				x->c->tables[t].vec = x->zero;
				for (int k = 0; k < x->c->tables[t].ncols; k++)
					x->c->columns[x->c->tables[t].first_col + k].vec = x->zero;
			}
		}
	}
	progress(x, "%d of %d tables new or changed", x->res.tables_reindexed, x->c->ntables);
	/* before metadata values join the value list: the distinct values here are the sampled ones */
	if ((rc = classify_tables(x)) != OK)
		goto out;
	for (int t = 0; t < x->c->ntables; t++)
		if (x->tx[t].changed)
			progress(x, "re-indexing %s", x->c->tables[t].name);
	if ((rc = meta_values(x)) != OK)
		goto out;
	apply_lexicon_values(x);
	apply_removals(x);
	concepts_from_meta(x);
	infer_fks(x);
	drop_empty_keys(x);
	progress(x, "join keys: %d (declared and inferred)", x->c->nedges);
	if ((rc = apply_decisions(x)) != OK)
		goto out;
	/* global hash: every table hash, the metadata, the docs, the edges */
	{
		uint64_t h = TEXT_HASH_SEED;

		for (int t = 0; t < x->c->ntables; t++)
			hs(&h, x->tx[t].hash);
		hash_json(&h, x->meta);
		for (int i = 0; i < x->ndocs; i++)
			hs(&h, x->docs[i].hash);
		for (int i = 0; i < x->c->nedges; i++) {
			char b[64];

			snprintf(b, sizeof b, "%d>%d %d%d", x->c->edges[i].from_c, x->c->edges[i].to_c,
			         x->c->edges[i].inferred, x->c->edges[i].confirmed);
			hs(&h, b);
		}
		snprintf(x->global_hash, sizeof x->global_hash, "%016llx", (unsigned long long)h);
	}
	/* synonyms are part of the embedded text (Korean terms reach the vector axis too) */
	for (int t = 0; t < x->c->ntables; t++)
		x->c->tables[t].syn_text = join_strs(x, &x->tx[t].syn);
	for (int ci = 0; ci < x->c->ncolumns; ci++)
		x->c->columns[ci].syn_text = join_strs(x, &x->cx[ci].syn);
	progress(x, "embedding what is new");
	/* embeddings of what is new; docs too (knowledge retrieval) */
	if ((rc = cat_finish(x->c, err, errlen)) != OK)
		goto out;
	if (x->ndocs && (!x->prev_global || strcmp(x->prev_global, x->global_hash) || x->res.tables_reindexed)) {
		const char **texts = calloc((size_t)x->ndocs, sizeof *texts);
		float *v = malloc((size_t)x->ndocs * (size_t)x->c->dim * sizeof *v);

		for (int i = 0; texts && v && i < x->ndocs; i++)
			texts[i] = x->docs[i].body;
		if (!texts || !v)
			rc = fail(x, ERR_NOMEM, "out of memory");
		else if ((rc = embed_texts(x->c->embed_provider, x->c->dim, texts, x->ndocs, v, err, errlen)) == OK)
			for (int i = 0; i < x->ndocs; i++) {
				x->docs[i].vec = arena_alloc(&x->a, (size_t)x->c->dim * sizeof *v);
				if (x->docs[i].vec)
					memcpy(x->docs[i].vec, v + (size_t)i * (size_t)x->c->dim, (size_t)x->c->dim * sizeof *v);
			}
		free(texts);
		free(v);
		if (rc != OK)
			goto out;
	}
	progress(x, "writing the catalog");
	if ((rc = write_catalog(x, &changed)) != OK)
		goto out;
	x->res.changed = changed;
out:
	clock_gettime(CLOCK_MONOTONIC, &t1);
	x->res.seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (x->c) {
		x->res.tables = x->c->ntables;
		x->res.columns = x->c->ncolumns;
		x->res.values = x->c->nvalues;
		x->res.fks = x->c->nedges;
		x->res.concepts = x->c->nconcepts;
	}
	x->res.docs = x->ndocs;
	if (o->verbose)
		for (int i = 0; i < x->warnings.n; i++)
			fprintf(stderr, "askql index: warning: %s\n", x->warnings.s[i]);
	if (o->result)
		*o->result = x->res;
	if (x->tgt)
		PQfinish(x->tgt);
	cJSON_Delete(x->meta);
	cJSON_Delete(x->edits);
	cat_free(x->c);
	free(x->tx);
	free(x->cx);
	free(x->vx);
	free(x->ex);
	strmap_free(&x->prev_hash);
	arena_free(&x->a);
	free(x);
	return rc;
}
