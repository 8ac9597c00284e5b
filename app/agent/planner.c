/* planner.c: the offline planner: tokens and links -> intent and structure -> SQL tree -> one SELECT. */
#include <pthread.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/planner.h"
#include "agent/planner_int.h"
#include "util/file.h"
#include "agent/planner_link.h"
#include "agent/planner_time.h"
#include "catalog/catalog.h"
#include "util/conf.h"

#define MAXF 24
#define NPROJ 12                     /* projected columns at most (sel[16] leaves room for keys) */

/* What the structure pass decided, before it becomes a SQL tree. */
struct frame {
	int fact;                    /* table index */
	const char *agg;             /* "COUNT", "AVG", ... or NULL */
	int count_entity;            /* COUNT(DISTINCT entity) */
	int entity_counted;          /* entity_col came from the word a count word is attached to */
	int rate_from, rate_n;       /* a rate (사망률): cond[rate_from .. +rate_n) is its numerator, not a filter */
	int dur_start, dur_end;      /* a duration measure (수술 시간): end - start in minutes; -1: none */
	int measure;                 /* column aggregated or projected, -1 */
	int proj[NPROJ]; int nproj;  /* projected columns */
	int group[3]; int ngroup;    /* group-by columns */
	int order;                   /* +1 first (ASC), -1 last (DESC), 0 none */
	int order_col;
	int order2, order2_col, extreme;
	int bucket;                  /* group by a time bucket: 'h','d','w','m','y' or 0 */
	long limit;
	long rank_n;                 /* ranking by frequency (ties kept) */
	int rank_col;                /* the column ranked */
	int rank_key;                /* the fact table's key to the ranked dictionary, -1 */
	const char *rank_agg;        /* rank by this aggregate of the measure (NULL: COUNT(*)) */
	int rank_asc;                /* least/lowest first */
	int exists;                  /* yes/no question */
	int timeline;
	int distinct;
	int time_col;
	struct { int col; const char *op; const char *lit; int num; const char *lit2; } cond[MAXF];
	int ncond;
	struct { int col; const char *vals[8]; int n; } in[4];
	int nin;
	const char *entity_col;      /* column name of the case/patient entity */
	int entity_key;              /* "encounter 5": the key column of the table named, else -1 */
	const char *entity_word;     /* the (stemmed) entity word without a number ("patient") */
	const char *entity_val;      /* "10014078" or NULL */
	int entity_count, entity_group;
	int episode;                 /* table index of the visit/stay, -1 */
	int episode_which;           /* +1 first, -1 last, 2 current */
	int visit_mention;           /* a visit table named without first/last, -1 */
	int current_all;             /* "current patients": visit end IS NULL */
	struct ptime win;
	int has_win;
	int need[8]; int nneed;      /* tables that must be joined */
	int lead[3]; int nlead;      /* a timeline per entity: ordered by these before the time */
	int time_named;              /* a time column was named by the question (수술 시작, discharged) */
	int multi;                   /* a timeline over several tables: built from tl, not from the fields above */
	struct ptl_spec tl;
};

struct planner {
	struct arena a;
	struct psnap *s;
	const struct retrieval *r;
	struct ptoks tk;
	struct plink pl;
	struct frame f;
	struct sb dec;               /* decisions JSON array */
	struct sb expl;
	int *banned;
	int *via;     /* per table: the key edge a dictionary value was verified through (-1: none) */
	struct tm now;
	const char *question;
	char *decline;
};

static void decide(struct planner *p, const char *span, const char *kind, const char *target, const char *why,
                   double score)
{
	sb_puts(&p->dec, p->dec.len > 1 ? ",{" : "{");
	sb_puts(&p->dec, "\"span\":");
	sb_json_str(&p->dec, span ? span : "");
	sb_puts(&p->dec, ",\"kind\":");
	sb_json_str(&p->dec, kind);
	sb_puts(&p->dec, ",\"target\":");
	sb_json_str(&p->dec, target ? target : "");
	sb_puts(&p->dec, ",\"why\":");
	sb_json_str(&p->dec, why ? why : "");
	sb_printf(&p->dec, ",\"score\":%.2f}", score);
}

static const char *span_text(struct planner *p, int t0, int t1)
{
	if (t0 >= t1 || t1 > p->tk.n)
		return "";
	int a = p->tk.v[t0].off, b = p->tk.v[t1 - 1].off + p->tk.v[t1 - 1].len;
	return arena_strndup(&p->a, p->question + a, (size_t)(b - a));
}

static const char *tname(struct planner *p, int col) { return p->s->t[p->s->c[col].table].name; }
static const char *cfq(struct planner *p, int col)
{
	return arena_printf(&p->a, "%s.%s", tname(p, col), p->s->c[col].name);
}

static int decline(struct planner *p, const char *fmt, const char *arg)
{
	if (!p->decline)
		p->decline = arena_printf(&p->a, fmt, arg ? arg : "");
	return -1;
}

/* ---- entities: "patient 10014078", "케이스 12", "환자별" ---- */
static const char *const entity_words[][6] = {
	{"patient", "subject", "patient", "person", "pt", NULL},
	{"환자", "subject", "patient", NULL},
	{"subject", "subject", "patient", NULL},
	{"case", "case", "op", "operation", "surgery", NULL},
	{"케이스", "case", "op", NULL}, {"증례", "case", NULL}, {"수술", "case", "op", "operation", NULL},
	{"surgery", "case", "op", NULL}, {"operation", "case", "op", NULL},
	{NULL}
};

/* entity_column: a column whose name minus an id suffix is one of the entity's names,
 * the one present in most tables (the shared key). */
static const char *entity_column(struct planner *p, const char *word)
{
	for (int e = 0; entity_words[e][0]; e++) {
		if (strcmp(entity_words[e][0], word))
			continue;
		/* the metadata's hierarchy names the keys of patient and case */
		const char *k1 = entity_words[e][1];
		if (p->s->entity_patient && (!strcmp(k1, "subject") || !strcmp(k1, "patient")))
			return p->s->entity_patient;
		if (p->s->entity_case && !strcmp(k1, "case"))
			return p->s->entity_case;
		const char *best = NULL;
		int bestn = 0;
		for (int ci = 0; ci < p->s->nc; ci++) {
			char nm[128];
			snprintf(nm, sizeof nm, "%s", p->s->c[ci].name);
			size_t l = strlen(nm);
			if (l > 3 && !strcmp(nm + l - 3, "_id"))
				nm[l - 3] = 0;
			else if (l > 2 && !strcmp(nm + l - 2, "id"))
				nm[l - 2] = 0;
			else
				continue;
			for (int k = 1; entity_words[e][k]; k++) {
				if (strcmp(nm, entity_words[e][k]))
					continue;
				int n = 0;
				for (int cj = 0; cj < p->s->nc; cj++)
					n += !strcmp(p->s->c[cj].name, p->s->c[ci].name);
				if (n > bestn) {
					bestn = n;
					best = p->s->c[ci].name;
				}
			}
		}
		return best;
	}
	return NULL;
}

/* pass 0: numbered entities ("patient 123"), before linking; pass 1: entity words left after
 * linking (so "general surgery" stays a value), including single-word links to the key column */
/* is table ti named like the entity word (or one of its synonyms: 환자 -> patient)? */
static int entity_names_table(struct planner *p, int ti)
{
	char st[128];
	const char *w = p->f.entity_word;
	if (!w)
		return 0;
	planner_stem(p->s->t[ti].name, st, sizeof st);
	if (!strcmp(st, w))
		return 1;
	for (int e = 0; entity_words[e][0]; e++) {
		if (strcmp(entity_words[e][0], w))
			continue;
		for (int k = 1; entity_words[e][k]; k++)
			if (!strcmp(entity_words[e][k], st))
				return 1;
	}
	return 0;
}

static void find_entities(struct planner *p, int pass)
{
	struct frame *f = &p->f;
	for (int i = 0; i < p->tk.n; i++) {
		struct ptok *t = &p->tk.v[i];
		if (t->kind != TK_WORD)
			continue;
		if (pass == 1 && t->used) {
			/* a one-word link to an entity key column (or to the entity's own table): the entity */
			int l, hit = -1;
			for (l = 0; l < p->pl.n; l++)
				if (p->pl.v[l].t0 == i && p->pl.v[l].t1 == i + 1 &&
				    (p->pl.v[l].kind == PL_COLUMN || p->pl.v[l].kind == PL_TABLE))
					hit = l;
			const char *ec = entity_column(p, t->text);
			if (!ec)
				ec = entity_column(p, t->stem);
			if (hit < 0 || !ec)
				continue;
			if (p->pl.v[hit].kind == PL_COLUMN && strcmp(p->s->c[p->pl.v[hit].cols[0]].name, ec))
				continue;
			if (p->pl.v[hit].kind == PL_TABLE && p->pl.v[hit].score < 0.9)
				continue;
			p->pl.v[hit] = p->pl.v[--p->pl.n];
			t->used = 0;
		}
		if (pass == 0 && !t->used && i + 1 < p->tk.n && p->tk.v[i + 1].kind == TK_NUM && !p->tk.v[i + 1].unit &&
		    p->tk.v[i + 1].num == (long)p->tk.v[i + 1].num && !f->entity_val && !entity_column(p, t->text) &&
		    !entity_column(p, t->stem)) {
			/* "encounter 5", "order 12": the row of a table named by the word, by its key */
			for (int ti = 0; ti < p->s->nt; ti++) {
				char nm[128];
				snprintf(nm, sizeof nm, "%s", p->s->t[ti].name);
				char st[128];
				planner_stem(nm, st, sizeof st);
				if (strcmp(st, t->stem) && strcmp(nm, t->text))
					continue;
				for (int ci = p->s->t[ti].c0; ci < p->s->t[ti].c0 + p->s->t[ti].nc; ci++) {
					if (!p->s->c[ci].unique || !p->s->c[ci].is_int || !strcmp(p->s->c[ci].name, "row_id"))
						continue;
					f->entity_key = ci;
					f->entity_val = arena_printf(&p->a, "%ld", (long)p->tk.v[i + 1].num);
					t->used = p->tk.v[i + 1].used = 1;
					decide(p, span_text(p, i, i + 2), "entity", cfq(p, ci), "a numbered row of the table the word names", 1);
					break;
				}
				break;
			}
			if (f->entity_key >= 0)
				continue;
		}
		const char *col = entity_column(p, t->text);
		if (!col)
			col = entity_column(p, t->stem);
		if (!col)
			continue;
		/* "patient 123", "patient id 123", "환자 123번" */
		int j = i + 1;
		if (j < p->tk.n && p->tk.v[j].kind == TK_WORD && (!strcmp(p->tk.v[j].text, "id") || !strcmp(p->tk.v[j].text, "no") ||
		                                                 !strcmp(p->tk.v[j].text, "number") || !strcmp(p->tk.v[j].text, "번호")))
			j++;
		if (pass == 0 && j < p->tk.n && p->tk.v[j].kind == TK_NUM && p->tk.v[j].num == (long)p->tk.v[j].num &&
		    !f->entity_val && !p->tk.v[j].unit && !strchr(p->tk.v[j].text, '.')) {
			f->entity_col = col;
			f->entity_val = arena_printf(&p->a, "%ld", (long)p->tk.v[j].num);
			for (int k = i; k <= j; k++)
				p->tk.v[k].used = 1;
			decide(p, span_text(p, i, j + 1), "entity", col, "a numbered patient/case is a filter on the shared key column", 1);
			i = j;
			continue;
		}
		if (pass == 0 || t->used)
			continue;
		t->used = 1;
		/* the entity without a number: counted ("how many patients"), grouped ("환자별", "per patient") or listed */
		if (t->group || (i > 0 && p->tk.v[i - 1].role == R_PER)) {
			f->entity_group = 1;
			if (i > 0 && p->tk.v[i - 1].role == R_PER)
				p->tk.v[i - 1].used = 1;
		} else {
			f->entity_count = 1;
		}
		/* the counted entity is the one the count word is attached to ("수술 중 ... 환자 수":
		 * patients, not the surgery named first), else the first one named */
		int counted = (i + 1 < p->tk.n && p->tk.v[i + 1].role == R_COUNT) ||
		              (i > 0 && (p->tk.v[i - 1].role == R_MANY || p->tk.v[i - 1].role == R_COUNT));
		if (!f->entity_col || (counted && !f->entity_counted)) {
			f->entity_col = col;
			f->entity_word = p->tk.v[i].stem;
			f->entity_counted = counted;
		}
	}
}

/* ---- visits: "the last hospital visit", "first ICU stay", "this hospital encounter" ---- */
static int is_visit_word(const struct ptok *t)
{
	static const char *const w[] = {"visit", "encount", "encounter", "stay", "admission", "hospitalization",
	                                "hospitaliz", "입원", "방문", "재원", NULL};
	for (int i = 0; w[i]; i++)
		if (!strcmp(t->stem, w[i]) || !strcmp(t->text, w[i]))
			return 1;
	return 0;
}

/* "come to the hospital", "discharged from the hospital": the hospital stands for its visits */
static int is_hospital(const struct planner *p, int i)
{
	if (strcmp(p->tk.v[i].text, "hospital") && strcmp(p->tk.v[i].text, "병원"))
		return 0;
	return !(i + 1 < p->tk.n && is_visit_word(&p->tk.v[i + 1]));
}

/* the visit table: has a unique key shared with other tables and two time columns; "icu" picks by name */
static int visit_table(struct planner *p, int icu)
{
	int best = -1;
	double bs = 0;
	for (int ti = 0; ti < p->s->nt; ti++) {
		const struct ptab *t = &p->s->t[ti];
		int ntime = 0, key = 0;
		for (int ci = t->c0; ci < t->c0 + t->nc; ci++) {
			ntime += p->s->c[ci].type == PT_TIME;
			for (int k = 0; k < p->s->nfk; k++)
				if (p->s->fk[k].to == ci)
					key = 1;
		}
		if (ntime < 2 || !key)
			continue;
		double sc = 1;
		int has_icu = strstr(t->name, "icu") || strstr(t->comment, "ICU") || strstr(t->comment, "intensive");
		if (icu && has_icu)
			sc += 3;
		if (!icu && has_icu)
			sc -= 2;
		if (!icu && (strstr(t->name, "admission") || strstr(t->name, "admit") || strstr(t->name, "encounter") ||
		             strstr(t->name, "visit") || strstr(t->comment, "admission")))
			sc += 2;
		if (sc > bs) {
			bs = sc;
			best = ti;
		}
	}
	return bs > 1.5 ? best : -1;
}

static void find_visits(struct planner *p)
{
	struct frame *f = &p->f;
	f->episode = -1;
	f->visit_mention = -1;
	for (int i = 0; i < p->tk.n; i++) {
		struct ptok *t = &p->tk.v[i];
		int colname = 0;
		if (is_visit_word(t) && !t->used && i + 1 < p->tk.n && p->tk.v[i + 1].kind == TK_WORD) {
			char st[256];
			const char *two = arena_printf(&p->a, "%s %s", t->text, p->tk.v[i + 1].text);
			double sc;
			planner_stem(two, st, sizeof st);
			colname = planner_link_term(&p->a, p->s, st, p->r, p->banned, 0.9, &sc) >= 0;
		}
		if ((is_visit_word(t) || is_hospital(p, i)) && !t->used && !colname) {
			/* "hospital visits", "admission": the visit table itself */
			int icu = i > 0 && (!strcmp(p->tk.v[i - 1].text, "icu") || !strcmp(p->tk.v[i - 1].text, "중환자실"));
			int vt = visit_table(p, icu);
			int prevwhich = i > 0 && (p->tk.v[i - 1].role == R_FIRST || p->tk.v[i - 1].role == R_LAST ||
			                          p->tk.v[i - 1].role == R_THIS || p->tk.v[i - 1].role == R_CURRENT);
			if (vt >= 0 && !prevwhich && !(i > 1 && (p->tk.v[i - 2].role == R_FIRST || p->tk.v[i - 2].role == R_LAST ||
			                                         p->tk.v[i - 2].role == R_THIS || p->tk.v[i - 2].role == R_CURRENT))) {
				f->visit_mention = vt;
				t->used = 1;
				if (icu)
					p->tk.v[i - 1].used = 1;
				decide(p, span_text(p, icu ? i - 1 : i, i + 1), "table", p->s->t[vt].name, "a visit/stay word names the visit table", 0.8);
				continue;
			}
		}
		/* "current patients": patients whose visit has not ended */
		int ent_near = 0;
		for (int k = i + 1; k < p->tk.n && k <= i + 3; k++)
			if (entity_column(p, p->tk.v[k].stem))
				ent_near = 1;
		if (t->role == R_CURRENT && ent_near) {
			int vt = visit_table(p, 0);
			if (vt >= 0) {
				f->visit_mention = vt;
				f->current_all = 1;
				t->used = 1;
				decide(p, span_text(p, i, i + 2), "filter", p->s->t[vt].name, "current: the visit has not ended", 0.8);
				continue;
			}
		}
		int which = t->role == R_FIRST ? 1 : t->role == R_LAST ? -1 : (t->role == R_THIS || t->role == R_CURRENT) ? 2 : 0;
		if (!which)
			continue;
		for (int j = i + 1; j < p->tk.n && j <= i + 3; j++) {
			if (!is_visit_word(&p->tk.v[j]))
				continue;
			int icu = 0;
			for (int k = i; k <= j; k++)
				if (!strcmp(p->tk.v[k].text, "icu") || !strcmp(p->tk.v[k].text, "중환자실"))
					icu = 1;
			int vt = visit_table(p, icu);
			if (vt < 0)
				break;
			f->episode = vt;
			f->episode_which = which;
			for (int k = i; k <= j; k++)
				p->tk.v[k].used = 1;
			decide(p, span_text(p, i, j + 1), "visit", p->s->t[vt].name,
			       which == 2 ? "the current (not yet ended) visit" : which > 0 ? "the first ended visit" : "the last ended visit", 1);
			i = j;
			break;
		}
	}
}

