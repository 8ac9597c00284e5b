/* target_secret.c: targets' passwords out of askql.targets: split from a conninfo, kept in a 0600 file by target name, merged back when a connection is made (target_secret.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libpq-fe.h>
#include "store/target_secret.h"
#include "util/file.h"
#include "util/pfile.h"
#include "util/sb.h"

/* the keywords kept out of the table: libpq's options it marks "*" (secret) for display */
static const char *const secret_kw[] = {"password", "sslpassword"};
#define NSECRET_KW (int)(sizeof secret_kw / sizeof secret_kw[0])

static int is_secret(const char *kw)
{
	for (int i = 0; i < NSECRET_KW; i++)
		if (!strcmp(kw, secret_kw[i]))
			return 1;
	return 0;
}

static void quote(struct sb *s, const char *v)
{
	sb_putc(s, '\'');
	for (; *v; v++) {
		if (*v == '\'' || *v == '\\')
			sb_putc(s, '\\');
		sb_putc(s, *v);
	}
	sb_putc(s, '\'');
}

/* the place a parsed conninfo connects to, as written: host, hostaddr, port */
static void where_of(PQconninfoOption *o, char *out, size_t n)
{
	const char *h = "", *ha = "", *p = "";

	for (; o->keyword; o++) {
		if (!o->val)
			continue;
		if (!strcmp(o->keyword, "host"))
			h = o->val;
		else if (!strcmp(o->keyword, "hostaddr"))
			ha = o->val;
		else if (!strcmp(o->keyword, "port"))
			p = o->val;
	}
	snprintf(out, n, "host=%s hostaddr=%s port=%s", h, ha, p);
}

/* o as key=value, then the secrets add[0..nadd); without o's secrets when nadd is 0 (a split), else
 * without only those add replaces (a merge keeps a secret the row itself holds) */
static char *rebuild(PQconninfoOption *o, const struct tsecret *add, int nadd)
{
	struct sb s = SB_INIT;

	for (; o->keyword; o++) {
		int drop = 0;

		if (!o->val)
			continue;
		if (is_secret(o->keyword)) {
			drop = nadd == 0;
			for (int i = 0; i < nadd; i++)
				drop |= !strcmp(add[i].kw, o->keyword);
		}
		if (drop)
			continue;
		sb_printf(&s, "%s%s=", s.len ? " " : "", o->keyword);
		quote(&s, o->val);
	}
	for (int i = 0; i < nadd; i++) {
		sb_printf(&s, "%s%s=", s.len ? " " : "", add[i].kw);
		quote(&s, add[i].value);
	}
	if (!sb_ok(&s)) {
		sb_free(&s);
		return NULL;
	}
	return sb_steal(&s);
}

enum err tsecret_split(const char *conninfo, const char *which, char **clean, struct tsecret *out, int *n, int max,
                       char *err, size_t errlen)
{
	PQconninfoOption *o, *p;
	char *e = NULL, where[600];
	int any = 0;
	enum err rc = OK;

	*clean = NULL;
	*n = 0;
	if (!conninfo || !*conninfo)
		return OK;
	if (!(o = PQconninfoParse(conninfo, &e))) {
		err_set(err, errlen, "the connection string does not parse: %s", e ? e : "out of memory");
		PQfreemem(e);
		return ERR_PARSE;
	}
	where_of(o, where, sizeof where);
	for (p = o; p->keyword && rc == OK; p++) {
		if (!p->val || !is_secret(p->keyword))
			continue;
		any = 1;
		if (strlen(p->val) > TSECRET_VALUE_MAX || *n >= max) {
			err_set(err, errlen, "the connection's %s is longer than %d bytes", p->keyword, TSECRET_VALUE_MAX);
			rc = ERR_LIMIT;
			break;
		}
		memset(&out[*n], 0, sizeof out[*n]);
		snprintf(out[*n].which, sizeof out[*n].which, "%s", which);
		snprintf(out[*n].kw, sizeof out[*n].kw, "%s", p->keyword);
		snprintf(out[*n].where, sizeof out[*n].where, "%s", where);
		snprintf(out[*n].value, sizeof out[*n].value, "%s", p->val);
		(*n)++;
	}
	if (rc == OK && !(*clean = any ? rebuild(o, NULL, 0) : strdup(conninfo)))
		rc = ERR_NOMEM;
	if (rc != OK) {
		/* nothing of a secret outlives a failure */
		for (int i = 0; i < *n; i++)
			memset(out[i].value, 0, sizeof out[i].value);
		*n = 0;
	}
	PQconninfoFree(o);
	return rc;
}

