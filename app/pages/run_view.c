/* run_view.c: a run and its steps as template data (shared by the run page, the stream, SSE and the API). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "pages/answer.h"
#include "pages/restate.h"
#include "pages/chart.h"
#include "pages/decline_words.h"
#include "pages/pages.h"
#include "pages/sqlfmt.h"
#include "pages/step_words.h"
#include "sql/exec.h"
#include "sql/suppress.h"
#include "store/db.h"
#include "store/level.h"
#include "util/arena.h"
#include "util/conf.h"
#include "util/i18n.h"
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

/* What the result's words need of the run besides its columns and rows. */
struct run_ctx {
	const char *question, *sql, *target, *tables, *status;
	const char *stored_answer;  /* runs.answer: the packager's statistics, or the model's {"ko","en"} */
	long long row_count;  /* the whole result when !truncated, else the preview's size */
	int truncated;
};

/* What the catalog says of one source column: its header in each language and its unit. */
struct cat_col {
	char *name, *en, *ko, *unit;
};

/* catalog_cols: the catalog rows of the run's tables for the given column names (one query); *n set */
static struct cat_col *catalog_cols(const struct run_ctx *x, struct sb *names, int *n)
{
	const char *p[3] = {x->target, x->tables, sb_cstr(names)};
	struct cat_col *cc;
	PGresult *res;

	*n = 0;
	if (!x->target || !x->tables || !*x->tables || !names->len)
		return NULL;
	/* the header in Korean: the first Hangul synonym the catalog holds (진료과 for department) */
	res = db_query(db_app(),
	               "SELECT DISTINCT ON (c.name) c.name, coalesce(c.full_name, ''), "
	               "coalesce((SELECT s FROM unnest(c.synonyms) s WHERE s ~ '[가-힣]' LIMIT 1), ''), "
	               "coalesce(c.unit, '') FROM askql.cat_columns c "
	               "WHERE c.target = $1 AND (c.table_name = ANY(string_to_array($2, ', ')) OR "
	               "c.schema_name || '.' || c.table_name = ANY(string_to_array($2, ', '))) "
	               "AND c.name = ANY(string_to_array($3, ',')) ORDER BY c.name, c.table_name",
	               3, p, NULL, 0);
	if (!res)
		return NULL;
	cc = calloc((size_t)PQntuples(res) + 1, sizeof *cc);
	for (int i = 0; cc && i < PQntuples(res); i++) {
		cc[i].name = strdup(PQgetvalue(res, i, 0));
		cc[i].en = strdup(PQgetvalue(res, i, 1));
		cc[i].ko = strdup(PQgetvalue(res, i, 2));
		cc[i].unit = strdup(PQgetvalue(res, i, 3));
		(*n)++;
	}
	PQclear(res);
	return cc;
}

/* cat_cols_free: what catalog_cols returned */
static void cat_cols_free(struct cat_col *cc, int n)
{
	for (int i = 0; cc && i < n; i++) {
		free(cc[i].name);
		free(cc[i].en);
		free(cc[i].ko);
		free(cc[i].unit);
	}
	free(cc);
}

static const struct cat_col *cat_find(const struct cat_col *cc, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (cc[i].name && !strcasecmp(cc[i].name, name))
			return &cc[i];
	return NULL;
}

/* The catalog's headers for the restatement (pages/restate.h): looked up in cc, in the language. */
struct restate_ctx { const struct cat_col *cc; int n; int ko; };

static const char *restate_label(void *ctx, const char *col)
{
	const struct restate_ctx *rc = ctx;
	const struct cat_col *k = cat_find(rc->cc, rc->n, col);
	return k ? (rc->ko ? k->ko : k->en) : NULL;
}

