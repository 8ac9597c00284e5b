/* run_view.c: a run and its steps as template data (shared by the run page, the stream, SSE and the API). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "pages/chart.h"
#include "pages/pages.h"
#include "pages/sqlfmt.h"
#include "pages/step_words.h"
#include "store/db.h"
#include "util/arena.h"
#include "util/log.h"
#include "util/sha256.h"

#define PAGE_ROWS 50

static void add_sql(cJSON *o, const char *key_html, const char *sql)
{
	struct sb s = SB_INIT;

	sql_html(&s, sql, 1);
	cJSON_AddStringToObject(o, key_html, sb_cstr(&s));
	sb_free(&s);
}

static const char *col(PGresult *res, int row, const char *name)
{
	int c = PQfnumber(res, name);

	return c < 0 || PQgetisnull(res, row, c) ? NULL : PQgetvalue(res, row, c);
}

static void add_str(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
}

/* Sort rows by column c (numbers numerically, NULL last). */
static int sort_col, sort_desc;
static int row_cmp(const void *a, const void *b)
{
	const cJSON *x = cJSON_GetArrayItem(*(cJSON *const *)a, sort_col);
	const cJSON *y = cJSON_GetArrayItem(*(cJSON *const *)b, sort_col);
	int r;

	if (cJSON_IsNull(x) || !x)
		return cJSON_IsNull(y) || !y ? 0 : 1;
	if (cJSON_IsNull(y) || !y)
		return -1;
	if (cJSON_IsNumber(x) && cJSON_IsNumber(y))
		r = x->valuedouble < y->valuedouble ? -1 : x->valuedouble > y->valuedouble;
	else {
		char *ex, *ey;
		const char *sx = cJSON_IsString(x) ? x->valuestring : "", *sy = cJSON_IsString(y) ? y->valuestring : "";
		double dx = strtod(sx, &ex), dy = strtod(sy, &ey);

		r = (*sx && !*ex && *sy && !*ey) ? (dx < dy ? -1 : dx > dy) : strcmp(sx, sy);
	}
	return sort_desc ? -r : r;
}

static int is_numeric_type(const char *t)
{
	return t && (strstr(t, "number") || strstr(t, "int") || strstr(t, "numeric") || strstr(t, "float") || strstr(t, "double") ||
	             strstr(t, "real") || strstr(t, "decimal"));
}