/* ---- joins: shortest key path between two tables (declared and inferred keys) ---- */
static int path(struct planner *p, int from, int to, int *edges, int max)
{
	/* a dictionary table referenced by several keys of the same table (gender, race and
	 * ethnicity concept ids): the key the value was found through, not the first one */
	if (max >= 1 && p->via && to >= 0 && p->via[to] >= 0 && p->s->c[p->s->fk[p->via[to]].from].table == from) {
		edges[0] = p->via[to];
		return 1;
	}
	return planner_snap_path(p->s, p->banned, from, to, edges, max);
}

/* the fact table's own column named like the entity, or -1 */
static int col_in(struct planner *p, int table, const char *name)
{
	return name ? planner_snap_col(p->s, table, name) : -1;
}

/* the entity key in table ti, ignoring underscores (subjectid ~ subject_id); -1 if absent */
static int col_in_loose(struct planner *p, int ti, const char *name)
{
	char b[128];
	size_t k = 0;
	if (!name)
		return -1;
	for (const char *c = name; *c && k < sizeof b - 1; c++)
		if (*c != '_')
			b[k++] = *c;
	b[k] = 0;
	for (int ci = p->s->t[ti].c0; ci < p->s->t[ti].c0 + p->s->t[ti].nc; ci++) {
		char a[128];
		size_t n = 0;
		for (const char *c = p->s->c[ci].name; *c && n < sizeof a - 1; c++)
			if (*c != '_')
				a[n++] = *c;
		a[n] = 0;
		if (!strcmp(a, b))
			return ci;
	}
	return -1;
}

/* first time column of a table (event time: chart/start/time names first) */
static int time_col(struct planner *p, int table)
{
	int best = -1, bs = -1;
	for (int ci = p->s->t[table].c0; ci < p->s->t[table].c0 + p->s->t[table].nc; ci++) {
		if (p->s->c[ci].type != PT_TIME)
			continue;
		const char *n = p->s->c[ci].name;
		int sc = 1;
		if (strstr(n, "chart") || strstr(n, "start") || !strcmp(n, "dt") || strstr(n, "admit") || strstr(n, "intime"))
			sc = 3;
		if (strstr(n, "end") || strstr(n, "stop") || strstr(n, "out") || strstr(n, "disch") || strstr(n, "dod"))
			sc = 0;
		if (sc > bs) {
			bs = sc;
			best = ci;
		}
	}
	return best;
}

static int is_keyish(struct planner *p, int ci)
{
	const char *n = p->s->c[ci].name;
	size_t l = strlen(n);
	if (p->s->c[ci].unique)
		return 1;
	if ((l > 2 && !strcmp(n + l - 2, "id")) || (l > 3 && !strcmp(n + l - 3, "_id")))
		return 1;
	for (int k = 0; k < p->s->nfk; k++)
		if (p->s->fk[k].from == ci || p->s->fk[k].to == ci)
			return 1;
	return 0;
}

static int time_col_quality(struct planner *p, int ci)
{
	const char *n = p->s->c[ci].name;
	if (strstr(n, "chart") || strstr(n, "start") || !strcmp(n, "dt") || strstr(n, "admit") || strstr(n, "intime"))
		return 3;
	return 1;
}

/* the entity's home table (the key unique there, or the metadata's) has an event time (casestart) */
static int entity_home_timed(struct planner *p)
{
	for (int ti = 0; ti < p->s->nt; ti++) {
		int ec = col_in(p, ti, p->f.entity_col), tc = time_col(p, ti);
		if (ec >= 0 && tc >= 0 && time_col_quality(p, tc) >= 3 &&
		    (p->s->c[ec].unique || (p->s->entity_case && col_in(p, ti, p->s->entity_case) >= 0 &&
		                            p->s->c[col_in(p, ti, p->s->entity_case)].unique)))
			return 1;
	}
	return 0;
}

/* the measured number of a table: its one non-key numeric column (valuenum, amount, result) */
static int measure_col(struct planner *p, int table)
{
	int best = -1, n = 0;
	for (int ci = p->s->t[table].c0; ci < p->s->t[table].c0 + p->s->t[table].nc; ci++) {
		if (p->s->c[ci].type != PT_NUM || is_keyish(p, ci))
			continue;
		n++;
		if (best < 0)
			best = ci;
	}
	if (n == 1)
		return best;
	/* a text "result"/"value" column holding numbers (lab results stored as text) */
	for (int ci = p->s->t[table].c0; ci < p->s->t[table].c0 + p->s->t[table].nc; ci++)
		if (n == 0 && (strstr(p->s->c[ci].name, "result") || strstr(p->s->c[ci].name, "value")) &&
		    p->s->c[ci].type == PT_NUM)
			return ci;
	return -1;
}

/* the label of a table's rows: a text column of the table or of the dictionary it references */
static int label_col(struct planner *p, int table, int *via)
{
	*via = -1;
	for (int k = 0; k < p->s->nfk; k++) {
		int from = p->s->fk[k].from, to = p->s->fk[k].to;
		if (p->s->c[from].table != table)
			continue;
		int d = p->s->c[to].table;
		/* a dictionary: small, few columns, with a text label */
		if (p->s->t[d].nc > 6)
			continue;
		for (int ci = p->s->t[d].c0; ci < p->s->t[d].c0 + p->s->t[d].nc; ci++) {
			if (p->s->c[ci].type == PT_TEXT && (strstr(p->s->c[ci].name, "label") || strstr(p->s->c[ci].name, "name") ||
			                                    strstr(p->s->c[ci].name, "title"))) {
				if (p->s->t[d].rows > p->s->t[table].rows)
					continue;
				*via = d;
				return ci;
			}
		}
	}
	/* a text column named by a word of the question ("microbiology test" -> test_name);
	 * two columns named by the same word (dose_val_rx, dose_unit_rx): ambiguous, none */
	int guided = -1, nguided = 0;
	for (int ci = p->s->t[table].c0; ci < p->s->t[table].c0 + p->s->t[table].nc; ci++) {
		if (p->s->c[ci].type != PT_TEXT || is_keyish(p, ci) || !p->s->c[ci].nvalues)
			continue;
		for (int i = 0; i < p->tk.n; i++) {
			const char *st = p->tk.v[i].stem;
			size_t l = strlen(st);
			if (l >= 4 && !strncmp(p->s->c[ci].name, st, 4) && p->tk.v[i].kind == TK_WORD) {
				if (guided != ci)
					nguided++;
				guided = ci;
				break;
			}
		}
	}
	if (nguided == 1)
		return guided;
	if (nguided > 1)
		return -1;
	for (int ci = p->s->t[table].c0; ci < p->s->t[table].c0 + p->s->t[table].nc; ci++)
		if (p->s->c[ci].type == PT_TEXT && !is_keyish(p, ci))
			return ci;
	return -1;
}

static void need(struct planner *p, int table)
{
	struct frame *f = &p->f;
	if (table == f->fact)
		return;
	for (int i = 0; i < f->nneed; i++)
		if (f->need[i] == table)
			return;
	if (f->nneed < 8)
		f->need[f->nneed++] = table;
}

/* ---- the fact table: where the linked things meet ---- */
static int dict_reaches(struct planner *p, int dict_col, const char *val, int table, int *via_key)
{
	/* table references the value's table through one key: verify a row exists */
	int dt = p->s->c[dict_col].table;
	for (int k = 0; k < p->s->nfk; k++) {
		int from = p->s->fk[k].from, to = p->s->fk[k].to;
		if (p->s->c[from].table != table || p->s->c[to].table != dt)
			continue;
		struct sb q = SB_INIT;
		sb_init_arena(&q, &p->a);
		sb_printf(&q, "SELECT 1 FROM \"%s\" f JOIN \"%s\" d ON f.\"%s\" = d.\"%s\" WHERE d.\"%s\" = '",
		          p->s->t[table].name, p->s->t[dt].name, p->s->c[from].name, p->s->c[to].name, p->s->c[dict_col].name);
		for (const char *c = val; *c; c++) {
			if (*c == '\'')
				sb_putc(&q, '\'');
			sb_putc(&q, *c);
		}
		sb_puts(&q, "' LIMIT 1");
		if (sb_ok(&q) && planner_snap_probe(p->s, sb_cstr(&q))) {
			if (via_key)
				*via_key = k;
			return 1;
		}
	}
	return 0;
}

static int choose_fact(struct planner *p, int wants_time)
{
	double sc[256] = {0};
	int nt = p->s->nt < 256 ? p->s->nt : 256;
	struct frame *f = &p->f;

	for (int l = 0; l < p->pl.n; l++) {
		struct plink_item *it = &p->pl.v[l];
		if (it->kind == PL_VALUE) {
			for (int c = 0; c < it->ncols; c++) {
				int t = p->s->c[it->cols[c]].table;
				sc[t] += 3.0 / it->ncols;
				for (int ti = 0; ti < nt; ti++)
					if (ti != t && dict_reaches(p, it->cols[c], it->vals[c], ti, NULL))
						sc[ti] += 2.5 / it->ncols;
			}
		} else if (it->kind == PL_COLUMN) {
			int weak = p->tk.v[it->t0].role == R_VALUE || it->role == 1;
			sc[p->s->c[it->cols[0]].table] += (weak ? 0.5 : 2) * it->score;
		} else if (it->kind == PL_TABLE) {
			sc[it->table] += 2.5 * it->score;
		} else if (it->kind == PL_CONCEPT && it->con >= 0) {
			const struct pconcept *pc = &p->s->con[it->con];
			for (int k = 0; k < pc->nc; k++)
				sc[p->s->c[pc->c[k].col].table] += 3.0 / pc->nc;
		} else if (it->kind == PL_CONCEPT) {
			double s2;
			int c = planner_link_term(&p->a, p->s, it->measure, p->r, p->banned, 0.75, &s2);
			if (c >= 0)
				sc[p->s->c[c].table] += 3;
		}
	}
	if (f->visit_mention >= 0 && f->visit_mention < nt)
		sc[f->visit_mention] += 2;
	if (f->entity_key >= 0)
		sc[p->s->c[f->entity_key].table] += 0.5;
	/* "female patients": when the entity's own table (named like it) holds a linked thing, it is the home */
	for (int ti = 0; ti < nt && f->entity_word && !f->entity_val; ti++)
		if (sc[ti] > 0 && entity_names_table(p, ti))
			sc[ti] += 2;
	for (int ti = 0; ti < nt; ti++) {
		if (p->banned && p->banned[ti]) {
			sc[ti] = -100;
			continue;
		}
		if (sc[ti] <= 0)
			continue;
		if (f->entity_col && f->entity_val && col_in(p, ti, f->entity_col) >= 0)
			sc[ti] += 0.5;
		if (f->entity_col && f->entity_val && f->entity_key < 0 && col_in_loose(p, ti, f->entity_col) < 0) {
			/* "patient 123" must be applicable: the table or one it reaches carries the key */
			int reach = 0;
			for (int tj = 0; tj < nt && !reach; tj++) {
				int e[4];
				reach = col_in_loose(p, tj, f->entity_col) >= 0 && path(p, ti, tj, e, 3) >= 0;
			}
			if (!reach)
				sc[ti] -= 3;
		}
		if (wants_time && time_col(p, ti) < 0)
			sc[ti] -= 2;
		/* the retrieval's ranking: a small tie-breaker */
		for (int k = 0; p->r && k < p->r->ntables; k++)
			if (!strcmp(p->r->tables[k].name, p->s->t[ti].name))
				sc[ti] += 0.1 * (10 - k) / 10.0;
	}
	/* an average/sum/min/max is taken over the fact table's own measure: the table of a named
	 * numeric column, or one with a measured value when a value of it is named */
	int aggw = 0;
	for (int i = 0; i < p->tk.n; i++)
		if (!p->tk.v[i].used && (p->tk.v[i].role == R_AVG || p->tk.v[i].role == R_SUM || p->tk.v[i].role == R_MAX ||
		                         p->tk.v[i].role == R_MIN))
			aggw = 1;
	for (int l = 0; aggw && l < p->pl.n; l++) {
		struct plink_item *it = &p->pl.v[l];
		if (it->kind == PL_COLUMN && p->s->c[it->cols[0]].type == PT_NUM && it->role != 1 && !is_keyish(p, it->cols[0]) &&
		    p->tk.v[it->t0].role != R_VALUE)
			sc[p->s->c[it->cols[0]].table] += 2;
		else if (it->kind == PL_VALUE)
			for (int c = 0; c < it->ncols; c++)
				if (measure_col(p, p->s->c[it->cols[c]].table) >= 0)
					sc[p->s->c[it->cols[c]].table] += 1.5 / it->ncols;
	}
	/* comparisons name columns too */
	for (int i = 0; i < f->ncond; i++)
		if (f->cond[i].col >= 0)
			sc[p->s->c[f->cond[i].col].table] += 1.5;
	/* a table from which every directly named thing is reachable (many-to-one) is a better home;
	 * a value stored in several tables is reached through any of them */
	int grp[PL_MAX + MAXF][4], ngrp[PL_MAX + MAXF], ng = 0;
	for (int l = 0; l < p->pl.n; l++) {
		struct plink_item *it = &p->pl.v[l];
		ngrp[ng] = 0;
		if (it->kind == PL_VALUE || it->kind == PL_COLUMN)
			for (int c = 0; c < it->ncols && c < 4; c++)
				grp[ng][ngrp[ng]++] = p->s->c[it->cols[c]].table;
		else if (it->kind == PL_TABLE)
			grp[ng][ngrp[ng]++] = it->table;
		else if (it->kind == PL_CONCEPT && it->con >= 0 && p->s->con[it->con].nc)
			grp[ng][ngrp[ng]++] = p->s->c[p->s->con[it->con].c[0].col].table;
		if (ngrp[ng])
			ng++;
	}
	for (int i = 0; i < f->ncond; i++)
		if (f->cond[i].col >= 0) {
			grp[ng][0] = p->s->c[f->cond[i].col].table;
			ngrp[ng++] = 1;
		}
	for (int ti = 0; ti < nt; ti++) {
		if (sc[ti] <= 0)
			continue;
		int all = 1;
		for (int g = 0; g < ng && all; g++) {
			int any = 0;
			for (int k = 0; k < ngrp[g] && !any; k++) {
				int e[4];
				any = grp[g][k] == ti || path(p, ti, grp[g][k], e, 3) >= 0;
			}
			all = any;
		}
		if (all)
			sc[ti] += 3;
	}
	int best = -1;
	if (getenv("ASKQL_PLANNER_DEBUG"))
		for (int ti = 0; ti < nt; ti++)
			if (sc[ti] != 0)
				fprintf(stderr, "planner: fact score %s %.2f\n", p->s->t[ti].name, sc[ti]);
	for (int ti = 0; ti < nt; ti++)
		if (sc[ti] > 0 && (best < 0 || sc[ti] > sc[best] || (sc[ti] == sc[best] && p->s->t[ti].rows > p->s->t[best].rows)))
			best = ti;
	return best;
}

/* ---- building ---- */
static struct sexpr *C(struct planner *p, int col)
{
	return sx_col(&p->a, tname(p, col), p->s->c[col].name);
}

/* expr_refs: whether e mentions table t, and whether it mentions any other table */
static void expr_refs(const struct sexpr *e, const char *t, int *has_t, int *has_other)
{
	if (!e)
		return;
	if (e->kind == SX_COL && e->a) {
		if (!strcmp(e->a, t))
			*has_t = 1;
		else
			*has_other = 1;
	}
	for (int i = 0; i < e->nargs; i++)
		expr_refs(e->args[i], t, has_t, has_other);
}

static int mentions(const struct sexpr *e, const char *t)
{
	int ht = 0, ho = 0;
	expr_refs(e, t, &ht, &ho);
	return ht;
}

/* semi_join: table ti is another event table of the same parent (labs and vitals both
 * reference the case): its conditions become fact.key IN (SELECT key FROM ti WHERE ...), so
 * rows are not multiplied.  0 done, -1 when ti shares no parent key with the fact table or
 * anything but a condition is asked of it. */
