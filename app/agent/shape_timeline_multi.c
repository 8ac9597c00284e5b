/* shape_timeline_multi.c: question shape "timeline over several tables" (바이탈, 랩 타임라인; vitals and labs of case 1). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/planner_front.h"

/* ---- timelines over several tables: "바이탈, 랩 타임라인", "vitals and labs of case 1 over time" ---- */

/* the measured columns of a wide table (vital signs): numeric, not keys, not yes/no flags */
static int wide_cols(struct planner *p, int t, int *out, int max)
{
	int n = 0;
	for (int ci = p->s->t[t].c0; ci < p->s->t[t].c0 + p->s->t[t].nc; ci++)
		if (p->s->c[ci].type == PT_NUM && !pf_is_keyish(p, ci) && !p->s->c[ci].flag && !p->s->c[ci].numtext && n < max)
			out[n++] = ci;
	return n;
}

/* event_table: a table of time-stamped events (vitals, labs): it has a time column and no other
 * table references it (a case or admission table is the home of an entity, not a measurement) */
static int event_table(struct planner *p, int t)
{
	if (pf_time_col(p, t) < 0)
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
	src->time = pf_time_col(p, t);
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
	src->label = pf_label_col(p, t, &via);
	src->value = pf_measure_col(p, t);
	if (src->nvals <= 0)
		src->nvals = -1;   /* all labels, unless some of them are named (랩(젖산/칼륨)) */
	return src->label >= 0 && src->value >= 0 ? 0 : -1;
}

/* tlm_timed: per link, 1 + the event table it names a measurement of (0: none); *named counts
 * the links that name an event table whole or by its label/value column, *concept is the last
 * concept link (-1: none) */
static void tlm_timed(struct planner *p, int *timed, int *named, int *concept)
{
	*named = 0;
	*concept = -1;
	for (int l = 0; l < p->pl.n; l++) {
		const struct plink_item *it = &p->pl.v[l];
		int t = it->kind == PL_TABLE ? it->table : (it->kind == PL_COLUMN || it->kind == PL_VALUE) ? p->s->c[it->cols[0]].table : -1;
		if (it->kind == PL_CONCEPT) {
			*concept = l;   /* a condition on a measure: not with several tables (below) */
			continue;
		}
		int via;
		if (it->kind == PL_VALUE) {
			/* a label (lab name 'k'): of an event table, or of a dictionary an event table references */
			for (int c = 0; c < it->ncols && timed[l] == 0; c++) {
				int vt = p->s->c[it->cols[c]].table;
				if (event_table(p, vt) && pf_label_col(p, vt, &via) == it->cols[c]) {
					timed[l] = vt + 1;
					continue;
				}
				for (int k = 0; k < p->s->nfk && !timed[l]; k++) {
					int et = p->s->c[p->s->fk[k].from].table;
					if (p->s->c[p->s->fk[k].to].table == vt && event_table(p, et) && pf_label_col(p, et, &via) == it->cols[c])
						timed[l] = et + 1;
				}
			}
		} else if (t >= 0 && event_table(p, t) && (it->kind == PL_TABLE || (p->s->c[it->cols[0]].type != PT_TIME &&
		                                                                   !pf_is_keyish(p, it->cols[0])))) {
			timed[l] = t + 1;
		}
		/* "labs": the label or value column of a long event table names the table */
		*named += timed[l] && (it->kind == PL_TABLE ||
		                       (it->kind == PL_COLUMN && (it->cols[0] == pf_label_col(p, t, &via) ||
		                                                  it->cols[0] == pf_measure_col(p, t))));
	}
}

