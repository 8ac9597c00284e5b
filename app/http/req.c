/* req.c: request parsing with hard limits: query string, urlencoded and multipart bodies, cookies, headers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "http/http.h"
#include "http/routes.h"
#include "util/arena.h"

const char *req_env(const struct req *r, const char *name)
{
	size_t n = strlen(name);

	for (char **e = r->env; e && *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

int req_utf8_ok(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;

	while (p < end) {
		unsigned c = *p;
		int k;
		unsigned min, cp;

		if (c == 0)
			return 0;
		if (c < 0x80) {
			p++;
			continue;
		}
		if ((c & 0xe0) == 0xc0) { k = 1; min = 0x80; cp = c & 0x1f; }
		else if ((c & 0xf0) == 0xe0) { k = 2; min = 0x800; cp = c & 0x0f; }
		else if ((c & 0xf8) == 0xf0) { k = 3; min = 0x10000; cp = c & 0x07; }
		else return 0;
		if (end - p <= k)
			return 0;
		for (int i = 1; i <= k; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (p[i] & 0x3f);
		}
		/* overlong forms, surrogates and values past U+10FFFF are not UTF-8 */
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		p += k + 1;
	}
	return 1;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

/* Percent-decode s[0..n) ('+' is a space) into arena memory; NULL on a bad escape. */
static char *urldecode(struct arena *a, const char *s, size_t n, size_t *outlen)
{
	char *o = arena_alloc(a, n + 1), *q = o;

	if (!o)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '+') {
			*q++ = ' ';
		} else if (s[i] == '%') {
			int h, l;

			if (i + 2 >= n || (h = hexval(s[i + 1])) < 0 || (l = hexval(s[i + 2])) < 0)
				return NULL;
			*q++ = (char)(h << 4 | l);
			i += 2;
		} else {
			*q++ = s[i];
		}
	}
	*q = '\0';
	*outlen = (size_t)(q - o);
	return o;
}

static enum err push(struct arena *a, struct kv **kv, int *nkv, int max, const char *k,
                     const char *v, size_t vlen, const char *fname)
{
	struct kv *nk;

	if (*nkv >= max)
		return ERR_LIMIT;
	nk = arena_realloc(a, *kv, sizeof **kv * (size_t)*nkv, sizeof **kv * (size_t)(*nkv + 1));
	if (!nk)
		return ERR_NOMEM;
	nk[*nkv] = (struct kv){k, v, vlen, fname};
	*kv = nk;
	(*nkv)++;
	return OK;
}

enum err req_parse_urlencoded(struct arena *a, const char *s, size_t n, struct kv **kv, int *nkv, int max)
{
	size_t i = 0;

	while (i < n) {
		size_t j = i, eq = (size_t)-1, kl, vl;
		char *k, *v;
		enum err e;

		while (j < n && s[j] != '&' && s[j] != ';') {
			if (s[j] == '=' && eq == (size_t)-1)
				eq = j;
			j++;
		}
		if (j > i) {
			if (eq == (size_t)-1)
				eq = j;
			if (!(k = urldecode(a, s + i, eq - i, &kl)))
				return ERR_INPUT;
			if (!(v = urldecode(a, eq < j ? s + eq + 1 : "", eq < j ? j - eq - 1 : 0, &vl)))
				return ERR_INPUT;
			if (!req_utf8_ok(k, kl) || !req_utf8_ok(v, vl))
				return ERR_INPUT;
			if ((e = push(a, kv, nkv, max, k, v, vl, NULL)) != OK)
				return e;
		}
		i = j + 1;
	}
	return OK;
}

enum err req_parse_cookies(struct arena *a, const char *s, struct kv **kv, int *nkv)
{
	if (!s)
		return OK;
	if (strlen(s) > REQ_MAX_COOKIE)
		return ERR_LIMIT;
	while (*s) {
		const char *e = strchr(s, ';'), *eq;
		size_t len;

		while (*s == ' ')
			s++;
		len = e ? (size_t)(e - s) : strlen(s);
		eq = memchr(s, '=', len);
		if (eq && eq > s) {
			char *k = arena_strndup(a, s, (size_t)(eq - s));
			char *v = arena_strndup(a, eq + 1, len - (size_t)(eq - s) - 1);

			if (!k || !v)
				return ERR_NOMEM;
			/* an oversupply of cookies is ignored rather than refused: browsers own them */
			if (push(a, kv, nkv, REQ_MAX_COOKIES, k, v, strlen(v), NULL) != OK)
				return OK;
		}
		if (!e)
			break;
		s = e + 1;
	}
	return OK;
}