static int semi_join(struct planner *p, struct squery *q, int ti)
{
	struct frame *f = &p->f;
	const char *t = p->s->t[ti].name;
	int kf = -1, kt = -1;
	for (int a = 0; a < p->s->nfk && kf < 0; a++)
		for (int b = 0; b < p->s->nfk && kf < 0; b++)
			if (p->s->c[p->s->fk[a].from].table == f->fact && p->s->c[p->s->fk[b].from].table == ti &&
			    p->s->fk[a].to == p->s->fk[b].to) {
				kf = p->s->fk[a].from;
				kt = p->s->fk[b].from;
			}
	if (kf < 0)
		return -1;
	for (int i = 0; i < q->nsel; i++)
		if (mentions(q->sel[i].e, t))
			return -1;
	for (int i = 0; i < q->ngroup; i++)
		if (mentions(q->group[i], t))
			return -1;
	for (int i = 0; i < q->norder; i++)
		if (mentions(q->order[i].e, t))
			return -1;
	if (mentions(q->having, t))
		return -1;
	struct squery *sub = arena_alloc(&p->a, sizeof *sub);
	if (!sub)
		return -1;
	memset(sub, 0, sizeof *sub);
	sub->from = sub->alias = t;
	sub->sel[sub->nsel++].e = C(p, kt);
	for (int i = 0; i < q->nwhere; i++) {
		int ht = 0, ho = 0;
		expr_refs(q->where[i], t, &ht, &ho);
		if (!ht)
			continue;
		if (ho || sub->nwhere >= 24)
			return -1;
		sub->where[sub->nwhere++] = q->where[i];
		q->where[i--] = q->where[--q->nwhere];
	}
	if (!sub->nwhere || q->nwhere >= 24)
		return -1;
	q->where[q->nwhere++] = sx_in_sub(&p->a, C(p, kf), sub);
	decide(p, "", "join", arena_printf(&p->a, "%s IN (SELECT %s FROM %s WHERE ...)", cfq(p, kf), cfq(p, kt), t),
	       "another event table of the same parent: a condition on it, without multiplying rows", 1);
	return 0;
}

/* join every needed table along the shortest key path from the fact table */
static int add_joins(struct planner *p, struct squery *q)
{
	struct frame *f = &p->f;
	int joined[256] = {0};
	joined[f->fact] = 1;
	for (int i = 0; i < f->nneed; i++) {
		int e[4], n = path(p, f->fact, f->need[i], e, 3);
		if (n < 0 && semi_join(p, q, f->need[i]) == 0)
			continue;
		if (n < 0)
			return decline(p, "no join path from %s to the other table it needs", p->s->t[f->fact].name);
		/* edges are listed from the target back to the fact table: walk them forward */
		int cur = f->fact;
		for (int k = n - 1; k >= 0; k--) {
			int a = p->s->fk[e[k]].from, b = p->s->fk[e[k]].to;
			int other = p->s->c[a].table == cur ? p->s->c[b].table : p->s->c[a].table;
			if (!joined[other]) {
				if (q->njoins >= 6)
					return decline(p, "%s", "too many joins");
				q->joins[q->njoins].table = p->s->t[other].name;
				q->joins[q->njoins].alias = p->s->t[other].name;
				q->joins[q->njoins].on = sx_cmp(&p->a, "=", C(p, a), C(p, b));
				q->njoins++;
				joined[other] = 1;
				decide(p, "", "join", arena_printf(&p->a, "%s = %s", cfq(p, a), cfq(p, b)),
				       p->s->fk[e[k]].inferred ? "inferred key (same name, unique on one side)" : "declared foreign key", 1);
			}
			cur = other;
		}
	}
	return 0;
}

/* the visit restriction: fact.key IN (SELECT key FROM visit WHERE entity = N ... ORDER BY start LIMIT 1) */
static int add_visit(struct planner *p, struct squery *q)
{
	struct frame *f = &p->f;
	if (f->episode < 0)
		return 0;
	const struct ptab *v = &p->s->t[f->episode];
	int key = -1, fkey = -1;
	for (int ci = v->c0; ci < v->c0 + v->nc && key < 0; ci++) {
		if (!p->s->c[ci].unique || strcmp(p->s->c[ci].name, "row_id") == 0)
			continue;
		if (f->fact == f->episode) {
			key = ci;
			fkey = ci;
			break;
		}
		int fc = col_in(p, f->fact, p->s->c[ci].name);
		if (fc >= 0) {
			key = ci;
			fkey = fc;
		}
	}
	if (key < 0) {
		/* the fact table does not carry the visit key: join through it */
		for (int ci = v->c0; ci < v->c0 + v->nc && key < 0; ci++)
			if (p->s->c[ci].unique && strcmp(p->s->c[ci].name, "row_id"))
				key = ci;
		if (key < 0)
			return decline(p, "the visit table %s has no key", v->name);
		need(p, f->episode);
		fkey = key;
	}
	int start = -1, end = -1;
	for (int ci = v->c0; ci < v->c0 + v->nc; ci++) {
		if (p->s->c[ci].type != PT_TIME)
			continue;
		if (start < 0)
			start = ci;
		else if (end < 0)
			end = ci;
	}
	struct squery *sq = arena_alloc(&p->a, sizeof *sq);
	if (!sq)
		return -1;
	sq->from = v->name;
	sq->alias = v->name;
	sq->sel[sq->nsel++].e = C(p, key);
	int ec = col_in(p, f->episode, f->entity_col);
	if (ec < 0 || !f->entity_val)
		return decline(p, "%s", "a first/last visit needs a patient");
	sq->where[sq->nwhere++] = sx_cmp(&p->a, "=", C(p, ec), sx_num(&p->a, f->entity_val));
	if (f->episode_which == 2) {
		sq->where[sq->nwhere++] = sx_null(&p->a, C(p, end), 0);
	} else {
		sq->where[sq->nwhere++] = sx_null(&p->a, C(p, end), 1);
		sq->order[sq->norder].e = C(p, start);
		sq->order[sq->norder++].desc = f->episode_which < 0;
		sq->limit = 1;
	}
	q->where[q->nwhere++] = sx_in_sub(&p->a, C(p, fkey), sq);
	return 0;
}

static int find_role(struct planner *p, enum role r)
{
	for (int i = 0; i < p->tk.n; i++)
		if (p->tk.v[i].role == r && !p->tk.v[i].used)
			return i;
	return -1;
}

static int has_role(struct planner *p, enum role r)
{
	for (int i = 0; i < p->tk.n; i++)
		if (p->tk.v[i].role == r)
			return 1;
	return 0;
}

static const char *numtext(struct planner *p, double v)
{
	if (v == (long)v)
		return arena_printf(&p->a, "%ld", (long)v);
	return arena_printf(&p->a, "%g", v);
}

/* numeric comparisons: a number next to a comparison word, bound to the nearest numeric column */
static int comparisons(struct planner *p)
{
	struct frame *f = &p->f;
	for (int i = 0; i < p->tk.n; i++) {
		struct ptok *t = &p->tk.v[i];
		enum role op = R_NONE;
		int num = -1, num2 = -1;
		if (t->kind == TK_NUM && t->unit == 'D' && !t->used) {
			op = R_BETWEEN;   /* "patients in their 20s": a decade of age */
			num = i;
		} else if (t->kind == TK_NUM && !t->used && i + 2 < p->tk.n && !strcmp(p->tk.v[i + 1].text, "or") &&
		           (p->tk.v[i + 2].role == R_GT || p->tk.v[i + 2].role == R_LT)) {
			op = p->tk.v[i + 2].role == R_GT ? R_GE : R_LE;   /* "60 or above" */
			num = i;
			p->tk.v[i + 1].used = p->tk.v[i + 2].used = 1;
		} else if (t->kind == TK_NUM && t->cmp && !t->used) {
			op = t->cmp;
			num = i;
		} else if ((t->role == R_GT || t->role == R_LT || t->role == R_GE || t->role == R_LE || t->role == R_BETWEEN) &&
		           !t->used) {
			/* "greater than or equal to", "at least", "more than" */
			int j = i + 1;
			while (j < p->tk.n && p->tk.v[j].kind == TK_WORD && (p->tk.v[j].role == R_STOP || planner_lex_generic(p->tk.v[j].stem) ||
			                                                     p->tk.v[j].role == R_GE) && j < i + 4)
				j++;
			if (j < p->tk.n && p->tk.v[j].kind == TK_NUM) {
				op = t->role;
				num = j;
				if (op == R_BETWEEN && j + 2 < p->tk.n && p->tk.v[j + 1].role == R_AND && p->tk.v[j + 2].kind == TK_NUM)
					num2 = j + 2;
			} else if (i > 0 && p->tk.v[i - 1].kind == TK_NUM && !p->tk.v[i - 1].used && p->tk.v[i].hangul) {
				op = t->role;   /* 65 이상 */
				num = i - 1;
			} else if (op == R_NONE && (t->role == R_GT || t->role == R_LT) && !t->hangul) {
				/* "greater than that first measured": a comparison between two values */
				int k = i + 1;
				while (k < p->tk.n && (p->tk.v[k].role == R_STOP || !strcmp(p->tk.v[k].text, "than")))
					k++;
				if (k < p->tk.n && (!strcmp(p->tk.v[k].text, "that") || !strcmp(p->tk.v[k].text, "the")))
					return decline(p, "%s", "comparing two measurements with each other is not a shape the offline planner builds");
				continue;
			} else {
				continue;
			}
		} else {
			continue;
		}
		/* the column: "age" for ages and older/younger; else the nearest linked numeric column */
		int col = -1;
		struct ptok *n = &p->tk.v[num];
		if (n->unit == 'a' || n->unit == 'D' || !strcmp(t->text, "older") ||
		    (num == i && i + 2 < p->tk.n && (!strcmp(p->tk.v[i + 2].text, "older") || !strcmp(p->tk.v[i + 2].text, "younger"))) ||
		    (num > 0 && (!strcmp(p->tk.v[num - 1].text, "aged") || !strcmp(p->tk.v[num - 1].text, "age"))) || !strcmp(t->text, "younger") || !strcmp(t->stem, "ag")) {
			double sc;
			col = planner_link_term(&p->a, p->s, "age", p->r, p->banned, 0.9, &sc);
		}
		int bestd = 99;
		for (int l = 0; l < p->pl.n && col >= 0; l++)
			if (p->pl.v[l].kind == PL_COLUMN && p->pl.v[l].cols[0] == col)
				p->pl.v[l].role = 1;   /* "aged": the age column of the comparison */
		for (int l = 0; l < p->pl.n && col < 0; l++) {
			struct plink_item *it = &p->pl.v[l];
			if (it->kind != PL_COLUMN || p->s->c[it->cols[0]].type != PT_NUM)
				continue;
			int d = it->t1 <= i ? i - it->t1 : it->t0 - num;
			if (d < 0)
				d = -d;
			if (d < bestd) {
				bestd = d;
				col = it->cols[0];
			}
		}
		for (int l = 0; l < p->pl.n && col >= 0; l++)
			if (p->pl.v[l].kind == PL_COLUMN && p->pl.v[l].cols[0] == col)
				p->pl.v[l].role = 1;
		/* no column named: the fact table's measure ("potassium over 5.5"), resolved once the
		 * table is chosen (col -1 until then) */
		if (f->ncond >= MAXF)
			continue;
		const char *ops = op == R_GT ? ">" : op == R_LT ? "<" : op == R_GE ? ">=" : op == R_LE ? "<=" : "BETWEEN";
		f->cond[f->ncond].col = col;
		f->cond[f->ncond].op = ops;
		f->cond[f->ncond].lit = numtext(p, n->num);
		f->cond[f->ncond].num = 1;
		f->cond[f->ncond].lit2 = num2 >= 0 ? numtext(p, p->tk.v[num2].num) : NULL;
		if (n->unit == 'D')
			f->cond[f->ncond].lit2 = numtext(p, n->num + 9);
		f->ncond++;
		t->used = 1;
		n->used = 1;
		if (num2 >= 0) {
			p->tk.v[num2].used = 1;
			p->tk.v[num2 - 1].used = 1;
		}
		if (col >= 0)
			decide(p, span_text(p, i < num ? i : num, (num2 >= 0 ? num2 : (num > i ? num : i)) + 1), "filter",
			       arena_printf(&p->a, "%s %s %s", cfq(p, col), ops, n->text), "numeric comparison", 1);
		else
			f->cond[f->ncond - 1].lit2 = f->cond[f->ncond - 1].lit2 ? f->cond[f->ncond - 1].lit2 : NULL;
	}
	return 0;
}

/* the normal range of a measure: the catalog's metadata first, the lexicon's default otherwise */
static void concept_range(struct planner *p, int col, const char *value, double *lo, double *hi, const char **src)
{
	*src = "textbook default range";
	if (!value && p->s->c[col].has_range) {
		*lo = p->s->c[col].lo;
		*hi = p->s->c[col].hi;
		*src = "normal range from the catalog metadata";
	}
	for (int k = 0; value && k < p->s->nvr; k++)
		if (!strcmp(p->s->vr[k].value, value)) {
			*lo = p->s->vr[k].lo;
			*hi = p->s->vr[k].hi;
			*src = "normal range of the value from the catalog metadata";
		}
	for (int k = 0; p->r && k < p->r->ncolumns; k++) {
		const struct ret_column *rc = &p->r->columns[k];
		if (rc->has_range && !strcmp(rc->name, p->s->c[col].name) && !strcmp(rc->table, tname(p, col)) && !value) {
			*lo = rc->range_lo;
			*hi = rc->range_hi;
			*src = "normal range from the catalog metadata";
		}
	}
}

/* a metadata literal is printed as written: only numbers, quoted strings and lists of them */
static int lit_ok(const char *s)
{
	int inq = 0;
	for (; *s; s++) {
		if (*s == '\'') {
			inq = !inq;
			continue;
		}
		if (inq)
			continue;
		if (!strchr("0123456789.-+ (),", *s))
			return 0;
	}
	return !inq;
}

