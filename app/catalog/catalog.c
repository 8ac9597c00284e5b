/* catalog.c: building the in-memory catalog: entities, derived terms, value/trigram indexes, FK graph. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "catalog/catalog_int.h"
#include "catalog/embed.h"
#include "catalog/text.h"
#include "util/sb.h"

/* ---- string map ---------------------------------------------------------------------- */

static size_t slot(const struct strmap *m, const char *k)
{
	size_t i = (size_t)text_hash(k, strlen(k), TEXT_HASH_SEED) & (m->cap - 1);

	while (m->keys[i] && strcmp(m->keys[i], k))
		i = (i + 1) & (m->cap - 1);
	return i;
}

int strmap_get(const struct strmap *m, const char *k)
{
	size_t i;

	if (!m->cap)
		return -1;
	i = slot(m, k);
	return m->keys[i] ? m->vals[i] : -1;
}

int strmap_put(struct strmap *m, struct arena *a, const char *k, int v)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap) {
		struct strmap g = {0};

		g.cap = m->cap ? m->cap * 2 : 64;
		g.keys = calloc(g.cap, sizeof *g.keys);
		g.vals = calloc(g.cap, sizeof *g.vals);
		if (!g.keys || !g.vals) {
			free(g.keys);
			free(g.vals);
			return -1;
		}
		for (size_t j = 0; j < m->cap; j++)
			if (m->keys[j]) {
				size_t s = slot(&g, m->keys[j]);

				g.keys[s] = m->keys[j];
				g.vals[s] = m->vals[j];
			}
		g.n = m->n;
		free(m->keys);
		free(m->vals);
		*m = g;
	}
	i = slot(m, k);
	if (!m->keys[i]) {
		if (!(m->keys[i] = arena_strdup(a, k)))
			return -1;
		m->n++;
	}
	m->vals[i] = v;
	return 0;
}

void strmap_free(struct strmap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof *m);
}

/* ---- builder ----------------------------------------------------------------------------- */

#define GROW(arr, n, cap) \
	((n) < (cap) ? 0 : grow((void **)&(arr), &(cap), sizeof *(arr)))

static int grow(void **arr, int *cap, size_t elem)
{
	int nc = *cap ? *cap * 2 : 16;
	void *p = realloc(*arr, (size_t)nc * elem);

	if (!p)
		return -1;
	memset((char *)p + (size_t)*cap * elem, 0, (size_t)(nc - *cap) * elem);
	*arr = p;
	*cap = nc;
	return 0;
}

static char *dup(struct catalog *c, const char *s)
{
	return s && *s ? arena_strdup(&c->mem, s) : NULL;
}

struct catalog *cat_new(const char *target, const char *provider, int dim)
{
	struct catalog *c = calloc(1, sizeof *c);

	if (!c)
		return NULL;
	c->target = dup(c, target);
	c->embed_provider = dup(c, provider ? provider : "builtin");
	c->dim = dim > 0 ? dim : 256;
	return c;
}

void cat_free(struct catalog *c)
{
	if (!c)
		return;
	free(c->tables);
	free(c->columns);
	free(c->edges);
	free(c->values);
	free(c->concepts);
	free(c->verified);
	for (int i = 0; i < c->nterms; i++)
		free(c->terms[i].refs);
	free(c->terms);
	free(c->term_next);
	free(c->value_next);
	strmap_free(&c->term_first);
	strmap_free(&c->value_norm);
	strmap_free(&c->tri);
	strmap_free(&c->tables_by_name);
	strmap_free(&c->prefixes);
	for (int i = 0; i < c->ntri; i++)
		free(c->tri_posts[i]);
	free(c->tri_posts);
	free(c->tri_npost);
	for (int i = 0; i < c->ntables && c->adj; i++)
		free(c->adj[i]);
	free(c->adj);
	free(c->nadj);
	arena_free(&c->mem);
	free(c);
}

