/* tools.c: the ReAct tool registry: name -> function; each returns JSON the model reads back. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "agent/agent_int.h"
#include "catalog/lexicon.h"
#include "agent/react_xml.h"
#include "sql/explain.h"
#include "sql/guard.h"
#include "util/conf.h"
#include "util/log.h"
#include "util/sb.h"


typedef void (*tool_fn)(struct agent *a, const struct react_call *c, struct tool_out *o);

struct tool {
	const char *name;
	tool_fn fn;
};

/* First present parameter among names (models vary: sql / query, table / table_name). */
static const char *param(const struct react_call *c, const char *a, const char *b)
{
	const char *v = react_call_param(c, a);

	if ((!v || !*v) && b)
		v = react_call_param(c, b);
	return v && *v ? v : NULL;
}

static void fail(struct tool_out *o, const char *fmt, const char *arg)
{
	char b[600];

	snprintf(b, sizeof b, fmt, arg ? arg : "");
	cJSON_AddStringToObject(o->result, "error", b);
	o->ok = 0;
}

/* own_text: what the model and the analyst wrote that an error may quote back (the SQL and
 * the question), for llm_policy_scrub_error (heap). */
static char *own_text(struct agent *a, const char *sql)
{
	struct sb b = SB_INIT;

	sb_printf(&b, "%s\n%s", sql ? sql : "", a->state.question ? a->state.question : "");
	return sb_steal(&b);
}

/* own_name: name (taken from an error's message) may reach the model: always under rows, else
 * only when the model wrote it in sql */
static int own_name(const struct agent *a, const char *sql, const char *name)
{
	if (a->policy == LLM_POLICY_ROWS || a->policy == LLM_POLICY_UNSET)
		return 1;
	return sql && name && *name && strstr(sql, name) != NULL;
}

/* fail_db: an error of the database as the tool's result, as the run's policy lets the model
 * read it (sqlstate "" or NULL: askql's own refusal, scrubbed; else the code and position only
 * under schema and values, llm_policy_db_error) */
static void fail_db(struct agent *a, struct tool_out *o, const char *sqlstate, int position, const char *text,
                    const char *sql)
{
	char *own = own_text(a, sql);
	char *t = llm_policy_db_error(a->policy, a->cat, sqlstate, position, text, own);

	fail(o, "%s", t ? t : "error withheld");
	free(t);
	free(own);
}

/* Lower-case words of s (ASCII letters/digits/_ and any non-ASCII byte runs). */
static int words(const char *s, char w[][64], int max)
{
	int n = 0;

	while (*s && n < max) {
		size_t l = 0;

		while (*s && !(isalnum((unsigned char)*s) || *s == '_' || (unsigned char)*s >= 0x80))
			s++;
		while (*s && (isalnum((unsigned char)*s) || *s == '_' || (unsigned char)*s >= 0x80)) {
			if (l < 63)
				w[n][l++] = (char)tolower((unsigned char)*s);
			s++;
		}
		w[n][l] = '\0';
		if (l >= 2)
			n++;
	}
	return n;
}

/* Retrieval on q for a search tool; 0 when the catalog answered. */
static int tool_retrieve(struct agent *a, const char *q, struct retrieval *r)
{
	struct retrieval_opts ro = {.k = 10, .token_budget = 600};

	memset(r, 0, sizeof *r);
	if (!a->cat)
		return -1;
	return catalog_retrieve(a->cat, q, &ro, r) == OK ? 0 : -1;
}