/* The result table: one page of the stored preview, sorted as asked, plus the chart. */
static void add_result(struct req *r, cJSON *d, const char *columns_json, const char *preview_json, long long id)
{
	cJSON *cols = cJSON_Parse(columns_json ? columns_json : "null");
	cJSON *prev = cJSON_Parse(preview_json ? preview_json : "null");
	cJSON *rows = prev, *tcols, *trows, *pages;
	long long page = req_param(r, "page") ? req_param_int(r, "page", 1) : 1;
	long long sortc = req_param_int(r, "sort", -1);
	const char *dir = req_param(r, "dir");
	int ncol, nrow, npages;
	cJSON **arr = NULL;
	struct sb svg = SB_INIT;
	const char *kind = NULL;

	/* preview may be {"rows": [...]} or the bare list of rows */
	if (cJSON_IsObject(prev))
		rows = cJSON_GetObjectItemCaseSensitive(prev, "rows");
	if (cJSON_IsObject(cols) && cJSON_GetObjectItemCaseSensitive(cols, "columns")) {
		cJSON *inner = cJSON_DetachItemFromObject(cols, "columns");

		cJSON_Delete(cols);
		cols = inner;
	}
	if (!cJSON_IsArray(cols) || !cJSON_IsArray(rows))
		goto out;
	ncol = cJSON_GetArraySize(cols);
	nrow = cJSON_GetArraySize(rows);
	cJSON_AddBoolToObject(d, "has_result", 1);
	cJSON_AddNumberToObject(d, "preview_rows", nrow);
	if (chart_for_run(&svg, cols, rows, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "target")),
	                  cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "sql")), r->lang, &kind)) {
		cJSON_AddStringToObject(d, "chart_svg", sb_cstr(&svg));
		cJSON_AddStringToObject(d, "chart_kind", kind);
	}
	/* sort a copy of the row pointers, then page */
	if (nrow > 0 && (arr = calloc((size_t)nrow, sizeof *arr))) {
		int i = 0;
		cJSON *row;

		cJSON_ArrayForEach(row, rows) arr[i++] = row;
		if (sortc >= 0 && sortc < ncol) {
			sort_col = (int)sortc;
			sort_desc = dir && !strcmp(dir, "desc");
			qsort(arr, (size_t)nrow, sizeof *arr, row_cmp);
		}
	}
	npages = nrow ? (nrow + PAGE_ROWS - 1) / PAGE_ROWS : 1;
	if (page < 1) page = 1;
	if (page > npages) page = npages;
	tcols = cJSON_AddArrayToObject(d, "columns");
	for (int c = 0; c < ncol; c++) {
		cJSON *ci = cJSON_GetArrayItem(cols, c), *o = cJSON_CreateObject();
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ci, "name"));
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ci, "type"));
		int cur = sortc == c, desc = cur && dir && !strcmp(dir, "desc");
		char href[128];

		cJSON_AddStringToObject(o, "name", name ? name : (cJSON_IsString(ci) ? ci->valuestring : "?"));
		add_str(o, "type", type);
		cJSON_AddBoolToObject(o, "num", is_numeric_type(type));
		snprintf(href, sizeof href, "/runs/%lld?sort=%d&dir=%s", id, c, cur && !desc ? "desc" : "asc");
		cJSON_AddStringToObject(o, "sort_href", href);
		cJSON_AddStringToObject(o, "sort_mark", cur ? (desc ? "▼" : "▲") : "");
		cJSON_AddItemToArray(tcols, o);
	}
	trows = cJSON_AddArrayToObject(d, "rows");
	for (long long i = (page - 1) * PAGE_ROWS; i < nrow && i < page * PAGE_ROWS; i++) {
		cJSON *row = arr[i], *cells = cJSON_CreateArray(), *ro = cJSON_CreateObject();

		for (int c = 0; c < ncol; c++) {
			cJSON *v = cJSON_GetArrayItem(row, c), *cell = cJSON_CreateObject();
			char buf[64];

			if (!v || cJSON_IsNull(v)) {
				cJSON_AddBoolToObject(cell, "null", 1);
			} else if (cJSON_IsNumber(v)) {
				if (v->valuedouble == (double)(long long)v->valuedouble && fabs(v->valuedouble) < 1e15)
					snprintf(buf, sizeof buf, "%lld", (long long)v->valuedouble);
				else
					snprintf(buf, sizeof buf, "%.15g", v->valuedouble);
				cJSON_AddStringToObject(cell, "v", buf);
				cJSON_AddBoolToObject(cell, "num", 1);
			} else if (cJSON_IsString(v)) {
				cJSON_AddStringToObject(cell, "v", v->valuestring);
				cJSON_AddBoolToObject(cell, "num", is_numeric_type(cJSON_GetStringValue(
					cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cols, c), "type"))));
			} else {
				char *s = cJSON_PrintUnformatted(v);

				cJSON_AddStringToObject(cell, "v", s ? s : "");
				free(s);
			}
			cJSON_AddItemToArray(cells, cell);
		}
		cJSON_AddItemToObject(ro, "cells", cells);
		cJSON_AddItemToArray(trows, ro);
	}
	pages = cJSON_AddObjectToObject(d, "paging");
	cJSON_AddNumberToObject(pages, "page", (double)page);
	cJSON_AddNumberToObject(pages, "pages", npages);
	if (npages > 1) {
		char href[160];

		cJSON_AddBoolToObject(pages, "many", 1);
		if (page > 1) {
			snprintf(href, sizeof href, "/runs/%lld?page=%lld", id, page - 1);
			if (sortc >= 0)
				snprintf(href, sizeof href, "/runs/%lld?page=%lld&sort=%lld&dir=%s", id, page - 1, sortc, dir ? dir : "asc");
			cJSON_AddStringToObject(pages, "prev", href);
		}
		if (page < npages) {
			snprintf(href, sizeof href, "/runs/%lld?page=%lld", id, page + 1);
			if (sortc >= 0)
				snprintf(href, sizeof href, "/runs/%lld?page=%lld&sort=%lld&dir=%s", id, page + 1, sortc, dir ? dir : "asc");
			cJSON_AddStringToObject(pages, "next", href);
		}
	}
