/* planner_shapes.c: the structure pass: the table of question shapes, tried in order as the
 * question is bound in stages (docs/architecture.md, "Question shapes"). */
#include <string.h>
#include "agent/planner_front.h"

/* The shapes, in the order they are tried.  A shape is tried once its stage is reached; the
 * first whose match holds frames the plan (a frame may still say "not this shape", and the next
 * row is tried).  A new shape is one file and one row here. */
static const struct shape *const shapes[] = {
	&shape_timeline_multi,   /* STAGE_WORDS: vitals and labs of case 1 over time */
	&shape_extreme_time,     /* STAGE_LINKS: when was the heart rate highest */
	&shape_pair,             /* STAGE_MEASURE: the change between two values, hours since the first */
	&shape_percentile,       /* the percentile of a value among patients of the same age */
	&shape_having,           /* patients admitted 3 or more times */
	&shape_entity_total,     /* the largest total cost of a hospital stay; tests per admission */
	&shape_summary,          /* STAGE_MEASURE: lowest, highest and average; a count and an average */
	&shape_rank_groups,      /* the department with the highest average age */
	&shape_top_n,            /* top 5 drugs, with their counts */
	&shape_aggregate,        /* count, average, rate, duration; per group, per month */
	&shape_exists,           /* has patient X had any ... */
	&shape_list,             /* everything else: rows, labels, first/last, one table over time */
	NULL
};

/* cues_words: what the words say before any table is chosen */
static void cues_words(struct planner *p, struct cues *c)
{
	memset(c, 0, sizeof *c);
	c->ag = c->top = c->most = c->freq = -1;
	for (int i = 0; i + 1 < p->tk.n; i++)
		if (!strcmp(p->tk.v[i].text, "over") && !strcmp(p->tk.v[i + 1].text, "time"))
			c->over_time = 1;
	c->when = pf_asks_when(p);
	c->wants_time = p->f.has_win || pf_has_role(p, R_FIRST) || pf_has_role(p, R_LAST) || c->when ||
	                pf_has_role(p, R_TIMELINE);
}

/* advance: do the binding passes of stage `to`; 0 or -1 declined */
static int advance(struct planner *p, struct cues *c, enum shape_stage to)
{
	if (to == STAGE_LINKS) {
		if (pf_fact(p, c) < 0 || pf_bind_links(p) < 0 || pf_bind_rest(p) < 0)
			return -1;
		return pf_aggregate_word(p, c);
	}
	if (to == STAGE_MEASURE) {
		if (pf_bind_measure(p) < 0)
			return -1;
		pf_ranking_cues(p, c);
	}
	return 0;
}

/* which_days: "on which days did ...", "what dates": the days themselves are listed, a shape the
 * offline planner does not build (it showed the patients, or every time with its value); -1 */
static int which_days(struct planner *p)
{
	for (int i = 0; i + 1 < p->tk.n; i++)
		if (p->tk.v[i].role == R_WHICH && (!strcmp(p->tk.v[i + 1].text, "days") || !strcmp(p->tk.v[i + 1].text, "dates")))
			return pf_decline(p, "the question asks %s, a list of days that the offline planner does not build",
			                  arena_printf(&p->a, "'%s %s'", p->tk.v[i].text, p->tk.v[i + 1].text));
	return 0;
}

int pf_structure(struct planner *p)
{
	struct cues c;
	enum shape_stage at = STAGE_WORDS;

	if (pf_screen(p) < 0 || which_days(p) < 0)
		return -1;
	cues_words(p, &c);
	for (int i = 0; shapes[i]; i++) {
		const struct shape *s = shapes[i];
		while (at < s->stage)
			if (advance(p, &c, ++at) < 0)
				return -1;
		if (s->match && !s->match(p, &c))
			continue;
		int rc = s->frame(p, &c);
		if (rc == 1)
			continue;
		if (rc == 0) {
			p->shape = s;
			pf_decide(p, "", "shape", s->name, "the question shape that framed the plan", s->confidence);
		}
		return rc;
	}
	return pf_decline(p, "%s", "no question shape fits");
}
