/* lexicon.c: loading and matching the Korean-English clinical lexicon (conf/lexicon/README.md; docs/lexicon.md). */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "catalog/lexicon.h"
#include "util/conf.h"
#include "util/file.h"
#include "util/log.h"

#define LEX_FIELD_MAX 2000
#define LEX_FILE_MAX (8 << 20)

/* lower-case ASCII in place, trim blanks; returns s */
static char *norm(char *s)
{
	char *e;

	while (*s == ' ')
		s++;
	for (char *p = s; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\r'))
		*--e = 0;
	return s;
}

/* split field at '|' into a NULL-free array (pointers into field) */
static const char **split(char *field, int *n)
{
	int cnt = *field ? 1 : 0, i = 0;
	const char **out;

	for (char *p = field; *p; p++)
		cnt += *p == '|';
	*n = 0;
	if (!cnt || !(out = calloc((size_t)cnt, sizeof *out)))
		return NULL;
	for (char *tok = strtok(field, "|"); tok; tok = strtok(NULL, "|")) {
		char *t = norm(tok);

		if (*t && i < cnt)
			out[i++] = t;
	}
	*n = i;
	return out;
}

/* A code that is a word of an entry of another kind (LAB of labetalol is the word "lab" of the
 * lab tests; MAN of mannitol the word "man" of a male) is flagged in its entry's shared[]
 * (docs/lexicon.md, "Shared codes").  Codes two entries merely share (MG, DOB) are not: the
 * caller tells them apart by what the column holds. */
struct termcat { const char *term, *category; };

static int cmp_termcat(const void *x, const void *y)
{
	return strcmp(((const struct termcat *)x)->term, ((const struct termcat *)y)->term);
}

/* mark_shared: fill shared[] of every entry; 0 out of memory */
static int mark_shared(struct lexicon *lx)
{
	size_t n = 0, k = 0;
	for (int e = 0; e < lx->n; e++)
		n += (size_t)lx->e[e].nen;
	struct termcat *tc = malloc((n + 1) * sizeof *tc);
	if (!tc)
		return 0;
	for (int e = 0; e < lx->n; e++)
		for (int i = 0; i < lx->e[e].nen; i++)
			tc[k++] = (struct termcat){lx->e[e].en[i], lx->e[e].category};
	qsort(tc, k, sizeof *tc, cmp_termcat);
	for (int e = 0; e < lx->n; e++) {
		struct lex_entry *x = &lx->e[e];
		if (!(x->shared = calloc((size_t)x->ncodes + 1, 1))) {
			free(tc);
			return 0;
		}
		for (int i = 0; i < x->ncodes; i++) {
			struct termcat key = {x->codes[i], NULL}, *f = bsearch(&key, tc, k, sizeof *tc, cmp_termcat);
			while (f && f > tc && !strcmp(f[-1].term, key.term))
				f--;
			for (; f && f < tc + k && !strcmp(f->term, key.term); f++)
				x->shared[i] |= strcmp(f->category, x->category) != 0;
		}
	}
	free(tc);
	return 1;
}

struct lexicon *lexicon_load(const char *path, int *bad)
{
	size_t len = 0;
	char *buf = file_read(path, LEX_FILE_MAX, &len), *line, *save = NULL;
	struct lexicon *lx;
	int cap = 0;

	if (bad)
		*bad = 0;
	if (!buf || !(lx = calloc(1, sizeof *lx))) {
		free(buf);
		return NULL;
	}
	lx->hash = 1469598103934665603ULL;
	for (size_t i = 0; i < len; i++)
		lx->hash = (lx->hash ^ (unsigned char)buf[i]) * 1099511628211ULL;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[4];
		int nf = 0;

		if (*line == '#' || !*line)
			continue;
		f[nf++] = line;
		for (char *p = line; *p && nf < 5; p++)
			if (*p == '\t') {
				*p = 0;
				if (nf < 4)
					f[nf] = p + 1;
				nf++;
			}
		if (nf != 4 || strlen(f[1]) > LEX_FIELD_MAX || strlen(f[2]) > LEX_FIELD_MAX || strlen(f[3]) > LEX_FIELD_MAX) {
			if (bad)
				(*bad)++;
			continue;
		}
		if (lx->n == cap) {
			struct lex_entry *ne = realloc(lx->e, (size_t)(cap = cap ? cap * 2 : 256) * sizeof *ne);

			if (!ne)
				break;
			lx->e = ne;
		}
		struct lex_entry *e = &lx->e[lx->n];
		e->category = norm(f[0]);
		e->en = split(f[1], &e->nen);
		e->ko = split(f[2], &e->nko);
		e->codes = split(f[3], &e->ncodes);
		e->shared = NULL;
		lx->n++;
	}
	lx->_buf = buf;
	if (!mark_shared(lx)) {
		lexicon_free(lx);
		return NULL;
	}
	return lx;
}

