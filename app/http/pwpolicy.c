/* pwpolicy.c: the rules a new password must pass (length, repetition, the list of common passwords; docs/auth.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "http/pwpolicy.h"
#include "util/conf.h"
#include "util/log.h"

#define LIST_MAX_LINES 1000000

static void lower_ascii(char *s)
{
	for (; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s - 'A' + 'a');
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void pw_list_free(struct pw_list *l)
{
	for (size_t i = 0; l && i < l->n; i++)
		free(l->v[i]);
	if (l) {
		free(l->v);
		l->v = NULL;
		l->n = 0;
	}
}

enum err pw_list_load(const char *path, struct pw_list *l, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[PW_MAX_BYTES + 3];
	size_t cap = 0, lineno = 0;
	enum err rc = OK;

	l->v = NULL;
	l->n = 0;
	if (!f) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return ERR_IO;
	}
	while (fgets(line, sizeof line, f)) {
		size_t len = strcspn(line, "\r\n");

		if (++lineno > LIST_MAX_LINES || (len == strlen(line) && !feof(f))) {
			snprintf(err, errlen, "%s: line %zu: over %d lines or %d bytes a line", path, lineno,
			         LIST_MAX_LINES, PW_MAX_BYTES);
			rc = ERR_LIMIT;
			break;
		}
		line[len] = '\0';
		if (!len || line[0] == '#')
			continue;
		if (l->n == cap) {
			char **nv = realloc(l->v, (cap = cap ? cap * 2 : 4096) * sizeof *nv);

			if (!nv) {
				rc = ERR_NOMEM;
				break;
			}
			l->v = nv;
		}
		if (!(l->v[l->n] = strdup(line))) {
			rc = ERR_NOMEM;
			break;
		}
		lower_ascii(l->v[l->n++]);
	}
	fclose(f);
	if (rc != OK) {
		if (rc == ERR_NOMEM)
			snprintf(err, errlen, "%s: out of memory", path);
		pw_list_free(l);
		return rc;
	}
	qsort(l->v, l->n, sizeof *l->v, cmp);
	return OK;
}

int pw_list_has(const struct pw_list *l, const char *pw)
{
	char low[PW_MAX_BYTES + 1];
	const char *k = low;

	if (!l || !l->n || strlen(pw) > PW_MAX_BYTES)
		return 0;
	snprintf(low, sizeof low, "%s", pw);
	lower_ascii(low);
	return bsearch(&k, l->v, l->n, sizeof *l->v, cmp) != NULL;
}

/* The UTF-8 code point starting at *p (advancing p); malformed bytes count one each. */
static unsigned long next_cp(const unsigned char **p)
{
	const unsigned char *s = *p;
	unsigned long c = *s++;
	int more = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;

	if (more)
		c &= 0x3F >> more;
	for (; more && (*s & 0xC0) == 0x80; more--)
		c = (c << 6) | (*s++ & 0x3F);
	*p = s;
	return c;
}

enum pw_verdict pw_judge(const char *pw, long min_len, const struct pw_list *common)
{
	unsigned long seen[PW_MIN_DISTINCT];
	int ndistinct = 0;
	long n = 0;

	if (!pw)
		return PW_SHORT;
	for (const unsigned char *p = (const unsigned char *)pw; *p; n++) {
		unsigned long c = next_cp(&p);
		int known = 0;

		for (int i = 0; i < ndistinct; i++)
			known |= seen[i] == c;
		if (!known && ndistinct < PW_MIN_DISTINCT)
			seen[ndistinct++] = c;
	}
	if (n < min_len)
		return PW_SHORT;
	if (ndistinct < PW_MIN_DISTINCT)
		return PW_REPETITIVE;
	if (!common)
		return PW_NO_LIST;
	return pw_list_has(common, pw) ? PW_COMMON : PW_OK;
}

enum pw_verdict auth_password_check(const char *pw)
{
	/* configuration read once and kept: the file does not change under a running worker */
	static struct pw_list list;
	static int loaded, failed;

	if (!loaded && !failed) {
		char err[512] = "";

		if (pw_list_load(conf_get("common_passwords_file"), &list, err, sizeof err) != OK || !list.n) {
			log_error("common passwords: %s; no new password is accepted until it can be read",
			          list.n ? err : *err ? err : "the list is empty");
			failed = 1;
		} else {
			loaded = 1;
		}
	}
	return pw_judge(pw, conf_get_int("password_min_length"), loaded ? &list : NULL);
}

const char *pw_verdict_key(enum pw_verdict v)
{
	static const char *const keys[PW__MAX] = {
		[PW_OK] = NULL,
		[PW_SHORT] = "password.short",
		[PW_REPETITIVE] = "password.repetitive",
		[PW_COMMON] = "password.common",
		[PW_NO_LIST] = "password.no_list",
	};

	return v >= 0 && v < PW__MAX ? keys[v] : "password.no_list";
}
