/* planner_snap.c: the planner's schema snapshot of a target (tables, columns, keys, sampled values), cached per process. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <libpq-fe.h>
#include <cjson/cJSON.h>
#include "util/conf.h"
#include "agent/planner_int.h"
#include "store/db.h"

#define MAX_SNAPS 4
#define MAX_DISTINCT 10000

struct probe { char *sql; int yes; struct probe *next; };
struct snapslot { struct psnap s; struct arena a; PGconn *conn; struct probe *probes; time_t loaded; };
static struct snapslot *slots[MAX_SNAPS];

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

static void free_slot(int i);

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

/* meta: the metadata file (synonyms, units, normal ranges, concepts) when it describes this database */
static enum err meta(struct snapslot *sl, int *vcap)
{
	struct psnap *s = &sl->s;
	struct arena *a = &sl->a;
	const char *path = conf_get("metadata_file");
	FILE *f;
	char *buf = NULL;
	long n;
	cJSON *j = NULL;

	if (!path || !*path || !(f = fopen(path, "r")))
		return OK;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && n < (16 << 20) && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
		buf[n] = 0;
		j = cJSON_Parse(buf);
	}
	fclose(f);
	free(buf);
	if (!j)
		return OK;
	PGresult *r = PQexec(sl->conn, "SELECT current_database()");
	const cJSON *db = cJSON_GetObjectItem(j, "database");
	int same = PQresultStatus(r) == PGRES_TUPLES_OK && cJSON_IsString(db) && !strcmp(db->valuestring, PQgetvalue(r, 0, 0));
	PQclear(r);
	if (!same) {
		cJSON_Delete(j);
		return OK;
	}
	const cJSON *cols = cJSON_GetObjectItem(j, "columns");
	for (const cJSON *c = cols ? cols->child : NULL; c; c = c->next) {
		int ci = col_fq(s, c->string);
		if (ci < 0)
			continue;
		const cJSON *fn = cJSON_GetObjectItem(c, "full_name"), *nr = cJSON_GetObjectItem(c, "normal_range");
		if (cJSON_IsString(fn))
			s->c[ci].full_name = arena_strdup(a, fn->valuestring);
		s->c[ci].syn = strlist(a, cJSON_GetObjectItem(c, "synonyms"), &s->c[ci].nsyn,
		                       cJSON_IsString(fn) ? fn->valuestring : NULL);
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
		s->t[ti].syn = strlist(a, cJSON_GetObjectItem(t, "synonyms"), &s->t[ti].nsyn,
		                       cJSON_IsString(fn) ? fn->valuestring : NULL);
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

/* load: read the target's catalog and sample the values of low-cardinality text columns. */
static enum err load(struct snapslot *sl, char *err, size_t errlen)
{
	struct psnap *s = &sl->s;
	struct arena *a = &sl->a;
	PGresult *r = NULL;
	enum err rc = ERR_DB;
	int vcap = 0;

	r = PQexec(sl->conn,
		"SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), "
		"coalesce(col_description(c.oid, a.attnum), ''), coalesce(obj_description(c.oid, 'pg_class'), ''), "
		"greatest(c.reltuples, 0), "
		"EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisunique AND i.indnatts = 1 "
		"        AND i.indkey[0] = a.attnum) "
		"FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
		"JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped "
		"WHERE c.relkind IN ('r','v','m','p') AND n.nspname NOT IN ('pg_catalog','information_schema') "
		"AND n.nspname NOT LIKE 'pg_toast%' AND n.nspname <> 'askql' "
		"AND has_table_privilege(c.oid, 'SELECT') AND n.nspname = ANY (current_schemas(false)) "
		"ORDER BY c.relname, a.attnum");
	if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		snprintf(err, errlen, "schema snapshot: %s", PQerrorMessage(sl->conn));
		goto out;
	}
	int n = PQntuples(r);
	s->c = arena_alloc(a, (size_t)(n + 1) * sizeof *s->c);
	s->t = arena_alloc(a, (size_t)(n + 1) * sizeof *s->t);
	if (!s->c || !s->t) {
		rc = ERR_NOMEM;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		const char *tn = PQgetvalue(r, i, 0);
		if (!s->nt || strcmp(s->t[s->nt - 1].name, tn)) {
			struct ptab *t = &s->t[s->nt++];
			t->name = arena_strdup(a, tn);
			t->comment = arena_strdup(a, PQgetvalue(r, i, 4));
			t->rows = atof(PQgetvalue(r, i, 5));
			t->c0 = s->nc;
		}
		struct pcol *c = &s->c[s->nc++];
		const char *ty = PQgetvalue(r, i, 2);
		c->name = arena_strdup(a, PQgetvalue(r, i, 1));
		c->comment = arena_strdup(a, PQgetvalue(r, i, 3));
		c->table = s->nt - 1;
		c->type = type_of(ty);
		c->is_int = strstr(ty, "int") != NULL;
		c->unique = PQgetvalue(r, i, 6)[0] == 't';
		s->t[s->nt - 1].nc++;
	}
	PQclear(r);
	r = NULL;

	/* declared single-column foreign keys */
	r = PQexec(sl->conn,
		"SELECT c.conrelid::regclass::text, fa.attname, c.confrelid::regclass::text, ta.attname "
		"FROM pg_constraint c JOIN pg_attribute fa ON fa.attrelid = c.conrelid AND fa.attnum = c.conkey[1] "
		"JOIN pg_attribute ta ON ta.attrelid = c.confrelid AND ta.attnum = c.confkey[1] "
		"WHERE c.contype = 'f' AND array_length(c.conkey, 1) = 1");
	if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		snprintf(err, errlen, "schema snapshot (keys): %s", PQerrorMessage(sl->conn));
		goto out;
	}
	s->fk = arena_alloc(a, (size_t)(PQntuples(r) + s->nc * 4 + 1) * sizeof *s->fk);
	if (!s->fk) {
		rc = ERR_NOMEM;
		goto out;
	}
	for (int i = 0; i < PQntuples(r); i++) {
		int f = planner_snap_col(s, planner_snap_table(s, PQgetvalue(r, i, 0)), PQgetvalue(r, i, 1));
		int t = planner_snap_col(s, planner_snap_table(s, PQgetvalue(r, i, 2)), PQgetvalue(r, i, 3));
		if (f >= 0 && t >= 0)
			s->fk[s->nfk++] = (struct pfk){f, t, 0};
	}
	PQclear(r);
	r = NULL;
	/* inferred keys: a column named like a unique column of another table (same type class);
	 * the unique side is the referenced one.  Only when the pair is not declared already. */
	for (int i = 0; i < s->nc; i++) {
		if (s->c[i].unique || s->c[i].type != PT_NUM || !s->c[i].is_int)
			continue;
		for (int j = 0; j < s->nc; j++) {
			if (!s->c[j].unique || s->c[j].table == s->c[i].table || strcmp(s->c[i].name, s->c[j].name))
				continue;
			if (s->t[s->c[j].table].nc > 0 && !strcmp(s->c[j].name, "row_id"))
				continue;
			int dup = 0;
			for (int k = 0; k < s->nfk; k++)
				if (s->fk[k].from == i && s->fk[k].to == j)
					dup = 1;
			if (dup || s->nfk >= s->nc * 4)
				continue;
			/* an inferred key must share values with the referenced column */
			char sql[1024];
			snprintf(sql, sizeof sql, "SELECT 1 FROM \"%s\" a WHERE EXISTS (SELECT 1 FROM \"%s\" b WHERE b.\"%s\" = a.\"%s\") LIMIT 1",
			         s->t[s->c[i].table].name, s->t[s->c[j].table].name, s->c[j].name, s->c[i].name);
			PGresult *pr = PQexec(sl->conn, sql);
			int ok = PQresultStatus(pr) == PGRES_TUPLES_OK && PQntuples(pr) > 0;
			PQclear(pr);
			if (ok)
				s->fk[s->nfk++] = (struct pfk){i, j, 1};
		}
	}

	/* sampled values of text columns with few distinct values */
	for (int i = 0; i < s->nc; i++) {
		struct pcol *c = &s->c[i];
		if (c->type != PT_TEXT)
			continue;
		char *qt = PQescapeIdentifier(sl->conn, s->t[c->table].name, strlen(s->t[c->table].name));
		char *qc = PQescapeIdentifier(sl->conn, c->name, strlen(c->name));
		char sql[1024];
		if (!qt || !qc) {
			PQfreemem(qt);
			PQfreemem(qc);
			rc = ERR_NOMEM;
			goto out;
		}
		snprintf(sql, sizeof sql, "SELECT DISTINCT %s FROM %s WHERE %s IS NOT NULL AND length(%s) < 120 LIMIT %d",
		         qc, qt, qc, qc, MAX_DISTINCT + 1);
		PQfreemem(qt);
		PQfreemem(qc);
		r = PQexec(sl->conn, sql);
		if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) > MAX_DISTINCT) {
			PQclear(r);
			r = NULL;
			continue;
		}
		for (int k = 0; k < PQntuples(r); k++) {
			const char *val = PQgetvalue(r, k, 0);
			char *key = planner_norm(a, val);
			if (!key || !*key || only_digits(key))
				continue;
			if (s->nv >= vcap) {
				int nc = vcap ? vcap * 2 : 4096;
				struct pval *nv = arena_realloc(a, s->v, (size_t)vcap * sizeof *nv, (size_t)nc * sizeof *nv);
				if (!nv) {
					rc = ERR_NOMEM;
					goto out;
				}
				s->v = nv;
				vcap = nc;
			}
			s->v[s->nv++] = (struct pval){key, arena_strdup(a, val), i, 0};
			c->nvalues++;
		}
		PQclear(r);
		r = NULL;
	}
	/* yes/no attributes: small integer columns holding only 0 and 1 */
	for (int i = 0; i < s->nc; i++) {
		struct pcol *c = &s->c[i];
		if (c->type != PT_NUM || !c->is_int || c->unique || strstr(c->name, "id"))
			continue;
		char *qt = PQescapeIdentifier(sl->conn, s->t[c->table].name, strlen(s->t[c->table].name));
		char *qc = PQescapeIdentifier(sl->conn, c->name, strlen(c->name));
		char sql[1024];
		snprintf(sql, sizeof sql, "SELECT DISTINCT %s FROM %s WHERE %s IS NOT NULL LIMIT 3", qc ? qc : "", qt ? qt : "", qc ? qc : "");
		PQfreemem(qt);
		PQfreemem(qc);
		r = PQexec(sl->conn, sql);
		if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 2) {
			int ok = 1;
			for (int k = 0; k < 2; k++)
				ok &= !strcmp(PQgetvalue(r, k, 0), "0") || !strcmp(PQgetvalue(r, k, 0), "1");
			c->flag = ok;
		}
		PQclear(r);
		r = NULL;
	}
	if (meta(sl, &vcap) != OK) {
		rc = ERR_NOMEM;
		goto out;
	}
	if (s->nv)
		qsort(s->v, (size_t)s->nv, sizeof *s->v, cmp_val);
	rc = OK;
