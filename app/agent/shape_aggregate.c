/* shape_aggregate.c: question shape "aggregate of a measure, optionally by group": a count, average, maximum, minimum, sum, rate or duration, per group or per time bucket, top N groups ("진료과별 평균 나이", "ASA 등급별 사망률"). */
#include <string.h>
#include "agent/planner_front.h"

static int match(struct planner *p, const struct cues *c)
{
	return p->f.agg != NULL;
}

/* the measure and the groups were bound by pf_bind_measure; a ranking of groups orders them by
 * the aggregate and keeps N */
static int frame(struct planner *p, struct cues *c)
{
	struct frame *f = &p->f;
	int s0, s1;
	if (c->ranking && f->agg && f->ngroup) {
		f->order = -1;
		f->limit = c->n;
	} else if (c->top >= 0 && f->ngroup && f->agg) {
		f->order = -1;
		f->limit = c->n;
	} else if (f->ngroup && f->agg && strcmp(f->agg, "COUNT") && strcmp(f->agg, "MAX") && strcmp(f->agg, "MIN") &&
	           !f->nagg2 && pf_agg_superlative(p, &s0, &s1) && p->tk.v[s0].hangul) {
		/* "평균 나이가 가장 높은 성별": the group with the highest average, not every group's */
		f->order = c->asc ? 1 : -1;
		f->limit = c->n;
	}
	return 0;
}

const struct shape shape_aggregate = {"aggregate", STAGE_MEASURE, match, frame, 0.9};
