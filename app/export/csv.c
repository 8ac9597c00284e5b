/* csv.c: RFC 4180 CSV (CRLF, quotes doubled), optional UTF-8 BOM, optional formula escaping, written as rows arrive. */
#include <string.h>
#include "export/export_impl.h"

/* needs_quote[c]: bytes that force a quoted field: RFC 4180's comma, quote, CR and LF, and the
 * separators a spreadsheet may guess instead of the comma (semicolon where the decimal mark is a
 * comma, tab), so that no part of a cell after one of them is read as a cell of its own and
 * escaped or not as such (issue 27: "x;=cmd" in the last column reached a spreadsheet as "=cmd"). */
static const unsigned char needs_quote[256] = {[','] = 1, ['"'] = 1, ['\r'] = 1, ['\n'] = 1, [';'] = 1, ['\t'] = 1};
/* formula_start[c]: first bytes with which a spreadsheet may read a cell as a formula */
static const unsigned char formula_start[256] = {['='] = 1, ['+'] = 1, ['-'] = 1, ['@'] = 1,
                                                 ['\t'] = 1, ['\r'] = 1};

/* plain_number: v is a whole decimal number ("-5", "+1.5", "-2e3"): a spreadsheet reads it
 * as that number, never as a formula, so it is left alone. */
static int plain_number(const char *v, size_t n)
{
	size_t i = 0, d = 0;

	if (i < n && (v[i] == '-' || v[i] == '+'))
		i++;
	for (; i < n && v[i] >= '0' && v[i] <= '9'; i++)
		d++;
	if (i < n && v[i] == '.')
		for (i++; i < n && v[i] >= '0' && v[i] <= '9'; i++)
			d++;
	if (d && i < n && (v[i] == 'e' || v[i] == 'E')) {
		size_t e = 0;

		if (++i < n && (v[i] == '-' || v[i] == '+'))
			i++;
		for (; i < n && v[i] >= '0' && v[i] <= '9'; i++)
			e++;
		if (!e)
			return 0;
	}
	return d && i == n;
}

/* formula_risk: a text value a spreadsheet could run (docs/csv-formulas.md). */
static int formula_risk(const char *v, size_t n)
{
	return v && n && formula_start[(unsigned char)v[0]] && !plain_number(v, n);
}

/* alt_sep[c]: the separators a spreadsheet may guess instead of the comma.  Such a reader does not
 * see our quotes where a field does not start its line, so what follows one of these inside a
 * value can be a cell of its own there: with escape, it gets the ' a cell's start gets. */
static const unsigned char alt_sep[256] = {[';'] = 1, ['\t'] = 1};

/* segment_risk: the text from v[i] to the next alternative separator is one a spreadsheet could run */
static int segment_risk(const char *v, size_t i, size_t n)
{
	size_t e = i;

	while (e < n && !alt_sep[(unsigned char)v[e]])
		e++;
	return formula_risk(v + i, e - i);
}

/* put_field: v (n bytes; NULL is SQL NULL) into w; returns the end.  Room for 2n+3
 * bytes must be reserved.  NULL is an empty field and the empty string is "", as
 * PostgreSQL's COPY CSV does, so the two stay distinguishable.  With escape, a text
 * that could be read as a formula is written with a leading ' (inside the quotes), and
 * so is each part of it after a ';' or a tab that could (issue 27: "x;=1+1" in a file
 * opened with ';' as the separator gave the cell "=1+1").  Every expansion stays within
 * 2 bytes per input byte: '"' doubles, ";=" becomes ";'=". */
static char *put_field(char *w, const char *v, size_t n, int plain, int escape)
{
	size_t i = 0;
	int tick = escape && !plain && formula_risk(v, n);

	if (!v)
		return w;
	if (!plain) {
		const unsigned char *u = (const unsigned char *)v;

		while (i < n && !needs_quote[u[i]])
			i++;
	}
	if (n && (plain || i == n)) {
		if (tick)
			*w++ = '\'';
		memcpy(w, v, n);
		return w + n;
	}
	*w++ = '"';
	if (tick)
		*w++ = '\'';
	for (i = 0; i < n; i++) {
		if (v[i] == '"')
			*w++ = '"';
		*w++ = v[i];
		if (escape && !plain && alt_sep[(unsigned char)v[i]] && i + 1 < n && segment_risk(v, i + 1, n))
			*w++ = '\'';
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
		char *w = exp_reserve(e, 2 * n + 5, &rc);

		if (!w)
			return rc;
		if (j)
			*w++ = ',';
		/* a name is never NULL: an empty one is written "".  Names are chosen by whoever
		 * wrote the SQL, so they are escaped like text cells */
		w = put_field(w, cols[j].name, n, 0, e->o->escape_formulas);
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
		need += 2 * (size_t)lens[j] + 4;
	if (!(w = exp_reserve(e, need, &rc)))
		return rc;
	for (int j = 0; j < ncols; j++) {
		if (j)
			*w++ = ',';
		/* numbers as PostgreSQL prints them never need quotes, and a negative number in a
		 * numeric column stays a number */
		w = put_field(w, vals[j], (size_t)lens[j], e->cols[j].is_numeric, e->o->escape_formulas);
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

	/* CSV has no place for provenance: format zip puts provenance.json beside it (zip.c) */
	e->st->rows = nrows;
	e->st->truncated = truncated;
	return OK;
}
