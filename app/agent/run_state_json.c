/* run_state_json.c: the run state's one save/load pair: run_state_json and run_state_load, used
 * only when a run pauses or ends (docs/architecture.md, "Run state"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/run_state.h"
#include "agent/run_state_int.h"
#include "util/json.h"

/* ---- to JSON ---- */

/*
 * The writers below add with these helpers and keep one flag: a NULL from cJSON (no memory)
 * clears *ok, and the caller then throws the whole object away.  add_str skips a NULL value
 * (an absent optional field).
 */
static void add_str(cJSON *o, const char *k, const char *v, int *ok)
{
	if (v && !cJSON_AddStringToObject(o, k, v))
		*ok = 0;
}

static void add_num(cJSON *o, const char *k, double v, int *ok)
{
	if (!cJSON_AddNumberToObject(o, k, v))
		*ok = 0;
}

/* add_item: add item (consumed) under k; a NULL item means no memory. */
static void add_item(cJSON *o, const char *k, cJSON *item, int *ok)
{
	if (!item || !cJSON_AddItemToObject(o, k, item)) {
		cJSON_Delete(item);
		*ok = 0;
	}
}

static void push(cJSON *arr, cJSON *item, int *ok)
{
	if (!item || !cJSON_AddItemToArray(arr, item)) {
		cJSON_Delete(item);
		*ok = 0;
	}
}

/* done: o when ok, else NULL (o deleted). */
static cJSON *done(cJSON *o, int ok)
{
	if (ok)
		return o;
	cJSON_Delete(o);
	return NULL;
}

static cJSON *strs_json(const struct run_strs *l)
{
	cJSON *a = cJSON_CreateArray();
	int ok = a != NULL;

	for (int i = 0; ok && i < l->n; i++)
		push(a, cJSON_CreateString(l->v[i]), &ok);
	return done(a, ok);
}

/* plan_lists: the four lists every plan view holds, into o. */
static void plan_lists(cJSON *o, const struct run_plan *p, int *ok)
{
	cJSON *c = cJSON_CreateArray(), *m = cJSON_CreateArray();

	add_item(o, "tables", strs_json(&p->tables), ok);
	for (int i = 0; c && i < p->ncolumns; i++) {
		cJSON *x = cJSON_CreateObject();

		/* the run page shows each column as its JSON text: keep this key order */
		add_str(x, "table", p->columns[i].table, ok);
		add_str(x, "column", p->columns[i].column, ok);
		add_str(x, "type", p->columns[i].type, ok);
		push(c, x, ok);
	}
	add_item(o, "columns", c, ok);
	add_item(o, "joins", strs_json(&p->joins), ok);
	for (int i = 0; m && i < p->nmappings; i++) {
		cJSON *x = cJSON_CreateObject();

		add_str(x, "phrase", p->mappings[i].phrase, ok);
		add_str(x, "table", p->mappings[i].table, ok);
		add_str(x, "column", p->mappings[i].column, ok);
		add_str(x, "value", p->mappings[i].value, ok);
		add_str(x, "how", p->mappings[i].how, ok);
		push(m, x, ok);
	}
	add_item(o, "mappings", m, ok);
}

cJSON *run_plan_json(const struct run_plan *p, enum plan_view v)
{
	cJSON *o = v == PLAN_VIEW_NONE ? NULL : cJSON_CreateObject();
	int ok = o != NULL;

	if (!ok || !p->set)
		return o;
	plan_lists(o, p, &ok);
	add_str(o, "intent", p->intent, &ok);
	if (v == PLAN_VIEW_BRIEF)
		return done(o, ok);
	if (v == PLAN_VIEW_ALL)
		add_str(o, "block", p->block, &ok);
	add_str(o, "note", p->note, &ok);
	if (p->nexamples) {
		cJSON *ex = cJSON_CreateArray();

		for (int i = 0; ex && i < p->nexamples; i++) {
			cJSON *x = cJSON_CreateObject();

			add_str(x, "question", p->examples[i].question, &ok);
			add_str(x, "sql", p->examples[i].sql, &ok);
			add_num(x, "score", p->examples[i].score, &ok);
			push(ex, x, &ok);
		}
		add_item(o, "examples", ex, &ok);
	}
	return done(o, ok);
}

