/* drugs.c: drug classes of medications, loaded from the data file conf/critique/drug_classes.tsv. */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "critique/critique.h"
#include "util/conf.h"
#include "util/file.h"
#include "util/log.h"

struct drug_class { char *id, *en, *ko, *atc; };
struct drug_name { char *name; size_t len; int cls; };   /* name lower-cased */

struct crit_drugs {
	struct drug_class *c;
	int nc;
	struct drug_name *d;
	int nd;
};

static void lower(char *s)
{
	for (; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

/* Split line at tabs into at most max fields (in place); the number found. */
static int fields(char *line, char **f, int max)
{
	int n = 0;

	f[n++] = line;
	for (char *p = line; *p && n < max + 1; p++)
		if (*p == '\t') {
			*p = 0;
			if (n == max)
				return max + 1;   /* too many */
			f[n++] = p + 1;
		}
	return n;
}

void crit_drugs_free(struct crit_drugs *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->nc; i++) {
		free(t->c[i].id);
		free(t->c[i].en);
		free(t->c[i].ko);
		free(t->c[i].atc);
	}
	for (int i = 0; i < t->nd; i++)
		free(t->d[i].name);
	free(t->c);
	free(t->d);
	free(t);
}

static int class_index(const struct crit_drugs *t, const char *id)
{
	for (int i = 0; i < t->nc; i++)
		if (!strcmp(t->c[i].id, id))
			return i;
	return -1;
}

struct crit_drugs *crit_drugs_parse(const char *text, char *err, size_t errlen)
{
	struct crit_drugs *t = calloc(1, sizeof *t);
	char *buf = strdup(text ? text : ""), *line, *save = NULL;
	int ln = 0;

	if (!t || !buf) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	/* strtok_r skips empty lines, so count line numbers by hand */
	for (char *p = buf; p; ) {
		char *nl = strchr(p, '\n');
		line = p;
		p = nl ? nl + 1 : NULL;
		if (nl)
			*nl = 0;
		ln++;
		size_t l = strlen(line);
		if (l && line[l - 1] == '\r')
			line[--l] = 0;
		if (!l || line[0] == '#')
			continue;
		char *f[6];
		int n = fields(line, f, 5);
		if (!strcmp(f[0], "class")) {
			if (n != 5 || !f[1][0] || !f[2][0] || !f[3][0]) {
				snprintf(err, errlen, "line %d: a class line has 5 fields: class, id, English, Korean, ATC", ln);
				goto fail;
			}
			if (class_index(t, f[1]) >= 0) {
				snprintf(err, errlen, "line %d: class %s defined twice", ln, f[1]);
				goto fail;
			}
			struct drug_class *nc = realloc(t->c, (size_t)(t->nc + 1) * sizeof *nc);
			if (!nc)
				goto oom;
			t->c = nc;
			t->c[t->nc++] = (struct drug_class){ strdup(f[1]), strdup(f[2]), strdup(f[3]), strdup(f[4]) };
		} else if (!strcmp(f[0], "drug")) {
			if (n != 4 || !f[2][0]) {
				snprintf(err, errlen, "line %d: a drug line has 4 fields: drug, class, names, ATC", ln);
				goto fail;
			}
			int ci = class_index(t, f[1]);
			if (ci < 0) {
				snprintf(err, errlen, "line %d: unknown class %s (declare it on a class line first)", ln, f[1]);
				goto fail;
			}
			for (char *nm = strtok_r(f[2], "|", &save); nm; nm = strtok_r(NULL, "|", &save)) {
				while (*nm == ' ')
					nm++;
				if (!*nm)
					continue;
				struct drug_name *nd = realloc(t->d, (size_t)(t->nd + 1) * sizeof *nd);
				if (!nd)
					goto oom;
				t->d = nd;
				char *s = strdup(nm);
				if (!s)
					goto oom;
				lower(s);
				t->d[t->nd++] = (struct drug_name){ s, strlen(s), ci };
			}
		} else {
			snprintf(err, errlen, "line %d: a line starts with class or drug, not %.40s", ln, f[0]);
			goto fail;
		}
	}
	free(buf);
	return t;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	free(buf);
	crit_drugs_free(t);
	return NULL;
}

struct crit_drugs *crit_drugs_load(const char *path, char *err, size_t errlen)
{
	char *text = file_read(path, 0, NULL);

	if (!text) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	char e[200] = "";
	struct crit_drugs *t = crit_drugs_parse(text, e, sizeof e);
	free(text);
	if (!t)
		snprintf(err, errlen, "%s: %s", path, e);
	return t;
}

/* A name shorter than 4 bytes (ffp, hes, kcl) is a whole word of the medication, not a part. */
static int matches(const char *low, const struct drug_name *d)
{
	const char *p = low;

	if (d->len >= 4)
		return strstr(low, d->name) != NULL;
	while ((p = strstr(p, d->name)) != NULL) {
		int before = p == low || !isalnum((unsigned char)p[-1]);
		int after = !isalnum((unsigned char)p[d->len]);
		if (before && after)
			return 1;
		p++;
	}
	return 0;
}

const char *crit_drugs_class(const struct crit_drugs *t, const char *drug)
{
	char low[256];
	size_t i, best = 0;
	int cls = -1;

	if (!t || !drug)
		return "other";
	for (i = 0; drug[i] && i < sizeof low - 1; i++)
		low[i] = (char)tolower((unsigned char)drug[i]);
	low[i] = 0;
	for (int k = 0; k < t->nd; k++)
		if (t->d[k].len > best && matches(low, &t->d[k])) {
			best = t->d[k].len;
			cls = t->d[k].cls;
		}
	return cls >= 0 ? t->c[cls].id : "other";
}

const char *crit_drugs_label(const struct crit_drugs *t, const char *cls, const char *lang)
{
	int ko = lang && !strcmp(lang, "ko");
	int i = t && cls ? class_index(t, cls) : -1;

	if (i < 0)
		return ko ? "기타" : "other";
	return ko ? t->c[i].ko : t->c[i].en;
}

const char *crit_drugs_atc(const struct crit_drugs *t, const char *cls)
{
	int i = t && cls ? class_index(t, cls) : -1;

	return i < 0 ? "" : t->c[i].atc;
}

/* ---- the table of conf drug_classes_file, loaded once per process ---- */

static struct crit_drugs *the;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load_once(void)
{
	char err[300];

	if (!(the = crit_drugs_load(conf_get("drug_classes_file"), err, sizeof err)))
		log_error("critique: drug classes not loaded (every medication is 'other'): %s", err);
}

const struct crit_drugs *crit_drugs_get(void)
{
	pthread_once(&once, load_once);
	return the;
}

const char *crit_drug_class(const char *drug)
{
	return crit_drugs_class(crit_drugs_get(), drug);
}

const char *crit_drug_class_label(const char *cls, const char *lang)
{
	return crit_drugs_label(crit_drugs_get(), cls, lang);
}
