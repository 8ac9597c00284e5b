/* fuzz_http_form.c: libFuzzer target for the request parsers (urlencoded, cookies, multipart, whole req_parse). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "http/http.h"
#include "util/arena.h"

/* Every field handed out must be NUL-terminated at its length, and text must be UTF-8. */
static void check_kv(const struct kv *kv, int n, int text)
{
	for (int i = 0; i < n; i++) {
		if (!kv[i].key || !kv[i].val || kv[i].val[kv[i].len] != '\0')
			abort();
		if (!req_utf8_ok(kv[i].key, strlen(kv[i].key)))
			abort();
		if (text && !kv[i].filename && !req_utf8_ok(kv[i].val, kv[i].len))
			abort();
	}
}

struct body { const char *p; size_t n, off; int chunk; };

/* A reader that hands the body out in small uneven pieces, as FCGX_GetStr may. */
static long rd(void *ctx, char *buf, size_t n)
{
	struct body *b = ctx;
	size_t k = b->n - b->off;

	if (k > n)
		k = n;
	if (k > (size_t)b->chunk)
		k = (size_t)b->chunk;
	memcpy(buf, b->p + b->off, k);
	b->off += k;
	return (long)k;
}

/*
 * Mode 3 input: "NAME=VALUE\n" environment lines, an empty line, then the body.
 * CONTENT_LENGTH is set to the body's length unless a line gives one (a lie is tested too).
 */
static void whole_request(struct arena *a, const char *s, size_t n, int chunk)
{
	char *env[40], *copy = arena_strndup(a, s, n), *line, *save = NULL, cl[32];
	const char *body = "";
	int ne = 0, have_cl = 0;
	size_t blen = 0;
	struct req r;
	struct body b;
	char *sep;

	if (!copy)
		return;
	if ((sep = strstr(copy, "\n\n"))) {
		*sep = '\0';
		body = s + (sep - copy) + 2;
		blen = n - (size_t)(sep - copy) - 2;
	}
	for (line = strtok_r(copy, "\n", &save); line && ne < 36; line = strtok_r(NULL, "\n", &save)) {
		if (!strchr(line, '='))
			continue;
		if (!strncmp(line, "CONTENT_LENGTH=", 15))
			have_cl = 1;
		env[ne++] = line;
	}
	if (!have_cl) {
		snprintf(cl, sizeof cl, "CONTENT_LENGTH=%zu", blen);
		env[ne++] = cl;
	}
	env[ne] = NULL;
	memset(&r, 0, sizeof r);
	r.a = a;
	r.env = env;
	b = (struct body){body, blen, 0, chunk};
	if (req_parse(&r, rd, &b, 65536) == OK) {
		if (!r.path || r.path[0] != '/' || !req_utf8_ok(r.path, strlen(r.path)))
			abort();
		check_kv(r.in, r.nin, 1);
		if (r.nin > REQ_MAX_FIELDS || r.ncookies > REQ_MAX_COOKIES)
			abort();
		if (r.body && r.body[r.body_len] != '\0')
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct arena a = {0};
	struct kv *kv = NULL;
	int nkv = 0;
	const char *s;
	size_t n;
	char *z;

	if (size < 1 || size > 256 * 1024)
		return 0;
	a.limit = (size_t)64 << 20;
	arena_reset(&a);
	s = (const char *)data + 1;
	n = size - 1;
	switch (data[0] & 3) {
	case 0:
		if (req_parse_urlencoded(&a, s, n, &kv, &nkv, REQ_MAX_FIELDS) == OK) {
			check_kv(kv, nkv, 1);
			if (nkv > REQ_MAX_FIELDS)
				abort();
		}
		break;
	case 1:
		/* a cookie header is a C string: cut at the first NUL as the FastCGI env would */
		z = arena_strndup(&a, s, n);
		if (z && req_parse_cookies(&a, z, &kv, &nkv) == OK && nkv > REQ_MAX_COOKIES)
			abort();
		break;
	case 2: {
		/* the first line is the Content-Type header, the rest the body */
		const char *nl = memchr(s, '\n', n);
		char *ct;

		if (!nl)
			break;
		ct = arena_strndup(&a, s, (size_t)(nl - s));
		if (ct && req_parse_multipart(&a, ct, nl + 1, n - (size_t)(nl + 1 - s), &kv, &nkv, REQ_MAX_FIELDS) == OK) {
			check_kv(kv, nkv, 1);
			if (nkv > REQ_MAX_PARTS)
				abort();
		}
		break;
	}
	case 3:
		whole_request(&a, s, n, 1 + (data[0] >> 2));
		break;
	}
	(void)req_utf8_ok(s, n);
	return 0;
}