static void t_search_tables(struct agent *a, const struct react_call *c, struct tool_out *o)
{
	const char *q = param(c, "query", "keyword");
	struct retrieval r;
	cJSON *arr = cJSON_AddArrayToObject(o->result, "tables");

	if (!q)
		q = a->state.question;
	if (tool_retrieve(a, q, &r) == 0) {
		for (int i = 0; i < r.ntables; i++) {
			cJSON *t = cJSON_CreateObject();

			cJSON_AddStringToObject(t, "name", r.tables[i].name);
			cJSON_AddNumberToObject(t, "score", r.tables[i].score);
			if (r.tables[i].sources)
				cJSON_AddStringToObject(t, "matched_by", r.tables[i].sources);
			cJSON_AddItemToArray(arr, t);
		}
		if (r.nsuggestions) {
			cJSON *s = cJSON_AddArrayToObject(o->result, "suggestions");

			for (int i = 0; i < r.nsuggestions; i++)
				cJSON_AddItemToArray(s, cJSON_CreateString(r.suggestions[i]));
		}
		retrieval_free(&r);
	} else {
		/* degraded: name matching over the schema listing */
		char w[16][64];
		int nw = words(q, w, 16);
		const cJSON *it;
		const char *prev = "";

		cJSON_AddStringToObject(o->result, "note", "catalog unavailable: plain name matching");
		cJSON_ArrayForEach(it, inspector_columns(a)) {
			const char *t = cJSON_GetObjectItemCaseSensitive(it, "table")->valuestring;

			if (!strcmp(t, prev))
				continue;
			prev = t;
			for (int i = 0; i < nw; i++)
				if (strstr(t, w[i])) {
					cJSON *x = cJSON_CreateObject();

					cJSON_AddStringToObject(x, "name", t);
					cJSON_AddItemToArray(arr, x);
					break;
				}
		}
		if (!cJSON_GetArraySize(arr)) {
			prev = "";
			cJSON_ArrayForEach(it, inspector_columns(a)) {
				const char *t = cJSON_GetObjectItemCaseSensitive(it, "table")->valuestring;

				if (strcmp(t, prev)) {
					cJSON *x = cJSON_CreateObject();

					cJSON_AddStringToObject(x, "name", t);
					cJSON_AddItemToArray(arr, x);
				}
				prev = t;
			}
		}
	}
	o->ok = 1;
}

static void t_search_columns(struct agent *a, const struct react_call *c, struct tool_out *o)
{
	const char *q = param(c, "query", "keyword"), *table = param(c, "table", "table_name");
	struct retrieval r;
	cJSON *arr = cJSON_AddArrayToObject(o->result, "columns");

	if (!q)
		q = table ? table : a->state.question;
	if (tool_retrieve(a, q, &r) == 0) {
		for (int i = 0; i < r.ncolumns; i++) {
			const struct ret_column *rc = &r.columns[i];
			cJSON *x;

			if (table && strcmp(table, rc->table))
				continue;
			x = cJSON_CreateObject();
			cJSON_AddStringToObject(x, "table", rc->table);
			cJSON_AddStringToObject(x, "column", rc->name);
			if (rc->type)
				cJSON_AddStringToObject(x, "type", rc->type);
			if (rc->full_name)
				cJSON_AddStringToObject(x, "meaning", rc->full_name);
			if (rc->unit)
				cJSON_AddStringToObject(x, "unit", rc->unit);
			if (rc->has_range) {
				char b[64];

				snprintf(b, sizeof b, "%g-%g", rc->range_lo, rc->range_hi);
				cJSON_AddStringToObject(x, "normal_range", b);
			}
			cJSON_AddNumberToObject(x, "score", rc->score);
			cJSON_AddItemToArray(arr, x);
		}
		for (int i = 0; i < r.nvalues; i++) {
			cJSON *m = cJSON_GetObjectItemCaseSensitive(o->result, "value_mappings"), *x;

			if (!llm_policy_values_ok2(a->policy, a->cat, r.values[i].table, r.values[i].column))
				continue;

			if (!m)
				m = cJSON_AddArrayToObject(o->result, "value_mappings");
			x = cJSON_CreateObject();
			cJSON_AddStringToObject(x, "phrase", r.values[i].phrase ? r.values[i].phrase : "");
			cJSON_AddStringToObject(x, "column", r.values[i].column);
			cJSON_AddStringToObject(x, "table", r.values[i].table);
			cJSON_AddStringToObject(x, "value", r.values[i].value);
			cJSON_AddItemToArray(m, x);
		}
		retrieval_free(&r);
	}
	if (!cJSON_GetArraySize(arr)) {
		/* degraded, or the catalog found nothing in that table: list its columns */
		char w[16][64];
		int nw = words(q, w, 16);
		const cJSON *it;

		cJSON_ArrayForEach(it, inspector_columns(a)) {
			const char *t = cJSON_GetObjectItemCaseSensitive(it, "table")->valuestring;
			const char *col = cJSON_GetObjectItemCaseSensitive(it, "column")->valuestring;
			int hit = table ? !strcmp(t, table) : 0;

			for (int i = 0; !hit && i < nw; i++)
				hit = strstr(col, w[i]) != NULL;
			if (hit) {
				cJSON *x = cJSON_CreateObject();

				cJSON_AddStringToObject(x, "table", t);
				cJSON_AddStringToObject(x, "column", col);
				cJSON_AddStringToObject(x, "type", cJSON_GetObjectItemCaseSensitive(it, "type")->valuestring);
				cJSON_AddItemToArray(arr, x);
			}
		}
	}
	o->ok = 1;
}