/* build the squery from the frame */
static int build(struct planner *p, struct squery *q)
{
	struct frame *f = &p->f;
	if (f->multi) {
		const char *why;
		if (planner_timeline(&p->a, p->s, &f->tl, q, &why) < 0)
			return decline(p, "%s", why);
		return 0;
	}
	const char *fact = p->s->t[f->fact].name;
	q->from = fact;
	q->alias = fact;

	/* entity filter, directly or through a join */
	if (f->entity_col && col_in(p, f->fact, f->entity_col) < 0) {
		/* diagnosis_table.subject_id for the patient key subjectid: same entity, other spelling */
		for (int ci = p->s->t[f->fact].c0; ci < p->s->t[f->fact].c0 + p->s->t[f->fact].nc; ci++) {
			char a[128], b[128];
			size_t k = 0;
			for (const char *c = p->s->c[ci].name; *c && k < sizeof a - 1; c++)
				if (*c != '_')
					a[k++] = *c;
			a[k] = 0;
			k = 0;
			for (const char *c = f->entity_col; *c && k < sizeof b - 1; c++)
				if (*c != '_')
					b[k++] = *c;
			b[k] = 0;
			if (!strcmp(a, b))
				f->entity_col = p->s->c[ci].name;
		}
	}
	if (f->entity_val && f->entity_key >= 0) {
		/* a numbered row of another table: join to it (many-to-one) and filter its key */
		need(p, p->s->c[f->entity_key].table);
		q->where[q->nwhere++] = sx_cmp(&p->a, "=", C(p, f->entity_key), sx_num(&p->a, f->entity_val));
	} else if (f->entity_val) {
		int ec = col_in(p, f->fact, f->entity_col);
		if (ec < 0) {
			for (int ti = 0; ti < p->s->nt && ec < 0; ti++)
				if ((ec = col_in(p, ti, f->entity_col)) >= 0)
					need(p, ti);
		}
		if (ec < 0)
			return decline(p, "%s", "no table carries the patient/case key");
		q->where[q->nwhere++] = sx_cmp(&p->a, "=", C(p, ec), sx_num(&p->a, f->entity_val));
	}
	/* value filters (several values of one column become IN) */
	for (int i = 0; i < f->nin; i++) {
		need(p, p->s->c[f->in[i].col].table);
		if (f->in[i].n == 1) {
			q->where[q->nwhere++] = sx_cmp(&p->a, "=", C(p, f->in[i].col), sx_lit(&p->a, f->in[i].vals[0]));
		} else {
			struct sexpr *v[8];
			for (int k = 0; k < f->in[i].n; k++)
				v[k] = sx_lit(&p->a, f->in[i].vals[k]);
			q->where[q->nwhere++] = sx_in_list(&p->a, C(p, f->in[i].col), v, f->in[i].n);
		}
	}
	for (int i = 0; i < f->ncond && q->nwhere < 22; i++) {
		need(p, p->s->c[f->cond[i].col].table);
		if (f->rate_n && i >= f->rate_from && i < f->rate_from + f->rate_n)
			continue;   /* the rate's numerator: in the projection, not a filter */
		struct sexpr *lhs = C(p, f->cond[i].col);
		if (f->cond[i].num == 2) {
			q->where[q->nwhere++] = sx_null(&p->a, lhs, 1);
			continue;
		}
		struct sexpr *rhs = f->cond[i].num ? sx_num(&p->a, f->cond[i].lit) : sx_lit(&p->a, f->cond[i].lit);
		if (f->cond[i].num == 3 && !lit_ok(f->cond[i].lit))
			return decline(p, "%s", "a concept's definition in the metadata is not a simple condition");
		if (!strcmp(f->cond[i].op, "BETWEEN")) {
			q->where[q->nwhere++] = sx_cmp(&p->a, ">=", lhs, rhs);
			q->where[q->nwhere++] = sx_cmp(&p->a, "<=", C(p, f->cond[i].col), sx_num(&p->a, f->cond[i].lit2));
		} else {
			q->where[q->nwhere++] = sx_cmp(&p->a, f->cond[i].op, lhs, rhs);
		}
	}
	if (f->has_win) {
		if (f->time_col < 0)
			return decline(p, "the question has a time window but %s has no time column", fact);
		need(p, p->s->c[f->time_col].table);
		if (f->win.from[0])
			q->where[q->nwhere++] = sx_cmp(&p->a, ">=", C(p, f->time_col), sx_ts(&p->a, f->win.from));
		if (f->win.to[0])
			q->where[q->nwhere++] = sx_cmp(&p->a, "<", C(p, f->time_col), sx_ts(&p->a, f->win.to));
	}
	if (add_visit(p, q) < 0)
		return -1;
	for (int i = 0; i < p->tk.n && !f->current_all && !f->entity_val; i++)
		if (p->tk.v[i].role == R_CURRENT && !p->tk.v[i].used && f->fact >= 0 &&
		    (f->visit_mention == f->fact || visit_table(p, 0) == f->fact)) {
			f->visit_mention = f->fact;
			f->current_all = 1;   /* "patients currently admitted" */
			p->tk.v[i].used = 1;
		}
	if (f->current_all) {
		/* the end time of the visit table is empty */
		const struct ptab *v = &p->s->t[f->visit_mention];
		int end = -1, nt = 0;
		for (int ci = v->c0; ci < v->c0 + v->nc; ci++)
			if (p->s->c[ci].type == PT_TIME && ++nt == 2)
				end = ci;
		if (end < 0)
			return decline(p, "%s", "the visit table has no end time");
		need(p, f->visit_mention);
		q->where[q->nwhere++] = sx_null(&p->a, C(p, end), 0);
	}

	/* projection */
	if (f->exists) {
		q->sel[q->nsel++].e = sx_num(&p->a, "1");
		q->exists_wrap = 1;
	} else if (f->rank_n > 0) {
		need(p, p->s->c[f->rank_col].table);
		q->sel[q->nsel].e = C(p, f->rank_col);
		q->sel[q->nsel++].as = p->s->c[f->rank_col].name;
		struct sexpr *cnt = f->rank_agg ? sx_agg(&p->a, f->rank_agg, 0, C(p, f->measure))
		                                : sx_agg(&p->a, "COUNT", 0, sx_star(&p->a));
		if (f->rank_agg)
			need(p, p->s->c[f->measure].table);
		struct sexpr *dr = sx_agg(&p->a, "DENSE_RANK", 0, NULL);
		dr->kind = SX_WIN_DENSE;
		dr->distinct = f->rank_asc;   /* printed as ASC */
		dr->args[0] = cnt;
		q->sel[q->nsel].e = dr;
		q->sel[q->nsel++].as = "rnk";
		/* the ranking's measure is shown beside each item (top 5 departments and their counts) */
		q->sel[q->nsel].e = f->rank_agg ? sx_agg(&p->a, f->rank_agg, 0, C(p, f->measure))
		                                : sx_agg(&p->a, "COUNT", 0, sx_star(&p->a));
		char *mas = f->rank_agg ? arena_printf(&p->a, "%s_%s", f->rank_agg, p->s->c[f->measure].name) : NULL;
		for (char *c = mas; c && *c; c++)
			*c = (char)tolower((unsigned char)*c);
		q->sel[q->nsel++].as = mas ? mas : "count";
		q->group[q->ngroup++] = C(p, f->rank_col);
		if (f->rank_key >= 0)
			q->group[q->ngroup++] = C(p, f->rank_key);   /* one rank per item, not per label text */
		q->rank_n = f->rank_n;
	} else {
		if (f->bucket) {
			const char *u = f->bucket == 'h' ? "hour" : f->bucket == 'd' ? "day" : f->bucket == 'w' ? "week"
			              : f->bucket == 'm' ? "month" : "year";
			struct sexpr *b = sx_func(&p->a, "date_trunc", sx_lit(&p->a, u), C(p, f->time_col));
			q->sel[q->nsel].e = b;
			q->sel[q->nsel++].as = u;
			q->group[q->ngroup++] = b;
		}
		for (int i = 0; i < f->ngroup; i++) {
			need(p, p->s->c[f->group[i]].table);
			q->sel[q->nsel++].e = C(p, f->group[i]);
			q->group[q->ngroup++] = C(p, f->group[i]);
		}
		if (f->agg) {
			struct sexpr *arg, *ratex = NULL;
			int distinct = 0;
			if (!strcmp(f->agg, "RATE")) {
				/* ROUND(AVG(CAST((numerator) AS int)) * 100, 1): the share in percent */
				struct sexpr *num = NULL;
				for (int i = f->rate_from; i < f->rate_from + f->rate_n; i++) {
					struct sexpr *rhs = f->cond[i].num ? sx_num(&p->a, f->cond[i].lit) : sx_lit(&p->a, f->cond[i].lit);
					if (f->cond[i].num == 3 && !lit_ok(f->cond[i].lit))
						return decline(p, "%s", "a concept's definition in the metadata is not a simple condition");
					struct sexpr *c = sx_cmp(&p->a, f->cond[i].op, C(p, f->cond[i].col), rhs);
					num = num ? sx_and(&p->a, num, c) : c;
				}
				struct sexpr *r = sx_arith(&p->a, "*", sx_agg(&p->a, "AVG", 0, sx_cast(&p->a, num, "int")),
				                           sx_num(&p->a, "100"));
				ratex = sx_func(&p->a, "ROUND", r, sx_num(&p->a, "1"));
				arg = NULL;
			} else if (f->count_entity) {
				int ec = col_in(p, f->fact, f->entity_col);
				if (ec < 0)
					for (int ti = 0; ti < p->s->nt && ec < 0; ti++)
						if ((ec = col_in(p, ti, f->entity_col)) >= 0)
							need(p, ti);
				arg = C(p, ec);
				distinct = 1;
			} else if (!strcmp(f->agg, "COUNT")) {
				arg = sx_star(&p->a);
			} else if (f->measure < 0 && f->dur_start >= 0) {
				/* date_part('epoch', end - start) / 60: minutes */
				arg = sx_arith(&p->a, "/", sx_func(&p->a, "date_part", sx_lit(&p->a, "epoch"),
				                                   sx_arith(&p->a, "-", C(p, f->dur_end), C(p, f->dur_start))),
				               sx_num(&p->a, "60"));
			} else {
				need(p, p->s->c[f->measure].table);
				arg = C(p, f->measure);
			}
			q->sel[q->nsel].e = ratex ? ratex : sx_agg(&p->a, f->agg, distinct, arg);
			q->sel[q->nsel++].as = ratex ? "rate_percent"
			                     : arena_printf(&p->a, f->measure < 0 && f->dur_start >= 0 ? "%s_minutes" : "%s", f->agg);
			for (char *c = (char *)q->sel[q->nsel - 1].as; !ratex && *c; c++)
				*c = (char)tolower((unsigned char)*c);
			if (f->ngroup && f->order) {
				q->order[q->norder].e = q->sel[q->nsel - 1].e;
				q->order[q->norder++].desc = f->order < 0;
				q->limit = f->limit;
			}
		} else {
			for (int i = 0; i < f->nproj; i++) {
				need(p, p->s->c[f->proj[i]].table);
				q->sel[q->nsel++].e = C(p, f->proj[i]);
			}
			if (!q->nsel)
				return decline(p, "%s", "what to show could not be told");
			q->distinct = f->distinct;
			for (int i = 0; i < f->nlead && q->norder < 3; i++) {
				q->order[q->norder].e = C(p, f->lead[i]);
				q->order[q->norder++].desc = 0;
			}
			if (f->order && f->order_col >= 0) {
				need(p, p->s->c[f->order_col].table);
				q->order[q->norder].e = C(p, f->order_col);
				q->order[q->norder++].desc = f->order < 0;
				if (f->order2) {
					q->order[q->norder].e = C(p, f->order2_col);
					q->order[q->norder++].desc = f->order2 < 0;
					q->where[q->nwhere++] = sx_null(&p->a, C(p, f->order_col), 1);
				}
				q->limit = f->limit;
				/* the first X found: a row that has an X */
				if (f->nproj == 1 && f->proj[0] != f->order_col && !f->order2)
					q->where[q->nwhere++] = sx_null(&p->a, C(p, f->proj[0]), 1);
			}
		}
	}
	return add_joins(p, q);
}

/* the question asks for a time: "when", "what time", "what was the first time", "언제" */
static int asks_when(struct planner *p)
{
	for (int i = 0; i < p->tk.n; i++) {
		const struct ptok *t = &p->tk.v[i];
		if (t->role == R_WHEN)
			return 1;
		if (!t->used && (!strcmp(t->text, "time") || !strcmp(t->text, "times") || !strcmp(t->text, "date") ||
		                 !strcmp(t->text, "dates")) && i > 0) {
			const struct ptok *pv = &p->tk.v[i - 1];
			if (pv->role != R_FIRST && pv->role != R_LAST && pv->role != R_MANY && pv->kind != TK_NUM &&
			    pv->role != R_THIS && pv->role != R_ANY && strcmp(pv->text, "same") && strcmp(pv->text, "over") && strcmp(pv->text, "one") &&
			    !(i + 1 < p->tk.n && !strcmp(p->tk.v[i + 1].text, "that") && pv->role == R_STOP))
				return 1;
		}
	}
	if (p->tk.n && p->tk.v[0].role == R_WHICH) {
		for (int i = 1; i < p->tk.n && i <= 5; i++) {
			const struct ptok *t = &p->tk.v[i];
			if (!strcmp(t->text, "time") || !strcmp(t->text, "date") || !strcmp(t->text, "day"))
				return 1;
			if (t->kind == TK_WORD && t->role == R_NONE && !planner_lex_generic(t->stem))
				return 0;
			if (t->role == R_WHICH || t->role == R_VALUE)
				return 0;
		}
	}
	return 0;
}

/* ---- timelines over several tables: "바이탈, 랩 타임라인", "vitals and labs of case 1 over time" ---- */

/* the measured columns of a wide table (vital signs): numeric, not keys, not yes/no flags */
static int wide_cols(struct planner *p, int t, int *out, int max)
{
	int n = 0;
	for (int ci = p->s->t[t].c0; ci < p->s->t[t].c0 + p->s->t[t].nc; ci++)
		if (p->s->c[ci].type == PT_NUM && !is_keyish(p, ci) && !p->s->c[ci].flag && n < max)
			out[n++] = ci;
	return n;
}

/* event_table: a table of time-stamped events (vitals, labs): it has a time column and no other
 * table references it (a case or admission table is the home of an entity, not a measurement) */
static int event_table(struct planner *p, int t)
{
	if (time_col(p, t) < 0)
		return 0;
	for (int k = 0; k < p->s->nfk; k++)
		if (p->s->c[p->s->fk[k].to].table == t && p->s->c[p->s->fk[k].from].table != t)
			return 0;
	return 1;
}

/* tl_source: the timeline's source for table t, added on first use; NULL when full */
static struct ptl_source *tl_source(struct planner *p, int t)
{
	struct ptl_spec *sp = &p->f.tl;
	for (int i = 0; i < sp->nsrc; i++)
		if (sp->src[i].table == t)
			return &sp->src[i];
	if (sp->nsrc >= PTL_MAXSRC)
		return NULL;
	struct ptl_source *src = &sp->src[sp->nsrc++];
	memset(src, 0, sizeof *src);
	src->table = t;
	src->time = time_col(p, t);
	src->label = src->value = -1;
	return src;
}

/* tl_all: every measurement of table t (wide columns, or its label/value pair) */
static int tl_all(struct planner *p, struct ptl_source *src)
{
	int via, t = src->table;
	src->ncols = wide_cols(p, t, src->cols, PTL_MAXCOLS);
	if (src->ncols >= 2) {
		src->label = -1;
		return 0;
	}
	src->ncols = 0;
	src->label = label_col(p, t, &via);
	src->value = measure_col(p, t);
	if (src->nvals <= 0)
		src->nvals = -1;   /* all labels, unless some of them are named (랩(젖산/칼륨)) */
	return src->label >= 0 && src->value >= 0 ? 0 : -1;
}

/* multi_timeline: 1 when the question asks for a timeline over two or more timed tables and
 * the spec is filled in f->tl; 0 when it is not that shape; -1 declined (reason set). */
