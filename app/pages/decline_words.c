/* decline_words.c: the planner's English decline reasons matched against conf/i18n/<lang>.decline.tsv and shown in the reader's language. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pages/decline_words.h"
#include "util/i18n.h"
#include "util/log.h"

#define MAX_FILE (1u << 20)
#define MAX_TEXT (16u << 10)   /* a longer text is shown as written (matching is not free) */
#define MAX_CAP 8              /* arguments of one format */
#define MAX_DEPTH 4            /* a reason inside a prefix inside ... */

static const char *const langs[] = I18N_LANGS;
#define NLANGS (sizeof langs / sizeof langs[0])

/* reason: a sentence (or a prefix around one); found: the ". Found: %s" tail after a reason;
 * item: one "'%s' -> %s" of the tail's list */
enum kind { K_REASON, K_FOUND, K_ITEM };

struct row {
	enum kind kind;
	char *en;      /* the English printf format, as the C code prints it */
	char *ko;      /* the sentence in the table's language, {N} and {N:reason} placeholders */
};

struct table {
	struct row *v;
	size_t n;
	const struct row *found, *item;   /* NULL when the file has none */
};

struct cap {
	const char *s;
	size_t n;
};

static struct table tables[NLANGS];
static int loaded;

/* conv: the conversion at f (f[0] == '%'): 's', 'd' (%d %ld %lld), 'f' (%f %.Nf), '%' (%%), or 0
 * for any other; its length in *len */
static int conv(const char *f, size_t *len)
{
	const char *p = f + 1;

	if (*p == '%' || *p == 's') {
		*len = 2;
		return *p;
	}
	if (*p == '.') {
		for (p++; isdigit((unsigned char)*p); p++)
			;
		*len = (size_t)(p + 1 - f);
		return *p == 'f' ? 'f' : 0;
	}
	if (*p == 'f') {
		*len = 2;
		return 'f';
	}
	while (*p == 'l')
		p++;
	*len = (size_t)(p + 1 - f);
	return *p == 'd' && p - f <= 3 ? 'd' : 0;
}

/* nargs: the number of arguments format f takes, or -1 when it has a conversion we cannot match */
static int nargs(const char *f)
{
	int n = 0;
	size_t len;

	for (; *f; f++) {
		if (*f != '%')
			continue;
		switch (conv(f, &len)) {
		case 0:
			return -1;
		case '%':
			break;
		default:
			n++;
		}
		f += len - 1;
	}
	return n;
}

/* placeholders_ok: every '{' of ko starts {N} or {N:reason} with 1 <= N <= n */
static int placeholders_ok(const char *ko, int n)
{
	for (const char *p = strchr(ko, '{'); p; p = strchr(p + 1, '{')) {
		char *e;
		long k = strtol(p + 1, &e, 10);

		if (!isdigit((unsigned char)p[1]) || k < 1 || k > n)
			return 0;
		if (!strncmp(e, ":reason", 7))
			e += 7;
		if (*e != '}')
			return 0;
	}
	return 1;
}

static void drop(struct table *t)
{
	for (size_t i = 0; i < NLANGS; i++) {
		for (size_t k = 0; k < t[i].n; k++) {
			free(t[i].v[k].en);
			free(t[i].v[k].ko);
		}
		free(t[i].v);
		memset(&t[i], 0, sizeof t[i]);
	}
}

/* parse: the lines of buf (a whole file, NUL-terminated, modified) into t; path names it in err */
static enum err parse(char *buf, const char *path, struct table *t, char *err, size_t errlen)
{
	int line = 0;

	for (char *l = buf, *next; l && *l; l = next) {
		char *f[3], *nl = strchr(l, '\n');
		int k = 0, n;
		enum kind kind;
		struct row *grown;

		next = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		line++;
		if (nl > l && nl[-1] == '\r')
			nl[-1] = '\0';
		if (*l == '#' || !*l)
			continue;
		for (char *p = l; k < 3 && p; k++) {
			f[k] = p;
			if ((p = strchr(p, '\t')))
				*p++ = '\0';
			if (k == 2 && p) {
				k = 4;   /* a fourth field */
				break;
			}
		}
		if (k != 3 || !*f[1] || !*f[2]) {
			err_set(err, errlen, "%s:%d: not kind<TAB>English<TAB>translation", path, line);
			return ERR_PARSE;
		}
		if ((n = nargs(f[1])) < 0 || !placeholders_ok(f[2], n)) {
			err_set(err, errlen, "%s:%d: a conversion other than %%s %%d %%.Nf %%%%, or a {N} that is not "
			        "one of the format's arguments", path, line);
			return ERR_PARSE;
		}
		if (!strcmp(f[0], "reason"))
			kind = K_REASON;
		else if (!strcmp(f[0], "found"))
			kind = K_FOUND;
		else if (!strcmp(f[0], "item"))
			kind = K_ITEM;
		else {
			err_set(err, errlen, "%s:%d: kind '%s' is none of reason, found, item", path, line, f[0]);
			return ERR_PARSE;
		}
		for (size_t i = 0; i < t->n; i++)
			if (t->v[i].kind == kind && (kind != K_REASON || !strcmp(t->v[i].en, f[1]))) {
				err_set(err, errlen, "%s:%d: %s", path, line, kind == K_REASON ? "the English format is "
				        "given twice" : "a second line of this kind");
				return ERR_PARSE;
			}
		if (!(grown = realloc(t->v, (t->n + 1) * sizeof *t->v)))
			return ERR_NOMEM;
		t->v = grown;
		grown = &t->v[t->n];
		grown->kind = kind;
		/* the tail is found by the text before its one %s: it must end the format */
		if (kind == K_FOUND && (n != 1 || strlen(f[1]) < 3 || strcmp(f[1] + strlen(f[1]) - 2, "%s") ||
		                        !strstr(f[2], "{1}"))) {
			err_set(err, errlen, "%s:%d: a found line's format is some text and then %%s, its translation "
			        "holds {1}", path, line);
			return ERR_PARSE;
		}
		if (!(grown->en = strdup(f[1])) || !(grown->ko = strdup(f[2]))) {
			free(grown->en);
			return ERR_NOMEM;
		}
		t->n++;
	}
	/* rows are final: point at them only now (realloc moved them while reading) */
	for (size_t i = 0; i < t->n; i++) {
		if (t->v[i].kind == K_FOUND)
			t->found = &t->v[i];
		else if (t->v[i].kind == K_ITEM)
			t->item = &t->v[i];
	}
	return OK;
}

