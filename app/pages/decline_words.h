/* decline_words.h: the offline planner's decline reasons, stored in English, shown in the reader's language. */
#ifndef ASKQL_DECLINE_WORDS_H
#define ASKQL_DECLINE_WORDS_H
#include <stddef.h>
#include "util/err.h"
#include "util/sb.h"

/*
 * A run stores why the planner declined in English ("cannot answer from this database: could not
 * link 'x' to any table, column or stored value. Found: 'y' -> fever"), and is read later in
 * either language; the reason is translated when it is shown.  Each non-English language has
 * <i18n_dir>/<lang>.decline.tsv (its header says the format): English printf formats of the
 * planner (app/agent pf_decline), the agent's prefixes and the ". Found: ..." tail, each with the
 * sentence in that language.  A text that matches no format is shown as written.
 */

/*
 * decline_words_load: (re)load every language's table from dir (NULL: conf "i18n_dir").  OK;
 * ERR_PARSE with err naming the file and line (a line without three fields, an unknown kind, a
 * conversion other than %s %d %ld %.Nf %%, a {N} beyond the format's arguments, an English format
 * given twice); ERR_IO (unreadable); ERR_NOMEM.  A language without a file has no table (its
 * reasons show in English).  On error the previous tables stay.  decline_words calls it on first
 * use (a failure is logged once); call it earlier to fail early.  Not thread-safe.
 */
enum err decline_words_load(const char *dir, char *err, size_t errlen);

/*
 * decline_words: append to out the stored English text in lang ("en", "ko"; anything else is
 * English): the whole text as written when lang is English, has no table, or no format matches.
 * text may be NULL (nothing appended).  out is the caller's; nothing is kept.
 */
void decline_words(const char *lang, const char *text, struct sb *out);

/* decline_words_has: 1 if lang's table has a reason whose English format is exactly fmt, else 0. */
int decline_words_has(const char *lang, const char *fmt);

/* decline_words_free: drop every table (tests, worker exit); the next use loads them again. */
void decline_words_free(void);
#endif
