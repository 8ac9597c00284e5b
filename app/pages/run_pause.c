/* run_pause.c: a step-mode run's pause as form data: the plan with include ticks, the SQL box (a refused edit kept with its reason), the notice. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "pages/pages.h"
#include "pages/step_words.h"
#include "util/i18n.h"
#include "util/sb.h"

static const char *js(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* What the inspector said about table (or table.column): its w_tables / w_columns entry, or NULL. */
static const cJSON *found(const cJSON *steps, const char *table, const char *column)
{
	const cJSON *s, *it;

	cJSON_ArrayForEach(s, steps) {
		const char *name = js(s, "name");

		if (!name || strcmp(name, "inspector"))
			continue;
		cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(s, column ? "w_columns" : "w_tables")) {
			if (column ? (js(it, "table") && !strcmp(js(it, "table"), table) && js(it, "column") &&
			              !strcmp(js(it, "column"), column))
			           : (js(it, "name") && !strcmp(js(it, "name"), table)))
				return it;
		}
	}
	return NULL;
}

static void plan_data(struct req *r, cJSON *p, const cJSON *plan, const cJSON *steps)
{
	cJSON *tables = cJSON_AddArrayToObject(p, "tables"), *cols = cJSON_AddArrayToObject(p, "columns");
	cJSON *maps = cJSON_AddArrayToObject(p, "mappings"), *joins = cJSON_AddArrayToObject(p, "joins");
	const cJSON *it, *f;

	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(plan, "tables")) {
		const char *name = cJSON_IsString(it) ? it->valuestring : js(it, "name");
		cJSON *o;

		if (!name)
			continue;
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", name);
		f = found(steps, name, NULL);
		if (js(f, "reason"))
			cJSON_AddStringToObject(o, "reason", js(f, "reason"));
		else
			cJSON_AddFalseToObject(o, "reason");
		cJSON_AddItemToArray(tables, o);
	}
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(plan, "columns")) {
		const char *t = js(it, "table"), *c = js(it, "column");
		struct sb k = SB_INIT;
		cJSON *o;

		if (!t || !c)
			continue;
		o = cJSON_CreateObject();
		sb_printf(&k, "%s.%s", t, c);
		cJSON_AddStringToObject(o, "key", sb_cstr(&k));
		sb_free(&k);
		cJSON_AddStringToObject(o, "table", t);
		cJSON_AddStringToObject(o, "column", c);
		f = found(steps, t, c);
		if (js(f, "desc"))
			cJSON_AddStringToObject(o, "desc", js(f, "desc"));
		else
			cJSON_AddFalseToObject(o, "desc");
		cJSON_AddItemToArray(cols, o);
	}
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(plan, "mappings")) {
		const char *t = js(it, "table"), *c = js(it, "column"), *v = js(it, "value");
		cJSON *last;
		struct sb k = SB_INIT;

		if (!t || !c || !v)
			continue;
		step_words_mapping(r, maps, js(it, "phrase"), t, c, v, js(it, "how"));
		last = cJSON_GetArrayItem(maps, cJSON_GetArraySize(maps) - 1);
		/* the key an include tick posts: table.column=value */
		sb_printf(&k, "%s.%s=%s", t, c, v);
		cJSON_AddStringToObject(last, "key", sb_cstr(&k));
		sb_free(&k);
	}
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(plan, "joins")) {
		if (cJSON_IsString(it))
			step_words_join_text(joins, it->valuestring);
		else
			step_words_join(joins, js(it, "from_table"), js(it, "from_col"), js(it, "to_table"), js(it, "to_col"), 0);
	}
	cJSON_AddBoolToObject(p, "has_mappings", cJSON_GetArraySize(maps) > 0);
	cJSON_AddBoolToObject(p, "has_joins", cJSON_GetArraySize(joins) > 0);
	cJSON_AddBoolToObject(p, "has_columns", cJSON_GetArraySize(cols) > 0);
}

