/* run_state.c: the typed run state, its lists, and its one JSON save/load pair (docs/architecture.md). */
#include <stdlib.h>
#include <string.h>
#include "agent/run_state.h"

static const char *const stage_names[] = {[RUN_STAGE_PLAN] = "plan", [RUN_STAGE_SQL] = "sql",
                                          [RUN_STAGE_SUBMIT] = "submit"};
static const char *const next_names[] = {[NEXT_INSPECT] = "inspect", [NEXT_PLAN] = "plan", [NEXT_EXEC] = "exec"};
static const char *const role_names[] = {[ROLE_SYSTEM] = "system", [ROLE_USER] = "user",
                                         [ROLE_ASSISTANT] = "assistant"};

const char *run_mode_name(enum run_mode m) { return m == RUN_REACT ? "react" : "extract"; }

const char *run_stage_name(enum run_stage st)
{
	return st > RUN_STAGE_NONE && st <= RUN_STAGE_SUBMIT ? stage_names[st] : NULL;
}

enum run_stage run_stage_of(const char *name)
{
	for (int i = RUN_STAGE_PLAN; name && i <= RUN_STAGE_SUBMIT; i++)
		if (!strcmp(name, stage_names[i]))
			return (enum run_stage)i;
	return RUN_STAGE_NONE;
}

const char *run_role_name(enum run_role r)
{
	return r >= ROLE_SYSTEM && r <= ROLE_ASSISTANT ? role_names[r] : "user";
}

int run_state_set(char **field, const char *v)
{
	char *c = strdup(v ? v : "");

	if (!c)
		return -1;
	free(*field);
	*field = c;
	return 0;
}

int run_state_opt(char **field, const char *v)
{
	char *c = NULL;

	if (v && !(c = strdup(v)))
		return -1;
	free(*field);
	*field = c;
	return 0;
}

/* copy: a copy of v, "" for NULL when !opt, NULL for NULL when opt; *ok = 0 on no memory. */
static char *copy(const char *v, int opt, int *ok)
{
	char *c;

	if (!v && opt)
		return NULL;
	if (!(c = strdup(v ? v : "")))
		*ok = 0;
	return c;
}

/* grow: room for one more item of size sz after n (the array may move); NULL on no memory,
 * the array then unchanged. */
static void *grow(void *v, int n, size_t sz)
{
	return realloc(v, ((size_t)n + 1) * sz);
}

/* ---- lists ---- */

enum err run_strs_add(struct run_strs *l, const char *v)
{
	char **nv = grow(l->v, l->n, sizeof *l->v), *c;

	if (!nv)
		return ERR_NOMEM;
	l->v = nv;
	if (!(c = strdup(v ? v : "")))
		return ERR_NOMEM;
	l->v[l->n++] = c;
	return OK;
}

int run_strs_find(const struct run_strs *l, const char *v)
{
	for (int i = 0; v && i < l->n; i++)
		if (!strcmp(l->v[i], v))
			return i;
	return -1;
}

/* strs_remove: drop item i (in range), keeping the order. */
static void strs_remove(struct run_strs *l, int i)
{
	free(l->v[i]);
	memmove(l->v + i, l->v + i + 1, (size_t)(l->n - i - 1) * sizeof *l->v);
	l->n--;
}

void run_strs_free(struct run_strs *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof *l);
}

/* ---- frees ---- */

static void attempt_free(struct run_attempt *a)
{
	free(a->sql);
	free(a->error);
	free(a->missing_column);
	free(a->missing_relation);
	free(a->suggested);
	free(a->comment);
}

static void parent_free(struct run_parent *p)
{
	for (int i = 0; i < p->ncolumns; i++) {
		free(p->columns[i].name);
		free(p->columns[i].type);
	}
	free(p->columns);
	free(p->question);
	free(p->sql);
	memset(p, 0, sizeof *p);
}

static void edit_free(struct run_edit *e)
{
	free(e->table);
	free(e->column);
	free(e->value);
	free(e->phrase);
}

static void column_free(struct plan_column *c)
{
	free(c->table);
	free(c->column);
	free(c->type);
}

