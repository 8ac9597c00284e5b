/* cache.c: the per-process copy of each target's catalog, loaded from askql.cat_* and refreshed on version change. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "catalog/catalog_int.h"
#include "catalog/embed.h"
#include "catalog/phi.h"
#include "store/db.h"
#include "util/conf.h"
#include "util/log.h"

#define MAXCACHED 8

static struct catalog *cached[MAXCACHED];

/* parse a real[] text literal "{0.1,-0.2}" into v[dim]; 0 when it has exactly dim items */
int cat_parse_vec(const char *s, float *v, int dim)
{
	char *end;
	int n = 0;

	if (!s || *s != '{')
		return -1;
	s++;
	while (*s && *s != '}') {
		if (n >= dim)
			return -1;
		v[n++] = strtof(s, &end);
		if (end == s)
			return -1;
		s = end;
		if (*s == ',')
			s++;
	}
	return n == dim ? 0 : -1;
}

/* text[] literal to its elements: calls fn(elem) for each (handles quotes and escapes) */
void cat_each_text(const char *s, void (*fn)(void *, const char *), void *arg)
{
	char buf[1024];

	if (!s || *s != '{')
		return;
	s++;
	while (*s && *s != '}') {
		size_t n = 0;

		if (*s == '"') {
			s++;
			while (*s && *s != '"') {
				if (*s == '\\' && s[1])
					s++;
				if (n + 1 < sizeof buf)
					buf[n++] = *s;
				s++;
			}
			if (*s == '"')
				s++;
		} else {
			while (*s && *s != ',' && *s != '}') {
				if (n + 1 < sizeof buf)
					buf[n++] = *s;
				s++;
			}
		}
		buf[n] = '\0';
		if (strcmp(buf, "NULL") || n != 4)
			fn(arg, buf);
		if (*s == ',')
			s++;
	}
}

struct termctx { struct catalog *c; int kind, id; float w; };
static void add_syn(void *arg, const char *s)
{
	struct termctx *t = arg;

	cat_add_term(t->c, s, t->kind, t->id, t->w);
}

struct colsctx { struct catalog *c; struct cat_concept *k; };
static void add_concept_col(void *arg, const char *s)
{
	struct colsctx *x = arg;
	int ci = cat_find_column(x->c, s);
	int *p;

	if (ci < 0)
		return;
	if (!(p = arena_realloc(&x->c->mem, x->k->cols, (size_t)x->k->ncols * sizeof *p,
	                        (size_t)(x->k->ncols + 1) * sizeof *p)))
		return;
	p[x->k->ncols++] = ci;
	x->k->cols = p;
}

static const char *val(PGresult *r, int i, int j)
{
	return PQgetisnull(r, i, j) ? NULL : PQgetvalue(r, i, j);
}

static float *vec_or_null(struct catalog *c, const char *s)
{
	float *v;

	if (!s || !(v = arena_alloc(&c->mem, (size_t)c->dim * sizeof *v)))
		return NULL;
	return cat_parse_vec(s, v, c->dim) ? NULL : v;
}

/* The columns the limited and aggregate levels read: level.c's readable() and generalised() in SQL */
#define LEVEL_COLUMNS \
	"AND c.schema_name = 'public' AND (coalesce(k.class, c.phi_class) IN ('none', 'sensitive') OR " \
	"(coalesce(k.class, c.phi_class) = 'quasi' AND (c.type = 'date' OR c.type LIKE 'timestamp%' OR " \
	"(c.phi_rule = 'age' AND (c.type IN ('integer', 'smallint', 'bigint', 'real', 'double precision') " \
	"OR c.type LIKE 'numeric%'))))) "