/* Find needle in hay[0..n) (memmem without trusting NUL termination). */
static const char *find(const char *hay, size_t n, const char *needle, size_t nl)
{
	return memmem(hay, n, needle, nl);
}

/* The value of attribute attr ("name", "filename") in a Content-Disposition line. */
static char *disp_attr(struct arena *a, const char *h, size_t n, const char *attr)
{
	size_t al = strlen(attr);

	for (size_t i = 0; i + al + 2 < n; i++) {
		if ((i == 0 || h[i - 1] == ' ' || h[i - 1] == ';') && !strncasecmp(h + i, attr, al) &&
		    h[i + al] == '=') {
			const char *v = h + i + al + 1, *e;

			if (*v == '"') {
				v++;
				e = memchr(v, '"', n - (size_t)(v - h));
			} else {
				e = v;
				while (e < h + n && *e != ';' && *e != '\r')
					e++;
			}
			if (!e)
				return NULL;
			return arena_strndup(a, v, (size_t)(e - v));
		}
	}
	return NULL;
}

enum err req_parse_multipart(struct arena *a, const char *ctype, const char *body, size_t n,
                             struct kv **kv, int *nkv, int max)
{
	const char *b = ctype ? strcasestr(ctype, "boundary=") : NULL, *p, *end = body + n;
	char delim[80];
	size_t dl, bl;
	int parts = 0;

	if (!b)
		return ERR_INPUT;
	b += 9;
	if (*b == '"')
		b++;
	bl = strcspn(b, "\";");
	if (bl == 0 || bl > 70)
		return ERR_INPUT;
	dl = (size_t)snprintf(delim, sizeof delim, "--%.*s", (int)bl, b);
	/* the body starts with the first delimiter */
	if (!(p = find(body, n, delim, dl)))
		return ERR_INPUT;
	p += dl;
	for (;;) {
		const char *hend, *next, *dispo;
		char *name, *fname, *val;
		size_t vlen;
		enum err e;

		if (end - p >= 2 && p[0] == '-' && p[1] == '-')
			return OK;                         /* closing delimiter */
		if (end - p < 2 || p[0] != '\r' || p[1] != '\n')
			return ERR_INPUT;
		p += 2;
		if (!(hend = find(p, (size_t)(end - p), "\r\n\r\n", 4)))
			return ERR_INPUT;
		if (++parts > REQ_MAX_PARTS)
			return ERR_LIMIT;
		dispo = find(p, (size_t)(hend - p), "form-data", 9);
		if (!dispo)
			return ERR_INPUT;
		name = disp_attr(a, dispo, (size_t)(hend - dispo), "name");
		fname = disp_attr(a, dispo, (size_t)(hend - dispo), "filename");
		p = hend + 4;
		/* the value ends at CRLF + delimiter */
		{
			char crlfd[84];
			size_t cl = (size_t)snprintf(crlfd, sizeof crlfd, "\r\n%s", delim);

			if (!(next = find(p, (size_t)(end - p), crlfd, cl)))
				return ERR_INPUT;
			vlen = (size_t)(next - p);
			next += cl;
		}
		if (!name || !*name)
			return ERR_INPUT;
		if (!(val = arena_strndup(a, p, vlen)))
			return ERR_NOMEM;
		/* file contents may be binary; text fields must be UTF-8 */
		if (!req_utf8_ok(name, strlen(name)) || (!fname && !req_utf8_ok(val, vlen)) ||
		    (fname && !req_utf8_ok(fname, strlen(fname))))
			return ERR_INPUT;
		if ((e = push(a, kv, nkv, max, name, val, vlen, fname)) != OK)
			return e;
		p = next;
	}
}

static enum method method_of(const char *m)
{
	if (!m) return M_OTHER;
	if (!strcmp(m, "GET")) return M_GET;
	if (!strcmp(m, "HEAD")) return M_HEAD;
	if (!strcmp(m, "POST")) return M_POST;
	return M_OTHER;
}

enum err req_parse(struct req *r, req_read_fn rd, void *rdctx, size_t max_body)
{
	const char *cl, *uri, *q;
	enum err e;

