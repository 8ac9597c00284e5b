/* tpl.c: the Mustache compiler (text -> flat node list), renderer (nodes + cJSON -> sb) and file cache. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "tpl.h"

enum ntype { N_TEXT, N_VAR, N_RAW, N_SECTION, N_INVERTED, N_PARTIAL };

/*
 * A template is a flat array of nodes; a section's body is the nodes
 * (i, end) after it, so rendering a section is rendering a sub-range.
 * Text and indentation point into the template's own copy of the source;
 * names are NUL-terminated in place (the byte after a name is always tag
 * syntax, never output).
 */
struct node {
	enum ntype type;
	int bol;              /* starts a source line: a partial's indentation goes here */
	const char *s;        /* N_TEXT: the text; others: the NUL-terminated name */
	size_t n;             /* N_TEXT: its length */
	const char *ind;      /* N_PARTIAL standalone: its indentation */
	size_t indn;
	size_t end;           /* sections: index of the first node after the body */
};

struct tpl {
	char *src;
	size_t len;
	struct node *nodes;
	size_t nn, cap;
};

/* ---------------------------------------------------------------- compiler */

static int line_of(const struct tpl *t, const char *p)
{
	int line = 1;

	for (const char *q = t->src; q < p; q++)
		line += *q == '\n';
	return line;
}

static struct node *add_node(struct tpl *t, enum ntype type, int bol)
{
	struct node *nd;

	if (t->nn == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 32;
		struct node *nb = realloc(t->nodes, cap * sizeof *nb);

		if (!nb)
			return NULL;
		t->nodes = nb;
		t->cap = cap;
	}
	nd = &t->nodes[t->nn++];
	memset(nd, 0, sizeof *nd);
	nd->type = type;
	nd->bol = bol;
	return nd;
}

static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* find: first occurrence of needle in src[from, len), or (size_t)-1. */
static size_t find(const char *src, size_t len, size_t from, const char *needle, size_t nl)
{
	const char *p;

	if (from > len)
		return (size_t)-1;
	p = memmem(src + from, len - from, needle, nl);
	return p ? (size_t)(p - src) : (size_t)-1;
}

/* set_delims: parse "=<open> <close>=" content [a, b) into od/cd. */
static int set_delims(const char *a, const char *b, char *od, size_t *odl, char *cd, size_t *cdl)
{
	const char *o, *oe, *c, *ce;

	while (a < b && is_ws(*a))
		a++;
	while (b > a && is_ws(b[-1]))
		b--;
	for (o = oe = a; oe < b && !is_ws(*oe); oe++)
		;
	for (c = oe; c < b && is_ws(*c); c++)
		;
	for (ce = c; ce < b && !is_ws(*ce); ce++)
		;
	if (oe == o || ce == c || ce != b || oe - o > TPL_MAX_DELIM || ce - c > TPL_MAX_DELIM)
		return 0;
	/* '=' inside a delimiter would make the next {{= ... =}} ambiguous */
	if (memchr(o, '=', (size_t)(oe - o)) || memchr(c, '=', (size_t)(ce - c)))
		return 0;
	memcpy(od, o, (size_t)(oe - o));
	*odl = (size_t)(oe - o);
	memcpy(cd, c, (size_t)(ce - c));
	*cdl = (size_t)(ce - c);
	return 1;
}

static enum err compile(struct tpl *t, char *err, size_t errlen)
{
	char *src = t->src;
	size_t len = t->len;
	char od[TPL_MAX_DELIM + 1] = "{{", cd[TPL_MAX_DELIM + 1] = "}}";
	char closer[TPL_MAX_DELIM + 2];
	size_t odl = 2, cdl = 2;
	size_t text_start = 0;      /* start of the text not yet emitted */
	int at_bol = 1;             /* text_start is at the start of a line */
	size_t stack[TPL_MAX_DEPTH];
	int depth = 0;