void run_view_restate(struct req *r, const char *target, const char *sql, struct sb *out)
{
	struct sql_reading rd;
	struct sb names = SB_INIT, tables = SB_INIT;
	int ncc = 0;

	sql_reading_of(sql, &rd);
	for (int i = 0; i < rd.ntables; i++)
		sb_printf(&tables, "%s%s", i ? ", " : "", rd.tables[i]);
	struct run_ctx tx = {.target = target, .tables = sb_cstr(&tables)};
	const struct run_ctx *x = &tx;
	for (int i = 0; i < rd.nfilter; i++)
		sb_printf(&names, "%s%s", names.len ? "," : "", rd.filter[i].col);
	for (int i = 0; i < rd.nnum; i++)
		sb_printf(&names, "%s%s", names.len ? "," : "", rd.num[i].col);
	for (int i = 0; i < rd.ngroup; i++)
		sb_printf(&names, "%s%s", names.len ? "," : "", rd.group[i].col);
	if (rd.agg_col[0] && strcmp(rd.agg_col, "*"))
		sb_printf(&names, "%s%s", names.len ? "," : "", rd.agg_col);
	for (int i = 0; i < rd.ncols; i++)
		sb_printf(&names, "%s%s", names.len ? "," : "", rd.cols[i]);
	struct cat_col *cc = catalog_cols(x, &names, &ncc);
	struct restate_ctx rc = {cc, ncc, r->lang && !strcmp(r->lang, "ko")};
	const struct cat_col *ak = cat_find(cc, ncc, rd.agg_col);
	/* counting the patient identifier counts patients (as the column headers say) */
	int patients = strcasestr(rd.agg_col, "subject") || strcasestr(rd.agg_col, "patient") || (ak && !strcmp(ak->ko, "환자"));
	struct restate_names nm = {restate_label, &rc, patients ? rd.agg_col : NULL};
	restate(out, r->lang, &rd, &nm);
	cat_cols_free(cc, ncc);
	sb_free(&names);
	sb_free(&tables);
}

/* The words of one result column: its header (catalog, else humanised), aggregate, unit. */
struct col_words {
	char agg[16], src[64], unit[32];
	struct sb label;
};

/* describe: fill cols[c] (label, unit, agg, patients, fmt) and w[c] for every column */
static void describe(struct req *r, const struct run_ctx *x, const cJSON *cjcols, const cJSON *rows,
                     struct answer_col *cols, struct col_words *w, int ncol)
{
	struct sb names = SB_INIT;
	struct cat_col *cc;
	int ncc = 0, ko = r->lang && !strcmp(r->lang, "ko");