/* tlm_sources: the sources: a table named whole, its columns, or its labels; 0 or -1 declined */
static int tlm_sources(struct planner *p, const int *timed)
{
	struct ptl_spec *sp = &p->f.tl;
	for (int l = 0; l < p->pl.n; l++) {
		const struct plink_item *it = &p->pl.v[l];
		if (!timed[l])
			continue;
		struct ptl_source *src = tl_source(p, timed[l] - 1);
		if (!src)
			return pf_decline(p, "%s", "a timeline over more than six tables is too wide to build");
		if (src->time < 0)
			return pf_decline(p, "%s has no time column for a timeline", p->s->t[src->table].name);
		int via, lc = pf_label_col(p, src->table, &via);
		if (it->kind == PL_TABLE || (it->kind == PL_COLUMN && (it->cols[0] == lc || it->cols[0] == pf_measure_col(p, src->table)))) {
			/* "labs", "lab results": the whole table */
			if (tl_all(p, src) < 0)
				return pf_decline(p, "%s: which column is the measurement could not be told", p->s->t[src->table].name);
		} else if (it->kind == PL_COLUMN) {
			if (src->nvals < 0 || src->label >= 0)
				continue;
			if (p->s->c[it->cols[0]].type != PT_NUM)
				return pf_decline(p, "'%s' is not a measured value of a timeline", pf_span_text(p, it->t0, it->t1));
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
			src->value = pf_measure_col(p, src->table);
			if (lc < 0 || src->value < 0)
				return pf_decline(p, "%s: which column is the measurement could not be told", p->s->t[src->table].name);
			for (int c = 0; c < it->ncols; c++)
				if ((p->s->c[it->cols[c]].table == src->table || p->s->c[it->cols[c]].table == p->s->c[lc].table) &&
				    src->nvals < 8) {
					src->vals[src->nvals++] = it->vals[c];
					break;
				}
		}
		pf_decide(p, pf_span_text(p, it->t0, it->t1), "timeline_source", p->s->t[src->table].name,
		       it->kind == PL_TABLE ? "a table named whole: all its measurements" : "measurements named in it", it->score);
	}
	for (int i = 0; i < sp->nsrc; i++)
		if (sp->src[i].nvals < 0)
			sp->src[i].nvals = 0;
	return 0;
}

/* tlm_filters: everything else the question names must be a filter on a table every source
 * reaches; *named_key receives a key column named ("per patient"); 0 or -1 declined */
static int tlm_filters(struct planner *p, const int *timed, const char **named_key)
{
	struct frame *f = &p->f;
	struct ptl_spec *sp = &f->tl;
	for (int l = 0; l < p->pl.n; l++) {
		const struct plink_item *it = &p->pl.v[l];
		if (timed[l])
			continue;
		if (it->kind == PL_VALUE && sp->nflt < 8) {
			struct ptl_filter *fl = &sp->flt[sp->nflt++];
			memset(fl, 0, sizeof *fl);
			fl->col = it->cols[0];
			fl->vals[fl->nvals++] = it->vals[0];
			pf_decide(p, pf_span_text(p, it->t0, it->t1), "value", arena_printf(&p->a, "%s = '%s'", pf_cfq(p, fl->col), it->vals[0]),
			       it->why, it->score);
		} else if (it->kind == PL_COLUMN && p->s->c[it->cols[0]].flag && sp->nflt < 8) {
			struct ptl_filter *fl = &sp->flt[sp->nflt++];
			memset(fl, 0, sizeof *fl);
			*fl = (struct ptl_filter){.col = it->cols[0], .op = "=", .lit = "1", .num = 1};
			pf_decide(p, pf_span_text(p, it->t0, it->t1), "filter", arena_printf(&p->a, "%s = 1", pf_cfq(p, fl->col)), "a yes/no attribute", it->score);
		} else if (it->kind == PL_COLUMN && pf_is_keyish(p, it->cols[0]) && p->s->c[it->cols[0]].type != PT_TIME) {
			/* "per patient" (a synonym of the key column): the entity the rows are lined up by */
			if (!*named_key)
				*named_key = p->s->c[it->cols[0]].name;
		} else if (it->kind == PL_COLUMN && (p->s->c[it->cols[0]].type == PT_TIME || it->role == 1 ||
		                                     (f->entity_col && !strcmp(p->s->c[it->cols[0]].name, f->entity_col)))) {
			continue;   /* a time word, a comparison's column, the entity itself */
		} else {
			return pf_decline(p, "how '%s' goes with a timeline of several tables could not be told", pf_span_text(p, it->t0, it->t1));
		}
	}
	for (int i = 0; i < f->ncond; i++) {
		int ct = f->cond[i].col >= 0 ? p->s->c[f->cond[i].col].table : -1;
		for (int k = 0; k < sp->nsrc && ct >= 0; k++)
			if (sp->src[k].table == ct)
				ct = -1;
		if (ct < 0 || f->cond[i].num != 1 || sp->nflt >= 8)
			return pf_decline(p, "%s", "a numeric condition on one of the timeline's own measurements is not a shape the offline planner builds");
		sp->flt[sp->nflt++] = (struct ptl_filter){.col = f->cond[i].col, .op = f->cond[i].op, .lit = f->cond[i].lit, .num = 1};
		if (!strcmp(f->cond[i].op, "BETWEEN")) {
			sp->flt[sp->nflt - 1].op = ">=";
			if (sp->nflt < 8)
				sp->flt[sp->nflt++] = (struct ptl_filter){.col = f->cond[i].col, .op = "<=", .lit = f->cond[i].lit2, .num = 1};
		}
	}
	return 0;
}