	for (;;) {
		size_t tag = find(src, len, text_start, od, odl);
		size_t p, close, tag_end, q, eol = 0, chunk_end, a, b;
		int standalone = 0, tag_bol;
		char sig;
		enum ntype type;
		struct node *nd;

		if (tag == (size_t)-1)
			break;
		p = tag + odl;
		sig = p < len ? src[p] : '\0';
		/* the closer: "}" + close for triple mustaches, "=" + close for delimiters */
		if (sig == '{' || sig == '=') {
			closer[0] = sig == '{' ? '}' : '=';
			memcpy(closer + 1, cd, cdl);
			close = find(src, len, p + 1, closer, cdl + 1);
			tag_end = close + cdl + 1;
			a = p + 1;
		} else {
			close = find(src, len, p, cd, cdl);
			tag_end = close + cdl;
			a = p;
			if (sig == '#' || sig == '^' || sig == '/' || sig == '!' || sig == '>' || sig == '&')
				a++;
		}
		if (close == (size_t)-1) {
			err_set(err, errlen, "line %d: unclosed tag '%.*s'", line_of(t, src + tag), (int)odl, od);
			return ERR_PARSE;
		}
		b = close;

		/* standalone: only whitespace around the tag on its line */
		if (sig == '#' || sig == '^' || sig == '/' || sig == '!' || sig == '>' || sig == '=') {
			q = tag;
			while (q > text_start && (src[q - 1] == ' ' || src[q - 1] == '\t'))
				q--;
			if (q > text_start ? src[q - 1] == '\n' : at_bol) {
				eol = tag_end;
				while (eol < len && (src[eol] == ' ' || src[eol] == '\t'))
					eol++;
				if (eol == len)
					standalone = 1;
				else if (src[eol] == '\n')
					standalone = 1, eol++;
				else if (src[eol] == '\r' && eol + 1 < len && src[eol + 1] == '\n')
					standalone = 1, eol += 2;
			}
		}
		chunk_end = standalone ? q : tag;
		if (chunk_end > text_start) {
			if (!(nd = add_node(t, N_TEXT, at_bol)))
				return ERR_NOMEM;
			nd->s = src + text_start;
			nd->n = chunk_end - text_start;
			tag_bol = src[chunk_end - 1] == '\n';
		} else {
			tag_bol = at_bol;
		}

		if (sig == '=') {
			if (!set_delims(src + a, src + b, od, &odl, cd, &cdl)) {
				err_set(err, errlen, "line %d: bad set-delimiter tag", line_of(t, src + tag));
				return ERR_PARSE;
			}
			goto next;
		}
		if (sig == '!')
			goto next;
		while (a < b && is_ws(src[a]))
			a++;
		while (b > a && is_ws(src[b - 1]))
			b--;
		if (a == b) {
			err_set(err, errlen, "line %d: empty tag name", line_of(t, src + tag));
			return ERR_PARSE;
		}
		src[b] = '\0';  /* b is whitespace or the closer: tag syntax, not output */

		if (sig == '/') {
			struct node *open;

			if (!depth) {
				err_set(err, errlen, "line %d: close tag '%s' without an open section",
				       line_of(t, src + tag), src + a);
				return ERR_PARSE;
			}
			open = &t->nodes[stack[depth - 1]];
			if (strcmp(open->s, src + a)) {
				err_set(err, errlen, "line %d: close tag '%s' does not match section '%s' opened at line %d",
				       line_of(t, src + tag), src + a, open->s, line_of(t, open->s));
				return ERR_PARSE;
			}
			open->end = t->nn;
			depth--;
			goto next;
		}
		switch (sig) {
		case '#': type = N_SECTION; break;
		case '^': type = N_INVERTED; break;
		case '>': type = N_PARTIAL; break;
		case '{': case '&': type = N_RAW; break;
		default: type = N_VAR; break;
		}
		if (!(nd = add_node(t, type, standalone ? 0 : tag_bol)))
			return ERR_NOMEM;
		nd->s = src + a;
		if (type == N_PARTIAL && standalone) {
			nd->ind = src + q;
			nd->indn = tag - q;
		}
		if (type == N_SECTION || type == N_INVERTED) {
			if (depth == TPL_MAX_DEPTH) {
				err_set(err, errlen, "line %d: sections nested deeper than %d",
				       line_of(t, src + tag), TPL_MAX_DEPTH);
				return ERR_LIMIT;
			}
			stack[depth++] = t->nn - 1;
		}
next:
		if (standalone) {
			text_start = eol;
			at_bol = 1;
		} else {
			text_start = tag_end;
			at_bol = 0;
		}
	}
	if (depth) {
		const struct node *open = &t->nodes[stack[depth - 1]];

		err_set(err, errlen, "line %d: unclosed section '%s'", line_of(t, open->s), open->s);
		return ERR_PARSE;
	}
	if (text_start < len) {
		struct node *nd = add_node(t, N_TEXT, at_bol);

		if (!nd)
			return ERR_NOMEM;
		nd->s = src + text_start;
		nd->n = len - text_start;
	}
	return OK;
}

