/* planner_snap.c: the planner's view of a target's catalog (tables, columns, keys, stored values, metadata), built once per catalog version; see docs/schema-model.md. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "agent/planner_int.h"
#include "catalog/catalog_int.h"
#include "sql/exec.h"

#define MAX_SNAPS 4

struct probe { char *sql; int yes; struct probe *next; };
/* s is the first member: a struct psnap * is its slot */
struct snapslot {
	struct psnap s;
	struct arena a;
	char *target; long version;
	struct catalog *cat;     /* for the guard's relation check of probes; refreshed by each get */
	struct probe *probes;
	int refs, stale;         /* in use by refs plans; stale: freed when the last one is done */
};
static struct snapslot *slots[MAX_SNAPS];
static pthread_mutex_t snap_mu = PTHREAD_MUTEX_INITIALIZER;

static enum ptype type_of(const char *t)
{
	if (strstr(t, "timestamp") || !strcmp(t, "date"))
		return PT_TIME;
	if (!strcmp(t, "boolean"))
		return PT_BOOL;
	if (strstr(t, "int") || strstr(t, "numeric") || strstr(t, "double") || strstr(t, "real") ||
	    strstr(t, "decimal"))
		return PT_NUM;
	if (strstr(t, "char") || !strcmp(t, "text") || strstr(t, "citext"))
		return PT_TEXT;
	return PT_OTHER;
}

static int cmp_val(const void *x, const void *y)
{
	const struct pval *a = x, *b = y;
	int c = strcmp(a->key, b->key);
	return c ? c : a->col - b->col;
}

int planner_snap_table(const struct psnap *s, const char *name)
{
	for (int i = 0; i < s->nt; i++)
		if (!strcmp(s->t[i].name, name))
			return i;
	return -1;
}

int planner_snap_col(const struct psnap *s, int table, const char *name)
{
	if (table < 0)
		return -1;
	for (int i = s->t[table].c0; i < s->t[table].c0 + s->t[table].nc; i++)
		if (!strcmp(s->c[i].name, name))
			return i;
	return -1;
}