static int ident_ok(const char *s, size_t n)
{
	if (!n || n > 63)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return 0;
	return 1;
}

/* Length of the UTF-8 prefix of s one character shorter. */
static size_t shorter(const char *s, size_t n)
{
	if (!n)
		return 0;
	n--;
	while (n && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	return n;
}

static size_t nchars(const char *s, size_t n)
{
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			c++;
	return c;
}

/* the keyword and its translations, deduplicated, at most 12 */
struct words { const char *s[12]; int n; };
static void words_add(void *arg, const char *t)
{
	struct words *w = arg;

	for (int i = 0; i < w->n; i++)
		if (!strcasecmp(w->s[i], t))
			return;
	if (w->n < 12 && *t)
		w->s[w->n++] = t;
}

/* the stored values of tname.cname containing kw[0..kl) (case-insensitive), through the
 * guarded executor, into vals; ERR_* (and o failed) when the query fails */
static enum err value_query(struct agent *a, struct tool_out *o, cJSON *vals, const char *tname,
                            const char *cname, const char *kw, size_t kl, int exact)
{
	struct sb q = SB_INIT;
	struct exec_out eo;

	sb_printf(&q, "SELECT DISTINCT \"%s\"::text AS value FROM \"%s\" WHERE \"%s\"::text ILIKE '%s",
	          cname, tname, cname, exact ? "" : "%");
	for (size_t i = 0; i < kl; i++) {
		if (kw[i] == '\'')
			sb_puts(&q, "''");
		else if (kw[i] == '%' || kw[i] == '_' || kw[i] == '\\') {
			sb_putc(&q, '\\');
			sb_putc(&q, kw[i]);
		} else
			sb_putc(&q, kw[i]);
	}
	sb_puts(&q, exact ? "' ORDER BY 1 LIMIT 20" : "%' ORDER BY 1 LIMIT 20");
	executor_run(a, NULL, sb_cstr(&q), 20, &eo);
	sb_free(&q);
	if (!eo.ok) {
		fail(o, "%s", eo.error);
		exec_out_free(&eo);
		return ERR_DB;
	}
	for (long long i = 0; i < eo.r.nrows; i++)
		if (eo.r.rows[i][0])
			cJSON_AddItemToArray(vals, cJSON_CreateString(eo.r.rows[i][0]));
	exec_out_free(&eo);
	return OK;
}

static void t_search_column_values(struct agent *a, const struct react_call *c, struct tool_out *o)
{
	const char *col = param(c, "column", "column_fqn"), *kw = param(c, "keyword", "value"), *dot;
	const char *table = param(c, "table", "table_name");
	char tname[64], cname[64];
	size_t kl;
	cJSON *vals = cJSON_AddArrayToObject(o->result, "values");

	if (!col || !kw) {
		fail(o, "search_column_values needs column (table.column) and keyword%s", NULL);
		return;
	}
	if ((dot = strchr(col, '.'))) {
		if (!ident_ok(col, (size_t)(dot - col)) || !ident_ok(dot + 1, strlen(dot + 1))) {
			fail(o, "not a column name: %s", col);
			return;
		}
		snprintf(tname, sizeof tname, "%.*s", (int)(dot - col), col);
		snprintf(cname, sizeof cname, "%s", dot + 1);
	} else if (table && ident_ok(table, strlen(table)) && ident_ok(col, strlen(col))) {
		snprintf(tname, sizeof tname, "%s", table);
		snprintf(cname, sizeof cname, "%s", col);
	} else {
		fail(o, "column must be written table.column, got %s", col);
		return;
	}
	if (!inspector_relation_ok(a, NULL, tname)) {
		fail(o, "unknown table %s", tname);
		return;
	}
	if (!llm_policy_values_ok2(a->policy, a->cat, tname, cname)) {
		/* not even looked up: what is never read cannot be sent */
		char note[240];

		snprintf(note, sizeof note, a->policy == LLM_POLICY_SCHEMA
		         ? "stored values are not shown to the model (llm_data_policy schema): write the "
		           "condition from the question's own words"
		         : "this column identifies persons: its values are not shown to the model "
		           "(llm_data_policy values)");
		cJSON_AddStringToObject(o->result, "column", col);
		cJSON_AddStringToObject(o->result, "values_withheld", note);
		o->ok = 1;
		return;
	}
	/* 1. the words as given, then their lexicon translations and synonyms (칼륨 -> potassium,
	 *    사망 -> expired ...), each as a substring; 2. the words shortened from the end
	 *    (react-framework 5.2); 3. nothing matched: the column's most frequent values */
	struct words w = {{0}, 0};

	int nterms;
	const struct lexicon *lx = lexicon_get(NULL);

	words_add(&w, kw);
	lexicon_terms(lx, kw, words_add, &w);
	nterms = w.n;
	/* codes of the keyword's entries (칼륨 -> K) match whole values only */
	{
		int ids[4], n, weak;

		n = lexicon_exact(lx, kw, ids, 4, &weak);
		for (int i = 0; i < n; i++)
			for (int k = 0; k < lx->e[ids[i]].ncodes; k++)
				words_add(&w, lx->e[ids[i]].codes[k]);
	}
	for (int i = 0; i < w.n && !cJSON_GetArraySize(vals); i++) {
		if (value_query(a, o, vals, tname, cname, w.s[i], strlen(w.s[i]), i >= nterms) != OK)
			return;
		if (cJSON_GetArraySize(vals)) {
			cJSON_AddStringToObject(o->result, "matched_keyword", w.s[i]);
			if (i > 0)
				cJSON_AddStringToObject(o->result, "note", "matched through a translation or synonym of the keyword");
		}
	}
	for (kl = shorter(kw, strlen(kw)); kl > 0 && !cJSON_GetArraySize(vals) && nchars(kw, kl) >= 2; kl = shorter(kw, kl)) {
		if (value_query(a, o, vals, tname, cname, kw, kl, 0) != OK)
			return;
		if (cJSON_GetArraySize(vals)) {
			char *used = strndup(kw, kl);

			cJSON_AddStringToObject(o->result, "matched_keyword", used);
			cJSON_AddStringToObject(o->result, "note", "keyword shortened until values matched");
			free(used);
		}
	}
	if (!cJSON_GetArraySize(vals)) {
		struct sb q = SB_INIT;
		struct exec_out eo;
		cJSON *top = cJSON_AddArrayToObject(o->result, "most_frequent");

		sb_printf(&q, "SELECT \"%s\"::text AS value, count(*) AS n FROM \"%s\" WHERE \"%s\" IS NOT NULL "
		          "GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 20", cname, tname, cname);
		executor_run(a, NULL, sb_cstr(&q), 20, &eo);
		sb_free(&q);
		if (!eo.ok) {
			fail(o, "%s", eo.error);
			exec_out_free(&eo);
			return;
		}
		for (long long i = 0; i < eo.r.nrows; i++)
			if (eo.r.rows[i][0]) {
				cJSON *v = cJSON_CreateObject();

				cJSON_AddStringToObject(v, "value", eo.r.rows[i][0]);
				cJSON_AddNumberToObject(v, "rows", eo.r.rows[i][1] ? atof(eo.r.rows[i][1]) : 0);
				cJSON_AddItemToArray(top, v);
			}
		exec_out_free(&eo);
		cJSON_AddStringToObject(o->result, "note", "no stored value matched the keyword, its translations or synonyms; "
		                                           "these are the column's most frequent values: choose from them");
	}
	cJSON_AddStringToObject(o->result, "column", col);
	o->ok = 1;
}

static void t_find_similar_query(struct agent *a, const struct react_call *c, struct tool_out *o)
{
	const char *q = param(c, "question", "query");
	cJSON *arr = cJSON_AddArrayToObject(o->result, "similar");
	double best = 0;
	char *cached;

	if (!q)
		q = a->state.question;
	if (a->cat) {
		struct ret_similar sim[5];
		int ns = catalog_similar(a->cat, q, 5, 0.3, sim);

		for (int i = 0; i < ns; i++) {
			cJSON *x = cJSON_CreateObject();

			char *sql = llm_policy_scrub_sql(a->policy, a->cat, sim[i].sql);
			char *sq = llm_policy_scrub_text(a->policy, sim[i].question);

			cJSON_AddStringToObject(x, "question", sq ? sq : "");
			free(sq);
			cJSON_AddStringToObject(x, "sql", sql ? sql : "");
			free(sql);
			cJSON_AddNumberToObject(x, "score", sim[i].score);
			cJSON_AddStringToObject(x, "source", "verified");
			if (sim[i].score > best)
				best = sim[i].score;
			cJSON_AddItemToArray(arr, x);
		}
	}
	if (!a->state.no_cache && (cached = cache_lookup(a))) {
		cJSON *x = cJSON_CreateObject();

		cJSON_AddStringToObject(x, "question", a->state.question);
		char *sql = llm_policy_scrub_sql(a->policy, a->cat, cached);

		cJSON_AddStringToObject(x, "sql", sql ? sql : "");
		free(sql);
		cJSON_AddNumberToObject(x, "score", 1.0);
		cJSON_AddStringToObject(x, "source", "query cache");
		cJSON_AddItemToArray(arr, x);
		best = 1.0;
		free(cached);
	}
	cJSON_AddStringToObject(o->result, "action", best > 0.9 ? "IMMEDIATE_TEMPLATE_REUSE" :
	                                             best > 0.7 ? "ADAPT_TEMPLATE" : "GENERATE_NEW");
	o->ok = 1;
}

static void t_explain(struct agent *a, const struct react_call *c, struct tool_out *o)
{
	const char *sql = param(c, "sql", "query");
	struct explain_opts eo = {0};
	struct explain_result er;
	struct exec_error de = {0};
	enum err rc;

	if (!sql) {
		fail(o, "explain needs sql%s", NULL);
		return;
	}
	cJSON_AddStringToObject(o->result, "sql", sql);
	memset(&er, 0, sizeof er);
	eo.conninfo = a->conninfo;
	eo.hypo_conninfo = "";   /* hypothetical indexes are for the UI, not the loop */
	eo.relation_ok = inspector_relation_ok;
	eo.relation_ctx = a;
	rc = explain_run(sql, &eo, &er, &de);
	if (rc == OK) {
		char *j = explain_json(&er);
		cJSON *x = j ? cJSON_Parse(j) : NULL;

		if (x)
			cJSON_AddItemToObject(o->result, "analysis", x);
		free(j);
		o->ok = 1;
	} else {
		char *t = exec_error_text(&de);

		fail_db(a, o, de.sqlstate, de.position, t ? t : err_str(rc), sql);
		if (de.sqlstate[0])
			cJSON_AddStringToObject(o->result, "sqlstate", de.sqlstate);
		if (de.position > 0)
			cJSON_AddNumberToObject(o->result, "position", de.position);
		if (de.missing_column && own_name(a, sql, de.missing_column))
			cJSON_AddStringToObject(o->result, "missing_column", de.missing_column);
		if (de.suggested)
			cJSON_AddStringToObject(o->result, "suggested", de.suggested);
		free(t);
	}
	explain_free(&er);
	exec_error_free(&de);
}

/*
 * rows_into: a result as the model reads it.  Under llm_data_policy rows: columns, at most
 * maxrows rows, row_count.  Under schema and values the rows never leave: the columns with a
 * coarse type, the row count and a note (the "columns, types and row count").
 */
static void rows_into(struct agent *a, cJSON *res, struct exec_out *eo, int maxrows)
{
	/* the aggregate level's small cells: the model and the run page (run_view.c) learn that groups
	 * of fewer than k patients were left out (never how many: PostgreSQL dropped them) */
	if (eo->suppress_k > 0)
		cJSON_AddNumberToObject(res, "suppress_k", (double)eo->suppress_k);
	if (a->policy != LLM_POLICY_ROWS && a->policy != LLM_POLICY_UNSET) {
		cJSON *cols = cJSON_AddArrayToObject(res, "columns");
		char note[160];

		for (int i = 0; i < eo->r.ncols; i++) {
			cJSON *c = cJSON_CreateObject();
			const struct exec_col *ec = &eo->r.cols[i];

			cJSON_AddStringToObject(c, "name", ec->name ? ec->name : "");
			cJSON_AddStringToObject(c, "type", ec->is_bool ? "boolean" : ec->is_numeric ? "number"
			                                   : ec->is_temporal ? "date/time" : "text");
			cJSON_AddItemToArray(cols, c);
		}
		cJSON_AddNumberToObject(res, "row_count", (double)eo->r.nrows);
		cJSON_AddBoolToObject(res, "truncated", eo->r.truncated);
		snprintf(note, sizeof note, "rows are not shown to the model (llm_data_policy %s): judge the "
		         "result by its columns and row count", llm_policy_name(a->policy));
		cJSON_AddStringToObject(res, "rows_withheld", note);
		return;
	}
	char *j = exec_result_json(&eo->r);
	cJSON *x = j ? cJSON_Parse(j) : NULL, *rows;

	if (x) {
		cJSON_AddItemToObject(res, "columns", cJSON_DetachItemFromObjectCaseSensitive(x, "columns"));
		rows = cJSON_DetachItemFromObjectCaseSensitive(x, "rows");
		while (cJSON_GetArraySize(rows) > maxrows)
			cJSON_DeleteItemFromArray(rows, cJSON_GetArraySize(rows) - 1);
		cJSON_AddItemToObject(res, "rows", rows);
	}
	cJSON_AddNumberToObject(res, "row_count", (double)eo->r.nrows);
	cJSON_AddBoolToObject(res, "truncated", eo->r.truncated);
	cJSON_Delete(x);
	free(j);
}

static void exec_fail(struct agent *a, struct tool_out *o, struct exec_out *eo, const char *sql)
{
	fail_db(a, o, eo->sqlstate, eo->position, eo->error, sql);
	if (eo->sqlstate[0])
		cJSON_AddStringToObject(o->result, "sqlstate", eo->sqlstate);
	if (eo->position > 0)
		cJSON_AddNumberToObject(o->result, "position", eo->position);
	if (eo->missing_column && own_name(a, sql, eo->missing_column))
		cJSON_AddStringToObject(o->result, "missing_column", eo->missing_column);
	if (eo->missing_relation && own_name(a, sql, eo->missing_relation))
		cJSON_AddStringToObject(o->result, "missing_relation", eo->missing_relation);
	if (eo->suggested)
		cJSON_AddStringToObject(o->result, "suggested", eo->suggested);
}

static void t_execute_sql_preview(struct agent *a, const struct react_call *c, struct tool_out *o)
{
	const char *sql = param(c, "sql", "query");
	struct exec_out eo;

	if (!sql) {
		fail(o, "execute_sql_preview needs sql%s", NULL);
		return;
	}
	executor_run(a, NULL, sql, 10, &eo);
	if (eo.ok) {
		rows_into(a, o->result, &eo, 10);
		o->ok = 1;
	} else {
		exec_fail(a, o, &eo, sql);
	}
	exec_out_free(&eo);
}

static void t_submit_sql(struct agent *a, const struct react_call *c, struct tool_out *o)
{
	const char *sql = param(c, "sql", "query");

	if (!sql) {
		fail(o, "submit_sql needs sql%s", NULL);
		return;
	}
	executor_run(a, NULL, sql, conf_get_int("preview_limit"), &o->eo);
	char *finding = o->eo.ok ? result_check_run(a, &o->eo) : NULL;
	if (finding) {
		/* it ran but does not answer the question: an error the model reads and corrects */
		free(o->eo.error);
		o->eo.error = finding;
		o->eo.ok = 0;
	}
	if (o->eo.ok) {
		rows_into(a, o->result, &o->eo, 5);
		o->ok = o->terminal = 1;
	} else {
		exec_fail(a, o, &o->eo, sql);
	}
}

static void t_cannot_answer(struct agent *a, const struct react_call *c, struct tool_out *o)
{
	const char *m = param(c, "missing", "reason");

	o->missing = strdup(m ? m : "not stated by the model");
	cJSON_AddStringToObject(o->result, "missing", o->missing);
	o->ok = o->terminal = 1;
}

static const struct tool registry[] = {
	{"search_tables", t_search_tables},
	{"search_columns", t_search_columns},
	{"search_column_values", t_search_column_values},
	{"find_similar_query", t_find_similar_query},
	{"explain", t_explain},
	{"execute_sql_preview", t_execute_sql_preview},
	{"submit_sql", t_submit_sql},
	{"cannot_answer", t_cannot_answer},
};
#define NTOOLS ((int)(sizeof registry / sizeof registry[0]))

const char *const *tool_names(int *n)
{
	static const char *names[NTOOLS + 1];

	for (int i = 0; i < NTOOLS; i++)
		names[i] = registry[i].name;
	*n = NTOOLS;
	return names;
}

int tool_known(const char *name)
{
	for (int i = 0; name && i < NTOOLS; i++)
		if (!strcmp(registry[i].name, name))
			return 1;
	return 0;
}

void tool_exec(struct agent *a, const struct react_call *call, struct tool_out *o)
{
	memset(o, 0, sizeof *o);
	o->result = cJSON_CreateObject();
	for (int i = 0; i < NTOOLS; i++)
		if (!strcmp(registry[i].name, call->tool)) {
			registry[i].fn(a, call, o);
			return;
		}
	fail(o, "unknown tool %s", call->tool);
}

void tool_out_free(struct tool_out *o)
{
	cJSON_Delete(o->result);
	exec_out_free(&o->eo);
	free(o->missing);
	memset(o, 0, sizeof *o);
}
