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
	if (c->ranking && f->agg && f->ngroup) {
		f->order = -1;
		f->limit = c->n;
	} else if (c->top >= 0 && f->ngroup && f->agg) {
		f->order = -1;
		f->limit = c->n;
	}
	return 0;
}

const struct shape shape_aggregate = {"aggregate", STAGE_MEASURE, match, frame, 0.9};