void run_pause_data(struct req *r, cJSON *d, cJSON *run)
{
	cJSON *st = cJSON_GetObjectItemCaseSensitive(run, "state"), *pause, *p, *steps, *last;
	const char *stage, *sql;
	char key[32];

	if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(run, "paused")) || !cJSON_IsObject(st))
		return;
	pause = cJSON_GetObjectItemCaseSensitive(st, "pause");
	if (!cJSON_IsObject(pause))
		pause = st;
	stage = js(pause, "stage") ? js(pause, "stage") : "sql";
	sql = js(pause, "sql");
	steps = cJSON_GetObjectItemCaseSensitive(run, "steps");
	last = cJSON_GetArrayItem(steps, cJSON_GetArraySize(steps) - 1);
	p = cJSON_AddObjectToObject(run, "pause");
	cJSON_AddStringToObject(p, "stage", stage);
	snprintf(key, sizeof key, "stage_%s", stage);
	cJSON_AddBoolToObject(p, key, 1);
	if (js(last, "refused_sql")) {
		/* the analyst's draft stays in the box, the reason beside it; the proposal is one click away */
		cJSON *rf = cJSON_AddObjectToObject(p, "refused");

		cJSON_AddStringToObject(rf, "text", js(last, "refused_text") ? js(last, "refused_text") : "");
		cJSON_AddStringToObject(rf, "reason", js(last, "refused_reason") ? js(last, "refused_reason") : "");
		cJSON_AddStringToObject(rf, "attempt_text", cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(last, "say"), 0)
		                        ? js(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(last, "say"), 0), "text") : "");
		cJSON_AddStringToObject(p, "sql", js(last, "refused_sql"));
		if (sql)
			cJSON_AddStringToObject(p, "proposed_sql", sql);
		else
			cJSON_AddFalseToObject(p, "proposed_sql");
	} else {
		cJSON_AddFalseToObject(p, "refused");
		cJSON_AddFalseToObject(p, "proposed_sql");
		if (sql)
			cJSON_AddStringToObject(p, "sql", sql);
		else
			cJSON_AddFalseToObject(p, "sql");
	}
	/* the SQL in words, so the analyst approves a reading, not only a query (docs/coverage.md) */
	if (js(p, "sql")) {
		struct sb rd = SB_INIT;
		run_view_restate(r, js(run, "target"), js(p, "sql"), &rd);
		cJSON_AddStringToObject(p, "reading", sb_cstr(&rd));
		sb_free(&rd);
	} else {
		cJSON_AddFalseToObject(p, "reading");
	}
	/* every list the plan form reads is set (an empty list is false), so a name never falls
	 * through to the run's own (its result "columns") */
	plan_data(r, p, cJSON_GetObjectItemCaseSensitive(pause, "plan"), steps);
	/* attempts so far, for "attempt 1 of 3" beside the SQL */
	if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(pause, "attempt"))) {
		char a[16], b[16];
		struct sb t = SB_INIT;

		snprintf(a, sizeof a, "%d", (int)cJSON_GetObjectItemCaseSensitive(pause, "attempt")->valuedouble);
		snprintf(b, sizeof b, "%d", (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(pause, "max_attempts")));
		i18n_format(&t, r->lang, "steps.pause.attempt", (const char *const[]){"attempt", a, "of", b, NULL});
		cJSON_AddStringToObject(p, "attempt_text", sb_cstr(&t));
		sb_free(&t);
	} else {
		cJSON_AddFalseToObject(p, "attempt_text");
	}
	if (req_param(r, "notice") && !strcmp(req_param(r, "notice"), "refused") && !js(last, "refused_sql"))
		cJSON_AddStringToObject(d, "notice", view_t(r, "web.decision_refused"));
	else if (js(pause, "note"))
		cJSON_AddStringToObject(d, "notice", view_t(r, "web.comment_not_applied"));
}
