/* planner_shapes.c: the structure pass: what the question asks, decided from its words and links. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/planner_front.h"

/* ---- the structure pass ---- */
int pf_structure(struct planner *p)
{
	struct frame *f = &p->f;
	int wants_time;

	/* shapes it does not build */
	for (int i = 0; i < p->tk.n; i++) {
		if (p->tk.v[i].role == R_UNSUP && p->tk.v[i].unsup_rate && pf_rate_link(p, i) >= 0) {
			p->f.agg = "RATE";   /* the share of rows where the yes/no thing holds, in percent */
			continue;
		}
		if (p->tk.v[i].role == R_UNSUP && pf_duration_word(&p->tk.v[i]) && pf_find_duration(p)) {
			p->tk.v[i].used = 1;   /* "average duration of surgery": a duration measure */
			continue;
		}
		if (p->tk.v[i].role == R_UNSUP && (!p->tk.v[i].used || p->tk.v[i].hangul))
			return pf_decline(p, "the question asks for '%s', a shape the offline planner does not build", p->tk.v[i].text);
		if (p->tk.v[i].role == R_NEG && !p->tk.v[i].used)
			return pf_decline(p, "the question has a negation ('%s'), which the offline planner does not build", p->tk.v[i].text);
		if (p->tk.v[i].role == R_NEXT)
			return pf_decline(p, "%s", "questions about the future cannot be answered from recorded data");
	}
	/* a number nobody could place (a row id, a limit, a threshold...): say so */
	for (int i = 0; i < p->tk.n; i++)
		if ((p->tk.v[i].kind == TK_NUM || p->tk.v[i].kind == TK_DATE) && !p->tk.v[i].used && p->tk.v[i].num != 1 &&
		    !(p->tk.v[i].kind == TK_NUM && (pf_find_role(p, R_TOP) >= 0 || pf_find_role(p, R_MOST) >= 0 || pf_find_role(p, R_FREQ) >= 0)))
			return pf_decline(p, "could not tell what '%s' refers to", p->tk.v[i].text);
	/* "which label was that?": refers to something said before */
	for (int i = p->tk.n - 1; i >= 0; i--) {
		const struct ptok *t = &p->tk.v[i];
		if (t->kind == TK_PUNCT)
			continue;
		if (!strcmp(t->text, "that") || !strcmp(t->text, "it") || !strcmp(t->text, "those") || !strcmp(t->text, "them") ||
		    !strcmp(t->text, "this") || !strcmp(t->text, "these") || !strcmp(t->text, "그것") || !strcmp(t->text, "그거"))
			return pf_decline(p, "the question refers to '%s' without saying what it is", t->text);
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
			return pf_decline(p, "could not link '%s' to any table, column or stored value", sb_cstr(&u));
	}

	/* "how many days since ...": a time difference */
	for (int i = 0; i + 2 < p->tk.n; i++)
		if (p->tk.v[i].role == R_HOW && p->tk.v[i + 1].role == R_MANY && p->tk.v[i + 2].role == R_UNIT)
			return pf_decline(p, "%s", "a time difference ('how many days/hours since') is not a shape the offline planner builds");
	{
		int over = 0;
		for (int i = 0; i + 1 < p->tk.n; i++)
			if (!strcmp(p->tk.v[i].text, "over") && !strcmp(p->tk.v[i + 1].text, "time"))
				over = 1;
		int mt = pf_multi_timeline(p, over || pf_has_role(p, R_TIMELINE));
		if (mt != 0)
			return mt < 0 ? -1 : 0;
	}
	int when = pf_asks_when(p);
	wants_time = p->f.has_win || pf_has_role(p, R_FIRST) || pf_has_role(p, R_LAST) || when ||
	             pf_has_role(p, R_TIMELINE);
	f->fact = pf_choose_fact(p, wants_time);
	if (f->fact < 0 && f->entity_word) {
		/* "how many patients": a table named like the entity word ("patient", "patients") */
		for (int ti = 0; ti < p->s->nt && f->fact < 0; ti++)
			if (pf_entity_names_table(p, ti) && (!p->banned || !p->banned[ti]))
				f->fact = ti;
		if (f->fact >= 0 && pf_col_in(p, f->fact, f->entity_col) < 0) {
			/* its own key is the entity */
			for (int ci = p->s->t[f->fact].c0; ci < p->s->t[f->fact].c0 + p->s->t[f->fact].nc; ci++)
				if (p->s->c[ci].unique && strcmp(p->s->c[ci].name, "row_id")) {
					f->entity_col = p->s->c[ci].name;
					break;
				}
		}
	}
	if (f->fact < 0 && f->entity_col && (!wants_time || pf_entity_home_timed(p))) {
		/* only the entity is named ("how many patients"): its home table, where the key is unique,
		 * else the smallest table that has it */
		for (int ti = 0; ti < p->s->nt; ti++) {
			int ec = pf_col_in(p, ti, f->entity_col);
			if (ec < 0 || (p->banned && p->banned[ti]))
				continue;
			if (f->fact < 0 || p->s->c[ec].unique ||
			    (!p->s->c[pf_col_in(p, f->fact, f->entity_col)].unique && p->s->t[ti].rows < p->s->t[f->fact].rows))
				f->fact = ti;
		}
	}
	if (f->fact < 0)
		return pf_decline(p, "%s", "nothing in the question names a table, column or stored value");
	if (f->entity_col && pf_entity_names_table(p, f->fact) && pf_col_in(p, f->fact, f->entity_col) < 0) {
		/* the entity's own table: its key is the entity */
		for (int ci = p->s->t[f->fact].c0; ci < p->s->t[f->fact].c0 + p->s->t[f->fact].nc; ci++)
			if (p->s->c[ci].unique && strcmp(p->s->c[ci].name, "row_id")) {
				f->entity_col = p->s->c[ci].name;
				break;
			}
	}
	pf_decide(p, "", "fact_table", p->s->t[f->fact].name, "where the linked values and columns meet", 1);
	f->time_col = pf_time_col(p, f->fact);
	f->measure = pf_measure_col(p, f->fact);

	/* links -> filters, projections, groups */
	int group_next = 0;
	for (int l = 0; l < p->pl.n; l++) {
		struct plink_item *it = &p->pl.v[l];
		const char *sp = pf_span_text(p, it->t0, it->t1);
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
				if (pf_path(p, f->fact, dt, e, 2) >= 0 &&
				    (pf_dict_reaches(p, it->cols[c], it->vals[c], f->fact, &via) || 1))
					pick = c;
				if (pick == c && via >= 0 && p->via)
					p->via[dt] = via;
			}
			if (pick < 0 && it->t1 - it->t0 == 1) {
				double fs;
				int fc = planner_link_term(&p->a, p->s, p->tk.v[it->t0].text, p->r, p->banned, 0.85, &fs);
				int e[4];
				if (fc >= 0 && p->s->c[fc].flag && (p->s->c[fc].table == f->fact || pf_path(p, f->fact, p->s->c[fc].table, e, 3) >= 0)) {
					f->cond[f->ncond].col = fc;
					f->cond[f->ncond].op = "=";
					f->cond[f->ncond].lit = "1";
					f->cond[f->ncond].num = 1;
					f->cond[f->ncond++].lit2 = NULL;
					pf_decide(p, sp, "filter", arena_printf(&p->a, "%s = 1", pf_cfq(p, fc)), "a yes/no attribute named by the word", fs);
					continue;
				}
			}
			if (pick < 0 && it->t1 - it->t0 == 1 && it->ncols) {
				pf_decide(p, sp, "ignored", pf_cfq(p, it->cols[0]), "a stored value of a table not joinable to the question's table", 0);
				continue;
			}
			if (pick < 0)
				return pf_decline(p, "'%s' is a stored value, but not of anything joinable to the question's table", sp);
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
			pf_decide(p, sp, "value", arena_printf(&p->a, "%s = '%s'", pf_cfq(p, col), it->vals[pick]), it->why, it->score);
		} else if (it->kind == PL_CONCEPT && it->con >= 0) {
			/* a concept defined in the metadata: its conditions as written there */
			const struct pconcept *pc = &p->s->con[it->con];
			if (f->agg && !strcmp(f->agg, "RATE") && !f->rate_n) {
				int rl = -1;
				for (int k = it->t0; k < it->t1 && rl < 0; k++)
					if (p->tk.v[k].unsup_rate)
						rl = pf_rate_link(p, k);
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
					pf_need(p, p->s->c[pc->c[k].col].table);
			}
			pf_decide(p, sp, "concept", pc->name, it->why, 1);
		} else if (it->kind == PL_CONCEPT) {
			/* the measure: a column named so, or a stored value (lab name) with the table's measure */
			double sc, lo = it->lo, hi = it->hi;
			const char *src;
			int col = planner_link_term(&p->a, p->s, it->measure, p->r, p->banned, 0.75, &sc);
			if (col >= 0) {
				pf_concept_range(p, col, NULL, &lo, &hi, &src);
			} else {
				int n, v = planner_snap_values(p->s, it->measure, &n);
				const char *const *syn = planner_lex_syn(it->measure);
				for (; v < 0 && syn && *syn; syn++)
					v = planner_snap_values(p->s, *syn, &n);
				if (v < 0)
					return pf_decline(p, "the concept '%s' needs a measure the catalog does not have", sp);
				int vc = p->s->v[v].col, mt = -1;
				for (int ti = 0; ti < p->s->nt && mt < 0; ti++)
					if (p->s->c[vc].table == ti || pf_dict_reaches(p, vc, p->s->v[v].value, ti, NULL))
						if (pf_measure_col(p, ti) >= 0)
							mt = ti;
				if (mt < 0)
					return pf_decline(p, "the concept '%s' has no measured value", sp);
				col = pf_measure_col(p, mt);
				pf_concept_range(p, col, p->s->v[v].value, &lo, &hi, &src);
				if (f->nin < 4) {
					f->in[f->nin].col = vc;
					f->in[f->nin].vals[0] = p->s->v[v].value;
					f->in[f->nin++].n = 1;
				}
			}
			if (f->ncond < MAXF) {
				f->cond[f->ncond].col = col;
				f->cond[f->ncond].op = it->dir < 0 ? "<" : ">";
				f->cond[f->ncond].lit = pf_numtext(p, it->dir < 0 ? lo : hi);
				f->cond[f->ncond].num = 1;
				f->cond[f->ncond].lit2 = NULL;
				f->ncond++;
			}
			pf_decide(p, sp, "concept", arena_printf(&p->a, "%s %s %s", pf_cfq(p, col), it->dir < 0 ? "<" : ">",
			                                      pf_numtext(p, it->dir < 0 ? lo : hi)),
			       arena_printf(&p->a, "%s (%s)", it->why, src), 1);
			if (p->s->c[col].table != f->fact)
				pf_need(p, p->s->c[col].table);
		} else if (it->kind == PL_COLUMN) {
			int col = it->cols[0];
			if (it->role == 1 || it->role == 2)
				continue;   /* bound to a comparison or a value already */
			if (p->tk.v[it->t0].role == R_VALUE && p->s->c[col].table != f->fact) {
				pf_decide(p, sp, "ignored", pf_cfq(p, col), "a generic measure word; the question's table has its own measure", 0);
				continue;
			}
			if (per) {
				if (f->ngroup < 3)
					f->group[f->ngroup++] = col;
				pf_decide(p, sp, "group", pf_cfq(p, col), it->why, it->score);
				continue;
			}
			if (p->s->c[col].type == PT_TIME) {
				/* "discharged", "admitted": the time column the question is about */
				f->time_col = col;
				f->time_named = 1;
				pf_decide(p, sp, "time_column", pf_cfq(p, col), it->why, it->score);
				continue;
			}
			if (p->s->c[col].flag && f->ncond < MAXF) {
				/* "사망한 환자", "patients with diabetes": a yes/no attribute is a filter */
				f->cond[f->ncond].col = col;
				f->cond[f->ncond].op = "=";
				f->cond[f->ncond].lit = "1";
				f->cond[f->ncond].num = 1;
				f->cond[f->ncond++].lit2 = NULL;
				pf_decide(p, sp, "filter", arena_printf(&p->a, "%s = 1", pf_cfq(p, col)), "a yes/no attribute", it->score);
				continue;
			}
			if (f->nproj < NPROJ)
				f->proj[f->nproj++] = col;
			pf_decide(p, sp, "column", pf_cfq(p, col), it->why, it->score);
		} else if (it->kind == PL_TABLE) {
			pf_decide(p, sp, "table", p->s->t[it->table].name, it->why, it->score);
			if (per) {
				int via, lc = pf_label_col(p, it->table, &via);
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
			return pf_decline(p, "a number '%s' is compared, but with what column could not be told", f->cond[i].lit);
		f->cond[i].col = col;
		pf_decide(p, "", "filter", arena_printf(&p->a, "%s %s %s", pf_cfq(p, col), f->cond[i].op, f->cond[i].lit),
		       "numeric comparison with the measured value", 0.8);
	}
	/* the entity grouped: "환자별", "per patient" */
	if (f->entity_group && f->entity_col) {
		int ec = pf_col_in(p, f->fact, f->entity_col);
		for (int ti = 0; ti < p->s->nt && ec < 0; ti++)
			ec = pf_col_in(p, ti, f->entity_col);
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
				return pf_decline(p, "a breakdown by time was asked, but %s has no time column", p->s->t[f->fact].name);
			pf_decide(p, pf_span_text(p, i, i + 1), "group", arena_printf(&p->a, "date_trunc('%s', %s)",
			       f->bucket == 'h' ? "hour" : f->bucket == 'd' ? "day" : f->bucket == 'w' ? "week" : f->bucket == 'm' ? "month" : "year",
			       pf_cfq(p, f->time_col)), "a breakdown by time bucket", 1);
		}
	}
	/* aggregate */
	int how_many = pf_has_role(p, R_HOW) && pf_has_role(p, R_MANY);
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
		return pf_decline(p, "the question asks for two aggregates ('%s'), which the offline planner does not combine "
		               "in one answer yet; ask for one at a time",
		               arena_printf(&p->a, "%s', '%s", p->tk.v[ag].text, p->tk.v[i].text));
	}
	if (ag >= 0 && how_many && (p->tk.v[ag].role == R_AVG || p->tk.v[ag].role == R_MAX || p->tk.v[ag].role == R_MIN))
		return pf_decline(p, "the question asks for a count and '%s' together, which the offline planner does not "
		               "combine in one answer yet; ask for one at a time", p->tk.v[ag].text);
	if (ag >= 0) {
		enum role r = p->tk.v[ag].role;
		f->agg = r == R_AVG ? "AVG" : r == R_MAX ? "MAX" : r == R_MIN ? "MIN" : r == R_SUM ? "SUM" : "COUNT";
		/* "number of X" where X is a numeric column is a count, "total X" is a sum */
	}
	if (how_many && !f->agg)
		f->agg = "COUNT";
	if (pf_has_role(p, R_HOW) && !how_many) {
		for (int i = 0; i < p->tk.n; i++)
			if (!strcmp(p->tk.v[i].text, "much") && !f->agg)
				f->agg = "SUM";
	}
	/* the measure the aggregate or the projection is about */
	int mcol = -1;
	for (int i = 0; i < f->nproj; i++)
		if (p->s->c[f->proj[i]].type == PT_NUM && !pf_is_keyish(p, f->proj[i]))
			mcol = f->proj[i];
	if (mcol >= 0)
		f->measure = mcol;
	if (f->agg && when && (!strcmp(f->agg, "MAX") || !strcmp(f->agg, "MIN")) && f->measure >= 0 && f->time_col >= 0) {
		/* "when did X have the maximum Y": order by the value, then by time */
		int la2 = pf_find_role(p, R_LAST);
		f->order = !strcmp(f->agg, "MAX") ? -1 : 1;
		f->order_col = f->measure;
		f->order2 = la2 >= 0 ? -1 : 1;
		f->order2_col = f->time_col;
		f->limit = 1;
		f->nproj = 0;
		f->proj[f->nproj++] = f->time_col;
		f->agg = NULL;
		f->extreme = 1;
		pf_decide(p, "", "intent", "time of the extreme value", "'when' with a maximum/minimum", 1);
		return 0;
	}
	if (f->agg && !strcmp(f->agg, "RATE")) {
		if (!f->rate_n)
			return pf_decline(p, "%s", "a rate was asked for, but not of what");
		f->measure = -1;
		f->nproj = 0;
		pf_self_group(p);
		pf_decide(p, "", "aggregate", "rate: 100 * share of rows where the condition holds", "a rate word on a yes/no thing", 1);
	} else if (f->agg && strcmp(f->agg, "COUNT")) {
		if (f->measure < 0 && f->dur_start < 0) {
			for (int i = 0; i < p->tk.n && f->dur_start < 0; i++)
				if (pf_duration_word(&p->tk.v[i]) && pf_find_duration(p))
					p->tk.v[i].used = 1;
		}
		if (f->measure < 0 && f->dur_start >= 0) {
			/* the measure is a duration: end - start, in minutes */
			if (p->s->c[f->dur_start].table != f->fact)
				pf_need(p, p->s->c[f->dur_start].table);
			pf_self_group(p);
			f->nproj = 0;
			pf_decide(p, "", "aggregate", arena_printf(&p->a, "%s((%s - %s) in minutes)", f->agg, pf_cfq(p, f->dur_end),
			                                          pf_cfq(p, f->dur_start)), "a duration between a start and an end time", 1);
		} else if (f->measure < 0) {
			return pf_decline(p, "%s", "an aggregate was asked for but no numeric measure was found");
		} else {
			/* the measure is consumed by the aggregate */
			for (int i = 0; i < f->nproj; i++)
				if (f->proj[i] == f->measure)
					f->proj[i--] = f->proj[--f->nproj];
			pf_self_group(p);
			if (f->nproj && !f->ngroup && !f->bucket && pf_find_role(p, R_MOST) < 0 && pf_find_role(p, R_TOP) < 0)
				return pf_decline(p, "the question names '%s' next to an aggregate, and how they combine could not be told",
				               p->s->c[f->proj[0]].name);
			pf_decide(p, "", "aggregate", arena_printf(&p->a, "%s(%s)", f->agg, pf_cfq(p, f->measure)), "aggregate word", 1);
		}
	} else if (f->agg) {
		f->count_entity = f->entity_count && f->entity_col;
		if (f->count_entity)
			pf_decide(p, "", "aggregate", arena_printf(&p->a, "COUNT(DISTINCT %s)", f->entity_col), "counting patients/cases", 1);
		else
			pf_decide(p, "", "aggregate", "COUNT(*)", "counting rows", 1);
		pf_self_group(p);   /* "성별 환자 수": per sex */
		f->nproj = 0;
	} else {
		f->count_entity = 0;
	}
	if (f->agg && strcmp(f->agg, "COUNT"))
		f->count_entity = 0;
	if (f->bucket && !f->agg)
		return pf_decline(p, "%s", "a breakdown by time needs something to count or aggregate");

	/* ranking: top N / most frequent / 가장 많은 */
	int top = pf_find_role(p, R_TOP), most = pf_find_role(p, R_MOST), freq = pf_find_role(p, R_FREQ);
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
			pf_decide(p, "", "ranking", arena_printf(&p->a, "%s by %s(%s)", pf_cfq(p, gc), f->rank_agg, pf_cfq(p, f->measure)),
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
			rc = pf_label_col(p, f->fact, &via);
			for (int k = 0; via >= 0 && k < p->s->nfk; k++)
				if (p->s->c[p->s->fk[k].from].table == f->fact && p->s->c[p->s->fk[k].to].table == via)
					f->rank_key = p->s->fk[k].from;
		}
		if (rc < 0)
			return pf_decline(p, "%s", "a ranking was asked for, but of what could not be told");
		f->rank_col = rc;
		f->rank_n = n;
		f->rank_asc = asc;
		f->agg = NULL;
		pf_decide(p, "", "ranking", arena_printf(&p->a, "top %ld %s by count", n, pf_cfq(p, rc)), "ranking words", 1);
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
		pf_decide(p, "", "intent", "exists", "a yes/no question: does any row match", 1);
		return 0;
	}

	/* first/last: order by time, one row */
	int fi = pf_find_role(p, R_FIRST), la = pf_find_role(p, R_LAST);
	if ((fi >= 0 || la >= 0) && !f->agg) {
		f->order = (fi >= 0 && (la < 0 || fi < la)) ? 1 : -1;
		f->order_col = f->time_col;
		f->limit = 1;
		if (f->order_col < 0)
			return pf_decline(p, "first/last was asked, but %s has no time column", p->s->t[f->fact].name);
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
		return pf_decline(p, "the question asks for an amount or value, but %s has no numeric measure", p->s->t[f->fact].name);
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
		int ec = pf_col_in(p, f->fact, f->entity_col);
		if (ec >= 0) {
			f->proj[f->nproj++] = ec;
			f->entity_count = 0;
			pf_decide(p, "", "projection", pf_cfq(p, ec), "a list of patients/cases", 1);
		}
	}
	int over_time = 0;
	for (int i = 0; i + 1 < p->tk.n; i++)
		if (!strcmp(p->tk.v[i].text, "over") && !strcmp(p->tk.v[i + 1].text, "time"))
			over_time = 1;
	if (!f->agg && !f->nproj && (f->entity_val || pf_has_role(p, R_TIMELINE) || over_time || f->has_win) &&
	    f->time_col >= 0 && !f->exists) {
		/* "show me the vitals of case 8", "바이탈 타임라인": every measured column of the table named, over time */
		int named = 0, nm = 0;
		for (int l = 0; l < p->pl.n; l++)
			named |= p->pl.v[l].kind == PL_TABLE && p->pl.v[l].table == f->fact;
		for (int ci = p->s->t[f->fact].c0; named && ci < p->s->t[f->fact].c0 + p->s->t[f->fact].nc; ci++)
			if (p->s->c[ci].type == PT_NUM && !pf_is_keyish(p, ci) && !p->s->c[ci].flag && f->nproj < NPROJ - 1) {
				f->proj[f->nproj++] = ci;
				nm++;
			}
		if (nm >= 2) {
			f->timeline = 1;
			pf_decide(p, "", "intent", "timeline", "the measurements of the table named, over time", 1);
		} else {
			/* a long table (labs: name + result) over time: its label and its value ("list the
			 * drugs of case 5" stays a list of labels) */
			int via, lc = pf_label_col(p, f->fact, &via);
			f->nproj = 0;
			if (named && lc >= 0 && f->measure >= 0 && via < 0 && (pf_has_role(p, R_TIMELINE) || over_time)) {
				f->proj[f->nproj++] = lc;
				f->proj[f->nproj++] = f->measure;
				f->timeline = 1;
				pf_decide(p, "", "intent", "timeline", "the labels and values of the table named, over time", 1);
			}
		}
	}
	if (!f->agg && !f->nproj) {
		/* "what lab test ...", "which drug": the label of the fact table's rows */
		int via, lc = pf_label_col(p, f->fact, &via);
		if (lc >= 0 && (pf_has_role(p, R_WHICH) || pf_has_role(p, R_LIST) || pf_has_role(p, R_DISTINCT))) {
			f->proj[f->nproj++] = lc;
			pf_decide(p, "", "projection", pf_cfq(p, lc), "what the question asks to name", 1);
		}
	}
	/* timeline: several measurements of one case ordered by time ("over time", "추이") */
	if (!f->agg && (pf_has_role(p, R_TIMELINE) || over_time || f->timeline)) {
		if (f->time_col < 0)
			return pf_decline(p, "%s", "a timeline needs a time column");
		int have = 0;
		for (int i = 0; i < f->nproj; i++)
			have |= f->proj[i] == f->time_col;
		if (!have && f->nproj < NPROJ) {
			pf_proj_shift(f);
			f->proj[0] = f->time_col;
			f->nproj++;
		}
		/* "환자별 ... 타임라인": the grouped entity leads the rows and the order, no GROUP BY */
		for (int g = f->ngroup - 1; g >= 0 && f->nproj < NPROJ; g--) {
			pf_proj_shift(f);
			f->proj[0] = f->group[g];
			f->nproj++;
			f->lead[f->nlead++] = f->group[g];
		}
		f->ngroup = 0;
		f->order = 1;
		f->order_col = f->time_col;
		f->limit = 0;
		f->timeline = 1;
		pf_decide(p, "", "intent", "timeline", "measurements of one case ordered by time", 1);
	}
	if (!f->agg && !f->order && !f->timeline && f->ngroup && !f->rank_n)
		return pf_decline(p, "%s", "a breakdown was asked for, but not of what (a count or an aggregate)");
	int numeric = 0;
	for (int i = 0; i < f->nproj; i++)
		numeric |= p->s->c[f->proj[i]].type == PT_NUM && !pf_is_keyish(p, f->proj[i]) && !p->s->c[f->proj[i]].flag;
	if (!f->agg && !f->order && !f->timeline && numeric && f->time_col >= 0 && !f->exists && f->nproj < NPROJ) {
		/* a list of measurements: each with its time, in time order (duplicates are real) */
		pf_proj_shift(f);
		f->proj[0] = f->time_col;
		f->nproj++;
		f->order = 1;
		f->order_col = f->time_col;
		f->limit = 0;
		f->timeline = 1;
	}
	if (!f->agg && !f->order && !f->timeline)
		f->distinct = 1;   /* a list of things: each once */
	if (pf_has_role(p, R_DISTINCT) && f->agg && !strcmp(f->agg, "COUNT") && f->nproj == 0 && !f->count_entity) {
		/* "how many different drugs": count distinct of the label */
		int via, lc = pf_label_col(p, f->fact, &via);
		(void)lc;
	}
	return 0;
}