cJSON *run_history_json(const struct run_state *s)
{
	cJSON *h = cJSON_CreateArray();
	int ok = h != NULL;

	for (int i = 0; ok && i < s->nhistory; i++) {
		const struct run_attempt *at = &s->history[i];
		cJSON *o = cJSON_CreateObject();

		if (o) {
			add_num(o, "attempt", at->attempt, &ok);
			add_str(o, "sql", at->sql, &ok);
			add_str(o, "error", at->error, &ok);
			add_str(o, "missing_column", at->missing_column, &ok);
			add_str(o, "missing_relation", at->missing_relation, &ok);
			add_str(o, "suggested", at->suggested, &ok);
			add_str(o, "comment", at->comment, &ok);
			if (at->sqlstate[0])
				add_str(o, "sqlstate", at->sqlstate, &ok);
			if (at->position > 0)
				add_num(o, "position", at->position, &ok);
			if (at->empty && !cJSON_AddTrueToObject(o, "empty"))
				ok = 0;
		}
		push(h, o, &ok);
	}
	return done(h, ok);
}

static cJSON *parent_json(const struct run_parent *p)
{
	cJSON *o = cJSON_CreateObject();
	int ok = o != NULL;

	if (!ok)
		return NULL;
	add_num(o, "id", (double)p->id, &ok);
	add_str(o, "question", p->question, &ok);
	add_str(o, "sql", p->sql, &ok);
	if (p->ncolumns) {
		cJSON *c = cJSON_CreateArray();

		for (int i = 0; c && i < p->ncolumns; i++) {
			cJSON *x = cJSON_CreateObject();

			add_str(x, "name", p->columns[i].name, &ok);
			add_str(x, "type", p->columns[i].type, &ok);
			push(c, x, &ok);
		}
		add_item(o, "columns", c, &ok);
	}
	add_num(o, "row_count", (double)p->row_count, &ok);
	return done(o, ok);
}

static cJSON *edits_json(const struct run_state *s)
{
	cJSON *a = cJSON_CreateArray();
	int ok = a != NULL;

	for (int i = 0; ok && i < s->nedits; i++) {
		const struct run_edit *e = &s->edits[i];
		cJSON *o = cJSON_CreateObject();

		if (o) {
			add_num(o, "op", e->op, &ok);
			add_str(o, "table", e->table, &ok);
			add_str(o, "column", e->column, &ok);
			add_str(o, "value", e->value, &ok);
			add_str(o, "phrase", e->phrase, &ok);
		}
		push(a, o, &ok);
	}
	return done(a, ok);
}

cJSON *run_pause_json(const struct run_state *s)
{
	const struct run_pause *p = &s->pause;
	cJSON *o = s->stage != RUN_STAGE_NONE ? cJSON_CreateObject() : NULL;
	int ok = o != NULL;

	if (!ok)
		return NULL;
	if (p->plan != PLAN_VIEW_NONE)
		add_item(o, "plan", run_plan_json(&s->plan, p->plan), &ok);
	add_str(o, "tool", p->tool, &ok);
	add_str(o, "sql", p->sql, &ok);
	add_str(o, "rewrite", p->rewrite, &ok);
	if (p->max_attempts > 0) {
		add_num(o, "attempt", p->attempt, &ok);
		add_num(o, "max_attempts", p->max_attempts, &ok);
	}
	if (p->max_calls > 0) {
		add_num(o, "calls", p->calls, &ok);
		add_num(o, "max_calls", p->max_calls, &ok);
	}
	add_str(o, "note", p->note, &ok);
	add_str(o, "comment", p->comment, &ok);
	add_str(o, "stage", run_stage_name(s->stage), &ok);
	return done(o, ok);
}

/* pending_json: {tool, reasoning, params {name: value}, raw, rewrite, decided} */
static cJSON *pending_json(const struct run_pending *p)
{
	cJSON *o = cJSON_CreateObject(), *ps = o ? cJSON_AddObjectToObject(o, "params") : NULL;
	int ok = ps != NULL;

	for (int i = 0; ok && i < p->call.nparams; i++)
		add_str(ps, p->call.params[i].name, p->call.params[i].value, &ok);
	add_str(o, "tool", p->call.tool, &ok);
	add_str(o, "reasoning", p->call.reasoning, &ok);
	add_str(o, "raw", p->raw, &ok);
	add_str(o, "rewrite", p->rewrite, &ok);
	if (p->decided && !cJSON_AddTrueToObject(o, "decided"))
		ok = 0;
	return done(o, ok);
}