	for (int c = 0; c < ncol; c++) {
		const cJSON *ci = cJSON_GetArrayItem(cjcols, c);
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ci, "name"));

		cols[c].name = name ? name : cJSON_IsString(ci) ? ci->valuestring : "?";
		cols[c].type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ci, "type"));
		answer_source(x->sql, cols[c].name, w[c].agg, sizeof w[c].agg, w[c].src, sizeof w[c].src);
		if (names.len)
			sb_putc(&names, ',');
		sb_puts(&names, w[c].src[0] && strcmp(w[c].src, "*") ? w[c].src : cols[c].name);
	}
	cc = catalog_cols(x, &names, &ncc);
	for (int c = 0; c < ncol; c++) {
		const struct cat_col *k = cat_find(cc, ncc, w[c].src[0] ? w[c].src : cols[c].name);
		const char *cl = k ? (ko ? k->ko : k->en) : NULL;
		struct sb base = SB_INIT;
		char key[40];

		if (w[c].agg[0])
			cols[c].agg = w[c].agg;
		if (k && *k->unit) {
			snprintf(w[c].unit, sizeof w[c].unit, "%s", k->unit);
			cols[c].unit = w[c].unit;
		}
		/* the source column's own header, else its name made readable */
		if (cl && *cl)
			sb_puts(&base, cl);
		else
			answer_label(&base, r->lang, w[c].src[0] && strcmp(w[c].src, "*") ? w[c].src : cols[c].name);
		/* counting the patient identifier counts patients (명 / patients) */
		cols[c].patients = w[c].agg[0] && !strcmp(w[c].agg, "count") &&
		                   (strcasestr(w[c].src, "subject") || strcasestr(w[c].src, "patient") ||
		                    (k && !strcmp(k->ko, "환자")));
		if (cols[c].patients)
			sb_puts(&w[c].label, i18n_get(r->lang, "result.agg.count_patients"));
		else if (w[c].agg[0] && !strcmp(w[c].src, "*"))
			sb_puts(&w[c].label, i18n_get(r->lang, "result.agg.count_all"));
		else if (w[c].agg[0] && w[c].src[0]) {
			snprintf(key, sizeof key, "result.agg.%s", w[c].agg);
			/* "Average age", not "Average Age" (an acronym such as BMI stays) */
			if (strcmp(r->lang, "ko") && base.len > 1 && isupper((unsigned char)base.buf[0]) &&
			    !isupper((unsigned char)base.buf[1]))
				base.buf[0] = (char)tolower((unsigned char)base.buf[0]);
			i18n_format(&w[c].label, r->lang, key, (const char *[]){"col", sb_cstr(&base), NULL});
		} else if (cl && *cl && !w[c].agg[0])
			sb_puts(&w[c].label, cl);
		else
			answer_label(&w[c].label, r->lang, cols[c].name);
		cols[c].label = sb_cstr(&w[c].label);
		cols[c].fmt = answer_col_fmt(&cols[c], rows, c);
		sb_free(&base);
	}
	cat_cols_free(cc, ncc);
	sb_free(&names);
}

/* add_chart_chooser: above a timeline of several patients (cases...), a form that names the one drawn
 * (GET patient=k, the k-th in the result's order; no identifier goes into the URL), listing each with
 * its row count, and keeping the table's sorting and page.  Works without JavaScript. */
static void add_chart_chooser(struct req *r, cJSON *d, const cJSON *rows, const struct chart_info *ci,
                              int truncated, long long sortc, const char *dir, long long page)
{
	struct chart_entity *ev = calloc(CHART_MAXENTITIES, sizeof *ev);
	cJSON *ch, *opts, *hid;
	char num[24], kb[24], key[64];
	struct sb t = SB_INIT;
	int n;

	if (!ev)
		return;
	n = chart_entities(rows, ci->entity_col, ev, CHART_MAXENTITIES);
	ch = cJSON_AddObjectToObject(d, "chart_chooser");
	i18n_format(&t, r->lang, "chart.choose_label", (const char *[]){"name", ci->entity_title, NULL});
	cJSON_AddStringToObject(ch, "label", sb_cstr(&t));
	cJSON_AddStringToObject(ch, "name", ci->entity_name ? ci->entity_name : "");
	snprintf(num, sizeof num, "%d", n);
	sb_reset(&t);
	/* "in the result", or "in the preview" when the stored rows are the first of more; 명 for people */
	snprintf(key, sizeof key, "chart.choose_%s%s%s", n > CHART_MAXENTITIES ? "more" : "count",
	         truncated ? "_preview" : "", chart_entity_is_person(ci->entity_name) ? "_people" : "");
	snprintf(kb, sizeof kb, "%d", CHART_MAXENTITIES);
	i18n_format(&t, r->lang, key, (const char *[]){"n", num, "max", kb, NULL});
	cJSON_AddStringToObject(ch, "count", sb_cstr(&t));
	opts = cJSON_AddArrayToObject(ch, "options");
	for (int k = 0; k < n && k < CHART_MAXENTITIES; k++) {
		cJSON *o = cJSON_CreateObject();

		sb_reset(&t);
		snprintf(num, sizeof num, "%d", ev[k].rows);
		i18n_format(&t, r->lang, ev[k].rows == 1 ? "chart.entity_rows_one" : "chart.entity_rows",
		            (const char *[]){"value", ev[k].value, "n", num, NULL});
		cJSON_AddNumberToObject(o, "k", k + 1);
		cJSON_AddStringToObject(o, "text", sb_cstr(&t));
		if (k == ci->entity)
			cJSON_AddBoolToObject(o, "selected", 1);
		cJSON_AddItemToArray(opts, o);
	}
	/* the table's sorting and page go along with the choice */
	hid = cJSON_AddArrayToObject(ch, "hidden");
	if (sortc >= 0) {
		cJSON *h = cJSON_CreateObject();

		snprintf(num, sizeof num, "%lld", sortc);
		cJSON_AddStringToObject(h, "name", "sort");
		cJSON_AddStringToObject(h, "value", num);
		cJSON_AddItemToArray(hid, h);
		h = cJSON_CreateObject();
		cJSON_AddStringToObject(h, "name", "dir");
		cJSON_AddStringToObject(h, "value", dir && !strcmp(dir, "desc") ? "desc" : "asc");
		cJSON_AddItemToArray(hid, h);
	}
	if (page > 1) {
		cJSON *h = cJSON_CreateObject();

		snprintf(num, sizeof num, "%lld", page);
		cJSON_AddStringToObject(h, "name", "page");
		cJSON_AddStringToObject(h, "value", num);
		cJSON_AddItemToArray(hid, h);
	}
	sb_free(&t);
	free(ev);
}