static struct catalog *load(PGconn *app, const char *target, int restricted, PGresult *tr, char *err, size_t errlen)
{
	const char *p[3] = {target, NULL, NULL};
	PGresult *rt = NULL, *rc = NULL, *rv = NULL, *rf = NULL, *rk = NULL, *rq = NULL;
	struct catalog *c = cat_new(target, PQgetvalue(tr, 0, 2), atoi(PQgetvalue(tr, 0, 3)));
	char dimbuf[16];
	int ci = 0;

	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	c->version = atol(PQgetvalue(tr, 0, 0));
	c->verified_version = atol(PQgetvalue(tr, 0, 1));
	c->now_ref = val(tr, 0, 4) ? arena_strdup(&c->mem, val(tr, 0, 4)) : NULL;
	c->hierarchy = val(tr, 0, 5) ? arena_strdup(&c->mem, val(tr, 0, 5)) : NULL;
	c->metadata = val(tr, 0, 6) ? arena_strdup(&c->mem, val(tr, 0, 6)) : NULL;
	c->restricted = restricted;
	if (!(rt = db_query(app, restricted
	                    ? "SELECT schema_name, name, row_estimate, comment, full_name, concept, "
	                      "synonyms, embedding, description_ko FROM askql.cat_tables WHERE target = $1 AND schema_name = 'public' "
	                      "ORDER BY schema_name COLLATE \"C\", name COLLATE \"C\""
	                    : "SELECT schema_name, name, row_estimate, comment, full_name, concept, "
	                      "synonyms, embedding, description_ko FROM askql.cat_tables WHERE target = $1 "
	                      "ORDER BY schema_name COLLATE \"C\", name COLLATE \"C\"", 1, p, err, errlen)) ||
	    !(rc = db_query(app, restricted ? "SELECT c.schema_name, c.table_name, c.name, c.type, c.nullable, c.is_pk, c.indexed, "
	                    "c.comment, c.full_name, c.description, c.unit, c.range_lo, c.range_hi, c.synonyms, c.embedding, "
	                    "c.is_unique, c.is_flag, c.description_ko, c.phi_class, c.phi_rule, c.phi_evidence, k.class, k.reason "
	                    "FROM askql.cat_columns c LEFT JOIN askql.phi_corrections k ON k.target = c.target AND "
	                    "k.schema_name = c.schema_name AND k.table_name = c.table_name AND k.column_name = c.name "
	                    "WHERE c.target = $1 " LEVEL_COLUMNS
	                    "ORDER BY c.schema_name COLLATE \"C\", c.table_name COLLATE \"C\", c.ordinal"
	                    : "SELECT c.schema_name, c.table_name, c.name, c.type, c.nullable, c.is_pk, c.indexed, "
	                    "c.comment, c.full_name, c.description, c.unit, c.range_lo, c.range_hi, c.synonyms, c.embedding, "
	                    "c.is_unique, c.is_flag, c.description_ko, c.phi_class, c.phi_rule, c.phi_evidence, k.class, k.reason "
	                    "FROM askql.cat_columns c LEFT JOIN askql.phi_corrections k ON k.target = c.target AND "
	                    "k.schema_name = c.schema_name AND k.table_name = c.table_name AND k.column_name = c.name "
	                    "WHERE c.target = $1 "
	                    "ORDER BY c.schema_name COLLATE \"C\", c.table_name COLLATE \"C\", c.ordinal", 1, p, err, errlen)) ||
	    !(rv = db_query(app, "SELECT schema_name, table_name, column_name, value, full_name, unit, "
	                    "range_lo, range_hi, synonyms FROM askql.cat_values WHERE target = $1 "
	                    "ORDER BY 1, 2, 3, 4", 1, p, err, errlen)) ||
	    !(rf = db_query(app, "SELECT from_schema, from_table, from_col, to_schema, to_table, to_col, "
	                    "inferred, confirmed FROM askql.cat_fks WHERE target = $1 ORDER BY 1, 2, 3, 4, 5, 6",
	                    1, p, err, errlen)) ||
	    !(rk = db_query(app, "SELECT name, ko, synonyms, definition, sql, columns, embedding "
	                    "FROM askql.cat_concepts WHERE target = $1 ORDER BY name", 1, p, err, errlen)))
		goto fail;
	snprintf(dimbuf, sizeof dimbuf, "%d", c->dim);
	p[1] = c->embed_provider;
	p[2] = dimbuf;
	if (!(rq = db_query(app, "SELECT id, question, sql, success_count, use_count, embedding "
	                    "FROM askql.cat_verified WHERE target = $1 AND embed_provider = $2 AND "
	                    "embed_dim = $3::int ORDER BY id", 3, p, err, errlen)))
		goto fail;
	for (int i = 0; i < PQntuples(rt); i++) {
		const char *sch = PQgetvalue(rt, i, 0), *tn = PQgetvalue(rt, i, 1);
		int t = cat_add_table(c, sch, tn, val(rt, i, 3), val(rt, i, 4),
		                      val(rt, i, 2) ? atol(val(rt, i, 2)) : -1);
		struct termctx tc = {c, TK_TABLE, t, 2.0f};

		if (t < 0)
			goto nomem;
		c->tables[t].concept = val(rt, i, 5) ? arena_strdup(&c->mem, val(rt, i, 5)) : NULL;
		c->tables[t].vec = vec_or_null(c, val(rt, i, 7));
		c->tables[t].description_ko = val(rt, i, 8) ? arena_strdup(&c->mem, val(rt, i, 8)) : NULL;
		cat_each_text(val(rt, i, 6), add_syn, &tc);
		/* both results are ordered the same way: consume this table's columns */
		for (; ci < PQntuples(rc) && !strcmp(PQgetvalue(rc, ci, 0), sch) &&
		       !strcmp(PQgetvalue(rc, ci, 1), tn); ci++) {
			int k = cat_add_column(c, t, PQgetvalue(rc, ci, 2), PQgetvalue(rc, ci, 3),
			                       val(rc, ci, 7), val(rc, ci, 8), val(rc, ci, 10));
			struct cat_column *col;
			struct termctx cc = {c, TK_COLUMN, k, 2.0f};

			if (k < 0)
				goto nomem;
			col = &c->columns[k];
			col->nullable = *PQgetvalue(rc, ci, 4) == 't';
			col->is_pk = *PQgetvalue(rc, ci, 5) == 't';
			col->indexed = *PQgetvalue(rc, ci, 6) == 't';
			col->is_unique = *PQgetvalue(rc, ci, 15) == 't';
			col->is_flag = *PQgetvalue(rc, ci, 16) == 't';
			col->description = val(rc, ci, 9) ? arena_strdup(&c->mem, val(rc, ci, 9)) : NULL;
			col->description_ko = val(rc, ci, 17) ? arena_strdup(&c->mem, val(rc, ci, 17)) : NULL;
			if (val(rc, ci, 11) && val(rc, ci, 12)) {
				col->has_range = 1;
				col->lo = atof(val(rc, ci, 11));
				col->hi = atof(val(rc, ci, 12));
			}
			col->vec = vec_or_null(c, val(rc, ci, 14));
			/* PHI class (phi.h): the classifier's, and an admin's correction that wins over it */
			{
				enum phi_class pc = PHI_UNCLASSIFIED;

				if (val(rc, ci, 18) && !phi_class_parse(val(rc, ci, 18), &pc))
					col->phi_auto = (signed char)pc;
				pc = PHI_UNCLASSIFIED;
				if (val(rc, ci, 21) && !phi_class_parse(val(rc, ci, 21), &pc))
					col->phi_fixed = (signed char)pc;
				col->phi_rule = val(rc, ci, 19) ? arena_strdup(&c->mem, val(rc, ci, 19)) : NULL;
				col->phi_evidence = val(rc, ci, 20) ? arena_strdup(&c->mem, val(rc, ci, 20)) : NULL;
				col->phi_reason = val(rc, ci, 22) ? arena_strdup(&c->mem, val(rc, ci, 22)) : NULL;
			}
			cat_each_text(val(rc, ci, 13), add_syn, &cc);
		}
	}
	for (int i = 0; i < PQntuples(rv); i++) {
		char q[800];
		int col, v;

		snprintf(q, sizeof q, "%s.%s.%s", PQgetvalue(rv, i, 0), PQgetvalue(rv, i, 1), PQgetvalue(rv, i, 2));
		if ((col = cat_find_column(c, q)) < 0)
			continue;
		if ((v = cat_add_value(c, col, PQgetvalue(rv, i, 3))) < 0)
			goto nomem;
		struct cat_value *cv = &c->values[v];
		struct termctx vc = {c, TK_VALUE, v, 2.0f};
		cv->full_name = val(rv, i, 4) ? arena_strdup(&c->mem, val(rv, i, 4)) : NULL;
		cv->unit = val(rv, i, 5) ? arena_strdup(&c->mem, val(rv, i, 5)) : NULL;
		if (val(rv, i, 6) && val(rv, i, 7)) {
			cv->has_range = 1;
			cv->lo = atof(val(rv, i, 6));
			cv->hi = atof(val(rv, i, 7));
		}
		if (cv->full_name)
			cat_add_term(c, cv->full_name, TK_VALUE, v, 2.0f);
		cat_each_text(val(rv, i, 8), add_syn, &vc);
	}
	for (int i = 0; i < PQntuples(rf); i++) {
		char a[800], b[800];
		int fc, tc;

		snprintf(a, sizeof a, "%s.%s.%s", PQgetvalue(rf, i, 0), PQgetvalue(rf, i, 1), PQgetvalue(rf, i, 2));
		snprintf(b, sizeof b, "%s.%s.%s", PQgetvalue(rf, i, 3), PQgetvalue(rf, i, 4), PQgetvalue(rf, i, 5));
		if ((fc = cat_find_column(c, a)) < 0 || (tc = cat_find_column(c, b)) < 0)
			continue;
		if (cat_add_edge(c, fc, tc, *PQgetvalue(rf, i, 6) == 't', *PQgetvalue(rf, i, 7) == 't') < 0)
			goto nomem;
	}
	for (int i = 0; i < PQntuples(rk); i++) {
		int k = cat_add_concept(c, PQgetvalue(rk, i, 0), val(rk, i, 1), val(rk, i, 3), val(rk, i, 4));
		struct termctx kc = {c, TK_CONCEPT, k, 2.0f};
		struct colsctx xc;

		if (k < 0)
			goto nomem;
		xc.c = c;
		xc.k = &c->concepts[k];
		c->concepts[k].vec = vec_or_null(c, val(rk, i, 6));
		cat_each_text(val(rk, i, 2), add_syn, &kc);
		cat_each_text(val(rk, i, 5), add_concept_col, &xc);
	}
	for (int i = 0; i < PQntuples(rq); i++) {
		struct cat_verified *v;

		if (c->nverified == c->capverified) {
			int nc = c->capverified ? c->capverified * 2 : 16;
			struct cat_verified *nv = realloc(c->verified, (size_t)nc * sizeof *nv);

			if (!nv)
				goto nomem;
			c->verified = nv;
			c->capverified = nc;
		}
		v = &c->verified[c->nverified];
		v->id = atol(PQgetvalue(rq, i, 0));
		v->question = arena_strdup(&c->mem, PQgetvalue(rq, i, 1));
		v->sql = arena_strdup(&c->mem, PQgetvalue(rq, i, 2));
		v->success_count = atoi(PQgetvalue(rq, i, 3));
		v->use_count = atoi(PQgetvalue(rq, i, 4));
		if (!(v->vec = vec_or_null(c, val(rq, i, 5))))
			continue;
		c->nverified++;
	}
	if (cat_finish(c, err, errlen) != OK)
		goto fail;
	PQclear(rt); PQclear(rc); PQclear(rv); PQclear(rf); PQclear(rk); PQclear(rq);
	return c;
nomem:
	snprintf(err, errlen, "out of memory loading the catalog of %s", target);
fail:
	PQclear(rt); PQclear(rc); PQclear(rv); PQclear(rf); PQclear(rk); PQclear(rq);
	cat_free(c);
	return NULL;
}