static void mapping_free(struct plan_mapping *m)
{
	free(m->phrase);
	free(m->table);
	free(m->column);
	free(m->value);
	free(m->how);
}

void run_plan_free(struct run_plan *p)
{
	run_strs_free(&p->tables);
	run_strs_free(&p->joins);
	for (int i = 0; i < p->ncolumns; i++)
		column_free(&p->columns[i]);
	for (int i = 0; i < p->nmappings; i++)
		mapping_free(&p->mappings[i]);
	for (int i = 0; i < p->nexamples; i++) {
		free(p->examples[i].question);
		free(p->examples[i].sql);
	}
	free(p->columns);
	free(p->mappings);
	free(p->examples);
	free(p->intent);
	free(p->block);
	free(p->note);
	memset(p, 0, sizeof *p);
}

void run_pause_free(struct run_pause *p)
{
	free(p->sql);
	free(p->tool);
	free(p->rewrite);
	free(p->note);
	free(p->comment);
	memset(p, 0, sizeof *p);
}

void run_pending_free(struct run_pending *p)
{
	react_call_free(&p->call);
	free(p->raw);
	free(p->rewrite);
	memset(p, 0, sizeof *p);
}

static void react_free(struct run_react *r)
{
	run_strs_free(&r->explained);
	run_strs_free(&r->tools_used);
	for (int i = 0; i < r->nmessages; i++)
		free(r->messages[i].content);
	free(r->messages);
	run_pending_free(&r->pending);
	free(r->builtin_sql);
	free(r->builtin_missing);
	memset(r, 0, sizeof *r);
}

void run_state_free(struct run_state *s)
{
	free(s->target);
	free(s->provider);
	free(s->question);
	free(s->now);
	free(s->scope);
	free(s->model);
	free(s->pending_sql);
	run_plan_free(&s->plan);
	for (int i = 0; i < s->nedits; i++)
		edit_free(&s->edits[i]);
	free(s->edits);
	parent_free(&s->parent);
	for (int i = 0; i < s->nhistory; i++)
		attempt_free(&s->history[i]);
	free(s->history);
	run_pause_free(&s->pause);
	react_free(&s->react);
	memset(s, 0, sizeof *s);
}

enum err run_state_init(struct run_state *s, enum run_mode mode, const char *target, const char *provider,
                        const char *question, const char *now)
{
	memset(s, 0, sizeof *s);
	s->mode = mode;
	s->max_retries = 3;
	if (run_state_set(&s->target, target) || run_state_set(&s->provider, provider) ||
	    run_state_set(&s->question, question) || run_state_set(&s->now, now) ||
	    run_state_set(&s->scope, NULL) || run_state_set(&s->model, NULL) ||
	    run_state_set(&s->pending_sql, NULL)) {
		run_state_free(s);
		return ERR_NOMEM;
	}
	return OK;
}

/* ---- appends ---- */

enum err run_history_add(struct run_state *s, int attempt, const char *sql, const char *error,
                         struct run_attempt **out)
{
	struct run_attempt *h = grow(s->history, s->nhistory, sizeof *h), c = {.attempt = attempt};
	int ok = 1;

	if (!h)
		return ERR_NOMEM;
	s->history = h;
	c.sql = copy(sql, 0, &ok);
	c.error = copy(error, 0, &ok);
	if (!ok) {
		attempt_free(&c);
		return ERR_NOMEM;
	}
	s->history[s->nhistory] = c;
	if (out)
		*out = &s->history[s->nhistory];
	s->nhistory++;
	return OK;
}

struct run_attempt *run_history_last(struct run_state *s)
{
	return s->nhistory ? &s->history[s->nhistory - 1] : NULL;
}

