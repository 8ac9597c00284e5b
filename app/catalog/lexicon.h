/* lexicon.h: the Korean-English clinical lexicon (conf/lexicon/, one TSV file), loaded once per process (docs/lexicon.md). */
#ifndef ASKQL_LEXICON_H
#define ASKQL_LEXICON_H

#include <stddef.h>
#include <stdint.h>

/* One entry: a concept with its English terms, Korean terms and codes/abbreviations, all
 * lower-cased (codes too).  Strings live as long as the lexicon. */
struct lex_entry {
	const char *category;      /* "lab", "drug", "department", ... */
	const char **en; int nen;
	const char **ko; int nko;
	const char **codes; int ncodes;
	unsigned char *shared;     /* per code: 1 when it is an English term of an entry of another
	                            * category (labetalol's LAB is the lab tests' "lab") */
};
struct lexicon {
	struct lex_entry *e; int n;
	uint64_t hash;             /* of the file's content: part of each table's change check */
	char *_buf;                /* owner of every string */
};

/*
 * lexicon_get: the lexicon of conf lexicon_file (default conf/lexicon/clinical_ko_en.tsv),
 * loaded on first use and kept for the process.  A missing file gives an empty lexicon
 * (and a warning in the log); a malformed line (not 4 tab-separated fields, a field over
 * 2,000 bytes) is skipped and counted in *bad when bad is not NULL.  Never NULL.
 */
const struct lexicon *lexicon_get(int *bad);
/* lexicon_load: parse path into a new lexicon (tests); NULL when it cannot be read.  Free with lexicon_free. */
struct lexicon *lexicon_load(const char *path, int *bad);
void lexicon_free(struct lexicon *lx);

/* lexicon_in_text: entries an English term (3+ characters, whole words) or a Korean term
 * (2+ characters, as a substring) of which occurs in text; at most max into out, in lexicon
 * order.  Returns the count. */
int lexicon_in_text(const struct lexicon *lx, const char *text, int *out, int max);
/* lexicon_exact: entries with an English or Korean term or a code equal to s (case-insensitive,
 * surrounding blanks ignored); *by_code set to 1 when a match was through a code of at most
 * two characters only (weak evidence). */
int lexicon_exact(const struct lexicon *lx, const char *s, int *out, int max, int *by_code);
/* lexicon_terms: every term of phrase's entries (exact, else in text), English and Korean,
 * passed to fn (for expanding a user's words: search_column_values). */
void lexicon_terms(const struct lexicon *lx, const char *phrase, void (*fn)(void *, const char *), void *arg);

#endif