static cJSON *react_json(const struct run_react *r)
{
	cJSON *o = cJSON_CreateObject();
	int ok = o != NULL;

	if (!ok)
		return NULL;
	add_num(o, "max_calls", r->max_calls, &ok);
	add_num(o, "calls", r->calls, &ok);
	add_num(o, "iteration", r->iteration, &ok);
	add_num(o, "any_explain", r->any_explain, &ok);
	add_num(o, "xml_streak", r->xml_streak, &ok);
	add_item(o, "explained", strs_json(&r->explained), &ok);
	add_item(o, "tools_used", strs_json(&r->tools_used), &ok);
	if (r->nmessages) {
		cJSON *m = cJSON_CreateArray();

		for (int i = 0; m && i < r->nmessages; i++) {
			cJSON *x = cJSON_CreateObject();

			add_str(x, "role", run_role_name(r->messages[i].role), &ok);
			add_str(x, "content", r->messages[i].content, &ok);
			push(m, x, &ok);
		}
		add_item(o, "messages", m, &ok);
	}
	if (r->pending.set)
		add_item(o, "pending", pending_json(&r->pending), &ok);
	if (r->builtin_sql || r->builtin_missing) {
		add_str(o, "builtin_sql", r->builtin_sql, &ok);
		add_str(o, "builtin_missing", r->builtin_missing, &ok);
		add_num(o, "builtin_planned_at", r->builtin_planned_at, &ok);
	}
	return done(o, ok);
}

/* scalars_json: the typed scalar fields into j. */
static void scalars_json(cJSON *j, const struct run_state *s, int *ok)
{
	add_num(j, "v", 1, ok);
	add_str(j, "mode", run_mode_name(s->mode), ok);
	add_str(j, "target", s->target, ok);
	add_str(j, "provider", s->provider, ok);
	add_str(j, "question", s->question, ok);
	add_str(j, "now", s->now, ok);
	add_str(j, "scope", s->scope, ok);
	add_str(j, "model", s->model, ok);
	add_num(j, "step_mode", s->step_mode, ok);
	add_num(j, "no_cache", s->no_cache, ok);
	add_num(j, "edited", s->edited, ok);
	add_num(j, "attempt", s->attempt, ok);
	add_num(j, "max_retries", s->max_retries, ok);
	add_num(j, "from_cache", s->from_cache, ok);
	if (s->analyst_sql)   /* only when set: states saved before it existed read back unchanged */
		add_num(j, "analyst_sql", s->analyst_sql, ok);
	add_str(j, "next", rs_next_names[s->next], ok);
	if (s->stage)
		add_str(j, "stage", run_stage_name(s->stage), ok);
	else if (!cJSON_AddNullToObject(j, "stage"))
		*ok = 0;
	add_str(j, "pending_sql", s->pending_sql, ok);
}

char *run_state_json(const struct run_state *s)
{
	cJSON *j = cJSON_CreateObject();
	char *out = NULL;
	int ok = j != NULL;

	if (!ok)
		return NULL;
	scalars_json(j, s, &ok);
	if (s->plan.set)
		add_item(j, "plan", run_plan_json(&s->plan, PLAN_VIEW_ALL), &ok);
	if (s->nedits)
		add_item(j, "edits", edits_json(s), &ok);
	if (s->parent.id)
		add_item(j, "parent", parent_json(&s->parent), &ok);
	add_item(j, "history", run_history_json(s), &ok);
	if (s->stage != RUN_STAGE_NONE)
		add_item(j, "pause", run_pause_json(s), &ok);
	if (s->react.set)
		add_item(j, "react", react_json(&s->react), &ok);
	if (ok)
		out = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	return out;
}

/* ---- from JSON ---- */

static int jint(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valueint : 0;
}

/* load_strs: the strings of array arr into l (other items skipped); 0 on no memory. */
static int load_strs(struct run_strs *l, const cJSON *arr)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, (cJSON_IsArray(arr) ? arr : NULL))
		if (cJSON_IsString(it) && run_strs_add(l, it->valuestring) != OK)
			return 0;
	return 1;
}