	r->method_name = req_env(r, "REQUEST_METHOD");
	r->method = method_of(r->method_name);
	r->head_only = r->method == M_HEAD;
	r->addr = req_env(r, "REMOTE_ADDR");
	r->ctype = req_env(r, "CONTENT_TYPE");
	r->authz = req_env(r, "HTTP_AUTHORIZATION");
	r->host = req_env(r, "HTTP_HOST");
	r->https = (q = req_env(r, "HTTPS")) && (!strcasecmp(q, "on") || !strcmp(q, "1"));
	if (!r->addr)
		r->addr = "";
	/* the path: DOCUMENT_URI is decoded by nginx; fall back to REQUEST_URI up to '?' */
	uri = req_env(r, "DOCUMENT_URI");
	if (!uri && (uri = req_env(r, "REQUEST_URI")))
		uri = arena_strndup(r->a, uri, strcspn(uri, "?"));
	if (!uri || uri[0] != '/')
		uri = "/";
	if (strlen(uri) > 2048)
		return ERR_LIMIT;
	if (!req_utf8_ok(uri, strlen(uri)))
		return ERR_INPUT;
	r->path = uri;
	for (const char *h = r->authz; h; h = NULL)
		if (strlen(h) > REQ_MAX_HEADER)
			return ERR_LIMIT;
	if ((e = req_parse_cookies(r->a, req_env(r, "HTTP_COOKIE"), &r->cookies, &r->ncookies)) != OK)
		return e;
	r->query = req_env(r, "QUERY_STRING");
	if (r->query) {
		if (strlen(r->query) > REQ_MAX_QUERY)
			return ERR_LIMIT;
		if ((e = req_parse_urlencoded(r->a, r->query, strlen(r->query), &r->in, &r->nin,
		                              REQ_MAX_FIELDS)) != OK)
			return e;
	}
	if (r->method != M_POST)
		return OK;
	cl = req_env(r, "CONTENT_LENGTH");
	if (cl && *cl) {
		char *endp;
		unsigned long long len = strtoull(cl, &endp, 10);
		char *buf;
		size_t got = 0;

		if (*endp)
			return ERR_INPUT;
		if (len > max_body)
			return ERR_LIMIT;
		if (!(buf = arena_alloc(r->a, (size_t)len + 1)))
			return ERR_NOMEM;
		while (got < len) {
			long k = rd(rdctx, buf + got, (size_t)len - got);

			if (k <= 0)
				return ERR_INPUT;    /* client went away mid-body */
			got += (size_t)k;
		}
		buf[len] = '\0';
		r->body = buf;
		r->body_len = (size_t)len;
	}
	if (!r->body_len)
		return OK;
	if (r->ctype && !strncasecmp(r->ctype, "application/x-www-form-urlencoded", 33))
		return req_parse_urlencoded(r->a, r->body, r->body_len, &r->in, &r->nin, REQ_MAX_FIELDS);
	if (r->ctype && !strncasecmp(r->ctype, "multipart/form-data", 19))
		return req_parse_multipart(r->a, r->ctype, r->body, r->body_len, &r->in, &r->nin,
		                           REQ_MAX_FIELDS);
	/* JSON bodies (the API) are parsed by their handler; still they must be UTF-8 */
	if (!req_utf8_ok(r->body, r->body_len))
		return ERR_INPUT;
	return OK;
}

const char *req_param(const struct req *r, const char *name)
{
	for (int i = 0; i < r->nparams; i++)
		if (!strcmp(r->params[i].key, name))
			return r->params[i].val;
	return NULL;
}

long long req_param_int(const struct req *r, const char *name, long long def)
{
	const char *v = req_param(r, name);

	return v && *v ? strtoll(v, NULL, 10) : def;
}

int req_params_all(const struct req *r, const char *name, const char ***vals)
{
	int n = 0;

	*vals = arena_alloc(r->a, sizeof **vals * (size_t)(r->nparams + 1));
	if (!*vals)
		return 0;
	for (int i = 0; i < r->nparams; i++)
		if (!strcmp(r->params[i].key, name))
			(*vals)[n++] = r->params[i].val;
	return n;
}

const char *req_cookie(const struct req *r, const char *name)
{
	for (int i = 0; i < r->ncookies; i++)
		if (!strcmp(r->cookies[i].key, name))
			return r->cookies[i].val;
	return NULL;
}