static int multi_timeline(struct planner *p, int timeline_word)
{
	struct frame *f = &p->f;
	struct ptl_spec *sp = &f->tl;
	int named_tables = 0;

	const char *named_key = NULL;
	int concept = -1;
	memset(sp, 0, sizeof *sp);
	if (f->episode >= 0 || f->visit_mention >= 0)
		return 0;
	for (int i = 0; i < p->tk.n; i++) {
		enum role r = p->tk.v[i].role;
		if (!p->tk.v[i].used && (r == R_AVG || r == R_MAX || r == R_MIN || r == R_SUM || r == R_COUNT ||
		                         r == R_TOP || r == R_MOST || r == R_FREQ || r == R_BUCKET))
			return 0;   /* an aggregate or a ranking, not a list of measurements */
	}
	/* which tables with a time column the links name, and how */
	int timed[PL_MAX] = {0};
	for (int l = 0; l < p->pl.n; l++) {
		const struct plink_item *it = &p->pl.v[l];
		int t = it->kind == PL_TABLE ? it->table : (it->kind == PL_COLUMN || it->kind == PL_VALUE) ? p->s->c[it->cols[0]].table : -1;
		if (it->kind == PL_CONCEPT) {
			concept = l;   /* a condition on a measure: not with several tables (below) */
			continue;
		}
		int via;
		if (it->kind == PL_VALUE) {
			/* a label (lab name 'k'): of an event table, or of a dictionary an event table references */
			for (int c = 0; c < it->ncols && timed[l] == 0; c++) {
				int vt = p->s->c[it->cols[c]].table;
				if (event_table(p, vt) && label_col(p, vt, &via) == it->cols[c]) {
					timed[l] = vt + 1;
					continue;
				}
				for (int k = 0; k < p->s->nfk && !timed[l]; k++) {
					int et = p->s->c[p->s->fk[k].from].table;
					if (p->s->c[p->s->fk[k].to].table == vt && event_table(p, et) && label_col(p, et, &via) == it->cols[c])
						timed[l] = et + 1;
				}
			}
		} else if (t >= 0 && event_table(p, t) && (it->kind == PL_TABLE || (p->s->c[it->cols[0]].type != PT_TIME &&
		                                                                   !is_keyish(p, it->cols[0])))) {
			timed[l] = t + 1;
		}
		/* "labs": the label or value column of a long event table names the table */
		named_tables += timed[l] && (it->kind == PL_TABLE ||
		                             (it->kind == PL_COLUMN && (it->cols[0] == label_col(p, t, &via) ||
		                                                        it->cols[0] == measure_col(p, t))));
	}
	int tabs[PL_MAX], nt = 0;
	for (int l = 0; l < p->pl.n; l++) {
		int dup = 0;
		for (int k = 0; k < nt; k++)
			dup |= tabs[k] == timed[l] - 1;
		if (timed[l] && !dup)
			tabs[nt++] = timed[l] - 1;
	}
	if (nt < 2 || !(timeline_word || (f->entity_val && named_tables >= 2)))
		return 0;
	if (concept >= 0)
		return decline(p, "a timeline over several tables restricted by '%s' (cases that had it? only those "
		               "measurements?) is not a shape the offline planner builds",
		               span_text(p, p->pl.v[concept].t0, p->pl.v[concept].t1));
	sp->banned = p->banned;
	/* the sources: a table named whole, its columns, or its labels */
	for (int l = 0; l < p->pl.n; l++) {
		const struct plink_item *it = &p->pl.v[l];
		if (!timed[l])
			continue;
		struct ptl_source *src = tl_source(p, timed[l] - 1);
		if (!src)
			return decline(p, "%s", "a timeline over more than six tables is too wide to build");
		if (src->time < 0)
			return decline(p, "%s has no time column for a timeline", p->s->t[src->table].name);
		int via, lc = label_col(p, src->table, &via);
		if (it->kind == PL_TABLE || (it->kind == PL_COLUMN && (it->cols[0] == lc || it->cols[0] == measure_col(p, src->table)))) {
			/* "labs", "lab results": the whole table */
			if (tl_all(p, src) < 0)
				return decline(p, "%s: which column is the measurement could not be told", p->s->t[src->table].name);
		} else if (it->kind == PL_COLUMN) {
			if (src->nvals < 0 || src->label >= 0)
				continue;
			if (p->s->c[it->cols[0]].type != PT_NUM)
				return decline(p, "'%s' is not a measured value of a timeline", span_text(p, it->t0, it->t1));
			int dup = 0;
			for (int k = 0; k < src->ncols; k++)
				dup |= src->cols[k] == it->cols[0];
			if (!dup && src->ncols < PTL_MAXCOLS)
				src->cols[src->ncols++] = it->cols[0];
		} else if (it->kind == PL_VALUE && !src->ncols) {
			/* named labels narrow a table named whole: "랩(젖산/칼륨)" is those two tests */
			if (src->nvals < 0)
				src->nvals = 0;
			src->label = lc;
			src->value = measure_col(p, src->table);
			if (lc < 0 || src->value < 0)
				return decline(p, "%s: which column is the measurement could not be told", p->s->t[src->table].name);
			for (int c = 0; c < it->ncols; c++)
				if ((p->s->c[it->cols[c]].table == src->table || p->s->c[it->cols[c]].table == p->s->c[lc].table) &&
				    src->nvals < 8) {
					src->vals[src->nvals++] = it->vals[c];
					break;
				}
		}
		decide(p, span_text(p, it->t0, it->t1), "timeline_source", p->s->t[src->table].name,
		       it->kind == PL_TABLE ? "a table named whole: all its measurements" : "measurements named in it", it->score);
	}
	for (int i = 0; i < sp->nsrc; i++)
		if (sp->src[i].nvals < 0)
			sp->src[i].nvals = 0;
	/* everything else the question names must be a filter on a table every source reaches */
	for (int l = 0; l < p->pl.n; l++) {
		const struct plink_item *it = &p->pl.v[l];
		if (timed[l])
			continue;
		if (it->kind == PL_VALUE && sp->nflt < 8) {
			struct ptl_filter *fl = &sp->flt[sp->nflt++];
			memset(fl, 0, sizeof *fl);
			fl->col = it->cols[0];
			fl->vals[fl->nvals++] = it->vals[0];
			decide(p, span_text(p, it->t0, it->t1), "value", arena_printf(&p->a, "%s = '%s'", cfq(p, fl->col), it->vals[0]),
			       it->why, it->score);
		} else if (it->kind == PL_COLUMN && p->s->c[it->cols[0]].flag && sp->nflt < 8) {
			struct ptl_filter *fl = &sp->flt[sp->nflt++];
			memset(fl, 0, sizeof *fl);
			*fl = (struct ptl_filter){.col = it->cols[0], .op = "=", .lit = "1", .num = 1};
			decide(p, span_text(p, it->t0, it->t1), "filter", arena_printf(&p->a, "%s = 1", cfq(p, fl->col)), "a yes/no attribute", it->score);
		} else if (it->kind == PL_COLUMN && is_keyish(p, it->cols[0]) && p->s->c[it->cols[0]].type != PT_TIME) {
			/* "per patient" (a synonym of the key column): the entity the rows are lined up by */
			if (!named_key)
				named_key = p->s->c[it->cols[0]].name;
		} else if (it->kind == PL_COLUMN && (p->s->c[it->cols[0]].type == PT_TIME || it->role == 1 ||
		                                     (f->entity_col && !strcmp(p->s->c[it->cols[0]].name, f->entity_col)))) {
			continue;   /* a time word, a comparison's column, the entity itself */
		} else {
			return decline(p, "how '%s' goes with a timeline of several tables could not be told", span_text(p, it->t0, it->t1));
		}
	}
	for (int i = 0; i < f->ncond; i++) {
		int ct = f->cond[i].col >= 0 ? p->s->c[f->cond[i].col].table : -1;
		for (int k = 0; k < sp->nsrc && ct >= 0; k++)
			if (sp->src[k].table == ct)
				ct = -1;
		if (ct < 0 || f->cond[i].num != 1 || sp->nflt >= 8)
			return decline(p, "%s", "a numeric condition on one of the timeline's own measurements is not a shape the offline planner builds");
		sp->flt[sp->nflt++] = (struct ptl_filter){.col = f->cond[i].col, .op = f->cond[i].op, .lit = f->cond[i].lit, .num = 1};
		if (!strcmp(f->cond[i].op, "BETWEEN")) {
			sp->flt[sp->nflt - 1].op = ">=";
			if (sp->nflt < 8)
				sp->flt[sp->nflt++] = (struct ptl_filter){.col = f->cond[i].col, .op = "<=", .lit = f->cond[i].lit2, .num = 1};
		}
	}
	/* the entity key: the numbered one, the grouped one, else the case (measurement level) or
	 * a key column every source shares */
	if (f->entity_val && f->entity_key >= 0) {
		/* "encounter 5": the rows referencing that row's key, named like the first source's reference */
		int rc = -1;
		for (int k = 0; k < p->s->nfk && rc < 0; k++)
			if (p->s->fk[k].to == f->entity_key && p->s->c[p->s->fk[k].from].table == sp->src[0].table)
				rc = p->s->fk[k].from;
		sp->key_ref = f->entity_key + 1;
		sp->key = rc >= 0 ? p->s->c[rc].name : arena_printf(&p->a, "%s_%s", tname(p, f->entity_key), p->s->c[f->entity_key].name);
		sp->key_val = f->entity_val;
	} else if (f->entity_val && f->entity_col) {
		sp->key = f->entity_col;
		sp->key_val = f->entity_val;
	} else if (f->entity_col && (f->entity_group || f->entity_count)) {
		sp->key = f->entity_col;
	} else if (named_key) {
		sp->key = named_key;
	}
	const char *cands[8];
	int nc = 0;
	if (!sp->key) {
		if (p->s->entity_case)
			cands[nc++] = p->s->entity_case;
		for (int k = 0; k < p->s->nfk && nc < 8; k++)
			if (p->s->c[p->s->fk[k].from].table == sp->src[0].table)
				cands[nc++] = p->s->c[p->s->fk[k].from].name;
		for (int c = 0; c < nc && !sp->key; c++) {
			int all = 1;
			for (int i = 0; i < sp->nsrc; i++)
				all &= planner_snap_key(p->s, sp->src[i].table, cands[c]) >= 0;
			if (all)
				sp->key = cands[c];
		}
		if (!sp->key)
			return decline(p, "%s", "the tables of the timeline share no key to line their rows up by");
	}
	/* per patient: the case each measurement belongs to as well, when every source carries it */
	if (p->s->entity_case && strcmp(sp->key, p->s->entity_case)) {
		int all = 1;
		for (int i = 0; i < sp->nsrc; i++)
			all &= planner_snap_key(p->s, sp->src[i].table, p->s->entity_case) >= 0;
		if (all)
			sp->key2 = p->s->entity_case;
	}
	if (f->has_win) {
		sp->from = f->win.from;
		sp->to = f->win.to;
	}
	f->multi = 1;
	f->timeline = 1;
	struct sb names = SB_INIT;
	sb_init_arena(&names, &p->a);
	for (int i = 0; i < sp->nsrc; i++)
		sb_printf(&names, "%s%s", i ? " + " : "", p->s->t[sp->src[i].table].name);
	decide(p, "", "intent", "timeline", arena_printf(&p->a, "measurements of %s as rows (%s, time, source, measure, value) "
	       "in one UNION ALL, ordered by %s and time", sb_ok(&names) ? sb_cstr(&names) : "several tables", sp->key, sp->key), 1);
	return 1;
}

/* self_group: a projected category whose own word ends in 별 (성별: sex, and "by") next to an
 * aggregate is the grouping: "성별 평균 체중", "성별 환자 수" */
static void self_group(struct planner *p)
{
	struct frame *f = &p->f;
	for (int i = 0; i < f->nproj && !f->ngroup; i++) {
		for (int l = 0; l < p->pl.n; l++) {
			const struct plink_item *it = &p->pl.v[l];
			const char *raw = p->tk.v[it->t1 - 1].raw;
			size_t rl = raw ? strlen(raw) : 0;
			if (it->kind == PL_COLUMN && it->cols[0] == f->proj[i] && rl > 3 && !strcmp(raw + rl - 3, "별") &&
			    p->s->c[f->proj[i]].type != PT_NUM) {
				f->group[f->ngroup++] = f->proj[i];
				f->proj[i--] = f->proj[--f->nproj];
				decide(p, span_text(p, it->t0, it->t1), "group", cfq(p, it->cols[0]), "the word ends in 별 (by) itself", it->score);
				break;
			}
		}
	}
}

/* proj_shift: make room for a column in front of the projection (an element loop: valgrind
 * takes a fortified overlapping memmove for a memcpy) */
static void proj_shift(struct frame *f)
{
	for (int i = f->nproj; i > 0; i--)
		f->proj[i] = f->proj[i - 1];
}

/* rate_link: the link item whose span holds the rate word at token i (사망률 -> the in-hospital
 * death concept), when it is a yes/no thing: a metadata concept or a 0/1 column; else -1 */
static int rate_link(struct planner *p, int i)
{
	for (int l = 0; l < p->pl.n; l++) {
		const struct plink_item *it = &p->pl.v[l];
		if (i < it->t0 || i >= it->t1)
			continue;
		if (it->kind == PL_CONCEPT && it->con >= 0 && p->s->con[it->con].nc)
			return l;
		if (it->kind == PL_COLUMN && p->s->c[it->cols[0]].flag)
			return l;
	}
	return -1;
}

/* duration_word: "시간" not attached to a number, "duration", "how long", "length", "소요" */
static int duration_word(const struct ptok *t)
{
	static const char *const w[] = {"시간", "소요시간", "소요", "duration", "long", "length", NULL};
	if (t->kind != TK_WORD)
		return 0;
	for (int i = 0; w[i]; i++)
		if (!strcmp(t->text, w[i]) || !strcmp(t->stem, w[i]))
			return 1;
	return 0;
}

/* start_end: the part of a time column's name before a start/end suffix, or NULL */
static const char *start_end(struct arena *a, const char *name, int *is_end)
{
	static const char *const st[] = {"_start_time", "_start_dt", "_start", "start", NULL};
	static const char *const en[] = {"_end_time", "_end_dt", "_end", "end", NULL};
	size_t n = strlen(name);
	for (int k = 0; k < 2; k++)
		for (const char *const *x = k ? en : st; *x; x++) {
			size_t l = strlen(*x);
			if (n > l && !strcmp(name + n - l, *x)) {
				*is_end = k;
				return arena_printf(a, "%.*s", (int)(n - l), name);
			}
		}
	return NULL;
}

/* has_word: w occurs in text as a whole word (수술 in "수술 시작", not in "수술실 입실") */
static int has_word(const char *text, const char *w)
{
	size_t n = strlen(w);
	for (const char *h = text ? strstr(text, w) : NULL; h; h = strstr(h + 1, w))
		if ((h == text || h[-1] == ' ' || h[-1] == '(') && (!h[n] || h[n] == ' ' || h[n] == ')' || h[n] == ','))
			return 1;
	return 0;
}

/* how many words of the question appear in a column's name, comment or synonyms */
static int words_in_col(struct planner *p, int ci)
{
	int n = 0;
	const struct pcol *c = &p->s->c[ci];
	for (int i = 0; i < p->tk.n; i++) {
		const struct ptok *t = &p->tk.v[i];
		if (t->kind != TK_WORD || (t->role != R_NONE && t->role != R_ENTITY) || strlen(t->text) < 2 || duration_word(t))
			continue;
		int hit = strstr(c->name, t->stem) || has_word(c->comment, t->text);
		for (int k = 0; !hit && k < c->nsyn; k++)
			hit = has_word(c->syn[k], t->text);
		n += hit;
	}
	return n;
}

/* find_duration: the start/end time columns of one table the question's words name ("수술 시간":
 * opstart and opend, whose synonyms say 수술); 1 found (f->dur_start/dur_end set), 0 not */
static int find_duration(struct planner *p)
{
	struct frame *f = &p->f;
	int best = -1, bs = -1, be = -1, tie = 0;
	for (int a = 0; a < p->s->nc; a++) {
		int ea, eb;
		const char *pa;
		if (p->s->c[a].type != PT_TIME || !(pa = start_end(&p->a, p->s->c[a].name, &ea)) || ea)
			continue;
		for (int b = p->s->t[p->s->c[a].table].c0; b < p->s->t[p->s->c[a].table].c0 + p->s->t[p->s->c[a].table].nc; b++) {
			const char *pb;
			if (p->s->c[b].type != PT_TIME || !(pb = start_end(&p->a, p->s->c[b].name, &eb)) || !eb || strcmp(pa, pb))
				continue;
			int sc = words_in_col(p, a) + words_in_col(p, b);
			if (sc > best) {
				best = sc;
				bs = a;
				be = b;
				tie = 0;
			} else if (sc == best) {
				tie = 1;
			}
		}
	}
	if (best <= 0 || tie)
		return 0;
	f->dur_start = bs;
	f->dur_end = be;
	return 1;
}