/* parent_columns: the names and types of a runs.columns text into p; 0 on no memory. */
static int parent_columns(struct run_parent *p, const cJSON *cols)
{
	const cJSON *c;
	int ok = 1;

	if (!cJSON_IsArray(cols) || !cJSON_GetArraySize(cols))
		return 1;
	if (!(p->columns = calloc((size_t)cJSON_GetArraySize(cols), sizeof *p->columns)))
		return 0;
	cJSON_ArrayForEach(c, cols) {
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(c, "name");
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(c, "type");

		if (!cJSON_IsString(n))
			continue;
		p->columns[p->ncolumns].name = copy(n->valuestring, 0, &ok);
		p->columns[p->ncolumns++].type = copy(cJSON_IsString(t) ? t->valuestring : NULL, 1, &ok);
	}
	return ok;
}

enum err run_parent_set(struct run_state *s, long long id, const char *question, const char *sql,
                        const char *columns_json, long long row_count)
{
	struct run_parent *p = &s->parent;
	cJSON *cols = columns_json ? cJSON_Parse(columns_json) : NULL;
	int ok = 1;

	parent_free(p);
	p->id = id;
	p->row_count = row_count;
	p->question = copy(question, 0, &ok);
	p->sql = copy(sql, 1, &ok);
	if (!parent_columns(p, cols))
		ok = 0;
	cJSON_Delete(cols);
	if (!ok) {
		parent_free(p);
		return ERR_NOMEM;
	}
	return OK;
}

enum err run_edit_add(struct run_state *s, const struct planner_edit *e)
{
	struct run_edit *v, c = {.op = e->op};
	int ok = 1;

	if (!e->table)
		return ERR_INPUT;
	if (!(v = grow(s->edits, s->nedits, sizeof *v)))
		return ERR_NOMEM;
	s->edits = v;
	c.table = copy(e->table, 0, &ok);
	c.column = copy(e->column, 1, &ok);
	c.value = copy(e->value, 1, &ok);
	c.phrase = copy(e->phrase, 1, &ok);
	if (!ok) {
		edit_free(&c);
		return ERR_NOMEM;
	}
	s->edits[s->nedits++] = c;
	return OK;
}

enum err run_plan_add_column(struct run_plan *p, const char *table, const char *column, const char *type)
{
	struct plan_column *v = grow(p->columns, p->ncolumns, sizeof *v), c;
	int ok = 1;

	if (!v)
		return ERR_NOMEM;
	p->columns = v;
	c.table = copy(table, 0, &ok);
	c.column = copy(column, 0, &ok);
	c.type = copy(type, 1, &ok);
	if (!ok) {
		column_free(&c);
		return ERR_NOMEM;
	}
	p->columns[p->ncolumns++] = c;
	return OK;
}

enum err run_plan_add_mapping(struct run_plan *p, const char *phrase, const char *table, const char *column,
                              const char *value, const char *how)
{
	struct plan_mapping *v = grow(p->mappings, p->nmappings, sizeof *v), m;
	int ok = 1;

	if (!v)
		return ERR_NOMEM;
	p->mappings = v;
	m.phrase = copy(phrase, 0, &ok);
	m.table = copy(table, 0, &ok);
	m.column = copy(column, 0, &ok);
	m.value = copy(value, 0, &ok);
	m.how = copy(how, 1, &ok);
	if (!ok) {
		mapping_free(&m);
		return ERR_NOMEM;
	}
	p->mappings[p->nmappings++] = m;
	return OK;
}

enum err run_plan_add_example(struct run_plan *p, const char *question, const char *sql, double score)
{
	struct plan_example *v = grow(p->examples, p->nexamples, sizeof *v), x = {.score = score};
	int ok = 1;

	if (!v)
		return ERR_NOMEM;
	p->examples = v;
	x.question = copy(question, 0, &ok);
	x.sql = copy(sql, 0, &ok);
	if (!ok) {
		free(x.question);
		free(x.sql);
		return ERR_NOMEM;
	}
	p->examples[p->nexamples++] = x;
	return OK;
}

/* same: NULL want matches anything (a field the edit does not name) */
static int same(const char *want, const char *have)
{
	return !want || (have && !strcmp(want, have));
}

enum err run_plan_edit(struct run_plan *p, const struct planner_edit *e)
{
	int i;