struct catalog *catalog_get(PGconn *app, const char *target, char *err, size_t errlen)
{
	return catalog_get_level(app, target, 0, err, errlen);
}

struct catalog *catalog_get_level(PGconn *app, const char *target, int restricted, char *err, size_t errlen)
{
	const char *p[1] = {target};
	PGresult *tr;
	struct catalog *c = NULL;
	int slot = -1;

	if (!app || !target) {
		snprintf(err, errlen, "no app database connection or target");
		return NULL;
	}
	if (!(tr = db_query(app, "SELECT version, verified_version, embed_provider, embed_dim, now_ref, "
	                    "hierarchy, metadata::text FROM askql.cat_targets WHERE name = $1", 1, p, err, errlen)))
		return NULL;
	if (PQntuples(tr) != 1) {
		snprintf(err, errlen, "target '%s' is not indexed (run: askql index --name %s --target URL)",
		         target, target);
		goto out;
	}
	/* the embedding consistency rule: a catalog is searched with the provider that built it */
	if (strcmp(PQgetvalue(tr, 0, 2), embed_conf_provider()) || atoi(PQgetvalue(tr, 0, 3)) != embed_conf_dim()) {
		snprintf(err, errlen, "catalog '%s' was built with embedding %s/%s but this process is "
		         "configured with %s/%d; re-index the target (askql index) or set embed_provider/embed_dim "
		         "to match", target, PQgetvalue(tr, 0, 2), PQgetvalue(tr, 0, 3), embed_conf_provider(),
		         embed_conf_dim());
		goto out;
	}
	for (int i = 0; i < MAXCACHED; i++) {
		if (cached[i] && !strcmp(cached[i]->target, target) && cached[i]->restricted == (restricted != 0)) {
			slot = i;
			if (cached[i]->version == atol(PQgetvalue(tr, 0, 0)) &&
			    cached[i]->verified_version == atol(PQgetvalue(tr, 0, 1))) {
				c = cached[i];
				goto out;
			}
		}
	}
	if (!(c = load(app, target, restricted != 0, tr, err, errlen)))
		goto out;
	if (slot < 0) {
		for (int i = 0; i < MAXCACHED && slot < 0; i++)
			if (!cached[i])
				slot = i;
		if (slot < 0)
			slot = 0;
	}
	cat_free(cached[slot]);
	cached[slot] = c;
	log_debug("catalog %s version %ld loaded (%d tables, %d columns)", target, c->version,
	          c->ntables, c->ncolumns);
out:
	PQclear(tr);
	return c;
}