int planner_snap_values(const struct psnap *s, const char *key, int *n)
{
	int lo = 0, hi = s->nv;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (strcmp(s->v[mid].key, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= s->nv || strcmp(s->v[lo].key, key)) {
		*n = 0;
		return -1;
	}
	int k = lo;
	while (k < s->nv && !strcmp(s->v[k].key, key))
		k++;
	*n = k - lo;
	return lo;
}

static int only_digits(const char *k)
{
	for (; *k; k++)
		if ((*k < '0' || *k > '9') && *k != ' ')
			return 0;
	return 1;
}

/* decimal_number: k is a plain decimal number ("12", "0.5", "-3.25"); *point set when it has a point */
static int decimal_number(const char *k, int *point)
{
	int digits = 0;
	if (*k == '-')
		k++;
	for (; *k; k++) {
		if (*k == '.' && !*point && digits)
			*point = 1;
		else if (*k >= '0' && *k <= '9')
			digits++;
		else
			return 0;
	}
	return digits > 0;
}

int planner_snap_keyish(const struct psnap *s, int ci)
{
	const char *n = s->c[ci].name;
	size_t l = strlen(n);
	if (s->c[ci].unique || (l > 2 && !strcmp(n + l - 2, "id")))
		return 1;   /* (…_id ends in id too) */
	for (int k = 0; k < s->nfk; k++)
		if (s->fk[k].from == ci || s->fk[k].to == ci)
			return 1;
	return 0;
}

/* mark_numtext: a text column every indexed value of which (5 or more) is a decimal number, one
 * at least with a point, and that is no key, is a measure kept as text (a dose "0.5"): typed
 * PT_NUM with numtext set, so measures and comparisons read it through a cast (pf_col).  Codes
 * stored as digits have no points; a key or an identifier-named column is never one. */
static void mark_numtext(struct psnap *s, const struct catalog *cat, const int *map)
{
	int *all = calloc((size_t)s->nc + 1, sizeof *all), *num = calloc((size_t)s->nc + 1, sizeof *num);
	int *point = calloc((size_t)s->nc + 1, sizeof *point);

	if (all && num && point) {
		for (int i = 0; i < cat->nvalues; i++) {
			int col = map[cat->values[i].col], pt = 0;
			if (col < 0 || s->c[col].type != PT_TEXT)
				continue;
			all[col]++;
			if (decimal_number(cat->values[i].value, &pt))
				num[col]++;
			point[col] |= pt;
		}
		for (int ci = 0; ci < s->nc; ci++) {
			if (all[ci] >= 5 && num[ci] == all[ci] && point[ci] && !planner_snap_keyish(s, ci)) {
				s->c[ci].type = PT_NUM;
				s->c[ci].numtext = 1;
			}
		}
	}
	free(all);
	free(num);
	free(point);
}

/* find_table: the planner's index of table name, or -1 */
static int find_table(const struct psnap *s, const char *name)
{
	for (int t = 0; t < s->nt; t++)
		if (!strcmp(s->t[t].name, name))
			return t;
	return -1;
}

/* the one unique integer column of table t (its row key), or -1 when none or several */
static int row_key(const struct psnap *s, int t)
{
	int key = -1, n = 0;
	for (int ci = s->t[t].c0; ci < s->t[t].c0 + s->t[t].nc; ci++)
		if (s->c[ci].unique && s->c[ci].is_int) {
			key = ci;
			n++;
		}
	return n == 1 ? key : -1;
}

/* typed_links: a text column whose every indexed value (two or more) is the name of another
 * table with a row key, beside exactly one integer column named as an id (…id, …ref, …key) of the
 * same table that is no key of a join, links each row to a row of the table its value names (struct ptlink) */
static void typed_links(struct psnap *s, struct arena *a, const struct catalog *cat, const int *map)
{
	/* one pass over the values: per text column, how many there are and how many name a table */
	int *n = calloc((size_t)s->nc + 1, sizeof *n), *named = calloc((size_t)s->nc + 1, sizeof *named);
	int *idcol = malloc(((size_t)s->nc + 1) * sizeof *idcol), nlinks = 0;
	if (!n || !named || !idcol)
		goto out;
	for (int i = 0; i < cat->nvalues; i++) {
		int ci = map[cat->values[i].col], vt;
		if (ci < 0 || s->c[ci].type != PT_TEXT)
			continue;
		n[ci]++;
		vt = find_table(s, cat->values[i].value);
		named[ci] += vt >= 0 && vt != s->c[ci].table && row_key(s, vt) >= 0;
	}
	/* the columns that qualify, each with its one id column */
	for (int ci = 0; ci < s->nc; ci++) {
		int tb = s->c[ci].table, nid = 0;
		idcol[ci] = -1;
		if (n[ci] < 2 || named[ci] != n[ci])
			continue;
		for (int k = s->t[tb].c0; k < s->t[tb].c0 + s->t[tb].nc; k++) {
			size_t l = strlen(s->c[k].name);
			int joined = s->c[k].unique;
			for (int e = 0; e < s->nfk && !joined; e++)
				joined = s->fk[e].from == k || s->fk[e].to == k;
			const char *nm = s->c[k].name;
			int idname = (l > 2 && !strcmp(nm + l - 2, "id")) || (l > 3 && !strcmp(nm + l - 3, "ref")) ||
			             (l > 3 && !strcmp(nm + l - 3, "key"));
			if (s->c[k].is_int && !joined && idname) {
				idcol[ci] = k;
				nid++;
			}
		}
		if (nid != 1)
			idcol[ci] = -1;
		else
			nlinks += n[ci];
	}
	/* one link per value of those columns */
	if (!nlinks || !(s->tl = arena_alloc(a, (size_t)nlinks * sizeof *s->tl)))
		goto out;
	for (int i = 0; i < cat->nvalues; i++) {
		int ci = map[cat->values[i].col];
		if (ci < 0 || s->c[ci].type != PT_TEXT || idcol[ci] < 0)
			continue;
		int vt = find_table(s, cat->values[i].value);
		s->tl[s->ntl++] = (struct ptlink){idcol[ci], ci, vt, row_key(s, vt), arena_strdup(a, cat->values[i].value)};
	}
out:
	free(n);
	free(named);
	free(idcol);
}

static int col_fq(const struct psnap *s, const char *fq)
{
	char t[256];
	const char *dot = fq ? strchr(fq, '.') : NULL;
	if (!dot || (size_t)(dot - fq) >= sizeof t)
		return -1;
	memcpy(t, fq, (size_t)(dot - fq));
	t[dot - fq] = 0;
	return planner_snap_col(s, planner_snap_table(s, t), dot + 1);
}

static char **strlist(struct arena *a, const cJSON *arr, int *n, const char *extra)
{
	int cnt = cJSON_GetArraySize(arr) + 1;
	char **v = arena_alloc(a, (size_t)(cnt + 1) * sizeof *v);
	*n = 0;
	if (!v)
		return NULL;
	if (extra)
		v[(*n)++] = planner_norm(a, extra);
	for (const cJSON *x = arr ? arr->child : NULL; x; x = x->next)
		if (cJSON_IsString(x))
			v[(*n)++] = planner_norm(a, x->valuestring);
	return v;
}

/* *syn followed by add (normalised when norm) */
static int syn_merge(struct arena *a, char ***syn, int *nsyn, char *const *add, int nadd, int norm)
{
	char **v = arena_alloc(a, (size_t)(*nsyn + nadd + 1) * sizeof *v);

	if (!v)
		return 0;
	for (int i = 0; i < *nsyn; i++)
		v[i] = (*syn)[i];
	for (int i = 0; i < nadd; i++)
		if (!(v[*nsyn + i] = norm ? planner_norm(a, add[i]) : add[i]))
			return 0;
	*syn = v;
	*nsyn += nadd;
	return 1;
}

static int add_val(struct psnap *s, struct arena *a, int *vcap, const char *key, const char *value, int col, int syn)
{
	if (s->nv >= *vcap) {
		int nc = *vcap ? *vcap * 2 : 4096;
		struct pval *nv = arena_realloc(a, s->v, (size_t)*vcap * sizeof *nv, (size_t)nc * sizeof *nv);
		if (!nv)
			return 0;
		s->v = nv;
		*vcap = nc;
	}
	s->v[s->nv++] = (struct pval){planner_norm(a, key), arena_strdup(a, value), col, syn};
	return 1;
}

/* parse "t.c OP lit [AND t.c OP lit]" of a concept into conditions; 0 when not that simple */
static int concept_sql(struct psnap *s, struct arena *a, const char *sql, struct pconcept *c)
{
	char *cp = arena_strdup(a, sql), *save = NULL;
	if (!cp)
		return 0;
	for (char *part = cp; part && c->nc < 4; ) {
		char *and = strstr(part, " AND ");
		if (and) {
			*and = 0;
		}
		char lhs[256], op[8];
		int used = 0;
		if (sscanf(part, " %255[a-zA-Z0-9_.] %7[<>=!INin] %n", lhs, op, &used) < 2 || !used)
			return 0;
		int col = col_fq(s, lhs);
		if (col < 0)
			return 0;
		const char *lit = part + used;
		struct pcond *pc = &c->c[c->nc++];
		pc->col = col;
		pc->list = !strcmp(op, "IN") || !strcmp(op, "in");
		pc->op = pc->list ? "IN" : arena_strdup(a, op);
		pc->lit = arena_strdup(a, lit);
		if (strpbrk(lit, "+-*/") && !strchr(lit, '\''))
			return 0;   /* arithmetic (durations): not a condition */
		part = and ? and + 5 : NULL;
	}
	(void)save;
	return c->nc > 0;
}

/* meta: the target's metadata as the indexer stored it in the catalog (synonyms, units, normal
 * ranges, concepts, hierarchy keys, reference time) */
static enum err meta(struct snapslot *sl, const struct catalog *cat, int *vcap)
{
	struct psnap *s = &sl->s;
	struct arena *a = &sl->a;
	cJSON *j = cat->metadata ? cJSON_Parse(cat->metadata) : NULL;

	if (!j)
		return OK;
	const cJSON *cols = cJSON_GetObjectItem(j, "columns");
	for (const cJSON *c = cols ? cols->child : NULL; c; c = c->next) {
		int ci = col_fq(s, c->string);
		if (ci < 0)
			continue;
		const cJSON *fn = cJSON_GetObjectItem(c, "full_name"), *nr = cJSON_GetObjectItem(c, "normal_range");
		if (cJSON_IsString(fn))
			s->c[ci].full_name = arena_strdup(a, fn->valuestring);
		int n;
		char **l = strlist(a, cJSON_GetObjectItem(c, "synonyms"), &n, cJSON_IsString(fn) ? fn->valuestring : NULL);
		if (!l || !syn_merge(a, &s->c[ci].syn, &s->c[ci].nsyn, l, n, 0))
			return ERR_NOMEM;
		if (cJSON_GetArraySize(nr) == 2) {
			s->c[ci].has_range = 1;
			s->c[ci].lo = cJSON_GetArrayItem(nr, 0)->valuedouble;
			s->c[ci].hi = cJSON_GetArrayItem(nr, 1)->valuedouble;
		}
	}
	const cJSON *tabs = cJSON_GetObjectItem(j, "tables");
	for (const cJSON *t = tabs ? tabs->child : NULL; t; t = t->next) {
		int ti = planner_snap_table(s, t->string ? t->string : "");
		if (ti < 0)
			continue;
		const cJSON *fn = cJSON_GetObjectItem(t, "full_name");
		if (cJSON_IsString(fn))
			s->t[ti].full_name = arena_strdup(a, fn->valuestring);
		int n;
		char **l = strlist(a, cJSON_GetObjectItem(t, "synonyms"), &n, cJSON_IsString(fn) ? fn->valuestring : NULL);
		if (!l || !syn_merge(a, &s->t[ti].syn, &s->t[ti].nsyn, l, n, 0))
			return ERR_NOMEM;
	}
	const cJSON *vals = cJSON_GetObjectItem(j, "values");
	int nvals = cJSON_GetArraySize(vals);
	s->vr = arena_alloc(a, (size_t)(nvals + 1) * sizeof *s->vr);
	for (const cJSON *v = vals ? vals->child : NULL; v && s->vr; v = v->next) {
		const cJSON *cn = cJSON_GetObjectItem(v, "column"), *vv = cJSON_GetObjectItem(v, "value");
		if (!cJSON_IsString(cn) || !cJSON_IsString(vv))
			continue;
		int ci = col_fq(s, cn->valuestring);
		if (ci < 0)
			continue;
		const cJSON *syn = cJSON_GetObjectItem(v, "synonyms"), *nr = cJSON_GetObjectItem(v, "normal_range");
		for (const cJSON *x = syn ? syn->child : NULL; x; x = x->next)
			if (cJSON_IsString(x) && !add_val(s, a, vcap, x->valuestring, vv->valuestring, ci, 1))
				return ERR_NOMEM;
		if (cJSON_GetArraySize(nr) == 2) {
			struct pvrange *pr = &s->vr[s->nvr++];
			pr->col = ci;
			pr->value = arena_strdup(a, vv->valuestring);
			pr->lo = cJSON_GetArrayItem(nr, 0)->valuedouble;
			pr->hi = cJSON_GetArrayItem(nr, 1)->valuedouble;
		}
	}
	const cJSON *cons = cJSON_GetObjectItem(j, "concepts");
	s->con = arena_alloc(a, (size_t)(cJSON_GetArraySize(cons) + 1) * sizeof *s->con);
	for (const cJSON *c = cons ? cons->child : NULL; c && s->con; c = c->next) {
		const cJSON *nm = cJSON_GetObjectItem(c, "name"), *sql = cJSON_GetObjectItem(c, "sql");
		if (!cJSON_IsString(nm) || !cJSON_IsString(sql))
			continue;
		struct pconcept *pc = &s->con[s->ncon];
		memset(pc, 0, sizeof *pc);
		pc->name = arena_strdup(a, nm->valuestring);
		if (!concept_sql(s, a, sql->valuestring, pc))
			continue;
		pc->syn = strlist(a, cJSON_GetObjectItem(c, "synonyms"), &pc->nsyn, nm->valuestring);
		s->ncon++;
	}
	const cJSON *rt = cJSON_GetObjectItem(j, "reference_time");
	if (cJSON_IsString(rt))
		s->reference_time = arena_strdup(a, rt->valuestring);
	const cJSON *hier = cJSON_GetObjectItem(j, "hierarchy");
	for (const cJSON *h = hier ? hier->child : NULL; h; h = h->next) {
		const cJSON *cn = cJSON_GetObjectItem(h, "concept"), *key = cJSON_GetObjectItem(h, "key");
		if (!cJSON_IsString(cn) || !cJSON_IsString(key) || col_fq(s, key->valuestring) < 0)
			continue;
		const char *dot = strchr(key->valuestring, '.');
		if (!strcmp(cn->valuestring, "patient"))
			s->entity_patient = arena_strdup(a, dot + 1);
		else if (!strcmp(cn->valuestring, "case"))
			s->entity_case = arena_strdup(a, dot + 1);
	}
	cJSON_Delete(j);
	return OK;
}

/* load: copy the catalog's tables (those in the search path: the planner writes bare names),
 * columns, join keys (declared, inferred and admin-confirmed; removed ones are not in the
 * catalog) and stored values into the planner's arrays. */
static enum err load(struct snapslot *sl, const struct catalog *cat)
{
	struct psnap *s = &sl->s;
	struct arena *a = &sl->a;
	int vcap = 0;
	int *map = calloc((size_t)cat->ncolumns + 1, sizeof *map);   /* catalog column -> planner column */

	s->c = arena_alloc(a, (size_t)(cat->ncolumns + 1) * sizeof *s->c);
	s->t = arena_alloc(a, (size_t)(cat->ntables + 1) * sizeof *s->t);
	s->fk = arena_alloc(a, (size_t)(cat->nedges + 1) * sizeof *s->fk);
	if (!map || !s->c || !s->t || !s->fk) {
		free(map);
		return ERR_NOMEM;
	}
	for (int ci = 0; ci < cat->ncolumns; ci++)
		map[ci] = -1;
	for (int ti = 0; ti < cat->ntables; ti++) {
		const struct cat_table *ct = &cat->tables[ti];

		if (strchr(ct->name, '.'))
			continue;   /* another schema than public: not written bare */
		struct ptab *t = &s->t[s->nt++];
		memset(t, 0, sizeof *t);
		t->name = arena_strdup(a, ct->name);
		t->comment = arena_strdup(a, ct->comment ? ct->comment : "");
		t->rows = ct->rows > 0 ? (double)ct->rows : 0;
		t->c0 = s->nc;
		for (int k = 0; k < ct->ncols; k++) {
			const struct cat_column *cc = &cat->columns[ct->first_col + k];
			struct pcol *c = &s->c[s->nc];

			memset(c, 0, sizeof *c);
			c->name = arena_strdup(a, cc->name);
			c->comment = arena_strdup(a, cc->comment ? cc->comment : "");
			c->table = s->nt - 1;
			c->type = type_of(cc->type);
			c->is_int = strstr(cc->type, "int") != NULL;
			c->unique = cc->is_unique;
			c->flag = cc->is_flag;
			if (!c->name || !c->comment) {
				free(map);
				return ERR_NOMEM;
			}
			map[ct->first_col + k] = s->nc++;
			t->nc++;
		}
		if (!t->name || !t->comment) {
			free(map);
			return ERR_NOMEM;
		}
	}
	for (int i = 0; i < cat->nedges; i++) {
		int f = map[cat->edges[i].from_c], t = map[cat->edges[i].to_c];

		if (f >= 0 && t >= 0)
			s->fk[s->nfk++] = (struct pfk){f, t, cat->edges[i].inferred && !cat->edges[i].confirmed};
	}
	mark_numtext(s, cat, map);
	typed_links(s, a, cat, map);
	for (int i = 0; i < cat->nvalues; i++) {
		const struct cat_value *v = &cat->values[i];
		int col = map[v->col];
		char *key;

		if (col < 0 || s->c[col].type != PT_TEXT)
			continue;
		/* a code's name from the column comment's code list (4: 사망) is a synonym of the code */
		if (v->full_name && *v->full_name && strcmp(v->full_name, v->value) &&
		    !add_val(s, a, &vcap, v->full_name, v->value, col, 1)) {
			free(map);
			return ERR_NOMEM;
		}
		if (!(key = planner_norm(a, v->value))) {
			free(map);
			return ERR_NOMEM;
		}
		if (!*key || only_digits(key))
			continue;
		if (!add_val(s, a, &vcap, v->value, v->value, col, 0)) {
			free(map);
			return ERR_NOMEM;
		}
		s->c[col].nvalues++;
	}
	free(map);
	if (meta(sl, cat, &vcap) != OK)
		return ERR_NOMEM;
	planner_ent_infer(s, a);
	if (s->nv)
		qsort(s->v, (size_t)s->nv, sizeof *s->v, cmp_val);
	return OK;
}

static void free_slot(struct snapslot *sl)
{
	for (struct probe *p = sl->probes, *nx; p; p = nx) {
		nx = p->next;
		free(p->sql);
		free(p);
	}
	arena_free(&sl->a);
	free(sl->target);
	free(sl);
}

struct psnap *planner_snap_get(struct catalog *cat, const char *conninfo, char *err, size_t errlen)
{
	struct snapslot *sl = NULL;
	int free_i = -1;

	if (!cat) {
		snprintf(err, errlen, "the target is not indexed: the planner reads its catalog (askql index)");
		return NULL;
	}
	pthread_mutex_lock(&snap_mu);
	for (int i = 0; i < MAX_SNAPS; i++) {
		if (slots[i] && !strcmp(slots[i]->target, cat->target)) {
			if (slots[i]->version == cat->version &&
			    !strcmp(slots[i]->s.conninfo ? slots[i]->s.conninfo : "", conninfo ? conninfo : "")) {
				sl = slots[i];
				break;
			}
			/* a newer catalog: drop this view once no plan uses it */
			if (slots[i]->refs)
				slots[i]->stale = 1;
			else
				free_slot(slots[i]);
			slots[i] = NULL;
		}
		if (!slots[i] && free_i < 0)
			free_i = i;
	}
	if (!sl) {
		if (free_i < 0) {   /* full: evict the first slot not in use */
			for (int i = 0; i < MAX_SNAPS && free_i < 0; i++)
				if (!slots[i]->refs) {
					free_slot(slots[i]);
					slots[i] = NULL;
					free_i = i;
				}
		}
		if (free_i < 0 || !(sl = calloc(1, sizeof *sl))) {
			pthread_mutex_unlock(&snap_mu);
			snprintf(err, errlen, free_i < 0 ? "too many plans at once" : "out of memory");
			return NULL;
		}
		sl->version = cat->version;
		sl->target = strdup(cat->target);
		sl->s.conninfo = conninfo ? arena_strdup(&sl->a, conninfo) : NULL;
		if (!sl->target || (conninfo && !sl->s.conninfo) || load(sl, cat) != OK) {
			free_slot(sl);
			pthread_mutex_unlock(&snap_mu);
			snprintf(err, errlen, "out of memory reading the catalog of %s", cat->target);
			return NULL;
		}
		slots[free_i] = sl;
	}
	sl->cat = cat;
	sl->refs++;
	pthread_mutex_unlock(&snap_mu);
	return &sl->s;
}

void planner_snap_put(struct psnap *s)
{
	struct snapslot *sl = (struct snapslot *)s;

	if (!s)
		return;
	pthread_mutex_lock(&snap_mu);
	if (--sl->refs == 0 && sl->stale)
		free_slot(sl);
	pthread_mutex_unlock(&snap_mu);
}

/* planner_snap_probe: does sql (built by the planner from catalog names) return a row?  Run through
 * the executor (guard, catalog relations only, read-only transaction, timeouts); cached per view. */
int planner_snap_probe(struct psnap *s, const char *sql)
{
	struct snapslot *sl = (struct snapslot *)s;   /* s is the first member */
	struct exec_opts eo = { .conninfo = s->conninfo, .max_rows = 1, .relation_ok = catalog_relation_ok,
	                        .relation_ctx = sl->cat };
	struct exec_result res = {0};
	struct exec_error de = {0};
	int yes;

	pthread_mutex_lock(&snap_mu);
	for (struct probe *p = sl->probes; p; p = p->next)
		if (!strcmp(p->sql, sql)) {
			yes = p->yes;
			pthread_mutex_unlock(&snap_mu);
			return yes;
		}
	pthread_mutex_unlock(&snap_mu);
	yes = exec_fetch(sql, &eo, &res, &de) == OK && res.nrows > 0;
	exec_result_free(&res);
	exec_error_free(&de);
	struct probe *p = calloc(1, sizeof *p);
	pthread_mutex_lock(&snap_mu);
	if (p && (p->sql = strdup(sql))) {
		p->yes = yes;
		p->next = sl->probes;
		sl->probes = p;
	} else {
		free(p);
	}
	pthread_mutex_unlock(&snap_mu);
	return yes;
}

void planner_snap_free_all(void)
{
	pthread_mutex_lock(&snap_mu);
	for (int i = 0; i < MAX_SNAPS; i++)
		if (slots[i] && !slots[i]->refs) {
			free_slot(slots[i]);
			slots[i] = NULL;
		}
	pthread_mutex_unlock(&snap_mu);
}

int planner_snap_path(const struct psnap *s, const int *banned, int from, int to, int *edges, int max)
{
	int prev[256], pedge[256], q[256], qh = 0, qt = 0;
	if (s->nt > 256 || from < 0 || to < 0)
		return -1;
	for (int i = 0; i < s->nt; i++)
		prev[i] = -2;
	prev[from] = -1;
	q[qt++] = from;
	while (qh < qt) {
		int x = q[qh++];
		if (x == to)
			break;
		for (int k = 0; k < s->nfk; k++) {
			int a = s->c[s->fk[k].from].table, b = s->c[s->fk[k].to].table;
			/* only towards the referenced (one) side: joining two event tables through a
			 * shared parent would multiply rows */
			if (a != x || prev[b] != -2 || (banned && banned[b]))
				continue;
			prev[b] = x;
			pedge[b] = k;
			q[qt++] = b;
		}
	}
	if (prev[to] == -2)
		return -1;
	int n = 0;
	for (int y = to; y != from; y = prev[y]) {
		if (n >= max)
			return -1;
		edges[n++] = pedge[y];
	}
	return n;
}

int planner_snap_key(const struct psnap *s, int ti, const char *key)
{
	char b[128];
	size_t k = 0;
	if (!key || ti < 0)
		return -1;
	for (const char *c = key; *c && k < sizeof b - 1; c++)
		if (*c != '_')
			b[k++] = *c;
	b[k] = 0;
	for (int ci = s->t[ti].c0; ci < s->t[ti].c0 + s->t[ti].nc; ci++) {
		char x[128];
		size_t n = 0;
		for (const char *c = s->c[ci].name; *c && n < sizeof x - 1; c++)
			if (*c != '_')
				x[n++] = *c;
		x[n] = 0;
		if (!strcmp(x, b))
			return ci;
	}
	return -1;
}

char *planner_entity_key(struct catalog *cat, const char *conninfo, int kind, char **table)
{
	char err[256];
	struct psnap *s = cat ? planner_snap_get(cat, conninfo, err, sizeof err) : NULL;
	const char *k = s ? planner_ent_column(s, kind) : NULL;
	char *r = k ? strdup(k) : NULL;

	if (table) {
		*table = NULL;
		for (int ci = 0; k && ci < s->nc && !*table; ci++)
			if (s->c[ci].unique && !strcmp(s->c[ci].name, k))
				*table = strdup(s->t[s->c[ci].table].name);
	}

	if (s)
		planner_snap_put(s);
	return r;
}