	p->set = 1;
	switch (e->op) {
	case PLAN_ADD_TABLE:
		return run_strs_add(&p->tables, e->table);
	case PLAN_REMOVE_TABLE:
		if ((i = run_strs_find(&p->tables, e->table)) >= 0)
			strs_remove(&p->tables, i);
		return OK;
	case PLAN_ADD_MAPPING:
		return run_plan_add_mapping(p, e->phrase, e->table, e->column, e->value, "analyst");
	case PLAN_REMOVE_MAPPING:
		for (i = 0; i < p->nmappings; i++) {
			struct plan_mapping *m = &p->mappings[i];

			if (same(e->table, m->table) && same(e->column, m->column) && same(e->value, m->value)) {
				mapping_free(m);
				memmove(m, m + 1, (size_t)(p->nmappings - i - 1) * sizeof *m);
				p->nmappings--;
				break;
			}
		}
		return OK;
	case PLAN_REMOVE_COLUMN:
		for (i = 0; i < p->ncolumns; i++) {
			struct plan_column *c = &p->columns[i];

			if (same(e->table, c->table) && same(e->column, c->column)) {
				column_free(c);
				memmove(c, c + 1, (size_t)(p->ncolumns - i - 1) * sizeof *c);
				p->ncolumns--;
				break;
			}
		}
		return OK;
	}
	return ERR_INPUT;
}

enum err run_pause_set(struct run_state *s, enum run_stage st, const struct run_pause_spec *spec)
{
	struct run_pause *p = &s->pause;
	int ok = 1;

	run_pause_free(p);
	p->plan = spec->plan;
	p->sql = copy(spec->sql, 1, &ok);
	p->tool = copy(spec->tool, 1, &ok);
	p->rewrite = copy(spec->rewrite, 1, &ok);
	p->note = copy(spec->note, 1, &ok);
	p->comment = copy(spec->comment, 1, &ok);
	p->attempt = spec->attempt;
	p->max_attempts = spec->max_attempts;
	p->calls = spec->calls;
	p->max_calls = spec->max_calls;
	if (!ok) {
		run_pause_free(p);
		return ERR_NOMEM;
	}
	s->stage = st;
	return OK;
}

enum err run_react_add_msg(struct run_react *r, enum run_role role, const char *content)
{
	struct run_msg *v = grow(r->messages, r->nmessages, sizeof *v);
	char *c;

	if (!v)
		return ERR_NOMEM;
	r->messages = v;
	if (!(c = strdup(content ? content : "")))
		return ERR_NOMEM;
	r->messages[r->nmessages].role = role;
	r->messages[r->nmessages++].content = c;
	return OK;
}

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
	add_str(j, "next", next_names[s->next], ok);
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

/* jstr: the string at k, or NULL when absent or not a string. */
static const char *jstr(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

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
		if (jstr(it, "table") && jstr(it, "column") &&
		    run_plan_add_column(p, jstr(it, "table"), jstr(it, "column"), jstr(it, "type")) != OK)
			return 0;
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "mappings"))
		if (jstr(it, "table") && run_plan_add_mapping(p, jstr(it, "phrase"), jstr(it, "table"), jstr(it, "column"),
		                                              jstr(it, "value"), jstr(it, "how")) != OK)
			return 0;
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "examples")) {
		const cJSON *sc = cJSON_GetObjectItemCaseSensitive(it, "score");

		if (cJSON_IsObject(it) && run_plan_add_example(p, jstr(it, "question"), jstr(it, "sql"),
		                                               cJSON_IsNumber(sc) ? sc->valuedouble : 0) != OK)
			return 0;
	}
	p->intent = copy(jstr(o, "intent"), 1, &ok);
	p->block = copy(jstr(o, "block"), 1, &ok);
	p->note = copy(jstr(o, "note"), 1, &ok);
	return ok;
}