long catalog_version(const struct catalog *cat) { return cat->version; }
const char *catalog_embed_provider(const struct catalog *cat) { return cat->embed_provider; }
int catalog_embed_dim(const struct catalog *cat) { return cat->dim; }
size_t catalog_bytes(const struct catalog *cat) { return cat->bytes; }
const char *catalog_now_ref(const struct catalog *cat) { return cat->now_ref; }

int catalog_similar(struct catalog *cat, const char *question, int k, double min_score,
                    struct ret_similar *out)
{
	float *q;
	int n = 0;

	if (!cat || !question || k <= 0 || !cat->nverified)
		return 0;
	if (!(q = malloc((size_t)cat->dim * sizeof *q)))
		return 0;
	if (strcmp(cat->embed_provider, "builtin")) {
		char err[256];

		if (embed_texts(cat->embed_provider, cat->dim, &question, 1, q, err, sizeof err) != OK) {
			log_warn("catalog_similar: %s", err);
			free(q);
			return 0;
		}
	} else {
		embed_builtin(question, cat->dim, q);
	}
	for (int i = 0; i < cat->nverified; i++) {
		double s = vec_dot(q, cat->verified[i].vec, cat->dim);
		int j;

		if (s < min_score)
			continue;
		/* keep out[0..n) sorted, best first */
		if (n < k)
			j = n++;
		else if (s > out[k - 1].score)
			j = k - 1;
		else
			continue;
		for (; j > 0 && out[j - 1].score < s; j--)
			out[j] = out[j - 1];
		out[j] = (struct ret_similar){cat->verified[i].question, cat->verified[i].sql, s};
	}
	free(q);
	return n;
}

