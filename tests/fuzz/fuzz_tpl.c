/* fuzz_tpl.c: libFuzzer target for the template renderer: TEMPLATE \0 JSON-DATA \0 PARTIAL-TEXT. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "util/sb.h"
#include "util/tpl.h"

struct seg {
	const char *p;
	size_t n;
};

/* Every partial name resolves to the third segment, so recursion and
 * indentation get exercised; the name "none" is missing. */
static enum err get_partial(void *ctx, const char *name, const char **text, size_t *len)
{
	const struct seg *s = ctx;

	if (!strcmp(name, "none") || !s->p)
		return ERR_NOTFOUND;
	*text = s->p;
	*len = s->n;
	return OK;
}

/* next: cut data at the next NUL into seg; returns the rest (NULL: no NUL). */
static const uint8_t *next(const uint8_t *d, size_t *n, struct seg *seg)
{
	const uint8_t *z = memchr(d, 0, *n);

	seg->p = (const char *)d;
	seg->n = z ? (size_t)(z - d) : *n;
	if (!z)
		return NULL;
	*n -= seg->n + 1;
	return z + 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct seg tpl = {0}, json = {0}, part = {0};
	struct tpl_partials pp = {get_partial, &part};
	struct sb out = SB_INIT;
	cJSON *doc = NULL;
	char err[256];
	const uint8_t *rest;
	size_t n = size;
	enum err e;

	rest = next(data, &n, &tpl);
	if (rest && (rest = next(rest, &n, &json)))
		next(rest, &n, &part);
	if (json.p)
		doc = cJSON_ParseWithLength(json.p, json.n);
	sb_puts(&out, "prefix");
	e = tpl_render(tpl.p, tpl.n, doc, &pp, &out, err, sizeof err);
	/* contracts: OK keeps the prefix; an error restores exactly the prefix */
	if (out.len < 6 || memcmp(sb_cstr(&out), "prefix", 6))
		abort();
	if (e != OK && out.len != 6)
		abort();
	if (e != OK && !memchr(err, '\0', sizeof err))
		abort();
	sb_free(&out);
	cJSON_Delete(doc);
	return 0;
}
