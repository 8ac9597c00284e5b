/* shape_rank_groups.c: question shape "the group with the highest/lowest aggregate": groups ranked by an average, a maximum... ("the department with the highest average temperature"). */
#include <string.h>
#include "agent/planner_front.h"

static int match(struct planner *p, const struct cues *c)
{
	const struct frame *f = &p->f;
	return c->most >= 0 && f->agg && strcmp(f->agg, "COUNT") && !f->ngroup && c->n > 0;
}

/* rank the groups (a projected category) by the aggregate; 1 when no category is named */
static int frame(struct planner *p, struct cues *c)
{
	struct frame *f = &p->f;
	int gc = -1;
	for (int i = 0; i < f->nproj && gc < 0; i++)
		if (p->s->c[f->proj[i]].type == PT_TEXT || p->s->c[f->proj[i]].flag)
			gc = f->proj[i];
	if (gc >= 0) {
		f->rank_col = gc;
		f->rank_n = c->n;
		f->rank_agg = f->agg;
		f->rank_asc = c->asc;
		f->agg = NULL;
		pf_decide(p, "", "ranking", arena_printf(&p->a, "%s by %s(%s)", pf_cfq(p, gc), f->rank_agg, pf_cfq(p, f->measure)),
		       "'most'/'highest' with an aggregate: rank the groups", 1);
		return 0;
	}
	return 1;
}

const struct shape shape_rank_groups = {"rank_groups", STAGE_MEASURE, match, frame, 0.9};
