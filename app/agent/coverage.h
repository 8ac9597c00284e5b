/* coverage.h: every word accounted for: a check, on the parse tree, that a SQL statement uses what the question's words were linked to (issue 26; docs/coverage.md). */
#ifndef ASKQL_COVERAGE_H
#define ASKQL_COVERAGE_H

#include <stddef.h>
#include "util/arena.h"
#include "util/err.h"

/* What one linked word (or phrase) of the question asks of the SQL. */
enum cov_need {
	COV_VALUE,        /* a stored value: the column compared with one of values[] somewhere */
	COV_COLUMN,       /* a column named: referenced somewhere, or its table read */
	COV_GROUP,        /* a breakdown (X별, by X): the column (or a band of it) in a GROUP BY */
	COV_NUMBER,       /* a number (a threshold, a limit): a literal of that value somewhere; with
	                   * columns (a numeric column named right before it: "bmi over 30"), compared
	                   * with one of them */
	COV_RATE_BASE,    /* the denominator of a rate (A of "A 중 B 비율"): filtered in a WHERE */
	COV_RATE_PART,    /* its numerator (B): inside the aggregate, or in fewer WHEREs than A */
	COV_WINDOW,       /* an event window (수술 전, after surgery): a column compared with another column,
	                   * one of columns[] (the event's start or end) */
	COV_SHARE,        /* a share word no link took (비율, percentage, rate, %): the SQL computes a share
	                   * (a division, or an average: of a condition, or of a 0/1 flag) */
	COV_BUCKET,       /* a period said per (월별, per month, monthly): an aggregate SQL groups by a time
	                   * bucket (date_trunc, date_part, extract, to_char, a cast to date) */
	COV_MEASURES,     /* several measures joined by and/와 ("수술 건수와 사망 건수", "number of cases and
	                   * number of deaths"): at least num aggregates among the SQL's output columns */
	COV_RANK          /* a superlative of an aggregate ("the longest average operation time", "평균 BMI가
	                   * 제일 높은 수술"): the SQL ranks groups by it (an ORDER BY, a rank window, or an
	                   * extreme taken over a grouped subquery), never the aggregate of all rows */
};

#define COV_MAXVAL 12
struct cov_item {
	enum cov_need need;
	const char *span;                   /* the question's words, for the message */
	const char *columns[COV_MAXVAL];    /* unqualified column names, any one of which serves */
	int ncolumns;
	const char *values[COV_MAXVAL];     /* COV_VALUE / COV_RATE_*: stored values, any one serves */
	int nvalues;
	int contains;                       /* values are parts of stored labels (ILIKE '%v%') */
	double num;                         /* COV_NUMBER: the number; COV_MEASURES: how many measures */
	const char *table;                  /* COV_COLUMN: the column's table; a word that names a column
	                                     * may name the table's rows ("drugs", "surgical cases"), so
	                                     * reading that table uses it.  COV_VALUE: a table the word
	                                     * also names ("prescriptions": domain 'Drug' and the drug
	                                     * table).  NULL: none */
};

#define COV_MAXITEMS 32
#define COV_MAXKEYS 4
/* The question's reading, as the coverage check needs it: independent of who wrote the SQL. */
struct cov_reading {
	struct cov_item v[COV_MAXITEMS];
	int n;
	const char *entity_keys[COV_MAXKEYS]; /* identifier columns (patient, case, encounter) */
	int nkeys;
	int entity_grouping_asked;            /* 환자별, per patient: an identifier may be grouped */
	struct arena a;                       /* owns the strings above (coverage_reading_free) */
};

/* coverage_reading_free: the reading's strings and the reading itself (heap; NULL is fine). */
void coverage_reading_free(struct cov_reading *r);

/* Why a statement does not answer the whole question. */
enum cov_drop {
	DROP_NONE,
	DROP_VALUE,          /* a linked value filters nothing */
	DROP_COLUMN,         /* a named column is not used */
	DROP_GROUP,          /* a breakdown word's column is not grouped */
	DROP_NUMBER,         /* a number of the question is in no literal */
	DROP_DENOMINATOR,    /* a rate's denominator and numerator are the wrong way round */
	DROP_ENTITY_GROUPED, /* an identifier is grouped though no one asked per patient/case */
	DROP_WINDOW,         /* an event window (수술 전) compares no time with the event's */
	DROP_SHARE,          /* a share was asked (비율, %) and the SQL computes none: a count or a list */
	DROP_COUNT_ONE,      /* COUNT(DISTINCT c) in a SELECT grouped by c: every count is 1 */
	DROP_NUMBER_COLUMN,
	DROP_BUCKET,         /* a period said per (월별, per month) and no time bucket grouped */  /* a number said of a column ("bmi over 30") is compared with another column */
	DROP_MEASURES,       /* fewer aggregates are computed than measures asked ("A 건수와 B 건수": one count) */
	DROP_RANK            /* a superlative of an aggregate, and the SQL ranks nothing */
};

struct cov_finding {
	enum cov_drop drop;
	int item;            /* index into the reading's v, -1 for DROP_ENTITY_GROUPED and DROP_COUNT_ONE */
	const char *column;  /* DROP_ENTITY_GROUPED: the identifier grouped (points into the reading) */
	char counted[64];    /* DROP_COUNT_ONE: the column counted ("t.c" as written) */
	int computed;        /* DROP_MEASURES: the aggregates the SQL outputs */
};

/*
 * coverage_check: findings (at most max, *nfound set) of sql against r.  OK with *nfound 0 when
 * every item is used; OK with findings otherwise; ERR_PARSE when sql does not parse as one
 * statement (no finding then: the guard reports it); ERR_INPUT for NULL arguments.
 */
enum err coverage_check(const struct cov_reading *r, const char *sql, struct cov_finding *out, int max, int *nfound);

/* coverage_drop_name: a stable name for a kind of drop ("value", "group", "denominator", ...). */
const char *coverage_drop_name(enum cov_drop d);

/*
 * coverage_say: one English sentence (heap, NULL on no memory) naming the word each finding is
 * about: what the planner declines with, and the feedback an LLM gets for its next attempt.
 */
char *coverage_say(const struct cov_reading *r, const struct cov_finding *f, int n);

#endif
