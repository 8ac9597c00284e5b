/* answer.h: the result page's words: the answer sentence, numbers rounded for display, column labels,
 * row counts and friendly database errors (issue 15).  Pure functions of their inputs (no database),
 * so tests/unit/test_answer.c checks them; run_view.c gathers the inputs. */
#ifndef ASKQL_ANSWER_H
#define ASKQL_ANSWER_H

#include <cjson/cJSON.h>
#include "util/sb.h"

/* How a column's values are shown.  Display only: downloads keep the full values. */
enum answer_fmt {
	FMT_TEXT,    /* as stored */
	FMT_ID,      /* an identifier, code or year: digits as they are, no separators */
	FMT_COUNT,   /* a count or other whole number: 3,867 */
	FMT_AVG,     /* an average (or sum/min/max of a non-integer): one decimal, 59.3 */
	FMT_PCT,     /* a percentage: one decimal and %, 12.5% */
	FMT_REAL,    /* any other fractional number: two decimals (three significant digits below 1) */
	FMT_BOOL,    /* true/false as Yes/No in the user's language */
};

/* One result column as the answer needs it.  Strings are borrowed. */
struct answer_col {
	const char *name;    /* the SQL name */
	const char *type;    /* the packager's type: number, text, datetime, boolean (NULL: text) */
	const char *label;   /* the header in the user's language (NULL: name) */
	const char *unit;    /* the catalog's unit of the source column ("years", "mmHg"), NULL */
	const char *agg;     /* the aggregate that made it (avg, count, sum, min, max), NULL */
	int patients;        /* it counts patients (count of the patient identifier) */
	enum answer_fmt fmt; /* from answer_col_fmt */
};

/* What a sentence is built from.  rows: the preview rows (array of arrays, borrowed). */
struct answer_in {
	const char *lang, *question, *sql;
	const struct answer_col *cols;
	int ncols;
	const cJSON *rows;
	long long total;     /* rows of the whole result (the preview's size when truncated) */
	int truncated;       /* the result has more rows than the preview */
	const char *subject; /* what the SQL computes said back (pages/restate.h), the sentence's
	                      * subject; NULL: the question, trimmed (callers without the SQL's reading) */
};

/* The shapes a sentence can take; answer.c declares them in one table (a row each). */
enum answer_kind {
	ANSWER_EMPTY, ANSWER_YESNO, ANSWER_VALUE, ANSWER_TOP_N, ANSWER_TIMELINE, ANSWER_GROUP, ANSWER_LIST,
	ANSWER_NKINDS
};

/* answer_kind_name: "empty", "yesno", "value", "top_n", "timeline", "group", "list" (static). */
const char *answer_kind_name(enum answer_kind k);

/* answer_sentence: append the answer to in->subject (else in->question), in in->lang, built from the result's shape
 * (the first kind in the table that fits); returns that kind.  Plain text (escape it for HTML). */
enum answer_kind answer_sentence(struct sb *out, const struct answer_in *in);

/* answer_col_fmt: the display format of column c of rows, from its name, type, aggregate and values
 * (a column whose every value is a whole number is a count, an id or a year, never decimals). */
enum answer_fmt answer_col_fmt(const struct answer_col *col, const cJSON *rows, int c);

/* answer_value: append v (a JSON number, numeric string, boolean or string) formatted as f in lang;
 * NULL or JSON null appends nothing. */
void answer_value(struct sb *out, const cJSON *v, enum answer_fmt f, const char *lang);

/* answer_number: append x formatted as f (thousands separators, rounding, %). */
void answer_number(struct sb *out, double x, enum answer_fmt f);

/* answer_rows: append a row count for the header: "3,867 rows" / "3,867행" when total is the whole
 * result, "1,000+ (preview)" / "1,000개 이상 (미리보기)" when truncated (total is then the preview). */
void answer_rows(struct sb *out, const char *lang, long long total, int truncated);

/* answer_label: append a readable header for a column without a catalog description: known words
 * of its name translated (avg -> 평균/Average, count -> 건수/Count), the rest as written. */
void answer_label(struct sb *out, const char *lang, const char *name);

/* answer_source: where column name of sql comes from: the aggregate (avg, count, ...; "" when none)
 * into agg and the source column (after the last dot; "*" for count(*); "" when unknown) into src.
 * Reads "avg(age) AS avg_age", "round(avg(t.age)::numeric, 1) mean_age", and an unaliased "avg(age)"
 * whose result PostgreSQL names "avg".  Returns 1 when something was found. */
int answer_source(const char *sql, const char *name, char *agg, size_t agglen, char *src, size_t srclen);

/* answer_error_key: the i18n key stem of a friendly explanation of a run's error text (which starts
 * "SQLSTATE: message" when it came from the database), e.g. "result.err.timeout" for 57014, or NULL
 * when no friendly text is known.  Static storage. */
const char *answer_error_key(const char *error);

#endif
