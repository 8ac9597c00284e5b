/* planner_measure.c: measures that are not one column: a rate of a yes/no thing, a duration between two times. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/planner_front.h"

/* rate_link: the link item whose span holds the rate word at token i (사망률 -> the in-hospital
 * death concept), when it is a yes/no thing: a metadata concept or a 0/1 column; else -1 */
int pf_rate_link(struct planner *p, int i)
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

/* duration_word: "시간" not attached to a number, "duration", "how long", "length", "소요", "(op) time"
 * (a duration only where an aggregate is of one and a start and an end column are named) */
int pf_duration_word(const struct ptok *t)
{
	static const char *const w[] = {"시간", "소요시간", "소요", "duration", "long", "length", "time", NULL};
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
		if (t->kind != TK_WORD || (t->role != R_NONE && t->role != R_ENTITY) || strlen(t->text) < 2 || pf_duration_word(t))
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
int pf_find_duration(struct planner *p)
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

/* a time column's name says it ends something: out, end, disch, dsch (outtime, end_dt, dischtime) */
static int end_name(const char *name)
{
	return strstr(name, "out") || strstr(name, "end") || strstr(name, "disch") || strstr(name, "dsch");
}

int pf_episode_duration(struct planner *p)
{
	struct frame *f = &p->f;
	int ti = f->episode;
	/* "how long was the first hospital stay of patient 7 in the ICU": the ICU stay named after the
	 * hospital visit is the stay measured, and the ordinal is its own (the first ICU stay) */
	int icu = pf_visit_table(p, 1);
	for (int l = 0; ti >= 0 && icu >= 0 && icu != ti && l < p->pl.n; l++)
		if (p->pl.v[l].kind == PL_TABLE && p->pl.v[l].table == icu && ti == pf_visit_table(p, 0)) {
			pf_decide(p, pf_span_text(p, p->pl.v[l].t0, p->pl.v[l].t1), "visit", p->s->t[icu].name,
			          "the stay named inside the visit is the one whose length is asked", 0.9);
			f->episode = ti = icu;
		}
	/* no visit chosen: the one table the question names ("how long was patient 7's last admission") */
	for (int l = 0; ti < 0 && l < p->pl.n; l++)
		if (p->pl.v[l].kind == PL_TABLE)
			ti = ti == -1 ? p->pl.v[l].table : -2;
	if (ti < 0)
		return 0;
	int start = pf_time_col(p, ti), end = -1;
	for (int ci = p->s->t[ti].c0; start >= 0 && ci < p->s->t[ti].c0 + p->s->t[ti].nc; ci++)
		if (ci != start && p->s->c[ci].type == PT_TIME && end_name(p->s->c[ci].name) && !end_name(p->s->c[start].name))
			end = end < 0 ? ci : -2;   /* two end columns: which one is not clear */
	if (end < 0)
		return 0;
	f->dur_start = start;
	f->dur_end = end;
	f->dur_days = 2;
	return 1;
}

/* a lexicon term (and its synonyms) as a time column: the term, and for a Korean term its date
 * (입원 -> 입원일, which comments write 입원일시); -1 none */
static int event_time_col(struct planner *p, const char *term, int table)
{
	const char *terms[24];
	int n = 0;
	terms[n++] = term;
	for (const char *const *sy = planner_lex_syn(term); sy && *sy && n < 22; sy++)
		terms[n++] = *sy;
	for (int k = 0; k < n; k++) {
		double sc;
		char st[128];
		int kor = (unsigned char)terms[k][0] >= 0x80;
		planner_stem(terms[k], st, sizeof st);
		const char *forms[2] = {kor ? terms[k] : st, kor ? arena_printf(&p->a, "%s일", terms[k]) : NULL};
		for (int f = 0; f < 2 && forms[f]; f++) {
			int c = planner_link_term_type(&p->a, p->s, forms[f], p->r, p->banned, 0.5, PT_TIME, &sc);
			if (c >= 0 && (table < 0 || p->s->c[c].table == table))
				return c;
		}
	}
	return -1;
}

int pf_stay_word(struct planner *p, int i, int *n)
{
	const struct ptok *t = &p->tk.v[i];
	*n = 1;
	if (t->kind != TK_WORD)
		return 0;
	if (!strcmp(t->text, "length") && i + 2 < p->tk.n && !strcmp(p->tk.v[i + 1].text, "of") &&
	    !strcmp(p->tk.v[i + 2].stem, "stay")) {
		*n = 3;
		return 1;
	}
	for (const char *const *sy = planner_lex_syn(t->text); sy && *sy; sy++)
		if (!strcmp(*sy, "length of stay"))
			return 1;
	return 0;
}

/* names_event: word w (or w without a Korean date suffix: 퇴원일 -> 퇴원) is term or a synonym */
static int names_event(const char *w, const char *term)
{
	char base[128];
	size_t n = strlen(w);
	snprintf(base, sizeof base, "%s", w);
	if (n > 3 && (unsigned char)w[0] >= 0x80 && !strcmp(w + n - 3, "일"))
		base[n - 3] = 0;
	if (!strcmp(w, term) || !strcmp(base, term))
		return 1;
	for (const char *const *sy = planner_lex_syn(term); sy && *sy; sy++)
		if (!strcmp(*sy, w) || !strcmp(*sy, base))
			return 1;
	return 0;
}

int pf_find_stay(struct planner *p)
{
	int a = event_time_col(p, "admission", -1);
	int d = a >= 0 ? event_time_col(p, "discharge", p->s->c[a].table) : -1;
	if (a < 0 || d < 0 || a == d)
		return 0;
	p->f.dur_start = a;
	p->f.dur_end = d;
	p->f.dur_days = 1;
	/* "퇴원일-입원일로 계산", "퇴원한 건만": the stay's own ends (a stay not ended has no length) */
	for (int i = 0; i < p->tk.n; i++) {
		struct ptok *t = &p->tk.v[i];
		if (t->kind != TK_WORD || !(names_event(t->text, "admission") || names_event(t->text, "discharge") ||
		                            names_event(t->stem, "admission") || names_event(t->stem, "discharge")))
			continue;
		t->used = 1;
		for (int l = 0; l < p->pl.n; l++)
			if (p->pl.v[l].t0 == i && p->pl.v[l].t1 == i + 1 && p->pl.v[l].kind == PL_COLUMN)
				p->pl.v[l].role = PL_ROLE_IGNORED;
	}
	return 1;
}

/* ---- the aggregate: which, of what ---- */

/* what_events: "what output events (items) were ...": "what" asks which events, not how much */
static int what_events(const struct planner *p)
{
	if (p->tk.n < 3 || strcmp(p->tk.v[0].text, "what"))
		return 0;
	for (int i = 1; i < p->tk.n && i <= 3; i++)
		if (!strcmp(p->tk.v[i].text, "events") || !strcmp(p->tk.v[i].text, "items"))
			return 1;
	return 0;
}

/* first_or_last_time: "for the first time", "the last time" (not yet read as a visit's): how much
 * was given that time, not in total */
static int first_or_last_time(const struct planner *p)
{
	for (int i = 0; i + 1 < p->tk.n; i++)
		if ((p->tk.v[i].role == R_FIRST || p->tk.v[i].role == R_LAST) && !p->tk.v[i].used &&
		    !strcmp(p->tk.v[i + 1].text, "time"))
			return 1;
	return 0;
}

/* pf_aggregate_word: the aggregate the question asks for (f->agg: COUNT, AVG, MAX, MIN, SUM) and
 * the numeric column it is about when one is named; c->how_many, c->ag set; 0, or -1 declined
 * when two different aggregates are asked at once */
int pf_aggregate_word(struct planner *p, struct cues *c)
{
	struct frame *f = &p->f;
	c->how_many = pf_has_role(p, R_HOW) && pf_has_role(p, R_MANY);
	c->ag = -1;
	/* "highest first", "lowest first": the order of a listing, not an aggregate */
	for (int i = 0; i + 1 < p->tk.n; i++)
		if ((p->tk.v[i].role == R_MAX || p->tk.v[i].role == R_MIN) && p->tk.v[i + 1].role == R_FIRST &&
		    !p->tk.v[i].used && !p->tk.v[i].hangul)
			p->tk.v[i].used = p->tk.v[i + 1].used = 1;
	/* "the maximum number of X" said of a measurement: its largest value, not a count */
	for (int i = 0; i + 1 < p->tk.n; i++)
		if ((p->tk.v[i].role == R_MAX || p->tk.v[i].role == R_MIN) && !strcmp(p->tk.v[i + 1].text, "number") &&
		    !p->tk.v[i + 1].used)
			p->tk.v[i + 1].used = 1;
	for (int i = 0; i < p->tk.n; i++) {
		enum role r = p->tk.v[i].role;
		if (p->tk.v[i].used)
			continue;
		if ((r == R_AVG || r == R_MAX || r == R_MIN || r == R_SUM || r == R_COUNT) &&
		    (c->ag < 0 || (p->tk.v[c->ag].role == R_SUM && r == R_COUNT)))
			c->ag = i;
	}
	/* "how often", "how frequently": a count, not a ranking */
	for (int i = 0; i + 1 < p->tk.n; i++)
		if (p->tk.v[i].role == R_HOW && p->tk.v[i + 1].role == R_FREQ) {
			p->tk.v[i + 1].used = 1;
			c->how_many = 1;
		}
	/* several aggregates ("최저, 최고, 평균", "환자 수와 평균 나이", "how many ... and their average
	 * age"): the first said leads, the others follow in order (the summary shape) */
	int ags[8], nags = 0;
	if (c->how_many && c->ag >= 0 && p->tk.v[c->ag].role != R_COUNT && p->tk.v[c->ag].role != R_SUM)
		ags[nags++] = -1;   /* the count of "how many" */
	for (int i = 0; c->ag >= 0 && i < p->tk.n && nags < 8; i++) {
		enum role r = p->tk.v[i].role;
		int dup = 0;
		if (p->tk.v[i].used || !(r == R_AVG || r == R_MAX || r == R_MIN || r == R_COUNT))
			continue;
		for (int k = 0; k < nags; k++)
			dup |= ags[k] >= 0 ? p->tk.v[ags[k]].role == r : r == R_COUNT;
		if (!dup)
			ags[nags++] = i;
	}
	if (nags >= 2 && (p->tk.v[c->ag].role == R_SUM || nags > 4))
		return pf_decline(p, "%s", "the question mixes a total with other aggregates, which the offline planner does not combine");
	if (nags >= 2) {
		for (int k = 1; k < nags; k++) {
			enum role r = p->tk.v[ags[k]].role;
			f->agg2[f->nagg2++] = r == R_AVG ? "AVG" : r == R_MAX ? "MAX" : r == R_MIN ? "MIN" : "COUNT";
		}
		c->ag = ags[0];
	}
	if (c->ag < 0 && f->nagg2) {
		f->agg = "COUNT";   /* "how many ... and the average ...": the count leads */
	} else if (c->ag >= 0) {
		enum role r = p->tk.v[c->ag].role;
		f->agg = r == R_AVG ? "AVG" : r == R_MAX ? "MAX" : r == R_MIN ? "MIN" : r == R_SUM ? "SUM" : "COUNT";
		/* "the total ICU visits of patient 7", "total admissions": the visits themselves, counted */
		int k = c->ag + 1;
		while (k < p->tk.n && (!strcmp(p->tk.v[k].text, "icu") || !strcmp(p->tk.v[k].text, "hospital") ||
		                       !strcmp(p->tk.v[k].text, "number") || !strcmp(p->tk.v[k].text, "of")))
			k++;
		if (r == R_SUM && k < p->tk.n && pf_is_visit_word(&p->tk.v[k]) && !p->tk.v[k].hangul &&
		    (k + 1 >= p->tk.n || p->tk.v[k + 1].role != R_UNIT))
			f->agg = "COUNT";
		/* "number of X" where X is a numeric column is a count, "total X" is a sum */
	}
	if (c->how_many && !f->agg)
		f->agg = "COUNT";
	if (pf_has_role(p, R_HOW) && !c->how_many) {
		for (int i = 0; i < p->tk.n; i++)
			/* "how much does a potassium test cost", "how much does he weigh": what one is or
			 * costs in general (present tense), not a total */
			if (!strcmp(p->tk.v[i].text, "much") && !f->agg &&
			    !(i + 1 < p->tk.n && (!strcmp(p->tk.v[i + 1].text, "does") || !strcmp(p->tk.v[i + 1].text, "do"))) &&
			    !first_or_last_time(p))
				f->agg = "SUM";
	}
	/* "the volume of foley output since 12/07", "what his void output was since 06/05": a volume or
	 * an amount over a period, or an intake or output (charted as totals per period), with no first
	 * or last, is the total over it; "amount" may have been taken as a generic measure word */
	if (!f->agg && f->has_win && !pf_has_role(p, R_FIRST) && !pf_has_role(p, R_LAST) && !pf_has_role(p, R_PER) &&
	    !pf_has_role(p, R_BUCKET) && !pf_has_role(p, R_TOP) && !pf_has_role(p, R_MOST) && !pf_has_role(p, R_FREQ) &&
	    !pf_has_role(p, R_ANY) && !(p->tk.n && p->tk.v[0].role == R_EXIST) &&   /* "was there any output": yes or no */
	    !(p->tk.n && !strcmp(p->tk.v[0].text, "which")) &&   /* "which output events were charted": a list */
	    !what_events(p) &&                                     /* "what output events were charted": too */
	    !pf_has_role(p, R_DISTINCT))   /* "what kinds of output were charted": a list of kinds */
		for (int i = 0; i < p->tk.n; i++) {
			const char *w = p->tk.v[i].text;
			int generic = 0;
			for (int l = 0; l < p->pl.n; l++)
				generic |= p->pl.v[l].t0 == i && p->pl.v[l].t1 == i + 1 && p->pl.v[l].role == PL_ROLE_IGNORED;
			if (((!p->tk.v[i].used || generic) && (!strcmp(w, "volume") || !strcmp(w, "amount"))) ||
			    !strcmp(w, "output") || !strcmp(w, "intake"))
				f->agg = "SUM";
		}
	/* the measure the aggregate or the projection is about */
	int mcol = -1;
	for (int i = 0; i < f->nproj; i++)
		if (p->s->c[f->proj[i]].type == PT_NUM && !pf_is_keyish(p, f->proj[i]))
			mcol = f->proj[i];
	if (mcol >= 0)
		f->measure = mcol;
	return 0;
}

/* happened_word: a word that says an event took place ("discharged", "퇴원한"), not a time asked
 * for ("discharge time") */
static int happened_word(const struct ptok *t)
{
	size_t n = strlen(t->raw);
	if (t->hangul)
		return n >= 3 && (!strcmp(t->raw + n - 3, "한") || !strcmp(t->raw + n - 3, "된"));
	return n > 4 && !strcmp(t->raw + n - 2, "ed");
}

int pf_per_entity(struct planner *p)
{
	for (int i = 0; i < p->tk.n; i++) {
		const struct ptok *t = &p->tk.v[i];
		int kind = pf_tok_ent(t) == ENT_PATIENT ? ENT_PATIENT : pf_is_visit_word(t) ? ENT_ENCOUNTER : -1;
		if (kind < 0)
			continue;
		if (t->hangul ? t->group && planner_ends_with(t->raw, "당")
		              : (i > 0 && !strcmp(p->tk.v[i - 1].text, "per")) ||
		                (i > 1 && !strcmp(p->tk.v[i - 2].text, "per")))   /* per ICU stay */
			return kind;
	}
	return -1;
}

/* per_entity_count: "the average number of lab tests per admission", "환자당 평균 수술 건수": a
 * count word and a patient or stay said per (pf_per_entity): the rows are counted per patient or
 * stay and the aggregate asked is taken over those counts; the count word is marked used.  1 or 0 */
static int per_entity_count(struct planner *p)
{
	int count = -1;
	for (int i = 0; i < p->tk.n; i++)
		if (p->tk.v[i].role == R_COUNT && count < 0 &&
		    (!p->tk.v[i].used || (i > 0 && (p->tk.v[i - 1].role == R_MAX || p->tk.v[i - 1].role == R_MIN))))
			count = i;   /* ("the maximum number of": marked as a largest value before) */
	if (count < 0 || pf_per_entity(p) < 0)
		return 0;
	p->tk.v[count].used = 1;
	return 1;
}

/* measure_named: a word of the question links the measure column itself (not the fact table's
 * default measure) */
static int measure_named(struct planner *p)
{
	for (int l = 0; l < p->pl.n; l++)
		if (p->pl.v[l].kind == PL_COLUMN && p->pl.v[l].cols[0] == p->f.measure)
			return 1;
	return 0;
}

/* distinct_word: a word for different values ("different", "types of") that is not part of a
 * column's name ("admission type" names admission_type; counting admissions by it is no count of
 * its values) nor of a stored value's ("type 2 diabetes" is one diagnosis, not kinds of them) */
static int distinct_word(const struct planner *p)
{
	for (int i = 0; i < p->tk.n; i++) {
		if (p->tk.v[i].role != R_DISTINCT)
			continue;
		int inside = 0;
		for (int l = 0; l < p->pl.n && !inside; l++)
			inside = (p->pl.v[l].kind == PL_COLUMN || p->pl.v[l].kind == PL_VALUE) && p->pl.v[l].t0 <= i && i < p->pl.v[l].t1 && p->pl.v[l].t1 - p->pl.v[l].t0 > 1;
		if (!inside)
			return 1;
	}
	return 0;
}

/* names_rows: token w names the rows of the plan's table (a table link to the fact table) or an
 * entity (cases, patients) */
static int names_rows(const struct planner *p, int w)
{
	if (w < 0 || w >= p->tk.n || p->tk.v[w].kind != TK_WORD)
		return 0;
	if (pf_tok_ent(&p->tk.v[w]) >= 0 || (pf_is_visit_word(&p->tk.v[w]) && p->f.visit_mention == p->f.fact))
		return 1;
	for (int l = 0; l < p->pl.n; l++)
		if (p->pl.v[l].kind == PL_TABLE && p->pl.v[l].table == p->f.fact && p->pl.v[l].t0 <= w && w < p->pl.v[l].t1)
			return 1;
	return 0;
}

/* rows_broken_down: "admissions by ward", "cases broken down by approach", "진료과별 입원": a
 * breakdown of the rows named, with no aggregate word and no word asking for a list, asks how many
 * there are in each group; the token naming the rows, or -1 */
static int rows_broken_down(const struct planner *p)
{
	if (pf_has_role((struct planner *)p, R_LIST) || pf_has_role((struct planner *)p, R_WHICH))
		return -1;
	for (int i = 1; i + 1 < p->tk.n; i++) {
		const struct ptok *t = &p->tk.v[i];
		if (t->role == R_PER && !t->hangul && (!strcmp(t->text, "by") || !strcmp(t->text, "per")) && p->tk.v[i + 1].used) {
			int w = i - 1;
			while (w > 0 && p->tk.v[w].role == R_STOP)
				w--;   /* (broken down by) */
			if (names_rows(p, w) && (w == 0 || p->tk.v[w - 1].kind != TK_WORD || p->tk.v[w - 1].used))
				return w;
		}
		/* 진료과별 입원: the rows, last, after the breakdown */
		if (t->hangul && t->group && t->used && i + 2 == p->tk.n && names_rows(p, i + 1))
			return i + 1;
	}
	return -1;
}

/* pf_bind_measure: what the aggregate is of: a rate's numerator, a duration, the measure (taken
 * out of the projection), or the counted entity (COUNT DISTINCT patients); a category word that
 * ends in 별 becomes the group; 0 or -1 declined */
int pf_bind_measure(struct planner *p)
{
	struct frame *f = &p->f;
	/* "robotic ops per quarter", "cases by month": the things named right before a breakdown by
	 * time, with nothing else to aggregate, are counted in each period */
	for (int i = 1; f->bucket && !f->agg && i + 1 < p->tk.n; i++)
		if (p->tk.v[i].role == R_PER && !p->tk.v[i].hangul && p->tk.v[i + 1].used &&
		    (p->tk.v[i + 1].role == R_BUCKET || p->tk.v[i + 1].role == R_UNIT) && pf_tok_ent(&p->tk.v[i - 1]) >= 0) {
			f->agg = "COUNT";
			p->tk.v[i - 1].used = 1;
			pf_decide(p, pf_span_text(p, i - 1, i + 2), "aggregate", "COUNT", "the things named before a breakdown by time are counted", 1);
		}
	int w = !f->agg && !f->bucket && f->ngroup ? rows_broken_down(p) : -1;
	if (w >= 0) {
		f->agg = "COUNT";
		p->tk.v[w].used = 1;
		pf_decide(p, p->tk.v[w].text, "aggregate", "COUNT", "the rows named before a breakdown, with nothing else to aggregate, are counted in each group", 1);
	}
	if (f->agg && !strcmp(f->agg, "RATE")) {
		if (!f->rate_n)
			return pf_decline(p, "%s", "a rate was asked for, but not of what");
		f->measure = -1;
		f->nproj = 0;
		/* "of discharged admissions": the event named happened (its time is recorded) */
		if (f->rate_link >= 0 && f->time_named && !f->has_win && f->time_col >= 0 && f->ncond < MAXF) {
			pf_cond_not_null(f, f->time_col);
			pf_decide(p, "", "filter", arena_printf(&p->a, "%s IS NOT NULL", pf_cfq(p, f->time_col)),
			          "the rows the share is of: the event named took place", 1);
		}
		pf_self_group(p);
		pf_decide(p, "", "aggregate", "rate: 100 * share of rows where the condition holds", "a rate word on a yes/no thing", 1);
	} else if (f->agg && strcmp(f->agg, "COUNT") && strcmp(f->agg, "SUM") && f->dur_start < 0 &&
	           (f->measure < 0 || !measure_named(p)) && per_entity_count(p)) {
		/* counted per patient or stay, then aggregated (shape_entity_total.c); a measure the
		 * table has but no word named is not what is averaged */
		f->total_rows = 1;
		f->measure = -1;
		f->nproj = 0;
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
			pf_decide(p, "", "aggregate", arena_printf(&p->a, "%s((%s - %s) in %s)", f->agg, pf_cfq(p, f->dur_end),
			                                          pf_cfq(p, f->dur_start), pf_dur_name(f)),
			          f->dur_days ? "a length of stay: discharge date - admission date" : "a duration between a start and an end time", 1);
		} else if (f->measure < 0) {
			return pf_decline(p, "%s", "an aggregate was asked for but no numeric measure was found");
		} else {
			/* the measure is consumed by the aggregate */
			for (int i = 0; i < f->nproj; i++)
				if (f->proj[i] == f->measure)
					f->proj[i--] = f->proj[--f->nproj];
			pf_self_group(p);
			/* a key named beside it and not a breakdown ("진단" read as the diagnosis code) is no
			 * column to show with one number */
			for (int i = 0; i < f->nproj && !f->ngroup; i++)
				if (pf_is_keyish(p, f->proj[i])) {
					pf_decide(p, "", "ignored", pf_cfq(p, f->proj[i]), "a key named beside an aggregate", 0);
					f->proj[i--] = f->proj[--f->nproj];
				}
			if (f->nproj && !f->ngroup && !f->bucket && pf_find_role(p, R_MOST) < 0 && pf_find_role(p, R_TOP) < 0)
				return pf_decline(p, "the question names '%s' next to an aggregate, and how they combine could not be told",
				               p->s->c[f->proj[0]].name);
			pf_decide(p, "", "aggregate", arena_printf(&p->a, "%s(%s)", f->agg, pf_cfq(p, f->measure)), "aggregate word", 1);
		}
	} else if (f->agg) {
		f->count_entity = f->entity_count && f->entity_col;
		/* "how many different wards": the one column named, counted once per value */
		int one = f->nproj > 0;   /* one column named, maybe by two words ("prescription drugs") */
		for (int i = 1; i < f->nproj; i++)
			one &= f->proj[i] == f->proj[0];
		if (!f->count_entity && distinct_word(p) && one && !f->ngroup &&
		    !pf_has_role(p, R_MOST) && !pf_has_role(p, R_TOP))
			f->count_col = f->proj[0];
		/* "how many types of admission": kinds of something asked, but no column of kinds found;
		 * counting the rows would answer another question */
		for (int i = 0; i < p->tk.n && !f->count_entity && f->count_col < 0 && distinct_word(p); i++) {
			static const char *const kinds[] = {"type", "types", "kind", "kinds", "sort", "sorts", "종류", NULL};
			if (p->tk.v[i].role == R_DISTINCT && planner_in_list(kinds, p->tk.v[i].text) &&
			    ((i + 1 < p->tk.n && !strcmp(p->tk.v[i + 1].text, "of")) || !strcmp(p->tk.v[i].text, "종류")))
				return pf_decline(p, "'%s' asks how many kinds there are, but which column holds the kinds could not be told",
				                  p->tk.v[i].text);
		}
		/* "how many different conditions were diagnosed", "how many distinct drugs were given":
		 * different things asked, and no column of them found; the rows counted would be every
		 * diagnosis or dose */
		/* (a dictionary's rows are different things each: "how many distinct care sites") */
		for (int i = 0; i < p->tk.n && !f->count_entity && f->count_col < 0 && !f->ngroup && !f->having_op &&
		                !pf_has_role(p, R_MOST) && !pf_has_role(p, R_TOP) && !pf_is_dictionary(p, f->fact) &&
		                distinct_word(p); i++)
			if (p->tk.v[i].role == R_DISTINCT && !p->tk.v[i].used && i + 1 < p->tk.n && p->tk.v[i + 1].kind == TK_WORD &&
			    (!strcmp(p->tk.v[i].text, "different") || !strcmp(p->tk.v[i].text, "distinct") ||
			     !strcmp(p->tk.v[i].text, "unique")))
				return pf_decline(p, "'%s' asks how many different things there are, but which column tells them apart "
				                     "could not be told", p->tk.v[i].text);
		/* a count of those "transferred"/"discharged": only rows where the event took place */
		/* (not "currently admitted": the stay has begun and not ended, held by the stay's end) */
		int now = f->time_tok > 0 && p->tk.v[f->time_tok - 1].role == R_CURRENT;
		if (f->time_named && !f->has_win && f->time_col >= 0 && happened_word(&p->tk.v[f->time_tok]) && f->ncond < MAXF &&
		    !now) {
			pf_cond_not_null(f, f->time_col);
			pf_decide(p, p->tk.v[f->time_tok].text, "filter", arena_printf(&p->a, "%s IS NOT NULL", pf_cfq(p, f->time_col)),
			          "the rows counted are those where the event named took place", 1);
		}
		if (f->count_entity)
			pf_decide(p, "", "aggregate", arena_printf(&p->a, "COUNT(DISTINCT %s)", f->entity_col), "counting patients/cases", 1);
		else if (f->count_col >= 0)
			pf_decide(p, "", "aggregate", arena_printf(&p->a, "COUNT(DISTINCT %s)", pf_cfq(p, f->count_col)),
			          "a word for different values before the column counted", 1);
		else
			pf_decide(p, "", "aggregate", "COUNT(*)", "counting rows", 1);
		pf_self_group(p);   /* "성별 환자 수": per sex */
		if (!pf_has_role(p, R_MOST) && !pf_has_role(p, R_TOP))
			f->nproj = 0;   /* kept for a ranking: what the count ranks ("which 5 diagnoses") */
	} else {
		f->count_entity = 0;
	}
	if (f->agg && strcmp(f->agg, "COUNT"))
		f->count_entity = 0;
	if (f->bucket && !f->agg)
		return pf_decline(p, "%s", "a breakdown by time needs something to count or aggregate");
	return 0;
}