/* The result table: one page of the stored preview, sorted as asked, plus the chart. */
static void add_result(struct req *r, cJSON *d, const char *columns_json, const char *preview_json, long long id,
                       const struct run_ctx *x)
{
	cJSON *cols = cJSON_Parse(columns_json ? columns_json : "null");
	cJSON *prev = cJSON_Parse(preview_json ? preview_json : "null");
	cJSON *rows = prev, *tcols, *trows, *pages;
	long long page = req_param(r, "page") ? req_param_int(r, "page", 1) : 1;
	long long sortc = req_param_int(r, "sort", -1);
	const char *dir = req_param(r, "dir");
	int ncol = 0, nrow, npages;
	cJSON **arr = NULL;
	struct answer_col *acols = NULL;
	struct col_words *words = NULL;
	struct sb svg = SB_INIT;
	struct chart_info chart = {0};
	char keep[32] = "";     /* the timeline's patient, kept by the sort and paging links */

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
	acols = calloc((size_t)ncol + 1, sizeof *acols);
	words = calloc((size_t)ncol + 1, sizeof *words);
	if (!acols || !words)
		goto out;
	describe(r, x, cols, rows, acols, words, ncol);
	/* the true row count when the executor saw the end of the result (it fetches one row past the
	 * preview, so truncated means more rows exist), else the preview's size and a "+" */
	{
		struct sb rc = SB_INIT;

		answer_rows(&rc, r->lang, x->row_count >= 0 ? x->row_count : nrow, x->truncated);
		cJSON_AddStringToObject(d, "rows_text", sb_cstr(&rc));
		sb_reset(&rc);
		if (x->truncated) {
			char n[24];

			snprintf(n, sizeof n, "%d", nrow);
			i18n_format(&rc, r->lang, "result.rows_preview_help", (const char *[]){"n", n, NULL});
			cJSON_AddStringToObject(d, "rows_help", sb_cstr(&rc));
		}
		sb_free(&rc);
	}
	/* the answer in words, for a run that ended with a result */
	if (x->status && !strcmp(x->status, "ok")) {
		struct sb a = SB_INIT, said_back = SB_INIT;
		run_view_restate(r, x->target, x->sql, &said_back);
		cJSON_AddStringToObject(d, "reading", sb_cstr(&said_back));
		struct answer_in in = {r->lang, x->question, x->sql, acols, ncol, rows,
		                       x->row_count >= 0 ? x->row_count : nrow, x->truncated, sb_cstr(&said_back)};
		enum answer_kind k = answer_sentence(&a, &in);
		/* the model's sentence, when the packager stored one (answer_llm_rows), in this language */
		cJSON *llm = x->stored_answer && x->stored_answer[0] == '{' ? cJSON_Parse(x->stored_answer) : NULL;
		const char *said = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(llm, r->lang));

		cJSON_DeleteItemFromObjectCaseSensitive(d, "answer");
		cJSON_AddStringToObject(d, "answer", said && *said ? said : sb_cstr(&a));
		cJSON_AddStringToObject(d, "answer_kind", answer_kind_name(k));
		cJSON_AddStringToObject(d, "answer_by", said && *said ? "llm" : "offline");
		if (said && *said)
			cJSON_AddStringToObject(d, "answer_note", view_t(r, "result.answer.llm"));
		cJSON_Delete(llm);
		sb_free(&a);
		sb_free(&said_back);
	}
	/* the chart: axes and legends named as the table's headers (the columns' SQL names on hover) */
	for (int c = 0; c < ncol; c++) {
		cJSON *ci = cJSON_GetArrayItem(cols, c);

		if (cJSON_IsObject(ci) && acols[c].label && *acols[c].label) {
			cJSON_DeleteItemFromObjectCaseSensitive(ci, "label");
			cJSON_AddStringToObject(ci, "label", acols[c].label);
		}
	}
	if (chart_for_run(&svg, cols, rows, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "target")),
	                  cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "sql")), r->lang,
	                  chart_entity_param(req_param(r, "patient"), CHART_MAXENTITIES), &chart)) {
		cJSON_AddStringToObject(d, "chart_svg", sb_cstr(&svg));
		cJSON_AddStringToObject(d, "chart_kind", chart.kind);
		if (chart.entity_col >= 0 && chart.nentities > 1) {
			add_chart_chooser(r, d, rows, &chart, x->truncated, sortc, dir, page);
			if (chart.entity > 0)
				snprintf(keep, sizeof keep, "&patient=%d", chart.entity + 1);
		}
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
		cJSON_AddStringToObject(o, "label", acols[c].label);
		add_str(o, "type", type);
		cJSON_AddBoolToObject(o, "num", is_numeric_type(type));
		snprintf(href, sizeof href, "/runs/%lld?sort=%d&dir=%s%s", id, c, cur && !desc ? "desc" : "asc", keep);
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
			} else if (cJSON_IsNumber(v) || (cJSON_IsString(v) && acols[c].fmt != FMT_TEXT)) {
				/* rounded for reading; the full value on hover (downloads keep it too) */
				struct sb f = SB_INIT;

				if (cJSON_IsNumber(v)) {
					if (v->valuedouble == (double)(long long)v->valuedouble && fabs(v->valuedouble) < 1e15)
						snprintf(buf, sizeof buf, "%lld", (long long)v->valuedouble);
					else
						snprintf(buf, sizeof buf, "%.15g", v->valuedouble);
				} else {
					snprintf(buf, sizeof buf, "%s", v->valuestring);
				}
				answer_value(&f, v, acols[c].fmt == FMT_TEXT ? FMT_REAL : acols[c].fmt, r->lang);
				cJSON_AddStringToObject(cell, "v", sb_cstr(&f));
				if (strcmp(sb_cstr(&f), buf))
					cJSON_AddStringToObject(cell, "full", buf);
				cJSON_AddBoolToObject(cell, "num", acols[c].fmt != FMT_BOOL);
				sb_free(&f);
			} else if (cJSON_IsBool(v) || (cJSON_IsString(v) && acols[c].fmt == FMT_BOOL)) {
				struct sb f = SB_INIT;

				answer_value(&f, v, FMT_BOOL, r->lang);
				cJSON_AddStringToObject(cell, "v", sb_cstr(&f));
				sb_free(&f);
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
			snprintf(href, sizeof href, "/runs/%lld?page=%lld%s", id, page - 1, keep);
			if (sortc >= 0)
				snprintf(href, sizeof href, "/runs/%lld?page=%lld&sort=%lld&dir=%s%s", id, page - 1, sortc, dir ? dir : "asc", keep);
			cJSON_AddStringToObject(pages, "prev", href);
		}
		if (page < npages) {
			snprintf(href, sizeof href, "/runs/%lld?page=%lld%s", id, page + 1, keep);
			if (sortc >= 0)
				snprintf(href, sizeof href, "/runs/%lld?page=%lld&sort=%lld&dir=%s%s", id, page + 1, sortc, dir ? dir : "asc", keep);
			cJSON_AddStringToObject(pages, "next", href);
		}
	}