void lexicon_free(struct lexicon *lx)
{
	if (!lx)
		return;
	for (int i = 0; i < lx->n; i++) {
		free(lx->e[i].en);
		free(lx->e[i].ko);
		free(lx->e[i].codes);
		free(lx->e[i].shared);
	}
	free(lx->e);
	free(lx->_buf);
	free(lx);
}

static struct lexicon *the;
static struct lexicon empty;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int the_bad;

static void load_once(void)
{
	const char *path = conf_get("lexicon_file");

	if (!(the = lexicon_load(path, &the_bad)))
		log_warn("lexicon: cannot read %s: Korean-English linking without it", path);
	else if (the_bad)
		log_warn("lexicon: %s: %d malformed lines skipped", path, the_bad);
}

const struct lexicon *lexicon_get(int *bad)
{
	pthread_once(&once, load_once);
	if (bad)
		*bad = the_bad;
	return the ? the : &empty;
}

static int has_hangul(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0xE0)
			return 1;
	return 0;
}

static size_t u8len(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

/* term occurs in low (lower-cased) as whole words (ASCII) or as a substring (Korean) */
static int occurs(const char *low, const char *term)
{
	size_t tl = strlen(term);

	if (has_hangul(term))
		return u8len(term) >= 2 && strstr(low, term) != NULL;
	if (tl < 3)
		return 0;
	for (const char *p = strstr(low, term); p; p = strstr(p + 1, term)) {
		int before = p == low || !isalnum((unsigned char)p[-1]);
		int after = !isalnum((unsigned char)p[tl]);

		if (before && after)
			return 1;
	}
	return 0;
}

int lexicon_in_text(const struct lexicon *lx, const char *text, int *out, int max)
{
	char low[2048];
	int n = 0;

	if (!text || !*text)
		return 0;
	snprintf(low, sizeof low, "%s", text);
	for (char *p = low; *p; p++)
		*p = *p == '_' ? ' ' : (char)tolower((unsigned char)*p);
	for (int i = 0; i < lx->n && n < max; i++) {
		const struct lex_entry *e = &lx->e[i];
		int hit = 0;

		for (int k = 0; k < e->nen && !hit; k++)
			hit = occurs(low, e->en[k]);
		for (int k = 0; k < e->nko && !hit; k++)
			hit = occurs(low, e->ko[k]);
		if (hit)
			out[n++] = i;
	}
	return n;
}

int lexicon_exact(const struct lexicon *lx, const char *s, int *out, int max, int *by_code)
{
	char low[512], *t;
	int n = 0, strong = 0;

	*by_code = 0;
	if (!s || strlen(s) >= sizeof low)
		return 0;
	snprintf(low, sizeof low, "%s", s);
	t = norm(low);
	if (!*t)
		return 0;
	int only_shared[64] = {0}, was_weak[64] = {0}, proper = 0;
	if (max > 64)
		max = 64;
	for (int i = 0; i < lx->n && n < max; i++) {
		const struct lex_entry *e = &lx->e[i];
		int hit = 0, weak = 0, shared = 0;

		for (int k = 0; k < e->nen && !hit; k++)
			hit = !strcmp(t, e->en[k]);
		for (int k = 0; k < e->nko && !hit; k++)
			hit = !strcmp(t, e->ko[k]);
		for (int k = 0; k < e->ncodes && !hit; k++)
			if (!strcmp(t, e->codes[k])) {
				hit = weak = strlen(t) <= 2;
				shared = hit && e->shared[k];
			}
		if (!hit)
			for (int k = 0; k < e->ncodes && !hit; k++)
				if ((hit = !strcmp(t, e->codes[k])))
					shared = e->shared[k];
		if (hit) {
			only_shared[n] = shared;
			was_weak[n] = weak;
			proper |= !shared;
			out[n++] = i;
			strong |= !weak;
		}
	}
	/* a code that is another kind's word names that entry only ('Lab': the lab tests, not
	 * labetalol's LAB) */
	if (proper) {
		int k = 0;
		strong = 0;
		for (int i = 0; i < n; i++)
			if (!only_shared[i]) {
				out[k++] = out[i];
				strong |= !was_weak[i];
			}
		n = k;
	}
	*by_code = n > 0 && !strong;
	return n;
}

void lexicon_terms(const struct lexicon *lx, const char *phrase, void (*fn)(void *, const char *), void *arg)
{
	int ids[8], n, weak;

	if (!(n = lexicon_exact(lx, phrase, ids, 8, &weak)))
		n = lexicon_in_text(lx, phrase, ids, 8);
	for (int i = 0; i < n; i++) {
		const struct lex_entry *e = &lx->e[ids[i]];

		for (int k = 0; k < e->nen; k++)
			fn(arg, e->en[k]);
		for (int k = 0; k < e->nko; k++)
			fn(arg, e->ko[k]);
	}
}