/* load_plan: a saved plan object; items without their required keys are skipped.  0 on no memory. */
static int load_plan(struct run_plan *p, const cJSON *o)
{
	const cJSON *it;
	int ok = 1;

	if (!cJSON_IsObject(o))
		return 1;
	p->set = 1;
	if (!load_strs(&p->tables, cJSON_GetObjectItemCaseSensitive(o, "tables")) ||
	    !load_strs(&p->joins, cJSON_GetObjectItemCaseSensitive(o, "joins")))
		return 0;
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "columns"))
		if (json_str(it, "table") && json_str(it, "column") &&
		    run_plan_add_column(p, json_str(it, "table"), json_str(it, "column"), json_str(it, "type")) != OK)
			return 0;
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "mappings"))
		if (json_str(it, "table") && run_plan_add_mapping(p, json_str(it, "phrase"), json_str(it, "table"), json_str(it, "column"),
		                                              json_str(it, "value"), json_str(it, "how")) != OK)
			return 0;
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "examples")) {
		const cJSON *sc = cJSON_GetObjectItemCaseSensitive(it, "score");

		if (cJSON_IsObject(it) && run_plan_add_example(p, json_str(it, "question"), json_str(it, "sql"),
		                                               cJSON_IsNumber(sc) ? sc->valuedouble : 0) != OK)
			return 0;
	}
	p->intent = rs_copy(json_str(o, "intent"), 1, &ok);
	p->block = rs_copy(json_str(o, "block"), 1, &ok);
	p->note = rs_copy(json_str(o, "note"), 1, &ok);
	return ok;
}

static int load_history(struct run_state *s, const cJSON *arr)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, (cJSON_IsArray(arr) ? arr : NULL)) {
		struct run_attempt *at;

		if (!cJSON_IsObject(it))
			continue;
		if (run_history_add(s, jint(it, "attempt"), json_str(it, "sql"), json_str(it, "error"), &at) != OK ||
		    run_state_opt(&at->missing_column, json_str(it, "missing_column")) ||
		    run_state_opt(&at->missing_relation, json_str(it, "missing_relation")) ||
		    run_state_opt(&at->suggested, json_str(it, "suggested")) ||
		    run_state_opt(&at->comment, json_str(it, "comment")))
			return 0;
		at->empty = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "empty"));
		snprintf(at->sqlstate, sizeof at->sqlstate, "%s", json_str(it, "sqlstate") ? json_str(it, "sqlstate") : "");
		at->position = jint(it, "position");
	}
	return 1;
}

static int load_parent(struct run_state *s, const cJSON *o)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(o, "id"), *rc = cJSON_GetObjectItemCaseSensitive(o, "row_count");
	char *cols;
	enum err e;

	if (!cJSON_IsNumber(id) || id->valuedouble <= 0)
		return 1;
	/* the columns go through the same text form as a parent read from runs.columns */
	cols = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(o, "columns"));
	e = run_parent_set(s, (long long)id->valuedouble, json_str(o, "question"), json_str(o, "sql"), cols,
	                   cJSON_IsNumber(rc) ? (long long)rc->valuedouble : 0);
	free(cols);
	return e == OK;
}

static int load_edits(struct run_state *s, const cJSON *arr)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, (cJSON_IsArray(arr) ? arr : NULL)) {
		int op = jint(it, "op");
		struct planner_edit e = {.op = (enum planner_edit_op)op, .table = json_str(it, "table"),
		                         .column = json_str(it, "column"), .value = json_str(it, "value"),
		                         .phrase = json_str(it, "phrase")};

		if (op < PLAN_ADD_TABLE || op > PLAN_REMOVE_COLUMN || !e.table)
			continue;
		if (run_edit_add(s, &e) != OK)
			return 0;
	}
	return 1;
}

/* load_pause: what the saved pause shows.  Its plan is a view of the state's plan (it was taken
 * when the run paused and saved at once): only which view is kept. */
static int load_pause(struct run_state *s, const cJSON *o)
{
	struct run_pause *p = &s->pause;
	int ok = 1;

	if (!cJSON_IsObject(o) || s->stage == RUN_STAGE_NONE)
		return 1;
	if (cJSON_GetObjectItemCaseSensitive(o, "plan"))
		p->plan = s->mode == RUN_REACT ? PLAN_VIEW_SHOWN : PLAN_VIEW_BRIEF;
	p->sql = rs_copy(json_str(o, "sql"), 1, &ok);
	p->tool = rs_copy(json_str(o, "tool"), 1, &ok);
	p->rewrite = rs_copy(json_str(o, "rewrite"), 1, &ok);
	p->note = rs_copy(json_str(o, "note"), 1, &ok);
	p->comment = rs_copy(json_str(o, "comment"), 1, &ok);
	p->attempt = jint(o, "attempt");
	p->max_attempts = jint(o, "max_attempts");
	p->calls = jint(o, "calls");
	p->max_calls = jint(o, "max_calls");
	return ok;
}

