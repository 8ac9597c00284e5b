/* planner_event.c: event windows: what was measured before, after or during an event of care ("수술 전 크레아티닌", "creatinine after surgery", "intraoperative blood pressure") as a comparison of the measured row's time with the event's start or end (docs/lexicon.md, "Event windows"; issue 26: the window was dropped silently). */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "agent/planner_front.h"
#include "util/conf.h"
#include "util/file.h"
#include "util/log.h"

#define EV_TERMS 16

/* The lexicon (conf event_windows_file), read once per process (as planner_entlex.c reads its own);
 * the terms point into its buffer. */
static pthread_once_t lex_once = PTHREAD_ONCE_INIT;
static struct {
	const char *words[EV_TERMS]; int nwords;          /* the event's question words */
	const char *stems[EV_TERMS]; int nstems;          /* its time columns' name stems */
	const char *rel[EV_NREL][EV_TERMS]; int nrel[EV_NREL];      /* words beside the event word */
	const char *prefix[EV_NREL][EV_TERMS]; int nprefix[EV_NREL];  /* one word for both */
	const char *measured[EV_NREL][EV_TERMS]; int nmeasured[EV_NREL];  /* beside the event word, a
	                                          * relation only before a value measured in time */
} lex;

static const char *const rel_names[EV_NREL] = {"before", "after", "during"};

static int split(char *s, const char **out)
{
	int n = 0;
	for (char *save = NULL, *t = strtok_r(s, "|", &save); t && n < EV_TERMS; t = strtok_r(NULL, "|", &save))
		out[n++] = t;
	return n;
}

static int rel_of(const char *name)
{
	for (int r = 0; r < EV_NREL; r++)
		if (!strcmp(name, rel_names[r]))
			return r;
	return -1;
}

/* load: a missing file or a malformed line is logged; without the lexicon no window is read (and a
 * relation word then stays a word no link explains: the screen declines it) */
static void load(void)
{
	char *buf, *save = NULL;
	int bad = 0;

	if (!(buf = file_read(conf_get("event_windows_file"), 65536, NULL))) {
		log_warn("event windows lexicon %s could not be read: before/after/during an event are not read",
		         conf_get("event_windows_file"));
		return;
	}
	for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *f[4] = {0};
		int nf = 0, r;
		if (*l == '#' || !*l)
			continue;
		for (char *q = l; nf < 4; ) {
			f[nf++] = q;
			if (!(q = strchr(q, '\t')))
				break;
			*q++ = 0;
		}
		if (nf == 4 && !strcmp(f[0], "event") && !lex.nwords) {
			lex.nwords = split(f[2], lex.words);
			lex.nstems = split(f[3], lex.stems);
		} else if (nf == 3 && !strcmp(f[0], "relation") && (r = rel_of(f[1])) >= 0) {
			lex.nrel[r] = split(f[2], lex.rel[r]);
		} else if (nf == 3 && !strcmp(f[0], "measured") && (r = rel_of(f[1])) >= 0) {
			lex.nmeasured[r] = split(f[2], lex.measured[r]);
		} else if (nf == 3 && !strcmp(f[0], "prefix") && (r = rel_of(f[1])) >= 0) {
			lex.nprefix[r] = split(f[2], lex.prefix[r]);
		} else {
			bad++;
		}
	}
	if (bad)
		log_warn("event windows lexicon %s: %d malformed line(s) skipped", conf_get("event_windows_file"), bad);
}

static int in(const char *const *terms, int n, const struct ptok *t)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(terms[i], t->text) || !strcmp(terms[i], t->stem))
			return 1;
	return 0;
}

static int is_event(const struct ptok *t) { return in(lex.words, lex.nwords, t); }

static int skippable(const struct ptok *t)
{
	return !strcmp(t->text, "the") || !strcmp(t->text, "their") || !strcmp(t->text, "his") ||
	       !strcmp(t->text, "her") || !strcmp(t->text, "an") || !strcmp(t->text, "a");
}

static int time_of(const struct planner *p, int t, int end);

/* measured_after: a word after token i is linked to a column of a table whose rows carry a time of
 * their own and are not the event's own rows (no start and end of the event): a value measured in
 * time ("수술 중 SBP 80 미만": the blood pressure's rows), not an attribute of the operation
 * ("수술 중 복강경 비율": among the operations) */