out:
	free(arr);
	sb_free(&svg);
	cJSON_Delete(cols);
	cJSON_Delete(prev);
}

enum err run_load(struct req *r, long long id, cJSON **out)
{
	char ids[24], uid[24];
	const char *p[3] = {ids, uid, r->user.role && !strcmp(r->user.role, "admin") ? "t" : "f"};
	PGresult *res;
	cJSON *d;
	const char *v, *status;

	*out = NULL;
	snprintf(ids, sizeof ids, "%lld", id);
	snprintf(uid, sizeof uid, "%lld", r->user.id);
	res = db_query(db_app(),
	               "SELECT r.id, r.question, r.status, r.sql, r.kind, r.step_mode, r.provider, r.target, "
	               "r.columns::text AS columns, r.preview::text AS preview, r.row_count, r.truncated, "
	               "r.attempts, r.answer, r.error, r.state::text AS state, r.verified, r.parent_id, "
	               "coalesce(r.verify_state, '') AS verify_state, "
	               "to_char(r.created_at, 'YYYY-MM-DD HH24:MI:SS') AS created, u.name AS owner, "
	               "r.fingerprint, array_to_string(r.tables, ', ') AS tables "
	               "FROM askql.runs r LEFT JOIN askql.users u ON u.id = r.user_id "
	               "WHERE r.id = $1 AND (r.user_id = $2 OR $3::boolean) AND r.deleted_at IS NULL",
	               3, p, NULL, 0);
	if (!res)
		return ERR_DB;
	if (PQntuples(res) != 1) {
		PQclear(res);
		return ERR_NOTFOUND;
	}
	d = cJSON_CreateObject();
	cJSON_AddNumberToObject(d, "id", (double)id);
	add_str(d, "question", col(res, 0, "question"));
	status = col(res, 0, "status");
	add_str(d, "status", status);
	{
		char key[40];

		snprintf(key, sizeof key, "run.status.%s", status);
		cJSON_AddStringToObject(d, "status_text", view_t(r, key));
		snprintf(key, sizeof key, "status_%s", status);
		cJSON_AddBoolToObject(d, key, 1);
	}
	cJSON_AddBoolToObject(d, "finished", strcmp(status, "running") && strcmp(status, "paused"));
	cJSON_AddBoolToObject(d, "running", !strcmp(status, "running"));
	cJSON_AddBoolToObject(d, "paused", !strcmp(status, "paused"));
	if ((v = col(res, 0, "sql"))) {
		cJSON_AddStringToObject(d, "sql", v);
		add_sql(d, "sql_html", v);
	}
	add_str(d, "kind", col(res, 0, "kind"));
	cJSON_AddBoolToObject(d, "step_mode", !strcmp(col(res, 0, "step_mode"), "t"));
	add_str(d, "provider", col(res, 0, "provider"));
	add_str(d, "target", col(res, 0, "target"));
	add_str(d, "answer", col(res, 0, "answer"));
	add_str(d, "error", col(res, 0, "error"));
	add_str(d, "created", col(res, 0, "created"));
	add_str(d, "owner", col(res, 0, "owner"));
	add_str(d, "fingerprint", col(res, 0, "fingerprint"));
	add_str(d, "tables", col(res, 0, "tables"));
	cJSON_AddBoolToObject(d, "verified", !strcmp(col(res, 0, "verified"), "t"));
	{
		const char *vs = col(res, 0, "verify_state");

		/* the verified mark's review (docs/shared-memory.md): none, proposed, accepted, rejected */
		cJSON_AddBoolToObject(d, "verify_none", !vs || !*vs);
		cJSON_AddBoolToObject(d, "verify_proposed", vs && !strcmp(vs, "proposed"));
		cJSON_AddBoolToObject(d, "verify_rejected", vs && !strcmp(vs, "rejected"));
	}
	cJSON_AddNumberToObject(d, "attempts", atoi(col(res, 0, "attempts")));
	if ((v = col(res, 0, "row_count")))
		cJSON_AddNumberToObject(d, "row_count", atof(v));
	cJSON_AddBoolToObject(d, "truncated", !strcmp(col(res, 0, "truncated"), "t"));
	if ((v = col(res, 0, "parent_id")))
		cJSON_AddNumberToObject(d, "parent_id", atof(v));
	if ((v = col(res, 0, "state")))
		cJSON_AddItemToObject(d, "state", cJSON_Parse(v));
	add_result(r, d, col(res, 0, "columns"), col(res, 0, "preview"), id);
	PQclear(res);
	*out = d;
	return OK;
}