/* ---- the structure pass ---- */
static int structure(struct planner *p)
{
	struct frame *f = &p->f;
	int wants_time;

	/* shapes it does not build */
	for (int i = 0; i < p->tk.n; i++) {
		if (p->tk.v[i].role == R_UNSUP && p->tk.v[i].unsup_rate && rate_link(p, i) >= 0) {
			p->f.agg = "RATE";   /* the share of rows where the yes/no thing holds, in percent */
			continue;
		}
		if (p->tk.v[i].role == R_UNSUP && duration_word(&p->tk.v[i]) && find_duration(p)) {
			p->tk.v[i].used = 1;   /* "average duration of surgery": a duration measure */
			continue;
		}
		if (p->tk.v[i].role == R_UNSUP && (!p->tk.v[i].used || p->tk.v[i].hangul))
			return decline(p, "the question asks for '%s', a shape the offline planner does not build", p->tk.v[i].text);
		if (p->tk.v[i].role == R_NEG && !p->tk.v[i].used)
			return decline(p, "the question has a negation ('%s'), which the offline planner does not build", p->tk.v[i].text);
		if (p->tk.v[i].role == R_NEXT)
			return decline(p, "%s", "questions about the future cannot be answered from recorded data");
	}
	/* a number nobody could place (a row id, a limit, a threshold...): say so */
	for (int i = 0; i < p->tk.n; i++)
		if ((p->tk.v[i].kind == TK_NUM || p->tk.v[i].kind == TK_DATE) && !p->tk.v[i].used && p->tk.v[i].num != 1 &&
		    !(p->tk.v[i].kind == TK_NUM && (find_role(p, R_TOP) >= 0 || find_role(p, R_MOST) >= 0 || find_role(p, R_FREQ) >= 0)))
			return decline(p, "could not tell what '%s' refers to", p->tk.v[i].text);
	/* "which label was that?": refers to something said before */
	for (int i = p->tk.n - 1; i >= 0; i--) {
		const struct ptok *t = &p->tk.v[i];
		if (t->kind == TK_PUNCT)
			continue;
		if (!strcmp(t->text, "that") || !strcmp(t->text, "it") || !strcmp(t->text, "those") || !strcmp(t->text, "them") ||
		    !strcmp(t->text, "this") || !strcmp(t->text, "these") || !strcmp(t->text, "그것") || !strcmp(t->text, "그거"))
			return decline(p, "the question refers to '%s' without saying what it is", t->text);
		break;
	}
	/* an unlinked content word: say what was not understood instead of guessing */
	{
		struct sb u = SB_INIT;
		sb_init_arena(&u, &p->a);
		for (int i = 0; i < p->tk.n; i++) {
			struct ptok *t = &p->tk.v[i];
			if (t->used || t->kind != TK_WORD || t->role != R_NONE || planner_lex_generic(t->stem) ||
			    planner_lex_generic(t->text))
				continue;
			if (strlen(t->text) < 3 && !t->hangul)
				continue;
			if (u.len)
				sb_puts(&u, "', '");
			sb_puts(&u, t->text);
		}
		if (u.len)
			return decline(p, "could not link '%s' to any table, column or stored value", sb_cstr(&u));
	}

	/* "how many days since ...": a time difference */
	for (int i = 0; i + 2 < p->tk.n; i++)
		if (p->tk.v[i].role == R_HOW && p->tk.v[i + 1].role == R_MANY && p->tk.v[i + 2].role == R_UNIT)
			return decline(p, "%s", "a time difference ('how many days/hours since') is not a shape the offline planner builds");
	{
		int over = 0;
		for (int i = 0; i + 1 < p->tk.n; i++)
			if (!strcmp(p->tk.v[i].text, "over") && !strcmp(p->tk.v[i + 1].text, "time"))
				over = 1;
		int mt = multi_timeline(p, over || has_role(p, R_TIMELINE));
		if (mt != 0)
			return mt < 0 ? -1 : 0;
	}
	int when = asks_when(p);
	wants_time = p->f.has_win || has_role(p, R_FIRST) || has_role(p, R_LAST) || when ||
	             has_role(p, R_TIMELINE);
	f->fact = choose_fact(p, wants_time);
	if (f->fact < 0 && f->entity_word) {
		/* "how many patients": a table named like the entity word ("patient", "patients") */
		for (int ti = 0; ti < p->s->nt && f->fact < 0; ti++)
			if (entity_names_table(p, ti) && (!p->banned || !p->banned[ti]))
				f->fact = ti;
		if (f->fact >= 0 && col_in(p, f->fact, f->entity_col) < 0) {
			/* its own key is the entity */
			for (int ci = p->s->t[f->fact].c0; ci < p->s->t[f->fact].c0 + p->s->t[f->fact].nc; ci++)
				if (p->s->c[ci].unique && strcmp(p->s->c[ci].name, "row_id")) {
					f->entity_col = p->s->c[ci].name;
					break;
				}
		}
	}
	if (f->fact < 0 && f->entity_col && (!wants_time || entity_home_timed(p))) {
		/* only the entity is named ("how many patients"): its home table, where the key is unique,
		 * else the smallest table that has it */
		for (int ti = 0; ti < p->s->nt; ti++) {
			int ec = col_in(p, ti, f->entity_col);
			if (ec < 0 || (p->banned && p->banned[ti]))
				continue;
			if (f->fact < 0 || p->s->c[ec].unique ||
			    (!p->s->c[col_in(p, f->fact, f->entity_col)].unique && p->s->t[ti].rows < p->s->t[f->fact].rows))
				f->fact = ti;
		}
	}
	if (f->fact < 0)
		return decline(p, "%s", "nothing in the question names a table, column or stored value");
	if (f->entity_col && entity_names_table(p, f->fact) && col_in(p, f->fact, f->entity_col) < 0) {
		/* the entity's own table: its key is the entity */
		for (int ci = p->s->t[f->fact].c0; ci < p->s->t[f->fact].c0 + p->s->t[f->fact].nc; ci++)
			if (p->s->c[ci].unique && strcmp(p->s->c[ci].name, "row_id")) {
				f->entity_col = p->s->c[ci].name;
				break;
			}
	}
	decide(p, "", "fact_table", p->s->t[f->fact].name, "where the linked values and columns meet", 1);
	f->time_col = time_col(p, f->fact);
	f->measure = measure_col(p, f->fact);

	/* links -> filters, projections, groups */
	int group_next = 0;
	for (int l = 0; l < p->pl.n; l++) {
		struct plink_item *it = &p->pl.v[l];
		const char *sp = span_text(p, it->t0, it->t1);
		int per = (it->t0 > 0 && p->tk.v[it->t0 - 1].role == R_PER) || p->tk.v[it->t1 - 1].group ||
		          (it->t1 < p->tk.n && p->tk.v[it->t1].role == R_PER && p->tk.v[it->t1].hangul);
		(void)group_next;
		if (it->kind == PL_VALUE) {
			/* the candidate column in or reachable from the fact table */
			int pick = -1;
			for (int l2 = 0; l2 < p->pl.n && it->ncols > 1; l2++) {
				struct plink_item *o = &p->pl.v[l2];
				if (o->kind != PL_COLUMN || (o->t0 > it->t1 + 1) || (o->t1 < it->t0 - 1))
					continue;
				for (int c = 0; c < it->ncols; c++)
					if (it->cols[c] == o->cols[0]) {
						pick = c;
						o->role = 2;   /* consumed: names the value's column */
					}
			}
			for (int c = 0; c < it->ncols && pick < 0 && it->ncols > 1; c++)
				for (int k = 0; k < f->nin; k++)
					if (f->in[k].col == it->cols[c])
						pick = c;
			for (int c = 0; c < it->ncols && pick < 0; c++)
				if (p->s->c[it->cols[c]].table == f->fact)
					pick = c;
			for (int c = 0; c < it->ncols && pick < 0; c++) {
				int e[4];
				int dt = p->s->c[it->cols[c]].table, via = -1;
				if (path(p, f->fact, dt, e, 2) >= 0 &&
				    (dict_reaches(p, it->cols[c], it->vals[c], f->fact, &via) || 1))
					pick = c;
				if (pick == c && via >= 0 && p->via)
					p->via[dt] = via;
			}
			if (pick < 0 && it->t1 - it->t0 == 1) {
				double fs;
				int fc = planner_link_term(&p->a, p->s, p->tk.v[it->t0].text, p->r, p->banned, 0.85, &fs);
				int e[4];
				if (fc >= 0 && p->s->c[fc].flag && (p->s->c[fc].table == f->fact || path(p, f->fact, p->s->c[fc].table, e, 3) >= 0)) {
					f->cond[f->ncond].col = fc;
					f->cond[f->ncond].op = "=";
					f->cond[f->ncond].lit = "1";
					f->cond[f->ncond].num = 1;
					f->cond[f->ncond++].lit2 = NULL;
					decide(p, sp, "filter", arena_printf(&p->a, "%s = 1", cfq(p, fc)), "a yes/no attribute named by the word", fs);
					continue;
				}
			}
			if (pick < 0 && it->t1 - it->t0 == 1 && it->ncols) {
				decide(p, sp, "ignored", cfq(p, it->cols[0]), "a stored value of a table not joinable to the question's table", 0);
				continue;
			}
			if (pick < 0)
				return decline(p, "'%s' is a stored value, but not of anything joinable to the question's table", sp);
			int col = it->cols[pick];
			if (per) {
				if (f->ngroup < 3)
					f->group[f->ngroup++] = col;
				continue;
			}
			int k;
			for (k = 0; k < f->nin; k++)
				if (f->in[k].col == col)
					break;
			if (k == f->nin && f->nin < 4)
				f->in[f->nin++].col = col;
			if (k < 4 && f->in[k].n < 8)
				f->in[k].vals[f->in[k].n++] = it->vals[pick];
			decide(p, sp, "value", arena_printf(&p->a, "%s = '%s'", cfq(p, col), it->vals[pick]), it->why, it->score);
		} else if (it->kind == PL_CONCEPT && it->con >= 0) {
			/* a concept defined in the metadata: its conditions as written there */
			const struct pconcept *pc = &p->s->con[it->con];
			if (f->agg && !strcmp(f->agg, "RATE") && !f->rate_n) {
				int rl = -1;
				for (int k = it->t0; k < it->t1 && rl < 0; k++)
					if (p->tk.v[k].unsup_rate)
						rl = rate_link(p, k);
				if (rl >= 0 && &p->pl.v[rl] == it) {
					f->rate_from = f->ncond;
					f->rate_n = pc->nc < MAXF - f->ncond ? pc->nc : MAXF - f->ncond;
				}
			}
			for (int k = 0; k < pc->nc && f->ncond < MAXF; k++) {
				f->cond[f->ncond].col = pc->c[k].col;
				f->cond[f->ncond].op = pc->c[k].op;
				f->cond[f->ncond].lit = pc->c[k].lit;
				f->cond[f->ncond].num = 3;   /* literal SQL text from the metadata */
				f->cond[f->ncond++].lit2 = NULL;
				if (p->s->c[pc->c[k].col].table != f->fact)
					need(p, p->s->c[pc->c[k].col].table);
			}
			decide(p, sp, "concept", pc->name, it->why, 1);
		} else if (it->kind == PL_CONCEPT) {
			/* the measure: a column named so, or a stored value (lab name) with the table's measure */
			double sc, lo = it->lo, hi = it->hi;
			const char *src;
			int col = planner_link_term(&p->a, p->s, it->measure, p->r, p->banned, 0.75, &sc);
			if (col >= 0) {
				concept_range(p, col, NULL, &lo, &hi, &src);
			} else {
				int n, v = planner_snap_values(p->s, it->measure, &n);
				const char *const *syn = planner_lex_syn(it->measure);
				for (; v < 0 && syn && *syn; syn++)
					v = planner_snap_values(p->s, *syn, &n);
				if (v < 0)
					return decline(p, "the concept '%s' needs a measure the catalog does not have", sp);
				int vc = p->s->v[v].col, mt = -1;
				for (int ti = 0; ti < p->s->nt && mt < 0; ti++)
					if (p->s->c[vc].table == ti || dict_reaches(p, vc, p->s->v[v].value, ti, NULL))
						if (measure_col(p, ti) >= 0)
							mt = ti;
				if (mt < 0)
					return decline(p, "the concept '%s' has no measured value", sp);
				col = measure_col(p, mt);
				concept_range(p, col, p->s->v[v].value, &lo, &hi, &src);
				if (f->nin < 4) {
					f->in[f->nin].col = vc;
					f->in[f->nin].vals[0] = p->s->v[v].value;
					f->in[f->nin++].n = 1;
				}
			}
			if (f->ncond < MAXF) {
				f->cond[f->ncond].col = col;
				f->cond[f->ncond].op = it->dir < 0 ? "<" : ">";
				f->cond[f->ncond].lit = numtext(p, it->dir < 0 ? lo : hi);
				f->cond[f->ncond].num = 1;
				f->cond[f->ncond].lit2 = NULL;
				f->ncond++;
			}
			decide(p, sp, "concept", arena_printf(&p->a, "%s %s %s", cfq(p, col), it->dir < 0 ? "<" : ">",
			                                      numtext(p, it->dir < 0 ? lo : hi)),
			       arena_printf(&p->a, "%s (%s)", it->why, src), 1);
			if (p->s->c[col].table != f->fact)
				need(p, p->s->c[col].table);
		} else if (it->kind == PL_COLUMN) {
			int col = it->cols[0];
			if (it->role == 1 || it->role == 2)
				continue;   /* bound to a comparison or a value already */
			if (p->tk.v[it->t0].role == R_VALUE && p->s->c[col].table != f->fact) {
				decide(p, sp, "ignored", cfq(p, col), "a generic measure word; the question's table has its own measure", 0);
				continue;
			}
			if (per) {
				if (f->ngroup < 3)
					f->group[f->ngroup++] = col;
				decide(p, sp, "group", cfq(p, col), it->why, it->score);
				continue;
			}
			if (p->s->c[col].type == PT_TIME) {
				/* "discharged", "admitted": the time column the question is about */
				f->time_col = col;
				f->time_named = 1;
				decide(p, sp, "time_column", cfq(p, col), it->why, it->score);
				continue;
			}
			if (p->s->c[col].flag && f->ncond < MAXF) {
				/* "사망한 환자", "patients with diabetes": a yes/no attribute is a filter */
				f->cond[f->ncond].col = col;
				f->cond[f->ncond].op = "=";
				f->cond[f->ncond].lit = "1";
				f->cond[f->ncond].num = 1;
				f->cond[f->ncond++].lit2 = NULL;
				decide(p, sp, "filter", arena_printf(&p->a, "%s = 1", cfq(p, col)), "a yes/no attribute", it->score);
				continue;
			}
			if (f->nproj < NPROJ)
				f->proj[f->nproj++] = col;
			decide(p, sp, "column", cfq(p, col), it->why, it->score);
		} else if (it->kind == PL_TABLE) {
			decide(p, sp, "table", p->s->t[it->table].name, it->why, it->score);
			if (per) {
				int via, lc = label_col(p, it->table, &via);
				if (lc >= 0 && f->ngroup < 3)
					f->group[f->ngroup++] = lc;
			}
		}
	}
	/* comparisons without a named column: the measure, else (patients) their age */
	for (int i = 0; i < f->ncond; i++) {
		if (f->cond[i].col >= 0)
			continue;
		int col = f->measure, item = 0;
		for (int k = 0; k < f->nin; k++)
			item |= p->s->c[f->in[k].col].table != f->fact || f->in[k].col >= 0;
		if (!item && (f->entity_count || f->entity_group))
			col = -1;   /* "patients in their 60 or above": their age, not a measurement */
		if (col < 0 && (f->entity_count || f->entity_group || f->entity_col)) {
			double sc;
			col = planner_link_term(&p->a, p->s, "age", p->r, p->banned, 0.9, &sc);
		}
		if (col < 0)
			return decline(p, "a number '%s' is compared, but with what column could not be told", f->cond[i].lit);
		f->cond[i].col = col;
		decide(p, "", "filter", arena_printf(&p->a, "%s %s %s", cfq(p, col), f->cond[i].op, f->cond[i].lit),
		       "numeric comparison with the measured value", 0.8);
	}
	/* the entity grouped: "환자별", "per patient" */
	if (f->entity_group && f->entity_col) {
		int ec = col_in(p, f->fact, f->entity_col);
		for (int ti = 0; ti < p->s->nt && ec < 0; ti++)
			ec = col_in(p, ti, f->entity_col);
		if (ec >= 0 && f->ngroup < 3)
			f->group[f->ngroup++] = ec;
	}

	/* time buckets: "daily average", "월별 건수", "per month", "by year" */
	for (int i = 0; i < p->tk.n && !f->bucket; i++) {
		struct ptok *t = &p->tk.v[i];
		if (t->used)
			continue;
		if (t->role == R_BUCKET)
			f->bucket = t->unitv;
		else if (t->role == R_UNIT && (t->group || (i > 0 && p->tk.v[i - 1].role == R_PER)))
			f->bucket = t->unitv;
		else if (t->role == R_WHEN && t->group)
			f->bucket = 'd';   /* 날짜별 */
		if (f->bucket) {
			t->used = 1;
			if (i > 0 && p->tk.v[i - 1].role == R_PER)
				p->tk.v[i - 1].used = 1;
			if (f->time_col < 0)
				return decline(p, "a breakdown by time was asked, but %s has no time column", p->s->t[f->fact].name);
			decide(p, span_text(p, i, i + 1), "group", arena_printf(&p->a, "date_trunc('%s', %s)",
			       f->bucket == 'h' ? "hour" : f->bucket == 'd' ? "day" : f->bucket == 'w' ? "week" : f->bucket == 'm' ? "month" : "year",
			       cfq(p, f->time_col)), "a breakdown by time bucket", 1);
		}
	}
	/* aggregate */
	int how_many = has_role(p, R_HOW) && has_role(p, R_MANY);
	int ag = -1;
	for (int i = 0; i < p->tk.n; i++) {
		enum role r = p->tk.v[i].role;
		if (p->tk.v[i].used)
			continue;
		if ((r == R_AVG || r == R_MAX || r == R_MIN || r == R_SUM || r == R_COUNT) &&
		    (ag < 0 || (p->tk.v[ag].role == R_SUM && r == R_COUNT)))
			ag = i;
	}
	/* "how often", "how frequently": a count, not a ranking */
	for (int i = 0; i + 1 < p->tk.n; i++)
		if (p->tk.v[i].role == R_HOW && p->tk.v[i + 1].role == R_FREQ) {
			p->tk.v[i + 1].used = 1;
			how_many = 1;
		}
	/* two different aggregates ("환자 수와 평균 나이", "min, max and average"): one SELECT of one
	 * aggregate would silently drop the others; say so instead */
	for (int i = 0; ag >= 0 && i < p->tk.n; i++) {
		enum role r = p->tk.v[i].role, r0 = p->tk.v[ag].role;
		if (i == ag || p->tk.v[i].used || r == r0 || !(r == R_AVG || r == R_MAX || r == R_MIN || r == R_COUNT) ||
		    !(r0 == R_AVG || r0 == R_MAX || r0 == R_MIN || r0 == R_COUNT))
			continue;
		return decline(p, "the question asks for two aggregates ('%s'), which the offline planner does not combine "
		               "in one answer yet; ask for one at a time",
		               arena_printf(&p->a, "%s', '%s", p->tk.v[ag].text, p->tk.v[i].text));
	}
	if (ag >= 0 && how_many && (p->tk.v[ag].role == R_AVG || p->tk.v[ag].role == R_MAX || p->tk.v[ag].role == R_MIN))
		return decline(p, "the question asks for a count and '%s' together, which the offline planner does not "
		               "combine in one answer yet; ask for one at a time", p->tk.v[ag].text);
	if (ag >= 0) {
		enum role r = p->tk.v[ag].role;
		f->agg = r == R_AVG ? "AVG" : r == R_MAX ? "MAX" : r == R_MIN ? "MIN" : r == R_SUM ? "SUM" : "COUNT";
		/* "number of X" where X is a numeric column is a count, "total X" is a sum */
	}
	if (how_many && !f->agg)
		f->agg = "COUNT";
	if (has_role(p, R_HOW) && !how_many) {
		for (int i = 0; i < p->tk.n; i++)
			if (!strcmp(p->tk.v[i].text, "much") && !f->agg)
				f->agg = "SUM";
	}
	/* the measure the aggregate or the projection is about */
	int mcol = -1;
	for (int i = 0; i < f->nproj; i++)
		if (p->s->c[f->proj[i]].type == PT_NUM && !is_keyish(p, f->proj[i]))
			mcol = f->proj[i];
	if (mcol >= 0)
		f->measure = mcol;
	if (f->agg && when && (!strcmp(f->agg, "MAX") || !strcmp(f->agg, "MIN")) && f->measure >= 0 && f->time_col >= 0) {
		/* "when did X have the maximum Y": order by the value, then by time */
		int la2 = find_role(p, R_LAST);
		f->order = !strcmp(f->agg, "MAX") ? -1 : 1;
		f->order_col = f->measure;
		f->order2 = la2 >= 0 ? -1 : 1;
		f->order2_col = f->time_col;
		f->limit = 1;
		f->nproj = 0;
		f->proj[f->nproj++] = f->time_col;
		f->agg = NULL;
		f->extreme = 1;
		decide(p, "", "intent", "time of the extreme value", "'when' with a maximum/minimum", 1);
		return 0;
	}
	if (f->agg && !strcmp(f->agg, "RATE")) {
		if (!f->rate_n)
			return decline(p, "%s", "a rate was asked for, but not of what");
		f->measure = -1;
		f->nproj = 0;
		self_group(p);
		decide(p, "", "aggregate", "rate: 100 * share of rows where the condition holds", "a rate word on a yes/no thing", 1);
	} else if (f->agg && strcmp(f->agg, "COUNT")) {
		if (f->measure < 0 && f->dur_start < 0) {
			for (int i = 0; i < p->tk.n && f->dur_start < 0; i++)
				if (duration_word(&p->tk.v[i]) && find_duration(p))
					p->tk.v[i].used = 1;
		}
		if (f->measure < 0 && f->dur_start >= 0) {
			/* the measure is a duration: end - start, in minutes */
			if (p->s->c[f->dur_start].table != f->fact)
				need(p, p->s->c[f->dur_start].table);
			self_group(p);
			f->nproj = 0;
			decide(p, "", "aggregate", arena_printf(&p->a, "%s((%s - %s) in minutes)", f->agg, cfq(p, f->dur_end),
			                                          cfq(p, f->dur_start)), "a duration between a start and an end time", 1);
		} else if (f->measure < 0) {
			return decline(p, "%s", "an aggregate was asked for but no numeric measure was found");
		} else {
			/* the measure is consumed by the aggregate */
			for (int i = 0; i < f->nproj; i++)
				if (f->proj[i] == f->measure)
					f->proj[i--] = f->proj[--f->nproj];
			self_group(p);
			if (f->nproj && !f->ngroup && !f->bucket && find_role(p, R_MOST) < 0 && find_role(p, R_TOP) < 0)
				return decline(p, "the question names '%s' next to an aggregate, and how they combine could not be told",
				               p->s->c[f->proj[0]].name);
			decide(p, "", "aggregate", arena_printf(&p->a, "%s(%s)", f->agg, cfq(p, f->measure)), "aggregate word", 1);
		}
	} else if (f->agg) {
		f->count_entity = f->entity_count && f->entity_col;
		if (f->count_entity)
			decide(p, "", "aggregate", arena_printf(&p->a, "COUNT(DISTINCT %s)", f->entity_col), "counting patients/cases", 1);
		else
			decide(p, "", "aggregate", "COUNT(*)", "counting rows", 1);
		self_group(p);   /* "성별 환자 수": per sex */
		f->nproj = 0;
	} else {
		f->count_entity = 0;
	}
	if (f->agg && strcmp(f->agg, "COUNT"))
		f->count_entity = 0;
	if (f->bucket && !f->agg)
		return decline(p, "%s", "a breakdown by time needs something to count or aggregate");

	/* ranking: top N / most frequent / 가장 많은 */
	int top = find_role(p, R_TOP), most = find_role(p, R_MOST), freq = find_role(p, R_FREQ);
	long n = 0;
	if (top >= 0) {
		for (int i = top + 1; i < p->tk.n && i <= top + 2; i++)
			if (p->tk.v[i].kind == TK_NUM) {
				n = (long)p->tk.v[i].num;
				p->tk.v[i].used = 1;
			}
		if (!n)
			n = 1;
	}
	if (!n && (freq >= 0 || most >= 0)) {
		for (int i = 0; i < p->tk.n; i++)
			if (p->tk.v[i].kind == TK_NUM && !p->tk.v[i].used && p->tk.v[i].unit != 'a' &&
			    i + 1 < p->tk.n && (p->tk.v[i + 1].role == R_MOST || p->tk.v[i + 1].role == R_FREQ)) {
				n = (long)p->tk.v[i].num;
				p->tk.v[i].used = 1;
			}
		/* "the three lab tests that were given most frequently": the one free number */
		int free_n = -1, nfree = 0;
		for (int i = 0; i < p->tk.n && !n; i++)
			if (p->tk.v[i].kind == TK_NUM && !p->tk.v[i].used && !p->tk.v[i].unit && p->tk.v[i].num >= 1 &&
			    p->tk.v[i].num <= 100 && p->tk.v[i].num == (long)p->tk.v[i].num) {
				free_n = i;
				nfree++;
			}
		if (!n && nfree == 1) {
			n = (long)p->tk.v[free_n].num;
			p->tk.v[free_n].used = 1;
		}
		if (!n)
			n = 1;
	}
	int ranking = (top >= 0 || freq >= 0 || (most >= 0 && !f->agg)) && n > 0;
	int asc = 0;
	for (int i = 0; i < p->tk.n; i++)
		if (!strcmp(p->tk.v[i].text, "least") || !strcmp(p->tk.v[i].text, "fewest") || !strcmp(p->tk.v[i].text, "lowest") ||
		    !strncmp(p->tk.v[i].text, "적", 3) || !strncmp(p->tk.v[i].text, "낮", 3))
			asc = 1;
	if (most >= 0 && f->agg && strcmp(f->agg, "COUNT") && !f->ngroup && n > 0) {
		/* "the department with the highest average temperature": rank groups by the aggregate */
		int gc = -1;
		for (int i = 0; i < f->nproj && gc < 0; i++)
			if (p->s->c[f->proj[i]].type == PT_TEXT || p->s->c[f->proj[i]].flag)
				gc = f->proj[i];
		if (gc >= 0) {
			f->rank_col = gc;
			f->rank_n = n;
			f->rank_agg = f->agg;
			f->rank_asc = asc;
			f->agg = NULL;
			decide(p, "", "ranking", arena_printf(&p->a, "%s by %s(%s)", cfq(p, gc), f->rank_agg, cfq(p, f->measure)),
			       "'most'/'highest' with an aggregate: rank the groups", 1);
			return 0;
		}
	}
	if (ranking && (f->agg == NULL || !strcmp(f->agg, "COUNT")) && !f->ngroup) {
		/* rank what is asked for: a projected column, else the label of the fact table */
		int rc = -1;
		for (int i = 0; i < f->nproj && rc < 0; i++)
			if (p->s->c[f->proj[i]].type == PT_TEXT)
				rc = f->proj[i];
		if (rc < 0) {
			int via;
			rc = label_col(p, f->fact, &via);
			for (int k = 0; via >= 0 && k < p->s->nfk; k++)
				if (p->s->c[p->s->fk[k].from].table == f->fact && p->s->c[p->s->fk[k].to].table == via)
					f->rank_key = p->s->fk[k].from;
		}
		if (rc < 0)
			return decline(p, "%s", "a ranking was asked for, but of what could not be told");
		f->rank_col = rc;
		f->rank_n = n;
		f->rank_asc = asc;
		f->agg = NULL;
		decide(p, "", "ranking", arena_printf(&p->a, "top %ld %s by count", n, cfq(p, rc)), "ranking words", 1);
		return 0;
	}
	if (ranking && f->agg && f->ngroup) {
		f->order = -1;
		f->limit = n;
	} else if (top >= 0 && f->ngroup && f->agg) {
		f->order = -1;
		f->limit = n;
	}

	/* existence: "has patient X had any ...", "was ... given", "있었나요" */
	int yesno = 0;
	for (int i = 0; i < p->tk.n; i++) {
		struct ptok *t = &p->tk.v[i];
		if (t->kind == TK_PUNCT || (t->used && t->role != R_EXIST) || t->kind == TK_DATE || t->kind == TK_NUM ||
		    t->role == R_IN || t->role == R_ON || t->role == R_SINCE || t->role == R_STOP || !strcmp(t->text, "the") ||
		    !strcmp(t->text, "their") || !strcmp(t->text, "his") || !strcmp(t->text, "her"))
			continue;
		yesno = t->role == R_EXIST && !t->hangul;
		break;
	}
	for (int i = 0; i + 1 < p->tk.n && !yesno; i++)
		if ((!strcmp(p->tk.v[i].text, "if") || !strcmp(p->tk.v[i].text, "whether")) && i + 4 < p->tk.n)
			for (int k = i + 1; k < i + 8 && k < p->tk.n; k++)
				if (p->tk.v[k].role == R_EXIST)
					yesno = 1;
	for (int i = 0; i < p->tk.n; i++)
		if (p->tk.v[i].hangul && p->tk.v[i].role == R_EXIST && i >= p->tk.n - 2)
			yesno = 1;
	if (yesno && !f->agg && !when && !f->ngroup) {
		f->exists = 1;
		/* "has any organism been found": the named column has a value */
		for (int i = 0; i < f->nproj && f->ncond < MAXF; i++) {
			f->cond[f->ncond].col = f->proj[i];
			f->cond[f->ncond].op = "IS NOT NULL";
			f->cond[f->ncond].lit = NULL;
			f->cond[f->ncond++].num = 2;
		}
		decide(p, "", "intent", "exists", "a yes/no question: does any row match", 1);
		return 0;
	}

	/* first/last: order by time, one row */
	int fi = find_role(p, R_FIRST), la = find_role(p, R_LAST);
	if ((fi >= 0 || la >= 0) && !f->agg) {
		f->order = (fi >= 0 && (la < 0 || fi < la)) ? 1 : -1;
		f->order_col = f->time_col;
		f->limit = 1;
		if (f->order_col < 0)
			return decline(p, "first/last was asked, but %s has no time column", p->s->t[f->fact].name);
	}
	/* when: the time column; also a time column named with nothing else to show ("케이스 42의 수술
	 * 시작 시간": the start of the operation is what is asked) */
	if ((when || (f->time_named && !f->nproj && f->entity_val && !f->exists)) && !f->agg && f->time_col >= 0) {
		f->nproj = 0;
		f->proj[f->nproj++] = f->time_col;
	}
	/* the value words: the measure */
	int asks_value = 0;
	for (int i = 0; i < p->tk.n; i++)
		if (p->tk.v[i].role == R_VALUE && !p->tk.v[i].used)
			asks_value = 1;
	if (asks_value && !f->agg && !f->nproj && f->measure < 0 && !f->exists && !when)
		return decline(p, "the question asks for an amount or value, but %s has no numeric measure", p->s->t[f->fact].name);
	if (!f->agg && !f->nproj && f->measure >= 0) {
		int dict_value = 0;
		for (int i = 0; i < f->nin; i++)
			if (p->s->c[f->in[i].col].table != f->fact || p->s->c[f->in[i].col].type == PT_TEXT)
				dict_value = 1;   /* an item is named (lab name, dictionary label): its measured value */
		if (dict_value || asks_value)
			f->proj[f->nproj++] = f->measure;
	}
	if (!f->agg && !f->nproj && f->entity_col && f->entity_count && !f->entity_val && !f->exists) {
		/* "list patients older than 90": the patients themselves */
		int ec = col_in(p, f->fact, f->entity_col);
		if (ec >= 0) {
			f->proj[f->nproj++] = ec;
			f->entity_count = 0;
			decide(p, "", "projection", cfq(p, ec), "a list of patients/cases", 1);
		}
	}
	int over_time = 0;
	for (int i = 0; i + 1 < p->tk.n; i++)
		if (!strcmp(p->tk.v[i].text, "over") && !strcmp(p->tk.v[i + 1].text, "time"))
			over_time = 1;
	if (!f->agg && !f->nproj && (f->entity_val || has_role(p, R_TIMELINE) || over_time || f->has_win) &&
	    f->time_col >= 0 && !f->exists) {
		/* "show me the vitals of case 8", "바이탈 타임라인": every measured column of the table named, over time */
		int named = 0, nm = 0;
		for (int l = 0; l < p->pl.n; l++)
			named |= p->pl.v[l].kind == PL_TABLE && p->pl.v[l].table == f->fact;
		for (int ci = p->s->t[f->fact].c0; named && ci < p->s->t[f->fact].c0 + p->s->t[f->fact].nc; ci++)
			if (p->s->c[ci].type == PT_NUM && !is_keyish(p, ci) && !p->s->c[ci].flag && f->nproj < NPROJ - 1) {
				f->proj[f->nproj++] = ci;
				nm++;
			}
		if (nm >= 2) {
			f->timeline = 1;
			decide(p, "", "intent", "timeline", "the measurements of the table named, over time", 1);
		} else {
			/* a long table (labs: name + result) over time: its label and its value ("list the
			 * drugs of case 5" stays a list of labels) */
			int via, lc = label_col(p, f->fact, &via);
			f->nproj = 0;
			if (named && lc >= 0 && f->measure >= 0 && via < 0 && (has_role(p, R_TIMELINE) || over_time)) {
				f->proj[f->nproj++] = lc;
				f->proj[f->nproj++] = f->measure;
				f->timeline = 1;
				decide(p, "", "intent", "timeline", "the labels and values of the table named, over time", 1);
			}
		}
	}
	if (!f->agg && !f->nproj) {
		/* "what lab test ...", "which drug": the label of the fact table's rows */
		int via, lc = label_col(p, f->fact, &via);
		if (lc >= 0 && (has_role(p, R_WHICH) || has_role(p, R_LIST) || has_role(p, R_DISTINCT))) {
			f->proj[f->nproj++] = lc;
			decide(p, "", "projection", cfq(p, lc), "what the question asks to name", 1);
		}
	}
	/* timeline: several measurements of one case ordered by time ("over time", "추이") */
	if (!f->agg && (has_role(p, R_TIMELINE) || over_time || f->timeline)) {
		if (f->time_col < 0)
			return decline(p, "%s", "a timeline needs a time column");
		int have = 0;
		for (int i = 0; i < f->nproj; i++)
			have |= f->proj[i] == f->time_col;
		if (!have && f->nproj < NPROJ) {
			proj_shift(f);
			f->proj[0] = f->time_col;
			f->nproj++;
		}
		/* "환자별 ... 타임라인": the grouped entity leads the rows and the order, no GROUP BY */
		for (int g = f->ngroup - 1; g >= 0 && f->nproj < NPROJ; g--) {
			proj_shift(f);
			f->proj[0] = f->group[g];
			f->nproj++;
			f->lead[f->nlead++] = f->group[g];
		}
		f->ngroup = 0;
		f->order = 1;
		f->order_col = f->time_col;
		f->limit = 0;
		f->timeline = 1;
		decide(p, "", "intent", "timeline", "measurements of one case ordered by time", 1);
	}
	if (!f->agg && !f->order && !f->timeline && f->ngroup && !f->rank_n)
		return decline(p, "%s", "a breakdown was asked for, but not of what (a count or an aggregate)");
	int numeric = 0;
	for (int i = 0; i < f->nproj; i++)
		numeric |= p->s->c[f->proj[i]].type == PT_NUM && !is_keyish(p, f->proj[i]) && !p->s->c[f->proj[i]].flag;
	if (!f->agg && !f->order && !f->timeline && numeric && f->time_col >= 0 && !f->exists && f->nproj < NPROJ) {
		/* a list of measurements: each with its time, in time order (duplicates are real) */
		proj_shift(f);
		f->proj[0] = f->time_col;
		f->nproj++;
		f->order = 1;
		f->order_col = f->time_col;
		f->limit = 0;
		f->timeline = 1;
	}
	if (!f->agg && !f->order && !f->timeline)
		f->distinct = 1;   /* a list of things: each once */
	if (has_role(p, R_DISTINCT) && f->agg && !strcmp(f->agg, "COUNT") && f->nproj == 0 && !f->count_entity) {
		/* "how many different drugs": count distinct of the label */
		int via, lc = label_col(p, f->fact, &via);
		(void)lc;
	}
	return 0;
}