out:
	for (int c = 0; words && c < ncol; c++)
		sb_free(&words[c].label);
	free(words);
	free(acols);
	free(arr);
	sb_free(&svg);
	cJSON_Delete(cols);
	cJSON_Delete(prev);
}

/* add_error: a failed run's error in words (what happened, what to do) when its SQLSTATE is a common
 * one; the raw text stays in d.error for the details toggle */
static void add_error(struct req *r, cJSON *d, const char *status, const char *error)
{
	const char *stem = error && status && strcmp(status, "ok") ? answer_error_key(error) : NULL;
	char key[64];

	if (!stem)
		return;
	snprintf(key, sizeof key, "%s.title", stem);
	cJSON_AddStringToObject(d, "error_title", i18n_get(r->lang, key));
	snprintf(key, sizeof key, "%s.help", stem);
	cJSON_AddStringToObject(d, "error_help", i18n_get(r->lang, key));
	cJSON_AddStringToObject(d, "error_kind", stem + strlen("result.err."));
}

/* add_suppressed: the aggregate access level's note: the last successful execution left out the
 * groups of fewer than k patients (sql/suppress.h; steps before issue 27 said how many instead) */
static void add_suppressed(struct req *r, cJSON *d, const char *run_id)
{
	const char *p[1] = {run_id};
	PGresult *res;
	char k[24];

	if (!run_id || !(res = db_query(db_app(), "SELECT coalesce(output->>'suppress_k', "
	                                "CASE WHEN (output->>'suppressed')::bigint > 0 THEN '0' END) FROM askql.steps "
	                                "WHERE run_id = $1::bigint AND name IN ('executor', 'submit_sql') AND status = 'ok' "
	                                "ORDER BY id DESC LIMIT 1", 1, p, NULL, 0)))
		return;
	if (PQntuples(res) && !PQgetisnull(res, 0, 0)) {
		struct sb m;
		long kk = atol(PQgetvalue(res, 0, 0));

		snprintf(k, sizeof k, "%ld", kk > 0 ? kk : exec_suppress_k());
		sb_init_arena(&m, r->a);
		i18n_format(&m, r->lang, "levels.suppressed", (const char *const[]){"k", k, NULL});
		if (exec_release_round() > 1) {
			/* the executor rounds at the aggregate level too (sql/exec.c, issue 27) */
			char rr[24];

			snprintf(rr, sizeof rr, "%ld", exec_release_round());
			sb_putc(&m, ' ');
			i18n_format(&m, r->lang, "levels.rounded", (const char *const[]){"r", rr, NULL});
		}
		cJSON_AddStringToObject(d, "suppressed_note", sb_cstr(&m));
	}
	PQclear(res);
}

