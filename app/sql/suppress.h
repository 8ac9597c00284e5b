/* suppress.h: the safe aggregate form of the aggregate access level and of files for release: which SQL is accepted, and the rewrite that makes PostgreSQL itself leave out every group of fewer than k patients (issue 27; docs/privacy.md). */
#ifndef ASKQL_SUPPRESS_H
#define ASKQL_SUPPRESS_H

#include <stddef.h>
#include "util/err.h"
#include "util/sb.h"

/* The column suppress_rewrite puts first in the select list: the group's patients, the least over
 * every count it checked (the executor removes it before any sink sees a row). */
#define SUPPRESS_COLUMN "askql_n"

/* Why a statement is not in the safe aggregate form.  suppress_format gives each its English words. */
enum suppress_code {
	SUPP_OK = 0,
	SUPP_PARSE,          /* arg: the parser's message */
	SUPP_NOT_ONE_SELECT,
	SUPP_SET_OP,         /* UNION, INTERSECT, EXCEPT */
	SUPP_VALUES,
	SUPP_CTE,            /* WITH */
	SUPP_SUBQUERY,       /* a SELECT inside the SELECT, anywhere */
	SUPP_LATERAL,
	SUPP_FROM_FUNCTION,  /* arg: the function in FROM (generate_series, unnest, ...) */
	SUPP_FROM_OTHER,     /* arg: TABLESAMPLE, XMLTABLE, JSON_TABLE */
	SUPP_NATURAL,
	SUPP_WINDOW,         /* OVER, WINDOW */
	SUPP_SRF,            /* arg: a function returning a set of rows */
	SUPP_DISTINCT_ON,
	SUPP_GROUPING_SETS,  /* ROLLUP, CUBE, GROUPING SETS, GROUPING() */
	SUPP_NOT_AGGREGATE,
	SUPP_STAR,           /* t.* or * outside count(*) */
	SUPP_GROUP_IDENT,    /* arg: the identifier column grouped by */
	SUPP_GROUP_SHAPE,    /* arg: what the GROUP BY item is instead of a column or band */
	SUPP_AGG_EXTREME,    /* arg: min, max, mode, bool_or, ...: one row's value */
	SUPP_AGG_LISTS,      /* arg: string_agg, array_agg, json_agg, ...: every row's value */
	SUPP_AGG_OTHER,      /* arg: an aggregate outside the allow-list */
	SUPP_AGG_FILTER,     /* arg: the aggregate with FILTER (WHERE ...) */
	SUPP_AGG_ORDER,      /* arg: the aggregate with an ORDER BY inside */
	SUPP_PERCENTILE,     /* arg: k (the fraction is not a constant inside (1/k, 1 - 1/k]) */
	SUPP_IDENT,          /* arg: an identifier column used otherwise than counted or joined on */
	SUPP_ITEM,           /* arg: a result that is neither grouped nor an aggregate */
	SUPP_FUNCTION,       /* arg: a function outside the result allow-list */
	SUPP_NO_KEY,         /* arg: the configured patient keys */
	SUPP_UNLINKED,       /* arg: a table of patients' rows without a patient key, not joined to one */
	SUPP_TOO_LARGE,      /* arg: what there is too much of (tables, groups, aggregates, edits) */
	SUPP_AGG_ARG,        /* arg: the aggregate whose argument is not a measure shape */
	SUPP_INTERPOLATE,    /* arg: percentile_cont */
	SUPP__MAX
};

/* A refusal: the code, its argument, where. */
struct suppress_refusal {
	enum suppress_code code;
	char arg[160];       /* the function, column, table or number the reason names; "" when none */
	int position;        /* 1-based character offset in the SQL of what is refused; 0 unknown */
};

/*
 * What the rewrite asks of the target database about the tables of a FROM clause.  schema is NULL
 * when the SQL did not name one (the session's search path decides); names are as parsed (folded
 * to lower case unless quoted).  Each returns 1 or 0; a table that is not there has no columns.
 * The executor answers from the target's catalogue and the PHI rules (exec.c).
 */
struct suppress_db {
	/* the table has column col (reading it may still be denied at the session's level) */
	int (*has_col)(void *ctx, const char *schema, const char *table, const char *col);
	/* col is unique in the table: a one-column primary key or unique index, of the table or (for a
	 * generalising view of the limited level) of the table it shows */
	int (*unique)(void *ctx, const char *schema, const char *table, const char *col);
	/* the table's rows belong to persons or episodes of care (catalog/phi.h phi_table_context) */
	int (*tied)(void *ctx, const char *schema, const char *table);
	/* the column's name alone says it identifies a person or an episode (phi_column_ties) */
	int (*ident_name)(void *ctx, const char *col);
	void *ctx;
};

