/* planner_time.h: time windows of a question relative to the reference time. */
#ifndef ASKQL_PLANNER_TIME_H
#define ASKQL_PLANNER_TIME_H

#include <time.h>
#include "agent/planner_int.h"

struct ptime {
	char from[24], to[24];   /* "YYYY-MM-DD HH:MM:SS"; empty: open */
	int rel_n, rel_unit;     /* "since 2 months ago": 2, 'm' (for the explanation) */
	/* a second instant, when the question names two date-and-clock instants ("measured at
	 * 2100-12-31 23:00:00 … than at 22:00:00"): from/to above are the first, these the second
	 * (shape_pair.c compares the values at the two); empty: none */
	char at2_from[24], at2_to[24];
};

/* planner_time_now: parse the reference time ("YYYY-MM-DD HH:MM:SS"; NULL: now). 0 on a bad string. */
int planner_time_now(const char *now, struct tm *out);
/* planner_time: the window of the question's time expressions (marks their tokens used);
 * 0 none, 1 found, -1 an expression it could not place (e.g. a date without a year), -2 expressions
 * whose periods do not overlap ("in 2024" and "since March 2025").  Exactly two date-and-clock
 * instants and nothing else: the first is the window, the second goes to w->at2_from/at2_to. */
int planner_time(struct ptoks *tk, const struct tm *now, struct ptime *w, char *desc, size_t dn);

#endif