enum err tpl_compile(const char *src, size_t len, struct tpl **out, char *err, size_t errlen)
{
	struct tpl *t = NULL;
	enum err e;

	*out = NULL;
	if (len > TPL_MAX_SIZE) {
		err_set(err, errlen, "template is %zu bytes, over the %u byte limit", len, TPL_MAX_SIZE);
		return ERR_LIMIT;
	}
	e = ERR_NOMEM;
	if (!(t = calloc(1, sizeof *t)) || !(t->src = malloc(len + 1))) {
		err_set(err, errlen, "out of memory");
		goto out;
	}
	if (len)
		memcpy(t->src, src, len);
	t->src[len] = '\0';
	t->len = len;
	if ((e = compile(t, err, errlen)) != OK) {
		if (e == ERR_NOMEM)
			err_set(err, errlen, "out of memory");
		goto out;
	}
	*out = t;
	t = NULL;
out:
	tpl_free(t);
	return e;
}

void tpl_free(struct tpl *t)
{
	if (!t)
		return;
	free(t->src);
	free(t->nodes);
	free(t);
}

/* ---------------------------------------------------------------- renderer */

/* The context stack lives on the C stack, one frame per section level. */
struct ctx {
	const cJSON *v;
	const struct ctx *up;
};

/* Partials resolved during one render, so each name is looked up once. */
struct memo {
	char *name;
	struct tpl *t;        /* NULL: not found (renders empty) */
	int owned;            /* 1: compiled for this render, freed at its end */
	struct memo *next;
};

struct render {
	struct sb *out;
	size_t start;         /* out->len when the render began */
	unsigned long steps;
	int pdepth;
	const struct tpl_partials *partials; /* string mode */
	const char *dir;                     /* file mode */
	struct memo *memo;
	char *err;
	size_t errlen;
};

static const cJSON *child(const cJSON *obj, const char *k, size_t n)
{
	for (const cJSON *c = obj->child; c; c = c->next)
		if (c->string && !strncmp(c->string, k, n) && c->string[n] == '\0')
			return c;
	return NULL;
}

/* lookup: resolve a (dotted) name: the first segment up the context stack,
 * the rest strictly inside what it found (the spec's "no masking"). */
static const cJSON *lookup(const struct ctx *c, const char *name)
{
	const cJSON *hit = NULL;
	const char *seg = name, *dot;

	if (name[0] == '.' && name[1] == '\0')
		return c->v;
	dot = strchr(seg, '.');
	if (!dot)
		dot = seg + strlen(seg);
	for (; c; c = c->up)
		if (cJSON_IsObject(c->v) && (hit = child(c->v, seg, (size_t)(dot - seg))))
			break;
	while (hit && *dot == '.') {
		seg = dot + 1;
		dot = strchr(seg, '.');
		if (!dot)
			dot = seg + strlen(seg);
		hit = cJSON_IsObject(hit) ? child(hit, seg, (size_t)(dot - seg)) : NULL;
	}
	return hit;
}

static int falsey(const cJSON *v)
{
	return !v || cJSON_IsNull(v) || cJSON_IsFalse(v) ||
	       (cJSON_IsString(v) && (!v->valuestring || !v->valuestring[0])) ||
	       (cJSON_IsNumber(v) && v->valuedouble == 0) ||
	       (cJSON_IsArray(v) && !v->child);
}

/* put_number: integers without a decimal point, others as the shortest
 * of %.15g / %.17g that reads back to the same double. */