int cat_add_table(struct catalog *c, const char *schema, const char *name, const char *comment,
                  const char *full_name, long rows)
{
	struct cat_table *t;
	char disp[256];

	if (GROW(c->tables, c->ntables, c->captables))
		return -1;
	t = &c->tables[c->ntables];
	if (!schema || !*schema)
		schema = "public";
	if (!strcmp(schema, "public"))
		snprintf(disp, sizeof disp, "%s", name);
	else
		snprintf(disp, sizeof disp, "%s.%s", schema, name);
	t->schema = dup(c, schema);
	t->name = dup(c, disp);
	t->comment = dup(c, comment);
	t->full_name = dup(c, full_name);
	t->rows = rows;
	t->first_col = c->ncolumns;
	if (!t->schema || !t->name)
		return -1;
	return c->ntables++;
}

static int type_is(const char *type, const char *const *list)
{
	for (int i = 0; list[i]; i++)
		if (!strncmp(type, list[i], strlen(list[i])))
			return 1;
	return 0;
}

static const char *const numeric_types[] = {"integer", "bigint", "smallint", "real", "double",
	"numeric", "decimal", "float", "int", "money", NULL};
static const char *const time_types[] = {"timestamp", "date", "time", "interval", NULL};
static const char *const text_types[] = {"text", "character", "varchar", "char", "citext",
	"\"char\"", "name", NULL};

static int is_idlike(const char *n)
{
	size_t l = strlen(n);

	/* "_cd" is how many hospital systems abbreviate a code column (dept_cd, drug_cd) */
	return !strcmp(n, "id") || (l > 2 && !strcmp(n + l - 2, "id")) ||
	       (l > 3 && !strcmp(n + l - 3, "_no")) || (l > 4 && !strcmp(n + l - 4, "_key")) ||
	       (l > 5 && !strcmp(n + l - 5, "_code")) || (l > 3 && !strcmp(n + l - 3, "_cd"));
}

int cat_add_column(struct catalog *c, int table, const char *name, const char *type,
                   const char *comment, const char *full_name, const char *unit)
{
	struct cat_column *col;

	if (GROW(c->columns, c->ncolumns, c->capcolumns))
		return -1;
	col = &c->columns[c->ncolumns];
	col->table = table;
	col->name = dup(c, name);
	col->type = dup(c, type ? type : "text");
	col->comment = dup(c, comment);
	col->full_name = dup(c, full_name);
	col->unit = dup(c, unit);
	col->nullable = 1;
	if (!col->name || !col->type)
		return -1;
	col->temporal = type_is(col->type, time_types);
	col->numeric = !col->temporal && type_is(col->type, numeric_types);
	col->textual = type_is(col->type, text_types);
	col->idlike = is_idlike(col->name);
	c->tables[table].ncols++;
	return c->ncolumns++;
}

int cat_add_edge(struct catalog *c, int from_c, int to_c, int inferred, int confirmed)
{
	struct cat_edge *e;

	for (int i = 0; i < c->nedges; i++) {
		e = &c->edges[i];
		if ((e->from_c == from_c && e->to_c == to_c) || (e->from_c == to_c && e->to_c == from_c)) {
			/* a declared or confirmed edge wins over an inferred duplicate */
			if (!inferred)
				e->inferred = 0;
			e->confirmed |= confirmed;
			return i;
		}
	}
	if (GROW(c->edges, c->nedges, c->capedges))
		return -1;
	e = &c->edges[c->nedges];
	e->from_c = from_c;
	e->to_c = to_c;
	e->from_t = c->columns[from_c].table;
	e->to_t = c->columns[to_c].table;
	e->inferred = inferred;
	e->confirmed = confirmed;
	return c->nedges++;
}

int cat_add_value(struct catalog *c, int col, const char *value)
{
	struct cat_value *v;
	char low[512];

	if (GROW(c->values, c->nvalues, c->capvalues))
		return -1;
	v = &c->values[c->nvalues];
	v->col = col;
	v->value = arena_strdup(&c->mem, value);
	text_lower(value, low, sizeof low);
	v->norm = arena_strdup(&c->mem, low);
	if (!v->value || !v->norm)
		return -1;
	c->columns[col].nvalues++;
	return c->nvalues++;
}

