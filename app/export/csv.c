/* csv.c: RFC 4180 CSV (CRLF, quotes doubled), optional UTF-8 BOM, written as rows arrive. */
#include <string.h>
#include "export/export_impl.h"

/* needs_quote[c]: bytes that force a quoted field (RFC 4180: comma, quote, CR, LF). */
static const unsigned char needs_quote[256] = {[','] = 1, ['"'] = 1, ['\r'] = 1, ['\n'] = 1};

/* put_field: v (n bytes; NULL is SQL NULL) into w; returns the end.  Room for 2n+2
 * bytes must be reserved.  NULL is an empty field and the empty string is "", as
 * PostgreSQL's COPY CSV does, so the two stay distinguishable. */
static char *put_field(char *w, const char *v, size_t n, int plain)
{
	size_t i = 0;

	if (!v)
		return w;
	if (!plain) {
		const unsigned char *u = (const unsigned char *)v;

		while (i < n && !needs_quote[u[i]])
			i++;
	}
	if (n && (plain || i == n)) {
		memcpy(w, v, n);
		return w + n;
	}
	*w++ = '"';
	for (i = 0; i < n; i++) {
		if (v[i] == '"')
			*w++ = '"';
		*w++ = v[i];
	}
	*w++ = '"';
	return w;
}

enum err csv_begin(void *ctx, const struct exec_col *cols, int ncols)
{
	struct exp *e = ctx;
	enum err rc = OK;

	e->cols = cols;
	e->ncols = ncols;
	if (e->o->bom && (rc = exp_put(e, "\xEF\xBB\xBF", 3)) != OK)
		return rc;
	for (int j = 0; j < ncols; j++) {
		size_t n = strlen(cols[j].name);
		char *w = exp_reserve(e, 2 * n + 4, &rc);

		if (!w)
			return rc;
		if (j)
			*w++ = ',';
		/* a name is never NULL: an empty one is written "" */
		w = put_field(w, cols[j].name, n, 0);
		e->len = (size_t)(w - e->buf);
	}
	return exp_put(e, "\r\n", 2);
}

enum err csv_row(void *ctx, const char *const *vals, const int *lens, int ncols)
{
	struct exp *e = ctx;
	size_t need = 2;
	enum err rc;
	char *w;

	for (int j = 0; j < ncols; j++)
		need += 2 * (size_t)lens[j] + 3;
	if (!(w = exp_reserve(e, need, &rc)))
		return rc;
	for (int j = 0; j < ncols; j++) {
		if (j)
			*w++ = ',';
		/* numbers as PostgreSQL prints them never need quotes */
		w = put_field(w, vals[j], (size_t)lens[j], e->cols[j].is_numeric);
	}
	*w++ = '\r';
	*w++ = '\n';
	e->len = (size_t)(w - e->buf);
	e->nrows++;
	e->st->rows = e->nrows;
	return OK;
}

enum err csv_end(void *ctx, long long nrows, int truncated)
{
	struct exp *e = ctx;

	/* CSV has no place for provenance; the caller records it (runs table / file name) */
	e->st->rows = nrows;
	e->st->truncated = truncated;
	return OK;
}