/* read_table: path into t; ERR_NOTFOUND when there is no such file */
static enum err read_table(const char *path, struct table *t, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n;
	enum err e = ERR_IO;

	if (!f)
		return ERR_NOTFOUND;
	if (!(buf = malloc(MAX_FILE + 1))) {
		e = ERR_NOMEM;
		goto out;
	}
	n = fread(buf, 1, MAX_FILE + 1, f);
	if (ferror(f) || n > MAX_FILE) {
		err_set(err, errlen, "%s: unreadable or over %u bytes", path, MAX_FILE);
		goto out;
	}
	buf[n] = '\0';
	e = parse(buf, path, t, err, errlen);
out:
	free(buf);
	fclose(f);
	return e;
}

enum err decline_words_load(const char *dir, char *err, size_t errlen)
{
	struct table fresh[NLANGS];
	char path[4096];
	enum err e = OK;

	memset(fresh, 0, sizeof fresh);
	dir = i18n_dir(dir);
	/* English is what runs store: it has no table */
	for (size_t i = 1; i < NLANGS && e == OK; i++) {
		snprintf(path, sizeof path, "%s/%s.decline.tsv", dir, langs[i]);
		if ((e = read_table(path, &fresh[i], err, errlen)) == ERR_NOTFOUND)
			e = OK;
	}
	if (e != OK) {
		if (e == ERR_NOMEM)
			err_set(err, errlen, "out of memory");
		drop(fresh);
		return e;
	}
	drop(tables);
	memcpy(tables, fresh, sizeof tables);
	loaded = 1;
	return OK;
}

void decline_words_free(void)
{
	drop(tables);
	loaded = 0;
}

/* table_of: lang's table, loaded on first use; NULL for English or a language without one */
static const struct table *table_of(const char *lang)
{
	char err[256];

	if (!loaded) {
		loaded = 1;    /* a failure is logged once, not on every page */
		if (decline_words_load(NULL, err, sizeof err) != OK)
			log_warn("decline_words: %s (decline reasons show in English)", err);
	}
	for (size_t i = 1; lang && i < NLANGS; i++)
		if (!strcmp(langs[i], lang))
			return tables[i].n ? &tables[i] : NULL;
	return NULL;
}

/*
 * match: does [s, end) read as format f?  The arguments go to c[k...]; the number of arguments
 * in all, or -1.  %s takes the shortest text that lets the rest match (backtracking), a number
 * its digits.
 */
static int match(const char *f, const char *s, const char *end, struct cap *c, int k)
{
	while (*f) {
		size_t len;
		int t;

		if (*f != '%') {
			if (s == end || *s != *f)
				return -1;
			s++, f++;
			continue;
		}
		t = conv(f, &len);
		f += len;
		if (t == '%') {
			if (s == end || *s != '%')
				return -1;
			s++;
			continue;
		}
		if (t == 0 || k >= MAX_CAP)
			return -1;
		if (t == 's') {
			/* only where the next literal letter stands (or at the end, for a last %s) */
			for (const char *e = *f ? s : end; e <= end; e++) {
				int n;

				if (*f && *f != '%' && (e == end || *e != *f))
					continue;
				c[k] = (struct cap){s, (size_t)(e - s)};
				if ((n = match(f, e, end, c, k + 1)) >= 0)
					return n;
			}
			return -1;
		}
		{
			const char *e = s < end && *s == '-' ? s + 1 : s, *d0 = e;

			while (e < end && isdigit((unsigned char)*e))
				e++;
			if (e == d0)
				return -1;
			if (t == 'f' && e + 1 < end && *e == '.' && isdigit((unsigned char)e[1]))
				for (e++; e < end && isdigit((unsigned char)*e); e++)
					;
			c[k++] = (struct cap){s, (size_t)(e - s)};
			s = e;
		}
	}
	return s == end ? k : -1;
}

