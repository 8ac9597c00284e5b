/* eval.h: comparing answers the way Spider/BIRD/EHRSQL do, and the scores of an evaluation run. */
#ifndef ASKQL_EVAL_H
#define ASKQL_EVAL_H

#include "util/err.h"

struct cJSON;
struct exec_result;

/* A result as normalised rows: every cell a heap string (numbers rounded to 2 decimals,
 * booleans as 1/0, NULL as the empty-set sign). */
struct eval_rows { char ***rows; int nrows, ncols; };
enum err eval_rows_from_result(const struct exec_result *res, struct eval_rows *out);
/* eval_rows_from_json: from [[v, ...], ...] (strings, numbers, booleans, null). */
enum err eval_rows_from_json(const struct cJSON *arr, struct eval_rows *out);
void eval_rows_free(struct eval_rows *r);
/* eval_cell: the normal form of one value (heap). */
char *eval_cell(const char *v);

/* eval_same: 1 when pred answers gold: multisets of rows equal (sequence when ordered=1);
 * when pred has more columns than gold, the best-matching choice of gold's number of columns
 * is compared (a relaxed projection; results of at most 8 columns, up to 16 in the same order). */
int eval_same(const struct eval_rows *gold, const struct eval_rows *pred, int ordered);
/* eval_question_ordered: 1 when the question asks for an order (sorted, ascending, 순으로 ...). */
int eval_question_ordered(const char *q);

enum eval_outcome { EV_CORRECT, EV_WRONG, EV_ERROR, EV_DECLINED, EV_DECLINED_OK, EV_ANSWERED_UNANSWERABLE };
const char *eval_outcome_name(enum eval_outcome o);
/* eval_judge: the outcome of one question. gold NULL for unanswerable ones. */
enum eval_outcome eval_judge(int answerable, int declined, int ran, const struct eval_rows *gold,
                             const struct eval_rows *pred, const char *question);

struct eval_stats { int n[6]; };

/*
 * eval_wrong_kind: why a wrong answer is wrong, from a diff of what the gold and the predicted SQL
 * compute (sql/reading.h): "filter_dropped", "filter_added", "grouping_dropped", "grouping_added",
 * "denominator", "wrong_column", "wrong_aggregate", or "other" (static).  No question text is read.
 */
const char *eval_wrong_kind(const char *gold_sql, const char *pred_sql);
void eval_count(struct eval_stats *s, enum eval_outcome o);
/* eval_rs: EHRSQL reliability score RS(c), averaged over all questions. */
double eval_rs(const struct eval_stats *s, double c);
/* eval_report: the printed report (heap string). */
char *eval_report(const struct eval_stats *s, const char *file, const char *target, const char *path, double ms);

#endif
