/* run_state.c: the typed run state and its lists; the JSON save/load pair is in run_state_json.c (docs/architecture.md). */
#include <stdlib.h>
#include <string.h>
#include "agent/run_state.h"
#include "agent/run_state_int.h"

static const char *const stage_names[] = {[RUN_STAGE_PLAN] = "plan", [RUN_STAGE_SQL] = "sql",
                                          [RUN_STAGE_SUBMIT] = "submit"};
const char *const rs_next_names[3] = {[NEXT_INSPECT] = "inspect", [NEXT_PLAN] = "plan", [NEXT_EXEC] = "exec"};
const char *const rs_role_names[3] = {[ROLE_SYSTEM] = "system", [ROLE_USER] = "user", [ROLE_ASSISTANT] = "assistant"};

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
	return r >= ROLE_SYSTEM && r <= ROLE_ASSISTANT ? rs_role_names[r] : "user";
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

char *rs_copy(const char *v, int opt, int *ok)
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
	c.sql = rs_copy(sql, 0, &ok);
	c.error = rs_copy(error, 0, &ok);
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
		p->columns[p->ncolumns].name = rs_copy(n->valuestring, 0, &ok);
		p->columns[p->ncolumns++].type = rs_copy(cJSON_IsString(t) ? t->valuestring : NULL, 1, &ok);
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
	p->question = rs_copy(question, 0, &ok);
	p->sql = rs_copy(sql, 1, &ok);
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
	c.table = rs_copy(e->table, 0, &ok);
	c.column = rs_copy(e->column, 1, &ok);
	c.value = rs_copy(e->value, 1, &ok);
	c.phrase = rs_copy(e->phrase, 1, &ok);
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
	c.table = rs_copy(table, 0, &ok);
	c.column = rs_copy(column, 0, &ok);
	c.type = rs_copy(type, 1, &ok);
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
	m.phrase = rs_copy(phrase, 0, &ok);
	m.table = rs_copy(table, 0, &ok);
	m.column = rs_copy(column, 0, &ok);
	m.value = rs_copy(value, 0, &ok);
	m.how = rs_copy(how, 1, &ok);
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
	x.question = rs_copy(question, 0, &ok);
	x.sql = rs_copy(sql, 0, &ok);
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
	p->sql = rs_copy(spec->sql, 1, &ok);
	p->tool = rs_copy(spec->tool, 1, &ok);
	p->rewrite = rs_copy(spec->rewrite, 1, &ok);
	p->note = rs_copy(spec->note, 1, &ok);
	p->comment = rs_copy(spec->comment, 1, &ok);
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