char *tsecret_merge(const char *stored, const char *which, const struct tsecret *list, int n)
{
	PQconninfoOption *o, *p;
	struct tsecret mine[TSECRET_MAX];
	char where[600], *res;
	int k = 0, own = 0;

	if (!stored)
		return NULL;
	if (!(o = PQconninfoParse(stored, NULL)))
		return strdup(stored);
	for (p = o; p->keyword; p++)
		own |= p->val && !strcmp(p->keyword, "password");
	where_of(o, where, sizeof where);
	for (int i = 0; i < n && k < TSECRET_MAX && !own; i++)
		if (!strcmp(list[i].which, which) && !strcmp(list[i].where, where))
			mine[k++] = list[i];
	res = k ? rebuild(o, mine, k) : strdup(stored);
	memset(mine, 0, sizeof mine);
	PQconninfoFree(o);
	return res;
}

/* ---- the file: "# ..." comments, then one secret a line:
 *      name TAB which TAB keyword TAB where TAB value
 * with every control byte and backslash of where and value written as \xHH */

static void esc(struct sb *s, const char *v)
{
	for (; *v; v++) {
		unsigned char c = (unsigned char)*v;

		if (c < 0x20 || c == 0x7f || c == '\\')
			sb_printf(s, "\\x%02x", c);
		else
			sb_putc(s, (char)c);
	}
}

/* unescape src[0..n) into dst (cap bytes); -1 on a bad escape or overflow */
static int unesc(const char *src, size_t n, char *dst, size_t cap)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		char c = src[i];

		if (c == '\\') {
			char hex[3];

			if (i + 3 >= n || src[i + 1] != 'x' || !isxdigit((unsigned char)src[i + 2]) ||
			    !isxdigit((unsigned char)src[i + 3]))
				return -1;
			hex[0] = src[i + 2];
			hex[1] = src[i + 3];
			hex[2] = '\0';
			c = (char)strtoul(hex, NULL, 16);
			i += 3;
		}
		if (o + 1 >= cap)
			return -1;
		dst[o++] = c;
	}
	dst[o] = '\0';
	return 0;
}

/* parse one line into name (cap TSECRET name) and s; 1 good, 0 comment/blank, -1 bad */
static int parse_line(const char *line, size_t len, char *name, size_t nname, struct tsecret *s)
{
	const char *f[5];
	size_t fl[5];
	const char *p = line, *end = line + len;
	int k;

	if (len == 0 || *line == '#')
		return 0;
	for (k = 0; k < 5; k++) {
		const char *t = memchr(p, '\t', (size_t)(end - p));

		f[k] = p;
		fl[k] = (size_t)((t && k < 4 ? t : end) - p);
		if (k < 4 && !t)
			return -1;
		p = f[k] + fl[k] + 1;
	}
	memset(s, 0, sizeof *s);
	if (fl[0] == 0 || fl[0] >= nname || fl[1] >= sizeof s->which || fl[2] >= sizeof s->kw)
		return -1;
	snprintf(name, nname, "%.*s", (int)fl[0], f[0]);
	snprintf(s->which, sizeof s->which, "%.*s", (int)fl[1], f[1]);
	snprintf(s->kw, sizeof s->kw, "%.*s", (int)fl[2], f[2]);
	if ((strcmp(s->which, "conn") && strcmp(s->which, "ro")) || !is_secret(s->kw) ||
	    unesc(f[3], fl[3], s->where, sizeof s->where) || unesc(f[4], fl[4], s->value, sizeof s->value))
		return -1;
	return 1;
}