static int measured_after(const struct planner *p, int i)
{
	for (int l = 0; l < p->pl.n; l++) {
		const struct plink_item *it = &p->pl.v[l];
		if (it->t0 <= i || (it->kind != PL_COLUMN && it->kind != PL_VALUE) || it->ncols < 1)
			continue;
		int t = p->s->c[it->cols[0]].table;
		if (time_of(p, t, 0) >= 0 && time_of(p, t, 1) >= 0)
			continue;
		for (int c = 0; c < p->s->nc; c++)
			if (p->s->c[c].table == t && p->s->c[c].type == PT_TIME)
				return 1;
	}
	return 0;
}

/* add: window rel said by tokens [t0, t1), its relation tokens marked used (전 is no longer "ago") */
static void add(struct planner *p, int rel, int t0, int t1)
{
	struct frame *f = &p->f;
	if (f->nev >= 4)
		return;
	f->ev[f->nev++] = (struct ev_window){.rel = rel, .t0 = t0, .t1 = t1};
	/* every word of it taken: the relation is not "ago", and the event word is not the entity
	 * counted ("after surgery: number of patients" counts patients, not operations) */
	for (int k = t0; k < t1; k++) {
		p->tk.v[k].used = 1;
		if (!is_event(&p->tk.v[k]))
			p->tk.v[k].role = R_STOP;
	}
}

void pf_event_words(struct planner *p)
{
	pthread_once(&lex_once, load);
	for (int i = 0; i < p->tk.n; i++) {
		const struct ptok *t = &p->tk.v[i];
		int r;
		for (r = 0; r < EV_NREL && !in(lex.prefix[r], lex.nprefix[r], t); r++)
			;
		if (r < EV_NREL) {                       /* preoperative, 술전 */
			add(p, r, i, i + 1);
			/* the word alone is the window, not a value or a column (preoperative is not preop_htn);
			 * a link of a longer phrase (preoperative hypertension) stays */
			for (int l = 0; l < p->pl.n; l++)
				if (p->pl.v[l].t0 >= i && p->pl.v[l].t1 <= i + 1)
					p->pl.v[l--] = p->pl.v[--p->pl.n];
			continue;
		}
		if (!is_event(t))
			continue;
		/* 수술 전 (the relation after the event word) */
		for (r = 0; i + 1 < p->tk.n && r < EV_NREL; r++)
			if (in(lex.rel[r], lex.nrel[r], &p->tk.v[i + 1])) {
				add(p, r, i, i + 2);
				break;
			}
		if (r < EV_NREL && i + 1 < p->tk.n)
			continue;
		/* 수술 중 SBP 80 미만: during the operations, when a value measured in time follows; among
		 * them when the event word comes back as what is counted ("수술 중에 Hb 8 미만 나온 수술 몇
		 * 건": of the operations, those with a low Hb) */
		for (r = 0; i + 1 < p->tk.n && r < EV_NREL; r++)
			if (in(lex.measured[r], lex.nmeasured[r], &p->tk.v[i + 1]) && measured_after(p, i + 1)) {
				int again = 0;
				for (int k = i + 2; k < p->tk.n && !again; k++)
					again = is_event(&p->tk.v[k]);
				if (!again) {
					pf_decline(p, "'%s' may mean during the event or among those events; which could not be told",
					           pf_span_text(p, i, i + 2));
					return;
				}
			}
		/* before (the) surgery: the relation before it, articles between */
		int j = i - 1;
		while (j > 0 && skippable(&p->tk.v[j]))
			j--;
		for (r = 0; j >= 0 && r < EV_NREL; r++)
			if (in(lex.rel[r], lex.nrel[r], &p->tk.v[j]) && !p->tk.v[j].hangul) {
				add(p, r, j, i + 1);
				break;
			}
	}
}

int pf_event_token(const struct planner *p, int i)
{
	for (int e = 0; e < p->f.nev; e++)
		if (i >= p->f.ev[e].t0 && i < p->f.ev[e].t1)
			return 1;
	return 0;
}

