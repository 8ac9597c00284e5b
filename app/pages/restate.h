/* restate.h: the reading said back: a SQL statement's reading (sql/reading.h) in the analyst's language with the catalog's names, the subject of the answer sentence and of the SQL pause (issue 26; docs/coverage.md). */
#ifndef ASKQL_RESTATE_H
#define ASKQL_RESTATE_H

#include "sql/reading.h"
#include "util/sb.h"

/* How columns are named: label(ctx, col) returns the catalog's header in the language (NULL or ""
 * when it has none); patient_col is the target's patient identifier (a count of it counts
 * patients), NULL when unknown. */
struct restate_names {
	const char *(*label)(void *ctx, const char *col);
	void *ctx;
	const char *patient_col;
};

/*
 * restate: append to out, in lang ("ko" or "en"), what rd computes: the measure (a count, an
 * average, a share with its numerator and base), its groupings in order (with bands), its filters
 * ("성별(sex) = F인 환자 수", "Average age by department × sex, where approach = Videoscopic") and a
 * limit.  rd NULL, or a reading of SQL that did not parse: "The result of this SQL".  When some
 * condition could not be read it says so.  Plain text (escape it for HTML).
 */
void restate(struct sb *out, const char *lang, const struct sql_reading *rd, const struct restate_names *nm);

#endif