static int translate(const struct table *t, const char *s, size_t n, struct sb *out, int depth);

/* render: ko with its {N} filled from c (n arguments); {N:reason} translated as a reason */
static void render(const struct table *t, const char *ko, const struct cap *c, int n, struct sb *out, int depth)
{
	for (const char *p = ko; *p; ) {
		const char *o = strchr(p, '{');
		char *e;
		long k;
		int reason;

		if (!o) {
			sb_puts(out, p);
			break;
		}
		sb_append(out, p, (size_t)(o - p));
		k = strtol(o + 1, &e, 10);
		reason = !strncmp(e, ":reason", 7);
		if (reason)
			e += 7;
		/* the load checked every placeholder; one it did not (n of another format) is text */
		if (!isdigit((unsigned char)o[1]) || *e != '}' || k < 1 || k > n) {
			sb_putc(out, '{');
			p = o + 1;
			continue;
		}
		if (!reason || depth >= MAX_DEPTH || !translate(t, c[k - 1].s, c[k - 1].n, out, depth + 1))
			sb_append(out, c[k - 1].s, c[k - 1].n);
		p = e + 1;
	}
}

/* items: the tail's list [s, s + n), its items joined by ", ", each read as the item format;
 * rendered into out (NULL: only checked).  1 when every item reads, else 0. */
static int items(const struct table *t, const char *s, size_t n, struct sb *out)
{
	const char *end = s + n;
	struct cap c[MAX_CAP];

	if (!t->item) {
		if (out)
			sb_append(out, s, n);
		return 1;
	}
	while (s < end) {
		const char *e = s;
		int k = -1;

		/* an item ends at a ", " before the next quote or at the end; a quoted word that holds
		 * ", '" itself makes the first cut too short: try the next */
		for (;;) {
			const char *sep = memmem(e, (size_t)(end - e), ", '", 3);

			e = sep ? sep : end;
			if ((k = match(t->item->en, s, e, c, 0)) >= 0 || !sep)
				break;
			e = sep + 1;
		}
		if (k < 0)
			return 0;
		if (out)
			render(t, t->item->ko, c, k, out, MAX_DEPTH);
		if (e == end)
			break;
		if (out)
			sb_puts(out, ", ");
		s = e + 2;
	}
	return 1;
}

/*
 * translate: [s, s + n) as one reason of t, with its ". Found: ..." tail if any, appended to out:
 * 1; 0 (nothing appended) when no reason format reads it.  The tail is cut at the first marker
 * after which the rest reads as a list of items (a quoted word may hold the marker itself).
 */
static int translate(const struct table *t, const char *s, size_t n, struct sb *out, int depth)
{
	const char *end = s + n, *from = s;
	size_t mlen = t->found ? strlen(t->found->en) - 2 : 0;

	for (;;) {
		const char *cut = mlen ? memmem(from, (size_t)(end - from), t->found->en, mlen) : NULL;
		const char *head_end = cut ? cut : end;

		if (!cut || items(t, cut + mlen, (size_t)(end - cut - mlen), NULL)) {
			struct cap c[MAX_CAP], best[MAX_CAP];
			const struct row *r = NULL;
			size_t least = (size_t)-1;
			int nbest = 0;

			/* the format that reads most of the text as its own words wins ("the question
			 * names visits or stays (%s), ..." over "the question names %s, ...") */
			for (size_t i = 0; i < t->n; i++) {
				size_t args = 0;
				int k;

				if (t->v[i].kind != K_REASON || (k = match(t->v[i].en, s, head_end, c, 0)) < 0)
					continue;
				for (int j = 0; j < k; j++)
					args += c[j].n;
				if (args < least) {
					least = args;
					r = &t->v[i];
					nbest = k;
					memcpy(best, c, (size_t)k * sizeof *c);
				}
			}
			if (r) {
				render(t, r->ko, best, nbest, out, depth);
				if (cut) {
					/* the found line's translation with its one {1}: the list */
					const char *ko = t->found->ko, *o = strstr(ko, "{1}");

					sb_append(out, ko, o ? (size_t)(o - ko) : strlen(ko));
					if (o) {
						items(t, cut + mlen, (size_t)(end - cut - mlen), out);
						sb_puts(out, o + 3);
					}
				}
				return 1;
			}
		}
		if (!cut)
			return 0;
		from = cut + 1;
	}
}

void decline_words(const char *lang, const char *text, struct sb *out)
{
	const struct table *t;
	size_t n;

	if (!text)
		return;
	n = strlen(text);
	t = table_of(lang);
	if (!t || n > MAX_TEXT || !translate(t, text, n, out, 0))
		sb_puts(out, text);
}

int decline_words_has(const char *lang, const char *fmt)
{
	const struct table *t = table_of(lang);

	for (size_t i = 0; t && fmt && i < t->n; i++)
		if (t->v[i].kind == K_REASON && !strcmp(t->v[i].en, fmt))
			return 1;
	return 0;
}