static void put_number(struct sb *sb, double d)
{
	char buf[40];

	if (fabs(d) < 1e15 && d == (double)(long long)d) {
		snprintf(buf, sizeof buf, "%lld", (long long)d);
	} else {
		snprintf(buf, sizeof buf, "%.15g", d);
		if (strtod(buf, NULL) != d)
			snprintf(buf, sizeof buf, "%.17g", d);
	}
	sb_puts(sb, buf);
}

static void interp(struct sb *sb, const cJSON *v, int escape)
{
	if (!v)
		return;
	if (cJSON_IsString(v)) {
		if (escape)
			sb_html(sb, v->valuestring);
		else
			sb_puts(sb, v->valuestring);
	} else if (cJSON_IsNumber(v)) {
		put_number(sb, v->valuedouble);
	} else if (cJSON_IsTrue(v)) {
		sb_puts(sb, "true");
	} else if (cJSON_IsFalse(v)) {
		sb_puts(sb, "false");
	}
}

/* put_text: s[0..n), with the partial indentation after every inner newline. */
static void put_text(struct sb *sb, const char *s, size_t n, const char *ind, size_t indn)
{
	const char *nl;

	while (indn && n && (nl = memchr(s, '\n', n)) && (size_t)(nl - s) + 1 < n) {
		size_t k = (size_t)(nl - s) + 1;

		sb_append(sb, s, k);
		sb_append(sb, ind, indn);
		s += k;
		n -= k;
	}
	sb_append(sb, s, n);
}

static enum err cache_get(const char *dir, const char *name, struct tpl **out, char *err, size_t errlen);

/* resolve: the compiled partial called name, or NULL (not found). */
static enum err resolve(struct render *r, const char *name, const struct tpl **out)
{
	struct memo *m;
	enum err e = OK;

	for (m = r->memo; m; m = m->next) {
		if (!strcmp(m->name, name)) {
			*out = m->t;
			return OK;
		}
	}
	if (!(m = calloc(1, sizeof *m)) || !(m->name = strdup(name))) {
		free(m);
		err_set(r->err, r->errlen, "out of memory");
		return ERR_NOMEM;
	}
	m->next = r->memo;
	r->memo = m;
	if (r->dir) {
		char ferr[300];

		/* copied only on failure: a missing partial is not an error */
		if ((e = cache_get(r->dir, name, &m->t, ferr, sizeof ferr)) != OK && e != ERR_NOTFOUND)
			err_set(r->err, r->errlen, "partial '%s': %s", name, ferr);
	} else if (r->partials && r->partials->get) {
		const char *text = NULL;
		size_t len = 0;
		char perr[200];

		e = r->partials->get(r->partials->ctx, name, &text, &len);
		if (e == OK) {
			e = tpl_compile(text, len, &m->t, perr, sizeof perr);
			m->owned = 1;
			if (e != OK)
				err_set(r->err, r->errlen, "partial '%s': %s", name, perr);
		} else if (e != ERR_NOTFOUND) {
			err_set(r->err, r->errlen, "partial '%s': %s", name, err_str(e));
		}
	}
	if (e == ERR_NOTFOUND)
		e = OK;
	*out = m->t;
	return e;
}