/* A short readable text for a JSON value (strings as they are, the rest compact JSON). */
static char *brief(const cJSON *v)
{
	if (cJSON_IsString(v))
		return strdup(v->valuestring);
	return v ? cJSON_Print(v) : NULL;
}

static void step_fields(cJSON *s, const cJSON *in, const cJSON *out)
{
	static const char *const lists[] = {"findings", "warnings", "issues", NULL};
	cJSON *f = NULL;
	static const char *const texts[] = {"reasoning", "thought", "plan", "explanation", "reason",
	                                    "message", "summary", NULL};
	const cJSON *v;

	for (const char *const *k = texts; *k; k++) {
		v = cJSON_GetObjectItemCaseSensitive(out, *k);
		if (!v)
			v = cJSON_GetObjectItemCaseSensitive(in, *k);
		if (cJSON_IsString(v) && *v->valuestring) {
			cJSON_AddStringToObject(s, "reasoning", v->valuestring);
			break;
		}
	}
	v = cJSON_GetObjectItemCaseSensitive(in, "tool");
	if (!v)
		v = cJSON_GetObjectItemCaseSensitive(in, "action");
	if (cJSON_IsString(v))
		cJSON_AddStringToObject(s, "tool", v->valuestring);
	v = cJSON_GetObjectItemCaseSensitive(out, "sql");
	if (!cJSON_IsString(v))
		v = cJSON_GetObjectItemCaseSensitive(in, "sql");
	if (cJSON_IsString(v) && *v->valuestring) {
		struct sb h = SB_INIT;

		sql_html(&h, v->valuestring, 1);
		cJSON_AddStringToObject(s, "sql_html", sb_cstr(&h));
		cJSON_AddStringToObject(s, "sql", v->valuestring);
		sb_free(&h);
	}
	/* EXPLAIN findings and guard warnings: lists of strings or objects with a message */
	for (const char *const *l = lists; *l; l++) {
		cJSON *it;

		v = cJSON_GetObjectItemCaseSensitive(out, *l);
		if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0)
			continue;
		if (!f)
			f = cJSON_AddArrayToObject(s, "findings");
		cJSON_ArrayForEach(it, v) {
			const cJSON *m = cJSON_IsString(it) ? it : cJSON_GetObjectItemCaseSensitive(it, "message");
			char *t = m ? brief(m) : brief(it);

			cJSON_AddItemToArray(f, cJSON_CreateString(t ? t : ""));
			free(t);
		}
	}
	v = cJSON_GetObjectItemCaseSensitive(in, "attempt");
	if (cJSON_IsNumber(v)) {
		const cJSON *of = cJSON_GetObjectItemCaseSensitive(in, "of");
		const cJSON *pe = cJSON_GetObjectItemCaseSensitive(in, "previous_error");

		if (!cJSON_IsNumber(of))
			of = cJSON_GetObjectItemCaseSensitive(in, "max_retries");
		if (!cJSON_IsNumber(of))
			of = cJSON_GetObjectItemCaseSensitive(in, "max_attempts");

		cJSON_AddNumberToObject(s, "attempt", v->valuedouble);
		if (cJSON_IsNumber(of))
			cJSON_AddNumberToObject(s, "attempt_of", of->valuedouble);
		if (cJSON_IsString(pe))
			cJSON_AddStringToObject(s, "previous_error", pe->valuestring);
	}
}

enum err run_steps_json(struct req *r, long long id, int after, cJSON **out)
{
	char last_err[600];
	char ids[24], afters[16];
	const char *p[2] = {ids, afters};
	PGresult *res;
	cJSON *arr;

