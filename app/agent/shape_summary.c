/* shape_summary.c: question shape "several aggregates of one measure, optionally by group": the
 * lowest, highest and average value, or a count with an average ("2025년 수축기 혈압 최저, 최고,
 * 평균", "성별 환자 수와 평균 나이", "min, max and average sodium"). */
#include <string.h>
#include "agent/planner_front.h"

static int match(struct planner *p, const struct cues *c)
{
	return p->f.agg && p->f.nagg2 > 0;
}

/* the first aggregate was bound like any aggregate (pf_bind_measure); the others need the same
 * measure; a ranking over several aggregates is not built; 0 or -1 declined */
static int frame(struct planner *p, struct cues *c)
{
	struct frame *f = &p->f;
	int needs_measure = strcmp(f->agg, "COUNT") != 0;
	for (int i = 0; i < f->nagg2; i++)
		needs_measure |= strcmp(f->agg2[i], "COUNT") != 0;
	if (!strcmp(f->agg, "RATE"))
		return pf_decline(p, "%s", "a rate together with other aggregates is not a shape the offline planner builds");
	if (needs_measure && f->measure < 0 && f->dur_start < 0)
		return pf_decline(p, "%s", "several aggregates were asked for, but no numeric measure was found");
	if (c->ranking || c->most >= 0 || c->top >= 0)
		return pf_decline(p, "%s", "a ranking by several aggregates at once is not a shape the offline planner builds");
	/* "how many lab results per case on average": the count is averaged over the cases, never a
	 * count beside the average of the results' values */
	for (int i = 0; i < p->tk.n; i++)
		if (p->tk.v[i].role == R_AVG && ((i > 0 && !strcmp(p->tk.v[i - 1].text, "on")) || strstr(p->tk.v[i].text, "평균적")))
			return pf_decline(p, "'%s' averages a count over something, which the offline planner does not build",
			                  pf_span_text(p, i > 0 && !strcmp(p->tk.v[i - 1].text, "on") ? i - 1 : i, i + 1));
	if (f->bucket == 0 && f->nproj)
		return pf_decline(p, "the question names '%s' next to several aggregates, and how they combine could not be told",
		                  p->s->c[f->proj[0]].name);
	struct sb what = SB_INIT;
	sb_init_arena(&what, &p->a);
	sb_puts(&what, f->agg);
	for (int i = 0; i < f->nagg2; i++)
		sb_printf(&what, ", %s", f->agg2[i]);
	pf_decide(p, "", "aggregate", sb_ok(&what) ? sb_cstr(&what) : "several",
	          f->measure >= 0 ? pf_cfq(p, f->measure) : "of rows or the counted entity", 1);
	return 0;
}

const struct shape shape_summary = {"summary", STAGE_MEASURE, match, frame, 0.9};
