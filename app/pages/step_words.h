/* step_words.h: steps and the step-mode pause in the reader's language (step_words.c, run_pause.c). */
#ifndef ASKQL_STEP_WORDS_H
#define ASKQL_STEP_WORDS_H
#include <cjson/cJSON.h>
#include "pages/pages.h"
#include "util/sb.h"

/*
 * step_words: add to step object s (as run_steps_json builds it) what the step found, in r->lang:
 * "label" for names without one, "status_text", "kind_text", "say" (sentences), "w_tables"
 * [{name, reason}], "w_columns" [{table, column, desc, reason}], "w_mappings" (step_words_mapping),
 * "w_joins" (step_words_join), "w_explain" [{text, warning, suggestion}], "w_decisions"
 * [{span, has_span, text}], and for an edit the guard refused "refused_text", "refused_reason",
 * "refused_sql"; guard warnings in "findings" are translated.  Every such name is set (false when
 * absent).  in/out are the step's input and output JSON (either may be NULL); borrowed.
 */
void step_words(struct req *r, cJSON *s, const char *kind, const char *name, const char *status,
                const cJSON *in, const cJSON *out);
/* step_words_mapping: append {phrase, has_phrase, table, column, value, how (in words)} to list. */
void step_words_mapping(struct req *r, cJSON *list, const char *phrase, const char *table, const char *column,
                        const char *value, const char *how);
/* step_words_join: append one join edge {from_table, from_col, to_table, to_col, same_col, inferred}. */
void step_words_join(cJSON *list, const char *ft, const char *fc, const char *tt, const char *tc, int inferred);
/* step_words_join_text: the same from the plan's "a.x = b.y" text; nothing when it is not of that form. */
void step_words_join_text(cJSON *list, const char *text);
/* step_words_refusal: the guard's (English) reason as one sentence in r->lang, appended to out. */
void step_words_refusal(struct req *r, const char *reason, struct sb *out);

/*
 * run_pause_data: the step-mode pause of run (run_load data with "steps" added) as template data:
 * run.pause {stage, stage_<stage>, sql, proposed_sql, refused {text, reason}, tables, columns,
 * joins, mappings (each with include keys)} and d.notice.  A refused edit (the run's last step)
 * puts its SQL back in the box with the reason.  Nothing when the run is not paused.
 */
void run_pause_data(struct req *r, cJSON *d, cJSON *run);
#endif
