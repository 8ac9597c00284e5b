/* shape_extreme_time.c: question shape "when was X at its highest/lowest": the time of the extreme value ("when did case 3 have its maximum heart rate"). */
#include <string.h>
#include "agent/planner_front.h"

static int match(struct planner *p, const struct cues *c)
{
	const struct frame *f = &p->f;
	return f->agg && !f->nagg2 && c->when && (!strcmp(f->agg, "MAX") || !strcmp(f->agg, "MIN")) && f->measure >= 0 && f->time_col >= 0;
}

/* order by the value, then by time; the time of the first row */
static int frame(struct planner *p, struct cues *c)
{
	struct frame *f = &p->f;
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

const struct shape shape_extreme_time = {"extreme_time", STAGE_LINKS, match, frame, 0.9};
