/* reading.h: what a SQL statement computes, read off its parse tree: the measure, the filters, the groupings, a rate's numerator, the limit; the answer restates this, never the question (issue 26; docs/coverage.md, "The reading said back"). */
#ifndef ASKQL_SQL_READING_H
#define ASKQL_SQL_READING_H

#include "util/err.h"

#define RD_NAME 64
#define RD_VAL 160
#define RD_MAXF 12
#define RD_MAXG 6

/* One condition: column op value ("sex", "=", "F"; "age", ">=", "65"; "name", "in", "k, na"). */
struct rd_cond {
	char col[RD_NAME];
	char op[16];         /* =, <>, <, <=, >, >=, in, not in, like, ilike, between, is null */
	char val[RD_VAL];    /* the literal(s) as written, joined by ", "; between: "a and b" */
};

/* One grouping: a column, or a band of it. */
enum rd_band { RD_PLAIN, RD_BAND, RD_YEAR, RD_QUARTER, RD_MONTH, RD_MONTH_NO, RD_WEEK, RD_DAY, RD_HOUR };
struct rd_group { char col[RD_NAME]; enum rd_band band; int width; /* RD_BAND: floor(col / width) * width */ };

struct sql_reading {
	char agg[16];                  /* the first aggregate of the select list: count, avg, sum, min,
	                                * max, ...; "" for rows */
	char agg_col[RD_NAME];         /* its column; "*" for count(*) */
	int agg_distinct;
	int rate;                      /* a share: the numerator's conditions are in num */
	struct rd_cond num[4];
	int nnum;
	struct rd_cond filter[RD_MAXF];  /* the WHERE's conditions (of every arm of a set operation, once) */
	int nfilter;
	struct rd_group group[RD_MAXG];
	int ngroup;
	long limit;                    /* 0: none */
	char tables[8][RD_NAME];       /* the tables of its FROM lists (arms and joins), once each */
	int ntables;
	int setop;                     /* a UNION of several SELECTs (a timeline) */
	int exists;                    /* a yes/no: SELECT COUNT(*) > 0 FROM (the rows asked about) */
	char cols[4][RD_NAME];         /* the plain columns the outermost SELECT lists (rows shown) */
	int ncols;
	int ncols_done;                /* (reading: the first arm's columns are taken) */
	/* "COUNT(*) FILTER (WHERE sex = 'M'), COUNT(*) FILTER (WHERE sex = 'F')": the same aggregate
	 * apart for each value of one column, one output column each (not a share) */
	char pivot_col[RD_NAME];
	char pivot_val[4][RD_VAL];
	int npivot;
	int complete;                  /* 1: every condition of the WHERE was read; 0: some could not be
	                                * said back (a subquery, a function), and the restatement says so */
};

/*
 * sql_reading_of: read sql (one statement) into *out.  OK; ERR_PARSE when it does not parse as
 * one SELECT; ERR_INPUT for NULL.  *out is always initialised.
 */
enum err sql_reading_of(const char *sql, struct sql_reading *out);

#endif