out:
	PQclear(r);
	return rc;
}

struct psnap *planner_snap_get(const char *conninfo, char *err, size_t errlen)
{
	int free_i = -1;

	long ttl = conf_get_int("planner_snapshot_ttl");
	for (int i = 0; i < MAX_SNAPS; i++) {
		if (slots[i] && ttl > 0 && time(NULL) - slots[i]->loaded > ttl)
			free_slot(i);   /* re-read the target now and then: schemas and values change */
		if (slots[i] && !strcmp(slots[i]->s.conninfo, conninfo)) {
			if (PQstatus(slots[i]->conn) != CONNECTION_OK)
				PQreset(slots[i]->conn);
			return &slots[i]->s;
		}
		if (!slots[i] && free_i < 0)
			free_i = i;
	}
	if (free_i < 0) {
		planner_snap_free_all();
		free_i = 0;
	}
	struct snapslot *sl = calloc(1, sizeof *sl);
	if (!sl) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	sl->s.conninfo = arena_strdup(&sl->a, conninfo);
	sl->conn = db_connect(conninfo, err, errlen);
	if (!sl->conn || !sl->s.conninfo || load(sl, err, errlen) != OK) {
		if (sl->conn)
			PQfinish(sl->conn);
		arena_free(&sl->a);
		free(sl);
		return NULL;
	}
	/* every probe afterwards is read-only and short */
	PGresult *r = PQexec(sl->conn, "SET statement_timeout = '5s'; SET default_transaction_read_only = on");
	PQclear(r);
	sl->loaded = time(NULL);
	slots[free_i] = sl;
	return &sl->s;
}

/* planner_snap_probe: does sql (built by the planner from catalog names) return a row? cached. */
int planner_snap_probe(struct psnap *s, const char *sql)
{
	struct snapslot *sl = (struct snapslot *)s;   /* s is the first member */
	for (struct probe *p = sl->probes; p; p = p->next)
		if (!strcmp(p->sql, sql))
			return p->yes;
	PGresult *r = PQexec(sl->conn, sql);
	int yes = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0;
	PQclear(r);
	struct probe *p = calloc(1, sizeof *p);
	if (p && (p->sql = strdup(sql))) {
		p->yes = yes;
		p->next = sl->probes;
		sl->probes = p;
	} else {
		free(p);
	}
	return yes;
}

static void free_slot(int i)
{
	if (!slots[i])
		return;
	for (struct probe *p = slots[i]->probes, *nx; p; p = nx) {
		nx = p->next;
		free(p->sql);
		free(p);
	}
	if (slots[i]->conn)
		PQfinish(slots[i]->conn);
	arena_free(&slots[i]->a);
	free(slots[i]);
	slots[i] = NULL;
}

void planner_snap_free_all(void)
{
	for (int i = 0; i < MAX_SNAPS; i++)
		free_slot(i);
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