int cat_add_concept(struct catalog *c, const char *name, const char *ko, const char *definition,
                    const char *sql)
{
	struct cat_concept *k;

	if (GROW(c->concepts, c->nconcepts, c->capconcepts))
		return -1;
	k = &c->concepts[c->nconcepts];
	k->name = dup(c, name);
	k->ko = dup(c, ko);
	k->definition = dup(c, definition);
	k->sql = dup(c, sql);
	if (!k->name)
		return -1;
	return c->nconcepts++;
}

/* the key of a term: its canonical tokens joined by spaces */
void cat_add_term(struct catalog *c, const char *phrase, int kind, int id, float weight)
{
	char buf[1024], *toks[8], key[1100];
	int nt, ti;
	size_t kl = 0;
	struct cat_term *t;

	if (!phrase || !*phrase)
		return;
	nt = text_tokens(phrase, 0, buf, sizeof buf, toks, 8);
	if (nt == 0 || nt > 6)
		return;
	if (nt == 1 && text_is_stop(toks[0]))
		return;
	for (int i = 0; i < nt; i++)
		kl += (size_t)snprintf(key + kl, sizeof key - kl, "%s%s", i ? " " : "", toks[i]);
	/* terms_by_key is the term_first map keyed with a leading '=' until cat_finish */
	char full[1102];
	snprintf(full, sizeof full, "=%s", key);
	ti = strmap_get(&c->term_first, full);
	if (ti < 0) {
		if (GROW(c->terms, c->nterms, c->capterms))
			return;
		ti = c->nterms;
		t = &c->terms[ti];
		t->toks = arena_alloc(&c->mem, (size_t)nt * sizeof *t->toks);
		if (!t->toks)
			return;
		for (int i = 0; i < nt; i++)
			t->toks[i] = arena_strdup(&c->mem, toks[i]);
		t->ntoks = nt;
		if (strmap_put(&c->term_first, &c->mem, full, ti))
			return;
		c->nterms++;
	}
	t = &c->terms[ti];
	for (int i = 0; i < t->nrefs; i++)
		if (t->refs[i].kind == kind && t->refs[i].id == id) {
			if (weight > t->refs[i].weight)
				t->refs[i].weight = weight;
			return;
		}
	if (t->nrefs == t->caprefs && grow((void **)&t->refs, &t->caprefs, sizeof *t->refs))
		return;
	t->refs[t->nrefs++] = (struct term_ref){kind, id, weight};
}

int cat_find_table(const struct catalog *c, const char *name)
{
	if (c->tables_by_name.cap)
		return strmap_get(&c->tables_by_name, name);
	for (int i = 0; i < c->ntables; i++) {
		char q[300];

		snprintf(q, sizeof q, "%s.%s", c->tables[i].schema, c->tables[i].name);
		if (!strcmp(c->tables[i].name, name) || !strcmp(q, name))
			return i;
	}
	return -1;
}

int cat_find_column(const struct catalog *c, const char *qualified)
{
	const char *dot = strrchr(qualified, '.');
	char tname[300];
	int t;

	if (!dot || (size_t)(dot - qualified) >= sizeof tname)
		return -1;
	memcpy(tname, qualified, (size_t)(dot - qualified));
	tname[dot - qualified] = '\0';
	if ((t = cat_find_table(c, tname)) < 0)
		return -1;
	for (int i = 0; i < c->tables[t].ncols; i++) {
		int ci = c->tables[t].first_col + i;

		if (!strcmp(c->columns[ci].name, dot + 1))
			return ci;
	}
	return -1;
}

/* ---- derived terms and texts --------------------------------------------------------------- */

static const char *const generic[] = {"data", "table", "tbl", "info", "id", "no", "num", "code",
	"value", "name", "type", "dt", "at", "t", "v", "tb", NULL};