/* the vector text of a float array for real[] input */
void cat_vec_literal(const float *v, int dim, char *buf, size_t n);
void cat_vec_literal(const float *v, int dim, char *buf, size_t n)
{
	size_t used = 0;

	used += (size_t)snprintf(buf, n, "{");
	for (int i = 0; i < dim && used < n; i++)
		used += (size_t)snprintf(buf + used, n - used, "%s%.5g", i ? "," : "", (double)v[i]);
	if (used < n)
		snprintf(buf + used, n - used, "}");
}

enum err catalog_verified_add(PGconn *app, const char *target, const char *question,
                              const char *sql, int success, char *err, size_t errlen)
{
	const char *p[6];
	PGresult *r;
	char dim[16], *lit = NULL;
	float *v = NULL;
	enum err rc = ERR_DB;
	int d;

	p[0] = target;
	if (!(r = db_query(app, "SELECT embed_provider, embed_dim FROM askql.cat_targets WHERE name = $1",
	                   1, p, err, errlen)))
		return ERR_DB;
	if (PQntuples(r) != 1) {
		snprintf(err, errlen, "target '%s' is not indexed", target);
		PQclear(r);
		return ERR_NOTFOUND;
	}
	d = atoi(PQgetvalue(r, 0, 1));
	snprintf(dim, sizeof dim, "%d", d);
	if (!(v = malloc((size_t)d * sizeof *v)) || !(lit = malloc((size_t)d * 16 + 8))) {
		rc = ERR_NOMEM;
		goto out;
	}
	if ((rc = embed_texts(PQgetvalue(r, 0, 0), d, &question, 1, v, err, errlen)) != OK)
		goto out;
	cat_vec_literal(v, d, lit, (size_t)d * 16 + 8);
	p[1] = question;
	p[2] = sql;
	p[3] = success ? "1" : "0";
	p[4] = PQgetvalue(r, 0, 0);
	p[5] = lit;
	/* dim travels inside the provider row; the statement keeps both in one transaction */
	rc = db_exec(app, "WITH up AS (INSERT INTO askql.cat_verified AS v (target, question, sql, "
	             "success_count, use_count, embed_provider, embed_dim, embedding) "
	             "SELECT $1, $2, $3, $4::int, 1, $5, array_length($6::real[], 1), $6::real[] "
	             "ON CONFLICT (target, question, sql) DO UPDATE SET "
	             "success_count = v.success_count + $4::int, use_count = v.use_count + 1, "
	             "updated_at = now() RETURNING 1) "
	             "UPDATE askql.cat_targets SET verified_version = verified_version + 1 "
	             "WHERE name = $1 AND EXISTS (SELECT 1 FROM up)", 6, p, err, errlen);
out:
	PQclear(r);
	free(v);
	free(lit);
	return rc;
}