/* run_release_offer: see pages.h.  The SQL alone must be in the safe aggregate form; the download
 * itself asks the database (patient keys, identifiers, links) and refuses clearly otherwise. */
void run_release_offer(struct req *r, cJSON *d)
{
	const char *sql = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "sql"));
	const char *status = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "status"));
	const char *target = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "target"));
	char keys_buf[512], *keys[16], *save = NULL, k[24], rr[24];
	struct suppress_opts so = {0};
	struct suppress_refusal why;
	struct sb m;
	int nkeys = 0;

	if (!status || strcmp(status, "ok") || !sql || !*sql)
		return;
	snprintf(keys_buf, sizeof keys_buf, "%s", conf_get("suppress_patient_keys"));
	for (char *t = strtok_r(keys_buf, ", ", &save); t && nkeys < 16; t = strtok_r(NULL, ", ", &save))
		keys[nkeys++] = t;
	so.keys = (const char *const *)keys;
	so.nkeys = nkeys;
	so.k = exec_suppress_k();
	if (suppress_rewrite(sql, &so, NULL, &why) != OK)
		return;
	snprintf(k, sizeof k, "%ld", exec_suppress_k());
	snprintf(rr, sizeof rr, "%ld", exec_release_round());
	sb_init_arena(&m, r->a);
	i18n_format(&m, r->lang, "release.help", (const char *const[]){"k", k, "r", rr, NULL});
	cJSON_AddStringToObject(d, "release_help", sb_cstr(&m));
	cJSON_AddBoolToObject(d, "release_ready", level_ready(db_app(), target));
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
	               "r.fingerprint, array_to_string(r.tables, ', ') AS tables, "
	               "coalesce(r.access_level, 'identified') AS held_level, r.user_id = $2::bigint AS mine "
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
	add_str(d, "held_level", col(res, 0, "held_level"));
	/* the signed-in user asked it (an admin may load others' runs): a withheld run's question goes
	 * back only to its asker (run_withheld, run_action.c) */
	cJSON_AddBoolToObject(d, "mine", col(res, 0, "mine") && !strcmp(col(res, 0, "mine"), "t"));
	if ((v = col(res, 0, "answer")) && *v == '{') {
		/* the model's sentence {"ko","en"} (add_result puts it, or the offline one, in place) */
		cJSON *said = cJSON_Parse(v);

		add_str(d, "answer", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(said, r->lang)));
		cJSON_Delete(said);
	} else {
		add_str(d, "answer", v);
		add_str(d, "statistics", v);
	}
	add_str(d, "error", col(res, 0, "error"));
	if ((v = col(res, 0, "error"))) {
		struct sb t = SB_INIT;

		/* a decline reason is stored in English; the raw text stays in d.error */
		decline_words(r->lang, v, &t);
		cJSON_AddStringToObject(d, "error_text", sb_cstr(&t));
		sb_free(&t);
	}
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
	{
		struct run_ctx x = {col(res, 0, "question"), col(res, 0, "sql"), col(res, 0, "target"), col(res, 0, "tables"),
		                    status, col(res, 0, "answer"), (v = col(res, 0, "row_count")) ? atoll(v) : -1,
		                    !strcmp(col(res, 0, "truncated"), "t")};

		add_result(r, d, col(res, 0, "columns"), col(res, 0, "preview"), id, &x);
	}
	add_error(r, d, status, col(res, 0, "error"));
	add_suppressed(r, d, col(res, 0, "id"));
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
		/* a column the user's access level withholds: said in words where it happened, also while
		 * the run is still paused for the next attempt (store/level.h) */
		if ((v = col(res, i, "error")) && (v = answer_error_key(v)) && !strncmp(v, "levels.", 7)) {
			snprintf(key, sizeof key, "%s.title", v);
			cJSON_AddStringToObject(s, "error_title", i18n_get(r->lang, key));
			snprintf(key, sizeof key, "%s.help", v);
			cJSON_AddStringToObject(s, "error_help", i18n_get(r->lang, key));
		}
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
			                                   "sql_html", "findings", "rewrite", "error", "error_title", "error_help", "detail", "ms", NULL};

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