static int is_generic(const char *w)
{
	for (int i = 0; generic[i]; i++)
		if (!strcmp(w, generic[i]))
			return 1;
	return 0;
}

/* name parts as single-token terms ("preop_htn" -> preop, htn), generic words skipped */
static void name_terms(struct catalog *c, const char *name, int kind, int id, float w_full, float w_part)
{
	char buf[512], *toks[16];
	int nt = text_tokens(name, 0, buf, sizeof buf, toks, 16);

	cat_add_term(c, name, kind, id, w_full);
	if (nt > 1)
		for (int i = 0; i < nt; i++)
			if (!is_generic(toks[i]) && strlen(toks[i]) > 1)
				cat_add_term(c, toks[i], kind, id, w_part);
}

static void word_terms(struct catalog *c, const char *text, int kind, int id, float w, int max)
{
	char buf[2048], *toks[64];
	int nt = text_tokens(text, 0, buf, sizeof buf, toks, max < 64 ? max : 64);

	for (int i = 0; i < nt; i++)
		if (!text_is_stop(toks[i]) && !is_generic(toks[i]) && strlen(toks[i]) > 1)
			cat_add_term(c, toks[i], kind, id, w);
}

void cat_table_text(const struct catalog *c, int t, struct sb *sb);
void cat_column_text(const struct catalog *c, int col, struct sb *sb);

/* the text embedded for a table: names, comment, column names (what it is about) */
void cat_table_text(const struct catalog *c, int ti, struct sb *sb)
{
	const struct cat_table *t = &c->tables[ti];

	sb_printf(sb, "%s. ", t->name);
	if (t->full_name)
		sb_printf(sb, "%s. ", t->full_name);
	if (t->comment)
		sb_printf(sb, "%s. ", t->comment);
	if (t->syn_text)
		sb_printf(sb, "%s. ", t->syn_text);
	for (int i = 0; i < t->ncols && i < 40; i++) {
		const struct cat_column *col = &c->columns[t->first_col + i];

		sb_printf(sb, "%s%s", i ? ", " : "", col->full_name ? col->full_name : col->name);
	}
}

void cat_column_text(const struct catalog *c, int ci, struct sb *sb)
{
	const struct cat_column *col = &c->columns[ci];

	sb_printf(sb, "%s. ", col->name);
	if (col->full_name)
		sb_printf(sb, "%s. ", col->full_name);
	if (col->comment)
		sb_printf(sb, "%s. ", col->comment);
	if (col->description)
		sb_printf(sb, "%s. ", col->description);
	if (col->unit)
		sb_printf(sb, "%s. ", col->unit);
	if (col->syn_text)
		sb_printf(sb, "%s. ", col->syn_text);
}

/* ---- finish: indexes ------------------------------------------------------------------- */

static enum err embed_missing(struct catalog *c, char *err, size_t errlen)
{
	int n = c->ntables + c->ncolumns + c->nconcepts, k = 0;
	const char **texts = calloc((size_t)(n ? n : 1), sizeof *texts);
	float **dst = calloc((size_t)(n ? n : 1), sizeof *dst);
	struct sb sb = SB_INIT;
	float *out = NULL;
	enum err rc = ERR_NOMEM;