static enum err run(struct render *r, const struct tpl *t, size_t from, size_t to,
		    const struct ctx *c, const char *ind, size_t indn)
{
	enum err e;

	for (size_t i = from; i < to; i++) {
		const struct node *nd = &t->nodes[i];
		const cJSON *v;

		if (++r->steps > TPL_MAX_STEPS) {
			err_set(r->err, r->errlen, "render took more than %lu steps", TPL_MAX_STEPS);
			return ERR_LIMIT;
		}
		if (nd->bol && indn)
			sb_append(r->out, ind, indn);
		switch (nd->type) {
		case N_TEXT:
			put_text(r->out, nd->s, nd->n, ind, indn);
			break;
		case N_VAR:
		case N_RAW:
			interp(r->out, lookup(c, nd->s), nd->type == N_VAR);
			break;
		case N_SECTION:
			v = lookup(c, nd->s);
			if (cJSON_IsArray(v)) {
				for (const cJSON *el = v->child; el; el = el->next) {
					struct ctx in = {el, c};

					/* an iteration is a step even when the body is empty */
					if (++r->steps > TPL_MAX_STEPS) {
						err_set(r->err, r->errlen, "render took more than %lu steps", TPL_MAX_STEPS);
						return ERR_LIMIT;
					}
					if ((e = run(r, t, i + 1, nd->end, &in, ind, indn)) != OK)
						return e;
				}
			} else if (!falsey(v)) {
				struct ctx in = {v, c};

				if ((e = run(r, t, i + 1, nd->end, &in, ind, indn)) != OK)
					return e;
			}
			i = nd->end - 1;
			break;
		case N_INVERTED:
			if (falsey(lookup(c, nd->s)) && (e = run(r, t, i + 1, nd->end, c, ind, indn)) != OK)
				return e;
			i = nd->end - 1;
			break;
		case N_PARTIAL: {
			const struct tpl *p;
			char *pind = NULL;

			if (r->pdepth >= TPL_MAX_PARTIALS) {
				err_set(r->err, r->errlen, "partials nested deeper than %d (at '%s')",
				       TPL_MAX_PARTIALS, nd->s);
				return ERR_LIMIT;
			}
			if ((e = resolve(r, nd->s, &p)) != OK)
				return e;
			if (!p)
				break;
			/* a standalone partial indents by the outer indentation plus its own */
			if (nd->indn) {
				if (!(pind = malloc(indn + nd->indn))) {
					err_set(r->err, r->errlen, "out of memory");
					return ERR_NOMEM;
				}
				if (indn)
					memcpy(pind, ind, indn);
				memcpy(pind + indn, nd->ind, nd->indn);
			}
			r->pdepth++;
			e = run(r, p, 0, p->nn, c, pind ? pind : ind, indn + nd->indn);
			r->pdepth--;
			free(pind);
			if (e != OK)
				return e;
			break;
		}
		}
		if (!sb_ok(r->out)) {
			err_set(r->err, r->errlen, "out of memory");
			return ERR_NOMEM;
		}
		if (r->out->len - r->start > TPL_MAX_OUTPUT) {
			err_set(r->err, r->errlen, "output over the %zu byte limit", TPL_MAX_OUTPUT);
			return ERR_LIMIT;
		}
	}
	return OK;
}

/* render: run t over data with r's partial source, then undo the output on error. */
static enum err render(struct render *r, const struct tpl *t, const cJSON *data)
{
	struct ctx root = {data, NULL};
	enum err e;

	r->start = r->out->len;
	e = run(r, t, 0, t->nn, &root, NULL, 0);
	while (r->memo) {
		struct memo *m = r->memo;

		r->memo = m->next;
		if (m->owned)
			tpl_free(m->t);
		free(m->name);
		free(m);
	}
	if (e != OK && r->out->buf && !r->out->oom) {
		r->out->len = r->start;
		r->out->buf[r->start] = '\0';
	}
	return e;
}

enum err tpl_exec(const struct tpl *t, const cJSON *data, const struct tpl_partials *partials,
		  struct sb *out, char *err, size_t errlen)
{
	struct render r = {0};

	r.out = out;
	r.partials = partials;
	r.err = err;
	r.errlen = errlen;
	return render(&r, t, data);
}

enum err tpl_render(const char *src, size_t len, const cJSON *data, const struct tpl_partials *partials,
		    struct sb *out, char *err, size_t errlen)
{
	struct tpl *t;
	enum err e;

	if ((e = tpl_compile(src, len, &t, err, errlen)) != OK)
		return e;
	e = tpl_exec(t, data, partials, out, err, errlen);
	tpl_free(t);
	return e;
}

/* ---------------------------------------------------------------- file cache */

struct entry {
	char *path;
	struct tpl *t;
	struct timespec mtime;
	off_t size;
	ino_t ino;
	struct entry *next;
};

static struct entry *cache;

static int name_ok(const char *name)
{
	const char *p;

	if (!name[0] || name[0] == '/' || strstr(name, ".."))
		return 0;
	for (p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '_' || *p == '-' || *p == '.' || *p == '/'))
			return 0;
	return p - name < 200;
}

/* read_file: the whole of path (heap, caller frees), at most TPL_MAX_SIZE bytes. */
static enum err read_file(const char *path, FILE *f, size_t size, char **out, char *err, size_t errlen)
{
	char *buf;
	size_t n;

