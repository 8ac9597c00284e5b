/* i18n.c: loads conf/i18n/<lang>.json (and <lang>.<part>.json) into flat and nested cJSON tables, English-completed. */
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "conf.h"
#include "i18n.h"
#include "log.h"

#define MAX_FILE (1u << 20)

static const char *const langs[] = I18N_LANGS;
#define NLANGS (sizeof langs / sizeof langs[0])

/* Per language: flat (key -> text, for i18n_get) and nested by dots (for templates). */
struct table {
	cJSON *flat;
	cJSON *nested;
};

static struct table tables[NLANGS];
static int loaded;

static int lang_index(const char *lang)
{
	for (size_t i = 0; lang && i < NLANGS; i++)
		if (!strcmp(langs[i], lang))
			return (int)i;
	return 0;  /* English */
}

/* read_json: parse path into *out (a flat object of strings). ERR_NOTFOUND if absent. */
static enum err read_json(const char *path, cJSON **out, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n;
	cJSON *doc = NULL, *it;
	enum err e = ERR_IO;

	*out = NULL;
	if (!f) {
		err_set(err, errlen, "%s: cannot open", path);
		return ERR_NOTFOUND;
	}
	if (!(buf = malloc(MAX_FILE + 1))) {
		e = ERR_NOMEM;
		goto out;
	}
	n = fread(buf, 1, MAX_FILE + 1, f);
	if (ferror(f) || n > MAX_FILE) {
		err_set(err, errlen, "%s: unreadable or over %u bytes", path, MAX_FILE);
		goto out;
	}
	e = ERR_PARSE;
	if (!(doc = cJSON_ParseWithLength(buf, n)) || !cJSON_IsObject(doc)) {
		err_set(err, errlen, "%s: not a JSON object", path);
		goto out;
	}
	cJSON_ArrayForEach(it, doc) {
		if (!cJSON_IsString(it) || !it->string[0]) {
			err_set(err, errlen, "%s: key '%s' is not a string", path, it->string);
			goto out;
		}
	}
	*out = doc;
	doc = NULL;
	e = OK;
out:
	cJSON_Delete(doc);
	free(buf);
	fclose(f);
	return e;
}

/* nest: add text under the dotted key in root ("a.b" -> root.a.b); 0 if
 * the key clashes with another ("a" a string and "a.b" a key too). */
static int nest(cJSON *root, const char *key, const char *text)
{
	cJSON *at = root;
	char part[256];
	const char *seg = key, *dot;

	while ((dot = strchr(seg, '.'))) {
		cJSON *sub;
		size_t n = (size_t)(dot - seg);

		if (!n || n >= sizeof part)
			return 0;
		memcpy(part, seg, n);
		part[n] = '\0';
		sub = cJSON_GetObjectItemCaseSensitive(at, part);
		if (!sub) {
			if (!(sub = cJSON_AddObjectToObject(at, part)))
				return 0;
		} else if (!cJSON_IsObject(sub)) {
			return 0;
		}
		at = sub;
		seg = dot + 1;
	}
	if (!*seg || cJSON_GetObjectItemCaseSensitive(at, seg))
		return 0;
	return cJSON_AddStringToObject(at, seg, text) != NULL;
}

/* add_parts: merge every <dir>/<lang>.<part>.json into flat, in name order;
 * a key defined twice (in the main file or another part) is ERR_PARSE.
 * Parts let each page keep its strings in its own file. */
static enum err add_parts(const char *dir, const char *lang, cJSON *flat, char *err, size_t errlen)
{
	char pattern[4096];
	glob_t g;
	enum err e = OK;
	int rc;

	snprintf(pattern, sizeof pattern, "%s/%s.*.json", dir, lang);
	rc = glob(pattern, 0, NULL, &g);
	if (rc == GLOB_NOMATCH)
		return OK;
	if (rc != 0) {
		err_set(err, errlen, "%s: cannot list", pattern);
		return ERR_IO;
	}
	for (size_t k = 0; k < g.gl_pathc && e == OK; k++) {
		cJSON *part = NULL, *it;

		if ((e = read_json(g.gl_pathv[k], &part, err, errlen)) != OK)
			break;
		while (e == OK && (it = part->child)) {
			cJSON_DetachItemViaPointer(part, it);
			if (cJSON_GetObjectItemCaseSensitive(flat, it->string)) {
				err_set(err, errlen, "%s: key '%s' is defined twice", g.gl_pathv[k], it->string);
				e = ERR_PARSE;
				cJSON_Delete(it);
			} else {
				cJSON_AddItemToObject(flat, it->string, it);
			}
		}
		cJSON_Delete(part);
	}
	globfree(&g);
	return e;
}

static void drop(struct table *t)
{
	for (size_t i = 0; i < NLANGS; i++) {
		cJSON_Delete(t[i].flat);
		cJSON_Delete(t[i].nested);
		t[i].flat = t[i].nested = NULL;
	}
}