	if (!texts || !dst)
		goto out;
	for (int i = 0; i < c->ntables; i++)
		if (!c->tables[i].vec) {
			sb_reset(&sb);
			cat_table_text(c, i, &sb);
			texts[k] = arena_strdup(&c->mem, sb_cstr(&sb));
			dst[k++] = c->tables[i].vec = arena_alloc(&c->mem, (size_t)c->dim * sizeof(float));
		}
	for (int i = 0; i < c->ncolumns; i++)
		if (!c->columns[i].vec) {
			sb_reset(&sb);
			cat_column_text(c, i, &sb);
			texts[k] = arena_strdup(&c->mem, sb_cstr(&sb));
			dst[k++] = c->columns[i].vec = arena_alloc(&c->mem, (size_t)c->dim * sizeof(float));
		}
	for (int i = 0; i < c->nconcepts; i++)
		if (!c->concepts[i].vec) {
			struct cat_concept *q = &c->concepts[i];

			sb_reset(&sb);
			sb_printf(&sb, "%s %s %s", q->name, q->ko ? q->ko : "", q->definition ? q->definition : "");
			texts[k] = arena_strdup(&c->mem, sb_cstr(&sb));
			dst[k++] = q->vec = arena_alloc(&c->mem, (size_t)c->dim * sizeof(float));
		}
	for (int i = 0; i < k; i++)
		if (!texts[i] || !dst[i])
			goto out;
	rc = OK;
	if (!k)
		goto out;
	if (!(out = malloc((size_t)k * (size_t)c->dim * sizeof *out))) {
		rc = ERR_NOMEM;
		goto out;
	}
	if ((rc = embed_texts(c->embed_provider, c->dim, texts, k, out, err, errlen)) != OK)
		goto out;
	for (int i = 0; i < k; i++)
		memcpy(dst[i], out + (size_t)i * (size_t)c->dim, (size_t)c->dim * sizeof *out);
out:
	free(texts);
	free(dst);
	free(out);
	sb_free(&sb);
	return rc;
}

static int index_terms(struct catalog *c)
{
	/* re-key: drop the "=key" dedupe entries, chain terms by their first token */
	strmap_free(&c->term_first);
	free(c->term_next);
	if (!(c->term_next = malloc((size_t)(c->nterms ? c->nterms : 1) * sizeof *c->term_next)))
		return -1;
	for (int i = c->nterms - 1; i >= 0; i--) {
		int head = strmap_get(&c->term_first, c->terms[i].toks[0]);

		c->term_next[i] = head;
		if (strmap_put(&c->term_first, &c->mem, c->terms[i].toks[0], i))
			return -1;
	}
	return 0;
}

void cat_word_prefix(const char *w, char *out, size_t n)
{
	size_t b = utf8_prefix_bytes(w, text_is_hangul_word(w) ? 2 : 3);

	snprintf(out, n, "%.*s", (int)b, w);
}

static int index_prefixes(struct catalog *c)
{
	char key[32], buf[512], *toks[16];

	for (int i = 0; i < c->nterms; i++)
		for (int k = 0; k < c->terms[i].ntoks; k++) {
			cat_word_prefix(c->terms[i].toks[k], key, sizeof key);
			if (strmap_put(&c->prefixes, &c->mem, key, 1))
				return -1;
		}
	for (int i = 0; i < c->nvalues; i++) {
		int nt = text_tokens(c->values[i].norm, 0, buf, sizeof buf, toks, 16);

		for (int k = 0; k < nt; k++) {
			cat_word_prefix(toks[k], key, sizeof key);
			if (strmap_put(&c->prefixes, &c->mem, key, 1))
				return -1;
		}
	}
	return 0;
}

static int index_values(struct catalog *c)
{
	uint32_t tg[256];

	if (!(c->value_next = malloc((size_t)(c->nvalues ? c->nvalues : 1) * sizeof *c->value_next)))
		return -1;
	for (int i = c->nvalues - 1; i >= 0; i--) {
		struct cat_value *v = &c->values[i];
		int n;

		c->value_next[i] = strmap_get(&c->value_norm, v->norm);
		if (strmap_put(&c->value_norm, &c->mem, v->norm, i))
			return -1;
		if (utf8_nchars(v->norm) < 3)
			continue;
		n = text_trigrams(v->norm, tg, 256);
		for (int j = 0; j < n; j++) {
			char key[16];
			int p;

			snprintf(key, sizeof key, "%08x", tg[j]);
			if ((p = strmap_get(&c->tri, key)) < 0) {
				if (c->ntri == c->captri) {
					int nc = c->captri ? c->captri * 2 : 256;
					int **np = realloc(c->tri_posts, (size_t)nc * sizeof *np);
					int *nn;

					if (!np)
						return -1;
					c->tri_posts = np;
					if (!(nn = realloc(c->tri_npost, (size_t)nc * sizeof *nn)))
						return -1;
					c->tri_npost = nn;
					c->captri = nc;
				}
				p = c->ntri++;
				c->tri_posts[p] = NULL;
				c->tri_npost[p] = 0;
				if (strmap_put(&c->tri, &c->mem, key, p))
					return -1;
			}
			/* power-of-two growth */
			int np = c->tri_npost[p];
			if ((np & (np - 1)) == 0) {
				int *q = realloc(c->tri_posts[p], (size_t)(np ? np * 2 : 1) * sizeof *q);

				if (!q)
					return -1;
				c->tri_posts[p] = q;
			}
			c->tri_posts[p][c->tri_npost[p]++] = i;
		}
	}
	return 0;
}