/* walk the file's lines: for each secret call fn; stop with the first bad line (ERR_PARSE) */
static enum err each_line(const char *text, size_t len, char *err, size_t errlen,
                          void (*fn)(void *, const char *, const char *, size_t, const struct tsecret *), void *ctx)
{
	const char *p = text, *end = text + len;
	int lineno = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = (size_t)((nl ? nl : end) - p);
		char name[80];
		struct tsecret s;
		int got;

		lineno++;
		if ((got = parse_line(p, l, name, sizeof name, &s)) < 0) {
			err_set(err, errlen, "the target secrets file has a bad line %d", lineno);
			return ERR_PARSE;
		}
		if (got)
			fn(ctx, name, p, l, &s);
		memset(&s, 0, sizeof s);
		p += l + 1;
	}
	return OK;
}

struct load_ctx { const char *name; struct tsecret *out; int *n, max; };

static void load_one(void *ctx, const char *name, const char *line, size_t len, const struct tsecret *s)
{
	struct load_ctx *c = ctx;

	(void)line;
	(void)len;
	if (!strcmp(name, c->name) && *c->n < c->max)
		c->out[(*c->n)++] = *s;
}

/* the file's text (NULL with *missing when there is none) */
static char *read_file(const char *path, size_t *len, int *missing, char *err, size_t errlen)
{
	char *t;

	*missing = 0;
	if ((t = file_read(path, TSECRET_FILE_MAX, len)))
		return t;
	if (errno == ENOENT) {
		*missing = 1;
		return NULL;
	}
	err_set(err, errlen, "the target secrets file %s cannot be read: %s", path,
	        errno == EFBIG ? "larger than 1 MiB" : strerror(errno));
	return NULL;
}

enum err tsecret_load(const char *path, const char *name, struct tsecret *out, int *n, int max, char *err,
                      size_t errlen)
{
	struct load_ctx c = {name, out, n, max};
	size_t len;
	int missing;
	char *t;
	enum err rc;

	*n = 0;
	if (!(t = read_file(path, &len, &missing, err, errlen)))
		return missing ? OK : ERR_IO;
	rc = each_line(t, len, err, errlen, load_one, &c);
	memset(t, 0, len);
	free(t);
	return rc;
}

struct keep_ctx { const char *name; struct sb *sb; };

static void keep_other(void *ctx, const char *name, const char *line, size_t len, const struct tsecret *s)
{
	struct keep_ctx *c = ctx;

	(void)s;
	if (strcmp(name, c->name)) {
		sb_append(c->sb, line, len);
		sb_putc(c->sb, '\n');
	}
}

enum err tsecret_store(const char *path, const char *name, const struct tsecret *list, int n, char *err,
                       size_t errlen)
{
	struct sb s = SB_INIT;
	struct keep_ctx c = {name, &s};
	size_t len = 0;
	int missing, lk;
	char *t = NULL;
	enum err rc = OK;

	if (!name || !*name || strpbrk(name, "\t\n\\")) {
		err_set(err, errlen, "a target name for the secrets file may not hold a tab, newline or backslash");
		return ERR_INPUT;
	}
	if ((lk = pfile_lock(path, err, errlen)) < 0)
		return ERR_IO;
	t = read_file(path, &len, &missing, err, errlen);
	if (!t && !missing) {
		rc = ERR_IO;
		goto out;
	}
	sb_puts(&s, "# askql target secrets (docs/privacy.md): name, connection, keyword, where, value; 0600\n");
	if (t && (rc = each_line(t, len, err, errlen, keep_other, &c)) != OK)
		goto out;
	for (int i = 0; i < n; i++) {
		sb_printf(&s, "%s\t%s\t%s\t", name, list[i].which, list[i].kw);
		esc(&s, list[i].where);
		sb_putc(&s, '\t');
		esc(&s, list[i].value);
		sb_putc(&s, '\n');
	}
	if (!sb_ok(&s)) {
		err_set(err, errlen, "out of memory");
		rc = ERR_NOMEM;
		goto out;
	}
	rc = pfile_replace(path, sb_cstr(&s), s.len, err, errlen);
out:
	if (t) {
		memset(t, 0, len);
		free(t);
	}
	if (s.len)
		memset(s.buf, 0, s.len);
	sb_free(&s);
	pfile_unlock(lk);
	return rc;
}