/* named_for: column ci's name or comment says it holds period rel already (preop_dm) */
static int named_for(const struct planner *p, int ci, int rel)
{
	char name[128];
	size_t n = 0;
	for (const char *s = p->s->c[ci].name; *s && n + 1 < sizeof name; s++)
		if (*s != '_' && *s != '-')
			name[n++] = (char)tolower((unsigned char)*s);
	name[n] = 0;
	for (int k = 0; k < lex.nprefix[rel]; k++) {
		char term[64];
		size_t m = 0;
		for (const char *s = lex.prefix[rel][k]; *s && m + 1 < sizeof term; s++)
			if (*s != '-')
				term[m++] = *s;
		term[m] = 0;
		if ((m && !strncmp(name, term, m)) ||
		    (p->s->c[ci].comment && strstr(p->s->c[ci].comment, lex.prefix[rel][k])))
			return 1;
	}
	return 0;
}

/* time_of: the time column of table t named for the event with a start (end 0) or end (1) word */
static int time_of(const struct planner *p, int t, int end)
{
	static const char *const starts[] = {"start", "begin", "시작", NULL}, *const ends[] = {"end", "finish", "stop", "종료", NULL};
	const char *const *w = end ? ends : starts;
	for (int c = 0; c < p->s->nc; c++) {
		const struct pcol *col = &p->s->c[c];
		if (col->table != t || col->type != PT_TIME)
			continue;
		int stem = 0, word = 0;
		for (int k = 0; k < lex.nstems && !stem; k++)
			stem = strcasestr(col->name, lex.stems[k]) != NULL;
		for (int k = 0; w[k] && !word; k++)
			word = strcasestr(col->name, w[k]) != NULL;
		if (stem && word)
			return c;
	}
	return -1;
}

int pf_event_columns(struct planner *p, int e, int *start, int *end)
{
	const struct frame *f = &p->f;
	const struct ev_window *w = &f->ev[e];
	/* a phrase with it or a word after it linked to a column that holds the period (수술 전 당뇨,
	 * 수술 전 고혈압이: preop_dm, preop_htn) */
	for (int l = 0; l < p->pl.n; l++) {
		const struct plink_item *it = &p->pl.v[l];
		if ((it->kind == PL_COLUMN || it->kind == PL_VALUE) && it->ncols > 0 && it->t1 > w->t0 &&
		    it->t0 <= w->t1 + 3 && named_for(p, it->cols[0], w->rel))
			return 0;
	}
	if (f->fact < 0)
		return -1;
	/* the event's times in the nearest table the measured rows reach by their keys */
	int best_n = 99;
	*start = *end = -1;
	for (int t = 0; t < p->s->nt; t++) {
		int s0 = time_of(p, t, 0), s1 = time_of(p, t, 1), edges[4], n;
		if (t == f->fact || s0 < 0 || s1 < 0 || (p->banned && p->banned[t]))
			continue;
		if ((n = pf_path(p, f->fact, t, edges, 3)) > 0 && n < best_n) {
			best_n = n;
			*start = s0;
			*end = s1;
		}
	}
	return *start >= 0 ? 1 : -1;
}

int pf_event_bind(struct planner *p)
{
	struct frame *f = &p->f;
	for (int e = 0; e < f->nev; e++) {
		const struct ev_window *w = &f->ev[e];
		const char *span = pf_span_text(p, w->t0, w->t1);
		int start, end, rc = pf_event_columns(p, e, &start, &end);
		if (rc == 0)
			continue;
		int mt = rc > 0 && !f->multi ? pf_time_col(p, f->fact) : -1;
		if (mt < 0 || f->ncond + 2 > MAXF)
			return pf_decline(p, "the question asks for what happened %s, which the plan cannot place in time", span);
		const char *ops[2] = {w->rel == EV_BEFORE ? "<" : w->rel == EV_AFTER ? ">" : ">=", w->rel == EV_DURING ? "<=" : NULL};
		int cols[2] = {w->rel == EV_AFTER ? end : start, end};
		for (int k = 0; k < 2 && ops[k]; k++) {
			f->cond[f->ncond].col = mt;
			f->cond[f->ncond].op = ops[k];
			f->cond[f->ncond].lit = p->s->c[cols[k]].name;
			f->cond[f->ncond].num = 5;
			f->cond[f->ncond].lit2 = NULL;
			f->cond[f->ncond++].col2 = cols[k];
			pf_decide(p, span, "filter", arena_printf(&p->a, "%s %s %s", pf_cfq(p, mt), ops[k], pf_cfq(p, cols[k])),
			          arena_printf(&p->a, "what was measured %s the event", rel_names[w->rel]), 1);
		}
	}
	return 0;
}