	if (size > TPL_MAX_SIZE) {
		err_set(err, errlen, "%s: %zu bytes, over the %u byte limit", path, size, TPL_MAX_SIZE);
		return ERR_LIMIT;
	}
	if (!(buf = malloc(size + 1))) {
		err_set(err, errlen, "out of memory");
		return ERR_NOMEM;
	}
	n = fread(buf, 1, size + 1, f);
	if (ferror(f) || n != size) {
		/* changed under us or unreadable: the next load tries again */
		free(buf);
		err_set(err, errlen, "%s: read failed", path);
		return ERR_IO;
	}
	*out = buf;
	return OK;
}

static enum err cache_get(const char *dir, const char *name, struct tpl **out, char *err, size_t errlen)
{
	struct entry *en;
	struct stat st;
	FILE *f = NULL;
	char *path = NULL, *text = NULL, cerr[200];
	struct tpl *t = NULL;
	enum err e;

	*out = NULL;
	if (!name_ok(name)) {
		err_set(err, errlen, "bad template name '%.60s'", name);
		return ERR_INPUT;
	}
	e = ERR_NOMEM;
	if (asprintf(&path, "%s/%s.mustache", dir, name) < 0) {
		path = NULL;
		err_set(err, errlen, "out of memory");
		goto out;
	}
	if (!(f = fopen(path, "rb"))) {
		e = errno == ENOENT ? ERR_NOTFOUND : ERR_IO;
		err_set(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
		e = ERR_IO;
		err_set(err, errlen, "%s: not a readable file", path);
		goto out;
	}
	for (en = cache; en; en = en->next)
		if (!strcmp(en->path, path))
			break;
	if (en && en->size == st.st_size && en->ino == st.st_ino &&
	    en->mtime.tv_sec == st.st_mtim.tv_sec && en->mtime.tv_nsec == st.st_mtim.tv_nsec) {
		*out = en->t;
		e = OK;
		goto out;
	}
	if ((e = read_file(path, f, (size_t)st.st_size, &text, err, errlen)) != OK)
		goto out;
	if ((e = tpl_compile(text, (size_t)st.st_size, &t, cerr, sizeof cerr)) != OK) {
		err_set(err, errlen, "%s: %s", path, cerr);
		goto out;
	}
	if (!en) {
		e = ERR_NOMEM;
		if (!(en = calloc(1, sizeof *en))) {
			err_set(err, errlen, "out of memory");
			goto out;
		}
		en->path = path;
		path = NULL;
		en->next = cache;
		cache = en;
	}
	tpl_free(en->t);
	en->t = t;
	en->mtime = st.st_mtim;
	en->size = st.st_size;
	en->ino = st.st_ino;
	*out = t;
	t = NULL;
	e = OK;
out:
	if (f)
		fclose(f);
	tpl_free(t);
	free(text);
	free(path);
	return e;
}

enum err tpl_load(const char *dir, const char *name, const struct tpl **out, char *err, size_t errlen)
{
	struct tpl *t;
	enum err e = cache_get(dir, name, &t, err, errlen);

	*out = t;
	return e;
}

enum err tpl_render_file(const char *dir, const char *name, const cJSON *data, struct sb *out,
			 char *err, size_t errlen)
{
	struct render r = {0};
	struct memo *m;
	struct tpl *t;
	enum err e;

	if ((e = cache_get(dir, name, &t, err, errlen)) != OK)
		return e;
	/* seed the memo with the page itself: a partial of the same name must
	 * not reload (and free) the template being rendered */
	if (!(m = calloc(1, sizeof *m)) || !(m->name = strdup(name))) {
		free(m);
		err_set(err, errlen, "out of memory");
		return ERR_NOMEM;
	}
	m->t = t;
	r.memo = m;
	r.out = out;
	r.dir = dir;
	r.err = err;
	r.errlen = errlen;
	return render(&r, t, data);
}

void tpl_cache_clear(void)
{
	while (cache) {
		struct entry *en = cache;

		cache = en->next;
		tpl_free(en->t);
		free(en->path);
		free(en);
	}
}