	snprintf(ids, sizeof ids, "%lld", id);
	snprintf(afters, sizeof afters, "%d", after);
	res = db_query(db_app(),
	               "SELECT seq, kind, name, status, input::text AS input, output::text AS output, rewrite, "
	               "error, ms, tokens_in, tokens_out FROM askql.steps WHERE run_id = $1 AND seq > $2 "
	               "ORDER BY seq LIMIT 500", 2, p, NULL, 0);
	if (!res)
		return ERR_DB;
	arr = cJSON_CreateArray();
	last_err[0] = '\0';
	for (int i = 0, seen = 0; i < PQntuples(res); i++) {
		cJSON *s = cJSON_CreateObject(), *in = NULL, *o = NULL;
		const char *v;
		char key[48];

		cJSON_AddNumberToObject(s, "seq", atoi(col(res, i, "seq")));
		add_str(s, "kind", col(res, i, "kind"));
		add_str(s, "name", col(res, i, "name"));
		add_str(s, "status", col(res, i, "status"));
		snprintf(key, sizeof key, "run.step_%s", col(res, i, "name"));
		v = view_t(r, key);
		cJSON_AddStringToObject(s, "label", strcmp(v, key) ? v : col(res, i, "name"));
		cJSON_AddBoolToObject(s, "is_error", !strcmp(col(res, i, "status"), "error"));
		cJSON_AddBoolToObject(s, "is_human", !strcmp(col(res, i, "kind"), "human"));
		cJSON_AddBoolToObject(s, "is_policy", !strcmp(col(res, i, "kind"), "policy"));
		add_str(s, "rewrite", col(res, i, "rewrite"));
		add_str(s, "error", col(res, i, "error"));
		if ((v = col(res, i, "ms"))) {
			char ms[32];

			snprintf(ms, sizeof ms, "%.1f", atof(v));
			cJSON_AddStringToObject(s, "ms", ms);
		}
		if ((v = col(res, i, "input")))
			in = cJSON_Parse(v);
		if ((v = col(res, i, "output")))
			o = cJSON_Parse(v);
		step_fields(s, in, o);
		/* what the step found, in words (step_words.c) */
		step_words(r, s, col(res, i, "kind"), col(res, i, "name"), col(res, i, "status"), in, o);
		/* "attempt 2 of 3, previous error: ..." from the last failed step before this one */
		if (cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(s, "attempt")) > 1 && last_err[0] &&
		    !cJSON_GetObjectItemCaseSensitive(s, "previous_error"))
			cJSON_AddStringToObject(s, "previous_error", last_err);
		if ((v = col(res, i, "error")))
			snprintf(last_err, sizeof last_err, "%s", v);
		/* the same SQL carried through several steps is shown once, where it first appears */
		{
			const char *sq = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "sql"));
			static char last[65];
			char h[65];

			if (sq) {
				sha256_hex(sq, strlen(sq), h);
				if (seen && !strcmp(last, h))
					cJSON_DeleteItemFromObjectCaseSensitive(s, "sql_html");
				memcpy(last, h, sizeof last);
				seen = 1;
			}
		}
		/* the raw record, for the curious (collapsed in the page) */
		if (in || o) {
			cJSON *detail = cJSON_CreateObject();
			char *txt;

			if (in) cJSON_AddItemReferenceToObject(detail, "input", in);
			if (o) cJSON_AddItemReferenceToObject(detail, "output", o);
			txt = cJSON_Print(detail);
			if (txt && strlen(txt) > 20000)
				strcpy(txt + 19990, "\n…");
			add_str(s, "detail", txt);
			free(txt);
			cJSON_Delete(detail);
		}
		cJSON_Delete(in);
		cJSON_Delete(o);
		/* Mustache looks a missing name up in the enclosing contexts (the run has sql_html,
		 * error...): every name the step template uses is set, false when absent */
		{
			static const char *const keys[] = {"attempt", "attempt_of", "previous_error", "reasoning", "tool",
			                                   "sql_html", "findings", "rewrite", "error", "detail", "ms", NULL};

			for (const char *const *k = keys; *k; k++)
				if (!cJSON_GetObjectItemCaseSensitive(s, *k))
					cJSON_AddFalseToObject(s, *k);
		}
		cJSON_AddItemToArray(arr, s);
	}
	PQclear(res);
	*out = arr;
	return OK;
}