/* sparse copies of column vectors with at most a quarter of the entries non-zero */
static int index_sparse(struct catalog *c)
{
	for (int i = 0; i < c->ncolumns; i++) {
		struct cat_column *col = &c->columns[i];
		int nnz = 0;

		col->nnz = -1;
		if (!col->vec || c->dim > 65535)
			continue;
		for (int d = 0; d < c->dim; d++)
			nnz += col->vec[d] != 0;
		if (nnz > c->dim / 4)
			continue;
		col->sidx = arena_alloc(&c->mem, (size_t)(nnz + 1) * sizeof *col->sidx);
		col->sval = arena_alloc(&c->mem, (size_t)(nnz + 1) * sizeof *col->sval);
		if (!col->sidx || !col->sval)
			return -1;
		for (int d = 0, k = 0; d < c->dim; d++)
			if (col->vec[d] != 0) {
				col->sidx[k] = (unsigned short)d;
				col->sval[k++] = col->vec[d];
			}
		col->nnz = nnz;
	}
	return 0;
}

float cat_col_dot(const struct cat_column *col, const float *q, int dim)
{
	float s = 0;

	if (col->nnz < 0)
		return col->vec ? vec_dot(q, col->vec, dim) : -1;
	for (int k = 0; k < col->nnz; k++)
		s += q[col->sidx[k]] * col->sval[k];
	return s;
}

static int index_graph(struct catalog *c)
{
	c->adj = calloc((size_t)(c->ntables ? c->ntables : 1), sizeof *c->adj);
	c->nadj = calloc((size_t)(c->ntables ? c->ntables : 1), sizeof *c->nadj);
	if (!c->adj || !c->nadj)
		return -1;
	for (int i = 0; i < c->nedges; i++) {
		struct cat_edge *e = &c->edges[i];
		int ends[2] = {e->from_t, e->to_t};

		c->tables[e->from_t].fk_out++;
		c->tables[e->to_t].fk_in++;
		for (int k = 0; k < 2; k++) {
			int t = ends[k], n = c->nadj[t];
			int *p = realloc(c->adj[t], (size_t)(n + 1) * sizeof *p);

			if (!p)
				return -1;
			p[n] = i;
			c->adj[t] = p;
			c->nadj[t] = n + 1;
			if (e->from_t == e->to_t)
				break;
		}
	}
	c->max_importance = 0;
	for (int i = 0; i < c->ntables; i++) {
		struct cat_table *t = &c->tables[i];

		t->importance = log1p(2.0 * t->fk_in + t->fk_out);
		if (t->importance > c->max_importance)
			c->max_importance = t->importance;
	}
	return 0;
}

enum err cat_finish(struct catalog *c, char *err, size_t errlen)
{
	enum err rc;