struct suppress_opts {
	const char *const *keys;   /* the patient key column names, in order (conf suppress_patient_keys) */
	int nkeys;
	const struct suppress_db *db;  /* NULL: the form only (the run page's offer): no patient key
	                                * needed, identifiers known by the key names only, no link rule */
	long k;                    /* a group is returned only with at least k patients (> 0) */
	long round;                /* > 1: every count aggregate is rounded to a multiple of this (release) */
	int noise;                 /* 1: sums and averages perturbed by the groups' cell keys, spreads
	                            * to two significant digits (docs/privacy.md "Differencing") */
	long long noise_key;       /* the install's secret seed of the cell keys (conf release_noise_key) */
};

/*
 * suppress_rewrite: accept sql only in the safe aggregate form, and make PostgreSQL leave out the
 * small groups itself.  The form (docs/privacy.md "The safe aggregate form"):
 *   - one SELECT over tables and joins (ON or USING): no set operation, VALUES, WITH, subquery,
 *     LATERAL, function or sample in FROM, NATURAL join, window function, function returning a
 *     set, DISTINCT ON, ROLLUP/CUBE/GROUPING SETS, `*` outside count(*);
 *   - it aggregates (GROUP BY, or an aggregate in the select list);
 *   - GROUP BY items are columns or bands of them (date_trunc, extract, floor, width_bucket,
 *     arithmetic with constants, CASE with constant results), never an identifier;
 *   - aggregates are count, sum, avg, stddev, variance and percentile_disc of one constant
 *     fraction, a multiple of 0.05, inside (1/k, 1 - 1/k], without FILTER or an ORDER BY inside
 *     (percentile_cont is refused: its interpolation tells the group's size);
 *   - the argument of sum, avg, stddev, variance and percentile_disc is a measure: a column, a 0/1
 *     condition (CAST(cond AS int), CASE WHEN cond THEN 1 ELSE 0 END), a difference of two
 *     columns, date_part/extract('epoch', column - column), or one of these cast, times or
 *     divided by a non-zero constant; no constant added, no DISTINCT;
 *   - the select list, HAVING and ORDER BY hold grouped expressions, allowed aggregates,
 *     constants and arithmetic or plain scalar functions of them;
 *   - an identifier (a patient key, a column whose name says it keys a person or an episode, a
 *     unique column of a table of persons' rows) appears only as the whole argument of count or
 *     count(DISTINCT) or in an equality of two columns that is a conjunct of ON or WHERE;
 *   - with db: at least one table has a patient key, and every table of persons' rows without
 *     one is joined to a counted table by an equality with that table's unique column (through
 *     others if need be).
 * Out of the form: ERR_DENIED with *why (ERR_PARSE and SUPP_PARSE when sql does not parse).  In it:
 * OK, and when out is non-NULL *out (heap, caller frees) is sql with
 *   "<n> AS askql_n, " before the first select-list item, where <n> is the least of
 *   count(DISTINCT r.key) for each reference r with a patient key (a self-join counts each side)
 *   and, for each aggregate argument E other than count(*),
 *   count(DISTINCT CASE WHEN (E) IS NOT NULL THEN r.key END) (the patients behind its values);
 *   "HAVING <n> >= k" (put in front of the statement's own HAVING with AND);
 *   positional GROUP BY / ORDER BY references moved up by one;
 *   with round > 1, each count aggregate c of the select list, HAVING and ORDER BY replaced by
 *   (round(c::numeric / round) * round)::bigint, named "count" when it was;
 *   with noise, each sum(E) by (sum(E)::numeric + u * g) rounded to round, each avg(E) by
 *   (sum(E)::numeric + u * g) / (count(E) + v), where g is the mean absolute non-zero value of E, u
 *   a number in (-2, 2) drawn from the cell key of the patients with a non-zero E and from E's
 *   columns, v one in (-2, 2) from the cell key of the patients with a value (a cell key: the sum of
 *   the patients' keys hashed with noise_key, so the same patients give the same draw whatever the
 *   SQL); each stddev, variance, var_samp, var_pop, stddev_samp, stddev_pop to two significant
 *   digits; each named as before.
 * Without db the form is checked as far as the SQL alone tells, and *out (when out is non-NULL)
 * is set to NULL: nothing to count with.  ERR_NOMEM.  The caller guards *out as any SQL.
 */
enum err suppress_rewrite(const char *sql, const struct suppress_opts *o, char **out,
                          struct suppress_refusal *why);

/* suppress_format: code's English printf format, with one %s for its argument when it has one
 * (static; "" for SUPP_OK).  conf/i18n/ko.decline.tsv holds each in Korean. */
const char *suppress_format(enum suppress_code c);
/* suppress_reason: why in English (suppress_format with its argument), appended to out. */
void suppress_reason(const struct suppress_refusal *why, struct sb *out);

#endif