enum err run_level_check(struct req *r, const cJSON *run, enum level *viewer)
{
	const char *target = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "target"));
	const char *held_s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "held_level"));
	enum level held = LEVEL_IDENTIFIED, lv = LEVEL_AGGREGATE;
	char err[256];

	if (viewer)
		*viewer = LEVEL_AGGREGATE;
	/* an unreadable stored level counts as the most revealing, an unreadable viewer's as the least */
	if (!held_s || level_parse(held_s, &held) != 0)
		held = LEVEL_IDENTIFIED;
	if (level_of(db_app(), r->user.id, target, &lv, err, sizeof err) != OK) {
		log_error("run %lld: the viewer's level: %s", (long long)cJSON_GetNumberValue(
		          cJSON_GetObjectItemCaseSensitive(run, "id")), err);
		return ERR_DB;
	}
	if (viewer)
		*viewer = lv;
	return level_allows(lv, held) ? OK : ERR_DENIED;
}

enum err run_withheld(struct req *r, const cJSON *run, enum level viewer)
{
	const char *held = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "held_level"));
	char kh[40], kv[40];
	const char *vars[5];
	cJSON *d;

	snprintf(kh, sizeof kh, "levels.level.%s", held ? held : "identified");
	snprintf(kv, sizeof kv, "levels.level.%s", level_name(viewer));
	vars[0] = "held";
	vars[1] = view_t(r, kh);
	vars[2] = "now";
	vars[3] = view_t(r, kv);
	vars[4] = NULL;
	/* the API and a stream get the reason as JSON; the page offers the re-run at the viewer's level */
	if (r->via_token)
		return page_notice(r, 403, "levels.withheld", vars, 0);
	if (!(d = view_data(r, "run.title")))
		return ERR_NOMEM;
	{
		struct sb msg;
		cJSON *o = cJSON_AddObjectToObject(d, "withheld");
		char ids[24];

		snprintf(ids, sizeof ids, "%lld", (long long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(run, "id")));
		cJSON_AddNumberToObject(o, "id", cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(run, "id")));
		/* the question is not shown either: it may name a patient (docs/privacy.md, "Lists") */
		sb_init_arena(&msg, r->a);
		i18n_format(&msg, r->lang, "levels.withheld_title", (const char *const[]){"id", ids, NULL});
		cJSON_AddStringToObject(o, "title", sb_cstr(&msg));
		add_str(o, "target", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "target")));
		sb_init_arena(&msg, r->a);
		i18n_format(&msg, r->lang, "levels.withheld", vars);
		cJSON_AddStringToObject(o, "message", sb_cstr(&msg));
		/* the re-run asks the question again: only its asker's own words go back to her */
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(run, "mine"))) {
			cJSON_AddBoolToObject(o, "can_rerun", 1);
		} else {
			const char *nv[] = {"id", ids, vars[0], vars[1], vars[2], vars[3], NULL};

			sb_init_arena(&msg, r->a);
			i18n_format(&msg, r->lang, "levels.rerun_withheld", nv);
			cJSON_AddStringToObject(o, "note", sb_cstr(&msg));
			cJSON_AddBoolToObject(o, "can_rerun", 0);
		}
		cJSON_AddStringToObject(o, "held", held ? held : "identified");
		cJSON_AddStringToObject(o, "now", level_name(viewer));
	}
	return view_render(r, 403, "run_withheld", d);
}

enum err run_level_refuse(struct req *r, const cJSON *run, enum level viewer, const char *key)
{
	const char *held = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "held_level"));
	char kh[40], kv[40], ids[24];

	snprintf(ids, sizeof ids, "%lld", (long long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(run, "id")));
	snprintf(kh, sizeof kh, "levels.level.%s", held ? held : "identified");
	snprintf(kv, sizeof kv, "levels.level.%s", level_name(viewer));
	return page_notice(r, 403, key, (const char *const[]){"id", ids, "held", view_t(r, kh), "now", view_t(r, kv), NULL}, 0);
}

int run_withhold(struct req *r, cJSON *run, enum err *e)
{
	enum level lv;

	if ((*e = run_level_check(r, run, &lv)) == OK)
		return 0;
	if (*e == ERR_DENIED)
		*e = run_withheld(r, run, lv);
	cJSON_Delete(run);
	return 1;
}