enum err catalog_verified_remove(PGconn *app, const char *target, const char *question,
                                 const char *sql, char *err, size_t errlen)
{
	const char *p[3] = {target, question, sql};

	return db_exec(app, "WITH gone AS (DELETE FROM askql.cat_verified WHERE target = $1 AND question = $2 "
	               "AND sql = $3 RETURNING 1) "
	               "UPDATE askql.cat_targets SET verified_version = verified_version + 1 "
	               "WHERE name = $1 AND EXISTS (SELECT 1 FROM gone)", 3, p, err, errlen);
}

int catalog_split3(const char *s, char *sch, char *tab, char *col, size_t n)
{
	const char *d1 = strchr(s, '.'), *d2 = d1 ? strchr(d1 + 1, '.') : NULL;

	if (!d1)
		return -1;
	if (d2) {
		snprintf(sch, n, "%.*s", (int)(d1 - s), s);
		snprintf(tab, n, "%.*s", (int)(d2 - d1 - 1), d1 + 1);
		snprintf(col, n, "%s", d2 + 1);
	} else {
		snprintf(sch, n, "public");
		snprintf(tab, n, "%.*s", (int)(d1 - s), s);
		snprintf(col, n, "%s", d1 + 1);
	}
	return 0;
}

enum err catalog_fk_decide(PGconn *app, const char *target, const char *from_col,
                           const char *to_col, const char *decision, char *err, size_t errlen)
{
	char a[3][256], b[3][256];
	const char *p[8];
	PGresult *r;
	enum err rc;

	if (strcmp(decision, "confirmed") && strcmp(decision, "removed")) {
		snprintf(err, errlen, "decision must be confirmed or removed");
		return ERR_INPUT;
	}
	if (catalog_split3(from_col, a[0], a[1], a[2], 256) || catalog_split3(to_col, b[0], b[1], b[2], 256)) {
		snprintf(err, errlen, "columns are written table.column or schema.table.column");
		return ERR_INPUT;
	}
	p[0] = target;
	p[1] = a[0]; p[2] = a[1]; p[3] = a[2];
	p[4] = b[0]; p[5] = b[1]; p[6] = b[2];
	p[7] = decision;
	if ((rc = db_exec(app, "BEGIN", 0, NULL, err, errlen)) != OK)
		return rc;
	/* confirming may also add an edge nobody declared or inferred, as long as both columns are known */
	r = db_query(app, strcmp(decision, "removed") ?
	             "INSERT INTO askql.cat_fks (target, from_schema, from_table, from_col, to_schema, to_table, to_col, "
	             "inferred, confirmed) SELECT $1, $2, $3, $4, $5, $6, $7, false, true "
	             "WHERE $8 <> '' AND (SELECT count(*) FROM askql.cat_columns WHERE target = $1 AND "
	             "((schema_name = $2 AND table_name = $3 AND name = $4) OR (schema_name = $5 AND table_name = $6 AND name = $7))) = 2 "
	             "ON CONFLICT (target, from_schema, from_table, from_col, to_schema, to_table, to_col) "
	             "DO UPDATE SET confirmed = true RETURNING 1" :
	             "DELETE FROM askql.cat_fks WHERE target = $1 AND from_schema = $2 AND "
	             "from_table = $3 AND from_col = $4 AND to_schema = $5 AND to_table = $6 AND to_col = $7 "
	             "AND $8 <> '' RETURNING 1", 8, p, err, errlen);
	if (!r || PQntuples(r) == 0) {
		if (r)
			snprintf(err, errlen, strcmp(decision, "removed") ? "no columns %s and %s in catalog %s" :
			         "no join edge %s -> %s in catalog %s", from_col, to_col, target);
		PQclear(r);
		db_exec(app, "ROLLBACK", 0, NULL, NULL, 0);
		return r ? ERR_NOTFOUND : ERR_DB;
	}
	PQclear(r);
	if ((rc = db_exec(app, "INSERT INTO askql.cat_fk_decisions (target, from_schema, from_table, from_col, "
	                  "to_schema, to_table, to_col, decision) VALUES ($1,$2,$3,$4,$5,$6,$7,$8) "
	                  "ON CONFLICT (target, from_schema, from_table, from_col, to_schema, to_table, to_col) "
	                  "DO UPDATE SET decision = EXCLUDED.decision, decided_at = now()", 8, p, err, errlen)) != OK ||
	    (rc = db_exec(app, "UPDATE askql.cat_targets SET version = version + 1, changed_at = now() "
	                  "WHERE name = $1", 1, p, err, errlen)) != OK) {
		db_exec(app, "ROLLBACK", 0, NULL, NULL, 0);
		return rc;
	}
	return db_exec(app, "COMMIT", 0, NULL, err, errlen);
}

