/* text.h: tokens for matching and embedding: lower case, snake_case split, Korean particles stripped. */
#ifndef ASKQL_TEXT_H
#define ASKQL_TEXT_H

#include <stddef.h>
#include <stdint.h>

#define TEXT_MAXTOK 64   /* bytes of one token, longer ones are cut at a character boundary */

/*
 * text_tokens: split s into canonical tokens: ASCII lower-cased, split at anything that is
 * not a letter/digit (so snake_case and dotted names split; camelCase splits too), Korean
 * particles (은 는 이 가 을 를 의 에 에서 로 으로 별 와 과 도 ...) stripped from the end of
 * Hangul words, simple English plural stripping.  Tokens are written NUL-terminated into
 * buf (size buflen) and pointed to by toks[0..return).  At most maxtok tokens.
 * raw=1 keeps words as they are (lower-cased only).
 */
int text_tokens(const char *s, int raw, char *buf, size_t buflen, char **toks, int maxtok);
/* text_tokens_at: text_tokens that also writes where each token's word lies in s: bytes
 * [start[i], end[i]) (before particles were stripped); start and end may be NULL, else hold maxtok. */
int text_tokens_at(const char *s, int raw, char *buf, size_t buflen, char **toks, int *start,
                   int *end, int maxtok);
/* text_canon_word: canonicalise one lower-cased word in place (particles, plural). */
void text_canon_word(char *w);
/* text_is_stop: an English/Korean function word that should not match on its own. */
int text_is_stop(const char *tok);
/* text_is_hangul_word: 1 when the word's last character is a Hangul syllable. */
int text_is_hangul_word(const char *w);
/* text_lower: ASCII lower-case copy of s into out (size n); non-ASCII bytes copied. */
void text_lower(const char *s, char *out, size_t n);
/* utf8 helpers: number of characters; byte length of the first nchars characters. */
int utf8_nchars(const char *s);
size_t utf8_prefix_bytes(const char *s, int nchars);
/* text_hash: FNV-1a 64 of n bytes. */
uint64_t text_hash(const void *p, size_t n, uint64_t seed);
#define TEXT_HASH_SEED 0xcbf29ce484222325ULL
/*
 * text_trigrams: the set of character trigrams of s (words padded "  w " as pg_trgm does,
 * lower-cased), as sorted unique 32-bit hashes into out (size max).  Returns the count.
 * text_trgm_sim: |A and B| / |A or B| of two such sorted sets.
 */
int text_trigrams(const char *s, uint32_t *out, int max);
double text_trgm_sim(const uint32_t *a, int na, const uint32_t *b, int nb);

/* text_bad_utf8: byte offset of the first invalid UTF-8 sequence or NUL in s[0..n), -1 when
 * valid (files the catalog reads: docs, PHI rules, admins' reasons) */
long text_bad_utf8(const char *s, size_t n);

#endif