	for (int i = 0; i < c->ntables; i++) {
		struct cat_table *t = &c->tables[i];
		char q[300];

		/* the bare relation name for every table, so names match in any schema */
		const char *bare = strchr(t->name, '.') ? strchr(t->name, '.') + 1 : t->name;
		name_terms(c, bare, TK_TABLE, i, 2.0f, 0.8f);
		if (t->full_name) {
			cat_add_term(c, t->full_name, TK_TABLE, i, 1.5f);
			word_terms(c, t->full_name, TK_TABLE, i, 0.4f, 12);
		}
		if (t->comment)
			word_terms(c, t->comment, TK_TABLE, i, 0.15f, 16);
		snprintf(q, sizeof q, "%s.%s", t->schema, bare);
		if (strmap_put(&c->tables_by_name, &c->mem, t->name, i) ||
		    strmap_put(&c->tables_by_name, &c->mem, q, i))
			goto nomem;
	}
	for (int i = 0; i < c->ncolumns; i++) {
		struct cat_column *col = &c->columns[i];

		col->qname = arena_printf(&c->mem, "%s.%s", c->tables[col->table].name, col->name);
		if (!col->qname)
			goto nomem;
		name_terms(c, col->name, TK_COLUMN, i, 2.5f, 0.8f);
		if (col->full_name) {
			cat_add_term(c, col->full_name, TK_COLUMN, i, 1.5f);
			word_terms(c, col->full_name, TK_COLUMN, i, 0.4f, 12);
		}
		if (col->comment)
			word_terms(c, col->comment, TK_COLUMN, i, 0.2f, 12);
	}
	for (int i = 0; i < c->nvalues; i++)
		if (strlen(c->values[i].norm) >= 1 && strlen(c->values[i].norm) <= 60)
			cat_add_term(c, c->values[i].value, TK_VALUE, i, 1.5f);
	for (int i = 0; i < c->nconcepts; i++) {
		cat_add_term(c, c->concepts[i].name, TK_CONCEPT, i, 2.0f);
		if (c->concepts[i].ko)
			cat_add_term(c, c->concepts[i].ko, TK_CONCEPT, i, 2.0f);
	}
	if ((rc = embed_missing(c, err, errlen)) != OK)
		return rc;
	if (index_prefixes(c) || index_terms(c) || index_values(c) || index_graph(c) || index_sparse(c))
		goto nomem;
	c->bytes = c->mem.used_total + (size_t)c->captables * sizeof *c->tables +
	           (size_t)c->capcolumns * sizeof *c->columns + (size_t)c->capvalues * sizeof *c->values +
	           (size_t)c->capterms * sizeof *c->terms + c->term_first.cap * 12 + c->value_norm.cap * 12 +
	           c->tri.cap * 12 + (size_t)c->nvalues * 40;
	return OK;
nomem:
	snprintf(err, errlen, "out of memory building the catalog");
	return ERR_NOMEM;
}

/* ---- FK paths ------------------------------------------------------------------------- */

int cat_fk_path(const struct catalog *c, int a, int b, int max_hops, int *out)
{
	int n = c->ntables, found = -1;
	int *hops, *ninf, *via, *frontier, *next;
	int nf = 1, nn;

	if (a == b)
		return 0;
	if (a < 0 || b < 0 || a >= n || b >= n || !c->adj)
		return -1;
	hops = malloc((size_t)n * sizeof *hops);
	ninf = malloc((size_t)n * sizeof *ninf);
	via = malloc((size_t)n * sizeof *via);
	frontier = malloc((size_t)n * sizeof *frontier);
	next = malloc((size_t)n * sizeof *next);
	if (!hops || !ninf || !via || !frontier || !next)
		goto out;
	for (int i = 0; i < n; i++)
		hops[i] = -1;
	hops[a] = 0;
	ninf[a] = 0;
	via[a] = -1;
	frontier[0] = a;
	/* breadth first by hop count; within one layer the path with fewer inferred
	 * (unconfirmed) edges wins, so declared foreign keys are preferred */
	for (int h = 1; h <= max_hops && nf && found < 0; h++) {
		nn = 0;
		for (int f = 0; f < nf; f++) {
			int t = frontier[f];

			for (int k = 0; k < c->nadj[t]; k++) {
				const struct cat_edge *e = &c->edges[c->adj[t][k]];
				int o = e->from_t == t ? e->to_t : e->from_t;
				int inf = ninf[t] + (e->inferred && !e->confirmed);

				if (hops[o] >= 0 && hops[o] < h)
					continue;
				if (hops[o] < 0) {
					hops[o] = h;
					ninf[o] = inf;
					via[o] = c->adj[t][k];
					next[nn++] = o;
				} else if (inf < ninf[o]) {
					ninf[o] = inf;
					via[o] = c->adj[t][k];
				}
			}
		}
		if (hops[b] >= 0)
			found = hops[b];
		memcpy(frontier, next, (size_t)nn * sizeof *next);
		nf = nn;
	}
	if (found > 0) {
		int t = b;

		for (int i = found - 1; i >= 0; i--) {
			const struct cat_edge *e = &c->edges[via[t]];

			out[i] = via[t];
			t = e->from_t == t ? e->to_t : e->from_t;
		}
	}
out:
	free(hops);
	free(ninf);
	free(via);
	free(frontier);
	free(next);
	return found;
}