/* sql_names: 1 when sql has name as a whole identifier (not inside a longer one) */
static int sql_names(const char *sql, const char *name)
{
	size_t n = strlen(name);
	for (const char *h = strstr(sql, name); h; h = strstr(h + 1, name)) {
		char b = h > sql ? h[-1] : ' ', e = h[n];
		if (!(isalnum((unsigned char)b) || b == '_') && !(isalnum((unsigned char)e) || e == '_'))
			return 1;
	}
	return 0;
}

static enum err plan_once(struct catalog *cat, const struct retrieval *r, const char *question,
                          const struct planner_ctx *ctx, struct planner_out *out)
{
	struct planner *p;
	enum err rc = OK;
	char err[512] = "";
	const char *conninfo;
	char tdesc[256];

	memset(out, 0, sizeof *out);
	if (!question || !*question)
		return ERR_INPUT;
	p = calloc(1, sizeof *p);
	if (!p)
		return ERR_NOMEM;
	sb_init_arena(&p->dec, &p->a);
	sb_init_arena(&p->expl, &p->a);
	sb_putc(&p->dec, '[');
	p->r = r;
	p->question = question;
	p->f.measure = p->f.time_col = p->f.order_col = p->f.rank_col = -1;
	p->f.dur_start = p->f.dur_end = -1;
	p->f.episode = -1;
	p->f.rank_key = -1;
	p->f.entity_key = -1;
	conninfo = ctx && ctx->conninfo ? ctx->conninfo : NULL;
	if (!conninfo || !*conninfo)
		conninfo = *conf_get("target_ro_db") ? conf_get("target_ro_db") : conf_get("target_db");
	p->s = planner_snap_get(cat, conninfo, err, sizeof err);
	if (!p->s) {
		rc = ERR_DB;
		out->reason = strdup(err);
		goto out;
	}
	/* the reference time: the caller's, else conf now, else the target's own (metadata
	 * reference_time of an archived snapshot), else the clock */
	const char *now = ctx && ctx->now && *ctx->now ? ctx->now : *conf_get("now") ? conf_get("now") : p->s->reference_time;
	if (!planner_time_now(now, &p->now)) {
		rc = ERR_INPUT;
		out->reason = strdup("bad reference time");
		goto out;
	}
	p->banned = arena_alloc(&p->a, (size_t)(p->s->nt + 1) * sizeof *p->banned);
	p->via = arena_alloc(&p->a, (size_t)(p->s->nt + 1) * sizeof *p->via);
	for (int i = 0; p->via && i <= p->s->nt; i++)
		p->via[i] = -1;
	if (!p->banned || !p->via || planner_tokenize(&p->a, question, &p->tk) != OK) {
		rc = ERR_NOMEM;
		goto out;
	}
	/* analyst edits and earlier attempts: tables removed, columns that did not exist */
	for (int i = 0; ctx && i < ctx->nedits; i++) {
		const struct planner_edit *e = &ctx->edits[i];
		int ti = e->table ? planner_snap_table(p->s, e->table) : -1;
		if (e->op == PLAN_REMOVE_TABLE && ti >= 0)
			p->banned[ti] = 1;
	}
	for (int i = 0; ctx && i < ctx->nattempts; i++) {
		const struct planner_attempt *at = &ctx->attempts[i];
		int ti = at->missing_relation ? planner_snap_table(p->s, at->missing_relation) : -1;
		if (ti >= 0)
			p->banned[ti] = 1;
	}

	find_entities(p, 0);
	find_visits(p);
	int tw = planner_time(&p->tk, &p->now, &p->f.win, tdesc, sizeof tdesc);
	if (tw < 0) {
		decline(p, "%s", "a date without a year could not be placed in time");
	} else if (tw > 0) {
		p->f.has_win = 1;
		decide(p, tdesc, "time", arena_printf(&p->a, "[%s, %s)", p->f.win.from[0] ? p->f.win.from : "-inf",
		                                      p->f.win.to[0] ? p->f.win.to : "+inf"),
		       "relative to the reference time", 1);
	}
	if (!p->decline) {
		planner_link(&p->a, p->s, &p->tk, r, p->banned, &p->pl);
		/* analyst-added mappings are links of their own */
		for (int i = 0; ctx && i < ctx->nedits && p->pl.n < PL_MAX; i++) {
			const struct planner_edit *e = &ctx->edits[i];
			if (e->op != PLAN_ADD_MAPPING)
				continue;
			int ci = planner_snap_col(p->s, planner_snap_table(p->s, e->table), e->column);
			if (ci < 0)
				continue;
			struct plink_item it = {.kind = PL_VALUE, .t0 = 0, .t1 = 0, .ncols = 1, .score = 1,
			                        .why = "added by the analyst"};
			it.cols[0] = ci;
			it.vals[0] = arena_strdup(&p->a, e->value);
			p->pl.v[p->pl.n++] = it;
			for (int k = 0; e->phrase && k < p->tk.n; k++)
				if (strstr(e->phrase, p->tk.v[k].text))
					p->tk.v[k].used = 1;
		}
		for (int i = 0; ctx && i < ctx->nedits; i++) {
			const struct planner_edit *e = &ctx->edits[i];
			if (e->op != PLAN_REMOVE_MAPPING && e->op != PLAN_REMOVE_COLUMN)
				continue;
			for (int l = 0; l < p->pl.n; l++) {
				struct plink_item *it = &p->pl.v[l];
				if (it->kind != PL_VALUE && it->kind != PL_COLUMN)
					continue;
				int ci = it->cols[0];
				if (!strcmp(tname(p, ci), e->table ? e->table : "") && e->column && !strcmp(p->s->c[ci].name, e->column) &&
				    (e->op == PLAN_REMOVE_COLUMN || !e->value || (it->vals[0] && !strcmp(it->vals[0], e->value))))
					p->pl.v[l--] = p->pl.v[--p->pl.n];
			}
		}
		find_entities(p, 1);
		if (comparisons(p) == 0)
			structure(p);
	}
	/* calibrated abstention: a plan resting on a weakly linked word is declined (the threshold is
	 * chosen on the development halves, docs/architecture.md) */
	if (!p->decline) {
		double min_link = atof(conf_get("planner_min_link_score"));
		for (int l = 0; l < p->pl.n && min_link > 0; l++)
			if (p->pl.v[l].score < min_link) {
				decline(p, "%s", arena_printf(&p->a, "the planner is not sure what '%s' means here (link score %.2f "
				                               "below %.2f)", span_text(p, p->pl.v[l].t0, p->pl.v[l].t1),
				                               p->pl.v[l].score, min_link));
				break;
			}
	}
	if (!p->decline) {
		struct squery q;
		memset(&q, 0, sizeof q);
		if (build(p, &q) == 0 && !p->decline) {
			struct sb sql = SB_INIT;
			planner_sql_print(&sql, &q);
			if (!sb_ok(&sql)) {
				sb_free(&sql);
				rc = ERR_NOMEM;
				goto out;
			}
			out->sql = sb_steal(&sql);
			/* every table the question names (itself or through one of its columns) must be in
			 * the answer: one the SQL does not use means the plan answers another question */
			for (int l = 0; l < p->pl.n && !p->decline; l++) {
				const struct plink_item *it = &p->pl.v[l];
				const char *nm = it->kind == PL_TABLE ? p->s->t[it->table].name
				               : it->kind == PL_COLUMN ? tname(p, it->cols[0]) : NULL;
				if (nm && !sql_names(out->sql, nm)) {
					decline(p, "the question names %s, which the plan does not use",
					        arena_printf(&p->a, "'%s' (%s)", span_text(p, it->t0, it->t1),
					                     it->kind == PL_TABLE ? nm : cfq(p, it->cols[0])));
					free(out->sql);
					out->sql = NULL;
				}
			}
			/* an earlier attempt with exactly this SQL failed: do not repeat it */
			for (int i = 0; ctx && i < ctx->nattempts; i++)
				if (ctx->attempts[i].sql && (ctx->attempts[i].error || ctx->attempts[i].empty_result) &&
				    !strcmp(ctx->attempts[i].sql, out->sql)) {
					free(out->sql);
					out->sql = NULL;
					decline(p, "the same SQL already failed: %s",
					        ctx->attempts[i].error ? ctx->attempts[i].error : "it returned no rows");
					break;
				}
		}
	}
	sb_putc(&p->dec, ']');
	if (p->decline) {
		out->unanswerable = 1;
		struct sb why = SB_INIT;
		sb_puts(&why, p->decline);
		/* show what was found, so the analyst can fix the question or the plan */
		int nf = 0;
		for (int l = 0; l < p->pl.n; l++) {
			struct plink_item *it = &p->pl.v[l];
			const char *tg = it->kind == PL_TABLE ? p->s->t[it->table].name
			               : it->kind == PL_CONCEPT ? it->measure : cfq(p, it->cols[0]);
			sb_printf(&why, "%s'%s' -> %s", nf++ ? ", " : ". Found: ", span_text(p, it->t0, it->t1), tg);
		}
		out->reason = sb_steal(&why);
		out->confidence = 0;
	} else {
		out->confidence = 0.5;
		for (int l = 0; l < p->pl.n; l++)
			if (p->pl.v[l].score < out->confidence)
				out->confidence = p->pl.v[l].score;
		out->confidence = p->pl.n ? 0.5 + out->confidence / 2 : 0.5;
	}
	{
		struct sb ex = SB_INIT;
		struct frame *f = &p->f;
		if (out->sql && f->multi) {
			sb_puts(&ex, "A timeline of");
			for (int i = 0; i < f->tl.nsrc; i++) {
				const struct ptl_source *src = &f->tl.src[i];
				sb_printf(&ex, "%s %s", i ? (i + 1 == f->tl.nsrc ? " and" : ",") : "", p->s->t[src->table].name);
				if (src->ncols)
					sb_printf(&ex, " (%d measured column%s)", src->ncols, src->ncols > 1 ? "s" : "");
				else if (src->nvals)
					sb_printf(&ex, " (%s '%s'%s)", p->s->c[src->label].name, src->vals[0], src->nvals > 1 ? " and others" : "");
			}
			sb_printf(&ex, " as rows of %s%s%s, time, source, measure and value", f->tl.key, f->tl.key2 ? ", " : "",
			          f->tl.key2 ? f->tl.key2 : "");
			if (f->tl.key_val)
				sb_printf(&ex, ", for %s %s", f->tl.key, f->tl.key_val);
			for (int i = 0; i < f->tl.nflt; i++)
				sb_printf(&ex, ", where %s %s %s", p->s->c[f->tl.flt[i].col].name, f->tl.flt[i].nvals ? "=" : f->tl.flt[i].op,
				          f->tl.flt[i].nvals ? f->tl.flt[i].vals[0] : f->tl.flt[i].lit);
			if (f->has_win)
				sb_printf(&ex, ", in the window %s", tdesc);
			sb_printf(&ex, ", ordered by %s and time.", f->tl.key);
		} else if (out->sql) {
			sb_printf(&ex, "From %s", p->s->t[f->fact].name);
			if (f->rank_n)
				sb_printf(&ex, ", the top %ld %s by number of rows (ties kept)", f->rank_n, p->s->c[f->rank_col].name);
			else if (f->exists)
				sb_puts(&ex, ", whether any row matches");
			else if (f->agg)
				sb_printf(&ex, ", %s of %s", f->agg,
				          f->count_entity ? f->entity_col : (f->measure >= 0 && strcmp(f->agg, "COUNT")) ? p->s->c[f->measure].name : "rows");
			if (f->ngroup)
				sb_printf(&ex, " per %s", p->s->c[f->group[0]].name);
			if (f->entity_val)
				sb_printf(&ex, ", for %s %s", f->entity_col, f->entity_val);
			for (int i = 0; i < f->nin; i++)
				sb_printf(&ex, ", where %s is '%s'%s", p->s->c[f->in[i].col].name, f->in[i].vals[0], f->in[i].n > 1 ? " (or others listed)" : "");
			for (int i = 0; i < f->ncond; i++)
				sb_printf(&ex, ", where %s %s %s", p->s->c[f->cond[i].col].name, f->cond[i].op, f->cond[i].lit);
			if (f->has_win)
				sb_printf(&ex, ", in the window %s", tdesc);
			if (f->episode >= 0)
				sb_printf(&ex, ", during the %s %s", f->episode_which == 2 ? "current" : f->episode_which > 0 ? "first" : "last",
				          p->s->t[f->episode].name);
			if (f->order && f->limit == 1)
				sb_printf(&ex, ", the %s by %s", f->order > 0 ? "first" : "last", p->s->c[f->order_col].name);
			else if (f->timeline)
				sb_puts(&ex, ", ordered by time");
			sb_putc(&ex, '.');
		} else {
			sb_puts(&ex, out->reason ? out->reason : "declined");
		}
		out->explanation = sb_steal(&ex);
	}
	out->decisions_json = strdup(sb_ok(&p->dec) ? sb_cstr(&p->dec) : "[]");
	{
		const char *in = p->f.exists ? "filter" : p->f.rank_n ? "ranking" : p->f.timeline ? "trend"
		               : p->f.agg ? "aggregation" : p->f.nin || p->f.ncond ? "filter" : "detail";
		out->intent = strdup(in);
	}
	if (!out->explanation || !out->decisions_json || !out->intent || (out->unanswerable && !out->reason))
		rc = ERR_NOMEM;
out:
	planner_snap_put(p->s);
	arena_free(&p->a);
	free(p);
	return rc;
}