/* pf_ranking_cues: the ranking words and their N (top 5, the three most frequent, 가장 많은),
 * and whether from the bottom (least, 적은) */
void pf_ranking_cues(struct planner *p, struct cues *c)
{
	struct frame *f = &p->f;
	int top = c->top = pf_find_role(p, R_TOP), most = c->most = pf_find_role(p, R_MOST), freq = c->freq = pf_find_role(p, R_FREQ);
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
		/* (a counter suffix is a count of things: 약 5개, 상위 3위; a count of times, 2번 or twice, is not) */
		int free_n = -1, nfree = 0;
		for (int i = 0; i < p->tk.n && !n; i++)
			if (p->tk.v[i].kind == TK_NUM && !p->tk.v[i].used && (!p->tk.v[i].unit || p->tk.v[i].unit == 'n') && p->tk.v[i].num >= 1 &&
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
	/* ("가장 최근 입원한 환자 5명", "most recent": an order in time, not the most of anything) */
	int in_time = most >= 0 && most + 1 < p->tk.n &&
	              (p->tk.v[most + 1].role == R_LAST || p->tk.v[most + 1].role == R_FIRST || p->tk.v[most + 1].role == R_PAST);
	c->ranking = (top >= 0 || freq >= 0 || (most >= 0 && !in_time && (!f->agg || !strcmp(f->agg, "COUNT")))) && n > 0;
	c->asc = 0;
	for (int i = 0; i < p->tk.n; i++)
		if (!strcmp(p->tk.v[i].text, "least") || !strcmp(p->tk.v[i].text, "fewest") || !strcmp(p->tk.v[i].text, "lowest") ||
		    !strncmp(p->tk.v[i].text, "적은", 6) || !strncmp(p->tk.v[i].text, "적게", 6) || !strncmp(p->tk.v[i].text, "낮", 3))
			c->asc = 1;
	c->n = n;
}

int pf_age_col_is(struct planner *p, int col)
{
	int fb = 0;
	return col >= 0 && pf_age_col(p, &fb) == col && !fb;
}
