/* json.c: JSON (one object: provenance, columns, rows, summary) and NDJSON (header line, rows, summary line). */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "export/export_impl.h"

/* Per-column key prefix ("name": already escaped) so rows do not re-escape names. */
struct jstate {
	char **keys;
	size_t *klen;
};

static int ndjson(const struct exp *e)
{
	return e->o->format == EXPORT_NDJSON;
}

/* number_ok: v (n bytes) is a JSON number; PostgreSQL prints NaN and Infinity, which are not. */
static int number_ok(const char *v, size_t n)
{
	size_t i = 0;

	if (i < n && v[i] == '-')
		i++;
	if (i >= n || v[i] < '0' || v[i] > '9')
		return 0;
	if (v[i] == '0' && i + 1 < n && v[i + 1] >= '0' && v[i + 1] <= '9')
		return 0;
	while (i < n && v[i] >= '0' && v[i] <= '9')
		i++;
	if (i < n && v[i] == '.') {
		if (++i >= n || v[i] < '0' || v[i] > '9')
			return 0;
		while (i < n && v[i] >= '0' && v[i] <= '9')
			i++;
	}
	if (i < n && (v[i] == 'e' || v[i] == 'E')) {
		i++;
		if (i < n && (v[i] == '+' || v[i] == '-'))
			i++;
		if (i >= n || v[i] < '0' || v[i] > '9')
			return 0;
		while (i < n && v[i] >= '0' && v[i] <= '9')
			i++;
	}
	return i == n;
}

/* put_str: v as a JSON string into w (room for 6n+2 reserved); returns the end. */
static char *put_str(char *w, const char *v, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	*w++ = '"';
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)v[i];

		if (c >= 0x20 && c != '"' && c != '\\') {
			*w++ = (char)c;
			continue;
		}
		*w++ = '\\';
		switch (c) {
		case '"': *w++ = '"'; break;
		case '\\': *w++ = '\\'; break;
		case '\n': *w++ = 'n'; break;
		case '\r': *w++ = 'r'; break;
		case '\t': *w++ = 't'; break;
		default:
			*w++ = 'u';
			*w++ = '0';
			*w++ = '0';
			*w++ = hex[c >> 4];
			*w++ = hex[c & 15];
		}
	}
	*w++ = '"';
	return w;
}

enum err json_begin(void *ctx, const struct exec_col *cols, int ncols)
{
	struct exp *e = ctx;
	struct jstate *js = calloc(1, sizeof *js);
	struct sb sb = SB_INIT;
	enum err rc = OK;

	e->cols = cols;
	e->ncols = ncols;
	if (!js)
		return ERR_NOMEM;
	e->fmt = js;
	js->keys = calloc((size_t)ncols + 1, sizeof *js->keys);
	js->klen = calloc((size_t)ncols + 1, sizeof *js->klen);
	if (!js->keys || !js->klen)
		return ERR_NOMEM;
	for (int j = 0; j < ncols; j++) {
		struct sb k = SB_INIT;

		sb_puts(&k, j ? "," : "{");
		sb_json_str(&k, cols[j].name);
		sb_putc(&k, ':');
		js->klen[j] = k.len;
		js->keys[j] = sb_steal(&k);
		if (!js->keys[j])
			return ERR_NOMEM;
	}

	sb_puts(&sb, "{\"provenance\":{");
	exp_provenance_json(e, &sb);
	sb_puts(&sb, ",\"columns\":[");
	for (int j = 0; j < ncols; j++) {
		sb_puts(&sb, j ? ",{\"name\":" : "{\"name\":");
		sb_json_str(&sb, cols[j].name);
		sb_printf(&sb, ",\"type\":\"%s\"}", exp_type_name(cols[j].type_oid));
	}
	sb_puts(&sb, ndjson(e) ? "]}}\n" : "]},\n\"rows\":[");
	if (!sb_ok(&sb))
		rc = ERR_NOMEM;
	else
		rc = exp_put(e, sb.buf, sb.len);
	sb_free(&sb);
	return rc;
}

enum err json_row(void *ctx, const char *const *vals, const int *lens, int ncols)
{
	struct exp *e = ctx;
	struct jstate *js = e->fmt;
	size_t need = 8;
	enum err rc;
	char *w;

	for (int j = 0; j < ncols; j++)
		need += js->klen[j] + 6 * (size_t)lens[j] + 8;
	if (!(w = exp_reserve(e, need, &rc)))
		return rc;
	if (!ndjson(e) && e->nrows)
		*w++ = ',';
	if (!ndjson(e))
		*w++ = '\n';
	for (int j = 0; j < ncols; j++) {
		const struct exec_col *c = &e->cols[j];
		const char *v = vals[j];
		size_t n = (size_t)lens[j];

		memcpy(w, js->keys[j], js->klen[j]);
		w += js->klen[j];
		if (!v) {
			memcpy(w, "null", 4);
			w += 4;
		} else if ((c->is_numeric && number_ok(v, n)) || c->type_oid == 114 || c->type_oid == 3802) {
			/* numbers and json/jsonb as they are: PostgreSQL printed valid JSON */
			memcpy(w, v, n);
			w += n;
		} else if (c->is_bool) {
			memcpy(w, *v == 't' ? "true" : "false", *v == 't' ? 4 : 5);
			w += *v == 't' ? 4 : 5;
		} else {
			w = put_str(w, v, n);
		}
	}
	if (!ncols)
		*w++ = '{';
	*w++ = '}';
	if (ndjson(e))
		*w++ = '\n';
	e->len = (size_t)(w - e->buf);
	e->nrows++;
	e->st->rows = e->nrows;
	return OK;
}

enum err json_end(void *ctx, long long nrows, int truncated)
{
	struct exp *e = ctx;
	char ts[32];
	struct sb sb = SB_INIT;
	enum err rc;

	e->st->rows = nrows;
	e->st->truncated = truncated;
	exp_iso_time(time(NULL), ts, sizeof ts);
	/* the summary closes the output: without it a reader knows the export is incomplete */
	sb_printf(&sb, "%s\"summary\":{\"row_count\":%lld,\"truncated\":%s,\"finished_at\":\"%s\",",
	          ndjson(e) ? "{" : "\n],", nrows, truncated ? "true" : "false", ts);
	/* the aggregate access level's small cells: groups of fewer patients than this are not in
	 * rows (how many is not known: the database left them out) */
	if (e->st->suppress_k > 0)
		sb_printf(&sb, "\"small_groups_left_out_under\":%ld,", e->st->suppress_k);
	sb_puts(&sb, "\"complete\":true}}\n");
	rc = sb_ok(&sb) ? exp_put(e, sb.buf, sb.len) : ERR_NOMEM;
	sb_free(&sb);
	return rc;
}

void json_cleanup(struct exp *e)
{
	struct jstate *js = e->fmt;

	if (!js)
		return;
	for (int j = 0; js->keys && j < e->ncols; j++)
		free(js->keys[j]);
	free(js->keys);
	free(js->klen);
	free(js);
	e->fmt = NULL;
}