/* ---- follow-up markers (conf/lexicon/followup.txt), loaded once ---- */
static char **markers;
static int nmarkers;
static pthread_once_t markers_once = PTHREAD_ONCE_INIT;

static void load_markers(void)
{
	char *buf = file_read(conf_get("followup_file"), 65536, NULL), *save = NULL;

	if (!buf)
		return;
	for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char **nm;

		if (*l == '#' || !*l)
			continue;
		if (!(nm = realloc(markers, (size_t)(nmarkers + 1) * sizeof *nm)))
			break;
		markers = nm;
		markers[nmarkers++] = l;   /* buf stays for the process */
	}
}

/* q without the follow-up markers it starts with or contains as whole words (heap) */
static char *strip_markers(const char *q)
{
	char *out = strdup(q);

	pthread_once(&markers_once, load_markers);
	for (int i = 0; out && i < nmarkers; i++) {
		size_t ml = strlen(markers[i]);
		char *p = out;

		while ((p = strcasestr(p, markers[i]))) {
			int before = p == out || p[-1] == ' ' || p[-1] == ',';
			int after = !p[ml] || p[ml] == ' ' || p[ml] == ',' || p[ml] == '?' || (unsigned char)p[ml] >= 0x80;

			if (before && after && (!((unsigned char)p[ml] >= 0x80) || (unsigned char)markers[i][ml - 1] >= 0x80)) {
				memmove(p, p + ml, strlen(p + ml) + 1);
				continue;
			}
			p += ml;
		}
	}
	return out;
}

/* a grouping word: Korean X별 / X별로, English "by X" / "per X" */
static int is_group_word(const char *w, size_t n)
{
	return (n > 3 && !memcmp(w + n - 3, "별", 3)) || (n > 6 && !memcmp(w + n - 6, "별로", 6));
}

static int has_grouping(const char *q)
{
	const char *p = q;

	while (*p) {
		size_t n = strcspn(p, " ,?");

		if (is_group_word(p, n) || ((n == 2 && !strncasecmp(p, "by", 2)) || (n == 3 && !strncasecmp(p, "per", 3))))
			return 1;
		p += n;
		p += strspn(p, " ,?");
	}
	return 0;
}

/* prev without its grouping word(s) (heap; NULL when it has none) */
static char *drop_grouping(const char *prev)
{
	struct sb sb = SB_INIT;
	const char *p = prev;
	int dropped = 0;

	while (*p) {
		size_t n = strcspn(p, " ,?"), sp;

		if (is_group_word(p, n)) {
			dropped = 1;
		} else if ((n == 2 && !strncasecmp(p, "by", 2)) || (n == 3 && !strncasecmp(p, "per", 3))) {
			/* "by department": drop the preposition and the next word */
			p += n;
			p += strspn(p, " ");
			n = strcspn(p, " ,?");
			dropped = 1;
		} else {
			sb_append(&sb, p, n);
		}
		p += n;
		sp = strspn(p, " ,?");
		if (sp && sb.len)
			sb_putc(&sb, ' ');
		p += sp;
	}
	if (!dropped || !sb_ok(&sb)) {
		sb_free(&sb);
		return NULL;
	}
	return sb_steal(&sb);
}

/* follow_up: the previous question with this one's numbered patient/case put in, or both joined
 * ("케이스 5의 심박수 추이" then "케이스 6은?" -> case 6; "only women?" -> the previous plus a filter) */
static char *follow_up(const char *prev, const char *q)
{
	struct arena a = {0};
	struct ptoks tp, tq;
	char *res = NULL;
	if (planner_tokenize(&a, prev, &tp) != OK || planner_tokenize(&a, q, &tq) != OK)
		goto out;
	for (int i = 0; i + 1 < tq.n; i++) {
		if (tq.v[i].kind != TK_WORD || tq.v[i + 1].kind != TK_NUM || tq.v[i + 1].unit)
			continue;
		for (int k = 0; k + 1 < tp.n; k++) {
			if (strcmp(tp.v[k].stem, tq.v[i].stem) || tp.v[k + 1].kind != TK_NUM)
				continue;
			/* same entity word in both: swap the number in the previous question's text */
			struct sb sb = SB_INIT;
			sb_append(&sb, prev, (size_t)tp.v[k + 1].off);
			sb_append(&sb, q + tq.v[i + 1].off, (size_t)tq.v[i + 1].len);
			sb_puts(&sb, prev + tp.v[k + 1].off + tp.v[k + 1].len);
			res = sb_ok(&sb) ? sb_steal(&sb) : NULL;
			sb_free(&sb);
			goto out;
		}
	}
	{
		/* "같은 걸 성별로" / "the same by sex" / "이번엔 여성만": drop the follow-up markers
		 * (conf/lexicon/followup.txt); a new grouping replaces the previous question's */
		char *qq = strip_markers(q), *pp = NULL;
		struct sb sb = SB_INIT;

		if (qq && has_grouping(qq))
			pp = drop_grouping(prev);
		sb_printf(&sb, "%s %s", pp ? pp : prev, qq ? qq : q);
		res = sb_ok(&sb) ? sb_steal(&sb) : NULL;
		sb_free(&sb);
		free(qq);
		free(pp);
	}
out:
	arena_free(&a);
	return res;
}

enum err planner_plan(struct catalog *cat, const struct retrieval *r, const char *question,
                      const struct planner_ctx *ctx, struct planner_out *out)
{
	enum err rc = plan_once(cat, r, question, ctx, out);
	if (rc == OK && out->unanswerable && ctx && ctx->nattempts && out->reason &&
	    !strncmp(out->reason, "the same SQL already failed", 27)) {
		/* self-correction: the next candidate, without the table the failed plan was built on */
		const char *last = ctx->attempts[ctx->nattempts - 1].sql, *from = last ? strstr(last, " FROM ") : NULL;
		char table[128] = "";
		if (from && sscanf(from + 6, "%127[A-Za-z0-9_]", table) == 1 && ctx->nedits < 32) {
			struct planner_edit ed[33];
			struct planner_ctx c2 = *ctx;
			struct planner_out o2;
			memcpy(ed, ctx->edits, (size_t)ctx->nedits * sizeof *ed);
			ed[ctx->nedits] = (struct planner_edit){.op = PLAN_REMOVE_TABLE, .table = table};
			c2.edits = ed;
			c2.nedits = ctx->nedits + 1;
			if (plan_once(cat, r, question, &c2, &o2) == OK && !o2.unanswerable && o2.sql) {
				char *ex = NULL;
				if (asprintf(&ex, "The previous plan on %s failed; next candidate: %s", table,
				             o2.explanation ? o2.explanation : "") < 0)
					ex = NULL;
				planner_out_free(out);
				*out = o2;
				if (ex) {
					free(out->explanation);
					out->explanation = ex;
				}
				return OK;
			}
			planner_out_free(&o2);
		}
	}
	if (rc != OK || !out->unanswerable || !ctx || !ctx->prev_question || !*ctx->prev_question)
		return rc;
	/* a follow-up that does not stand on its own: read it with the previous question */
	char *merged = follow_up(ctx->prev_question, question);
	struct planner_out o2;
	if (getenv("ASKQL_PLANNER_DEBUG"))
		fprintf(stderr, "planner: follow-up read as [%s]\n", merged ? merged : "");
	if (merged && plan_once(cat, NULL, merged, ctx, &o2) == OK && !o2.unanswerable && o2.sql) {
		char *ex = NULL;
		if (asprintf(&ex, "Follow-up read as: \"%s\". %s", merged, o2.explanation ? o2.explanation : "") < 0)
			ex = NULL;
		planner_out_free(out);
		*out = o2;
		if (ex) {
			free(out->explanation);
			out->explanation = ex;
		}
	} else if (merged) {
		planner_out_free(&o2);
	}
	free(merged);
	return OK;
}

void planner_out_free(struct planner_out *out)
{
	if (!out)
		return;
	free(out->sql);
	free(out->reason);
	free(out->explanation);
	free(out->decisions_json);
	free(out->intent);
	memset(out, 0, sizeof *out);
}

void planner_reset(void)
{
	planner_snap_free_all();
}