/* tlm_key: the entity key the rows are lined up by: the numbered one, the grouped one, else the
 * case (measurement level) or a key column every source shares; 0 or -1 declined */
static int tlm_key(struct planner *p, const char *named_key)
{
	struct frame *f = &p->f;
	struct ptl_spec *sp = &f->tl;
	if (f->entity_val && f->entity_key >= 0) {
		/* "encounter 5": the rows referencing that row's key, named like the first source's reference */
		int rc = -1;
		for (int k = 0; k < p->s->nfk && rc < 0; k++)
			if (p->s->fk[k].to == f->entity_key && p->s->c[p->s->fk[k].from].table == sp->src[0].table)
				rc = p->s->fk[k].from;
		sp->key_ref = f->entity_key + 1;
		sp->key = rc >= 0 ? p->s->c[rc].name : arena_printf(&p->a, "%s_%s", pf_tname(p, f->entity_key), p->s->c[f->entity_key].name);
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
			return pf_decline(p, "%s", "the tables of the timeline share no key to line their rows up by");
	}
	/* per patient: the case each measurement belongs to as well, when every source carries it */
	if (p->s->entity_case && strcmp(sp->key, p->s->entity_case)) {
		int all = 1;
		for (int i = 0; i < sp->nsrc; i++)
			all &= planner_snap_key(p->s, sp->src[i].table, p->s->entity_case) >= 0;
		if (all)
			sp->key2 = p->s->entity_case;
	}
	return 0;
}

/* the shape's frame: a timeline over two or more timed tables, the spec in f->tl; 1 when the
 * question is not that shape */
static int frame(struct planner *p, struct cues *c)
{
	struct frame *f = &p->f;
	struct ptl_spec *sp = &f->tl;
	int named_tables, concept, timed[PL_MAX] = {0};
	const char *named_key = NULL;
	int timeline_word = c->over_time || pf_has_role(p, R_TIMELINE);

	memset(sp, 0, sizeof *sp);
	if (f->episode >= 0 || f->visit_mention >= 0)
		return 1;
	for (int i = 0; i < p->tk.n; i++) {
		enum role r = p->tk.v[i].role;
		if (!p->tk.v[i].used && (r == R_AVG || r == R_MAX || r == R_MIN || r == R_SUM || r == R_COUNT ||
		                         r == R_TOP || r == R_MOST || r == R_FREQ || r == R_BUCKET))
			return 1;   /* an aggregate or a ranking, not a list of measurements */
		if (f->has_win && (!strcmp(p->tk.v[i].text, "amount") || !strcmp(p->tk.v[i].text, "volume")))
			return 1;   /* an amount or a volume over a window: a total, not a timeline */
	}
	/* which tables with a time column the links name, and how */
	tlm_timed(p, timed, &named_tables, &concept);
	int tabs[PL_MAX], nt = 0;
	for (int l = 0; l < p->pl.n; l++) {
		int dup = 0;
		for (int k = 0; k < nt; k++)
			dup |= tabs[k] == timed[l] - 1;
		if (timed[l] && !dup)
			tabs[nt++] = timed[l] - 1;
	}
	if (nt < 2 || !(timeline_word || (f->entity_val && named_tables >= 2)))
		return 1;
	if (concept >= 0)
		return pf_decline(p, "a timeline over several tables restricted by '%s' (cases that had it? only those "
		               "measurements?) is not a shape the offline planner builds",
		               pf_span_text(p, p->pl.v[concept].t0, p->pl.v[concept].t1));
	sp->banned = p->banned;
	if (tlm_sources(p, timed) < 0 || tlm_filters(p, timed, &named_key) < 0 || tlm_key(p, named_key) < 0)
		return -1;
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
	pf_decide(p, "", "intent", "timeline", arena_printf(&p->a, "measurements of %s as rows (%s, time, source, measure, value) "
	       "in one UNION ALL, ordered by %s and time", sb_ok(&names) ? sb_cstr(&names) : "several tables", sp->key, sp->key), 1);
	return 0;
}

const struct shape shape_timeline_multi = {"timeline_multi", STAGE_WORDS, NULL, frame, 0.9};