static int load_pending(struct run_pending *p, const cJSON *o)
{
	const cJSON *it;
	int ok = 1;

	if (!cJSON_IsObject(o))
		return 1;
	p->set = 1;
	p->call.tool = rs_copy(json_str(o, "tool"), 1, &ok);
	p->call.reasoning = rs_copy(json_str(o, "reasoning"), 1, &ok);
	p->raw = rs_copy(json_str(o, "raw"), 1, &ok);
	p->rewrite = rs_copy(json_str(o, "rewrite"), 1, &ok);
	p->decided = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "decided"));
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "params"))
		if (cJSON_IsString(it) && react_call_set(&p->call, it->string, it->valuestring) != OK)
			ok = 0;
	return ok;
}

static int load_react(struct run_react *r, const cJSON *o)
{
	const cJSON *it;
	int ok = 1;

	if (!cJSON_IsObject(o))
		return 1;
	r->set = 1;
	r->max_calls = jint(o, "max_calls");
	r->calls = jint(o, "calls");
	r->iteration = jint(o, "iteration");
	r->any_explain = jint(o, "any_explain");
	r->xml_streak = jint(o, "xml_streak");
	r->builtin_planned_at = jint(o, "builtin_planned_at");
	r->builtin_sql = rs_copy(json_str(o, "builtin_sql"), 1, &ok);
	r->builtin_missing = rs_copy(json_str(o, "builtin_missing"), 1, &ok);
	if (!ok || !load_strs(&r->explained, cJSON_GetObjectItemCaseSensitive(o, "explained")) ||
	    !load_strs(&r->tools_used, cJSON_GetObjectItemCaseSensitive(o, "tools_used")) ||
	    !load_pending(&r->pending, cJSON_GetObjectItemCaseSensitive(o, "pending")))
		return 0;
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "messages")) {
		const char *role = json_str(it, "role"), *content = json_str(it, "content");
		enum run_role rl = ROLE_USER;

		if (!role || !content)
			continue;
		for (int i = ROLE_SYSTEM; i <= ROLE_ASSISTANT; i++)
			if (!strcmp(role, rs_role_names[i]))
				rl = (enum run_role)i;
		if (run_react_add_msg(r, rl, content) != OK)
			return 0;
	}
	return 1;
}

/* load_scalars: the typed scalar fields of j into s; 0 on no memory. */
static int load_scalars(struct run_state *s, const cJSON *j)
{
	const char *next = json_str(j, "next"), *mode = json_str(j, "mode");

	s->mode = mode && !strcmp(mode, "react") ? RUN_REACT : RUN_EXTRACT;
	if (run_state_set(&s->target, json_str(j, "target")) || run_state_set(&s->provider, json_str(j, "provider")) ||
	    run_state_set(&s->question, json_str(j, "question")) || run_state_set(&s->now, json_str(j, "now")) ||
	    run_state_set(&s->scope, json_str(j, "scope")) || run_state_set(&s->model, json_str(j, "model")) ||
	    run_state_set(&s->pending_sql, json_str(j, "pending_sql")))
		return 0;
	s->step_mode = jint(j, "step_mode");
	s->no_cache = jint(j, "no_cache");
	s->edited = jint(j, "edited");
	s->attempt = jint(j, "attempt");
	s->max_retries = jint(j, "max_retries");
	s->from_cache = jint(j, "from_cache");
	s->analyst_sql = jint(j, "analyst_sql");
	s->next = !next ? NEXT_INSPECT : !strcmp(next, "exec") ? NEXT_EXEC : !strcmp(next, "plan") ? NEXT_PLAN
	                                                                                           : NEXT_INSPECT;
	s->stage = run_stage_of(json_str(j, "stage"));
	return 1;
}

enum err run_state_load(const char *json, struct run_state *s)
{
	cJSON *j = json ? cJSON_Parse(json) : NULL;
	int ok;

	memset(s, 0, sizeof *s);
	if (!cJSON_IsObject(j)) {
		cJSON_Delete(j);
		return ERR_PARSE;
	}
	ok = load_scalars(s, j) && load_plan(&s->plan, cJSON_GetObjectItemCaseSensitive(j, "plan")) &&
	     load_edits(s, cJSON_GetObjectItemCaseSensitive(j, "edits")) &&
	     load_parent(s, cJSON_GetObjectItemCaseSensitive(j, "parent")) &&
	     load_history(s, cJSON_GetObjectItemCaseSensitive(j, "history")) &&
	     load_pause(s, cJSON_GetObjectItemCaseSensitive(j, "pause")) &&
	     load_react(&s->react, cJSON_GetObjectItemCaseSensitive(j, "react"));
	cJSON_Delete(j);
	if (!ok) {
		run_state_free(s);
		return ERR_NOMEM;
	}
	return OK;
}