void rrf_add(double *score, const int *list, int n, int k)
{
	rrf_addw(score, list, n, k, 1.0);
}

void rrf_addw(double *score, const int *list, int n, int k, double w)
{
	for (int r = 0; r < n; r++)
		score[list[r]] += w / (double)(k + r + 1);
}

int catalog_relation_ok(void *catalog, const char *schema, const char *name)
{
	struct catalog *c = catalog;
	char q[300];

	if (!c || !name)
		return 0;
	if (schema && *schema) {
		snprintf(q, sizeof q, "%s.%s", schema, name);
		return cat_find_table(c, q) >= 0;
	}
	/* unqualified: the search_path is public first */
	snprintf(q, sizeof q, "public.%s", name);
	return cat_find_table(c, q) >= 0;
}

int catalog_suggest_columns(struct catalog *c, const char *name, const char **out, int max)
{
	char buf[1024], *toks[16];
	double *score;
	int nt, n = 0, *top;
	uint32_t q[128], v[128];
	int nq;

	if (!c || !name || max <= 0 || !c->ncolumns)
		return 0;
	score = calloc((size_t)c->ncolumns, sizeof *score);
	top = calloc((size_t)max, sizeof *top);
	if (!score || !top)
		goto out;
	/* names and synonyms that match the words ("region" -> a column called region_name) */
	nt = text_tokens(name, 0, buf, sizeof buf, toks, 16);
	for (int i = 0; i < nt; i++)
		for (int ti = strmap_get(&c->term_first, toks[i]); ti >= 0; ti = c->term_next[ti]) {
			const struct cat_term *t = &c->terms[ti];

			if (t->ntoks > nt - i)
				continue;
			int ok = 1;
			for (int k = 1; k < t->ntoks && ok; k++)
				ok = !strcmp(t->toks[k], toks[i + k]);
			for (int k = 0; ok && k < t->nrefs; k++)
				if (t->refs[k].kind == TK_COLUMN)
					score[t->refs[k].id] += t->refs[k].weight;
		}
	/* spelling: trigram similarity of the column names */
	nq = text_trigrams(name, q, 128);
	for (int i = 0; i < c->ncolumns; i++) {
		int nv = text_trigrams(c->columns[i].name, v, 128);
		double sim = text_trgm_sim(q, nq, v, nv);

		if (c->columns[i].full_name) {
			double f;

			nv = text_trigrams(c->columns[i].full_name, v, 128);
			if ((f = text_trgm_sim(q, nq, v, nv)) > sim)
				sim = f;
		}
		if (sim >= 0.3)
			score[i] += 2.0 * sim;
	}
	/* best first */
	for (int i = 0; i < c->ncolumns; i++) {
		int j;

		if (score[i] <= 0)
			continue;
		if (n < max)
			j = n++;
		else if (score[i] > score[top[max - 1]])
			j = max - 1;
		else
			continue;
		for (; j > 0 && score[top[j - 1]] < score[i]; j--)
			top[j] = top[j - 1];
		top[j] = i;
	}
	for (int i = 0; i < n; i++)
		out[i] = c->columns[top[i]].qname;
out:
	free(score);
	free(top);
	return n;
}