static int load_history(struct run_state *s, const cJSON *arr)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, (cJSON_IsArray(arr) ? arr : NULL)) {
		struct run_attempt *at;

		if (!cJSON_IsObject(it))
			continue;
		if (run_history_add(s, jint(it, "attempt"), jstr(it, "sql"), jstr(it, "error"), &at) != OK ||
		    run_state_opt(&at->missing_column, jstr(it, "missing_column")) ||
		    run_state_opt(&at->missing_relation, jstr(it, "missing_relation")) ||
		    run_state_opt(&at->suggested, jstr(it, "suggested")) ||
		    run_state_opt(&at->comment, jstr(it, "comment")))
			return 0;
		at->empty = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "empty"));
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
	e = run_parent_set(s, (long long)id->valuedouble, jstr(o, "question"), jstr(o, "sql"), cols,
	                   cJSON_IsNumber(rc) ? (long long)rc->valuedouble : 0);
	free(cols);
	return e == OK;
}

static int load_edits(struct run_state *s, const cJSON *arr)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, (cJSON_IsArray(arr) ? arr : NULL)) {
		int op = jint(it, "op");
		struct planner_edit e = {.op = (enum planner_edit_op)op, .table = jstr(it, "table"),
		                         .column = jstr(it, "column"), .value = jstr(it, "value"),
		                         .phrase = jstr(it, "phrase")};

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
	p->sql = copy(jstr(o, "sql"), 1, &ok);
	p->tool = copy(jstr(o, "tool"), 1, &ok);
	p->rewrite = copy(jstr(o, "rewrite"), 1, &ok);
	p->note = copy(jstr(o, "note"), 1, &ok);
	p->comment = copy(jstr(o, "comment"), 1, &ok);
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
	p->call.tool = copy(jstr(o, "tool"), 1, &ok);
	p->call.reasoning = copy(jstr(o, "reasoning"), 1, &ok);
	p->raw = copy(jstr(o, "raw"), 1, &ok);
	p->rewrite = copy(jstr(o, "rewrite"), 1, &ok);
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
	r->builtin_sql = copy(jstr(o, "builtin_sql"), 1, &ok);
	r->builtin_missing = copy(jstr(o, "builtin_missing"), 1, &ok);
	if (!ok || !load_strs(&r->explained, cJSON_GetObjectItemCaseSensitive(o, "explained")) ||
	    !load_strs(&r->tools_used, cJSON_GetObjectItemCaseSensitive(o, "tools_used")) ||
	    !load_pending(&r->pending, cJSON_GetObjectItemCaseSensitive(o, "pending")))
		return 0;
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "messages")) {
		const char *role = jstr(it, "role"), *content = jstr(it, "content");
		enum run_role rl = ROLE_USER;

		if (!role || !content)
			continue;
		for (int i = ROLE_SYSTEM; i <= ROLE_ASSISTANT; i++)
			if (!strcmp(role, role_names[i]))
				rl = (enum run_role)i;
		if (run_react_add_msg(r, rl, content) != OK)
			return 0;
	}
	return 1;
}

/* load_scalars: the typed scalar fields of j into s; 0 on no memory. */
static int load_scalars(struct run_state *s, const cJSON *j)
{
	const char *next = jstr(j, "next"), *mode = jstr(j, "mode");

	s->mode = mode && !strcmp(mode, "react") ? RUN_REACT : RUN_EXTRACT;
	if (run_state_set(&s->target, jstr(j, "target")) || run_state_set(&s->provider, jstr(j, "provider")) ||
	    run_state_set(&s->question, jstr(j, "question")) || run_state_set(&s->now, jstr(j, "now")) ||
	    run_state_set(&s->scope, jstr(j, "scope")) || run_state_set(&s->model, jstr(j, "model")) ||
	    run_state_set(&s->pending_sql, jstr(j, "pending_sql")))
		return 0;
	s->step_mode = jint(j, "step_mode");
	s->no_cache = jint(j, "no_cache");
	s->edited = jint(j, "edited");
	s->attempt = jint(j, "attempt");
	s->max_retries = jint(j, "max_retries");
	s->from_cache = jint(j, "from_cache");
	s->next = !next ? NEXT_INSPECT : !strcmp(next, "exec") ? NEXT_EXEC : !strcmp(next, "plan") ? NEXT_PLAN
	                                                                                           : NEXT_INSPECT;
	s->stage = run_stage_of(jstr(j, "stage"));
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