const char *i18n_dir(const char *dir)
{
	if (!dir || !*dir)
		dir = conf_get("i18n_dir");
	return *dir ? dir : "conf/i18n";
}

enum err i18n_load(const char *dir, char *err, size_t errlen)
{
	struct table fresh[NLANGS];
	char path[4096];
	enum err e = OK;

	memset(fresh, 0, sizeof fresh);
	dir = i18n_dir(dir);
	for (size_t i = 0; i < NLANGS; i++) {
		const cJSON *it;

		snprintf(path, sizeof path, "%s/%s.json", dir, langs[i]);
		e = read_json(path, &fresh[i].flat, err, errlen);
		if (e == ERR_NOTFOUND && i > 0) {
			/* a language without a file is English */
			e = OK;
			fresh[i].flat = cJSON_CreateObject();
		}
		if (e == OK && fresh[i].flat)
			e = add_parts(dir, langs[i], fresh[i].flat, err, errlen);
		if (e != OK)
			goto out;
		e = ERR_NOMEM;
		if (!fresh[i].flat || !(fresh[i].nested = cJSON_CreateObject()))
			goto out;
		/* complete from English (i > 0: fresh[0] is loaded) */
		if (i > 0) {
			cJSON_ArrayForEach(it, fresh[0].flat)
				if (!cJSON_GetObjectItemCaseSensitive(fresh[i].flat, it->string) &&
				    !cJSON_AddStringToObject(fresh[i].flat, it->string, it->valuestring))
					goto out;
		}
		e = ERR_PARSE;
		cJSON_ArrayForEach(it, fresh[i].flat) {
			if (!nest(fresh[i].nested, it->string, it->valuestring)) {
				err_set(err, errlen, "%s: key '%s' clashes with another key (or is malformed)",
				       path, it->string);
				goto out;
			}
		}
		e = OK;
	}
out:
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

/* ensure: load on first use; a failure is logged once (keys show through)
 * and not retried on every call. */
static void ensure(void)
{
	char err[256];

	if (loaded)
		return;
	loaded = 1;
	if (i18n_load(NULL, err, sizeof err) != OK)
		log_warn("i18n: %s (interface shows keys)", err);
}

const char *i18n_get(const char *lang, const char *key)
{
	const cJSON *hit;
	int li;

	if (!key)
		return "";
	ensure();
	li = lang_index(lang);
	hit = tables[li].flat ? cJSON_GetObjectItemCaseSensitive(tables[li].flat, key) : NULL;
	if (!hit && tables[0].flat)
		hit = cJSON_GetObjectItemCaseSensitive(tables[0].flat, key);
	return cJSON_IsString(hit) ? hit->valuestring : key;
}

const cJSON *i18n_table(const char *lang)
{
	static cJSON empty = {.type = cJSON_Object};
	int li;

	ensure();
	li = lang_index(lang);
	return tables[li].nested ? tables[li].nested : &empty;
}

void i18n_format(struct sb *out, const char *lang, const char *key, const char *const *vars)
{
	const char *s = i18n_get(lang, key), *open, *close;

	while ((open = strchr(s, '{')) && (close = strchr(open + 1, '}'))) {
		size_t n = (size_t)(close - open - 1);
		const char *val = NULL;

		for (const char *const *v = vars; v && v[0] && v[1]; v += 2)
			if (strlen(v[0]) == n && !memcmp(v[0], open + 1, n)) {
				val = v[1];
				break;
			}
		if (val) {
			sb_append(out, s, (size_t)(open - s));
			sb_puts(out, val);
		} else {
			sb_append(out, s, (size_t)(close + 1 - s));
		}
		s = close + 1;
	}
	sb_puts(out, s);
}

const char *i18n_lang(const char *accept)
{
	const char *best = "en";
	double bestq = -1;

	/* "ko-KR,ko;q=0.9,en;q=0.8": the known primary tag with the highest q (default 1) */
	while (accept && *accept) {
		const char *end = strchr(accept, ','), *semi, *q;
		size_t taglen;
		double qv = 1.0;

		if (!end)
			end = accept + strlen(accept);
		while (accept < end && (*accept == ' ' || *accept == '\t'))
			accept++;
		semi = memchr(accept, ';', (size_t)(end - accept));
		for (taglen = 0; accept + taglen < (semi ? semi : end) &&
				 accept[taglen] != '-' && accept[taglen] != '_' && accept[taglen] != ' ';
		     taglen++)
			;
		if (semi && (q = strstr(semi, "q=")) && q < end)
			qv = strtod(q + 2, NULL);
		for (size_t i = 0; i < NLANGS; i++) {
			if (strlen(langs[i]) == taglen && !strncasecmp(langs[i], accept, taglen) &&
			    qv > 0 && qv > bestq) {
				best = langs[i];
				bestq = qv;
			}
		}
		accept = *end ? end + 1 : end;
	}
	return best;
}

void i18n_free(void)
{
	drop(tables);
	loaded = 0;
}
