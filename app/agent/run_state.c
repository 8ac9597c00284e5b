/* run_state.c: the typed run state and its one JSON save/load pair (docs/architecture.md). */
#include <stdlib.h>
#include <string.h>
#include "agent/run_state.h"

static const char *const stage_names[] = {[RUN_STAGE_PLAN] = "plan", [RUN_STAGE_SQL] = "sql",
                                          [RUN_STAGE_SUBMIT] = "submit"};
static const char *const next_names[] = {[NEXT_INSPECT] = "inspect", [NEXT_PLAN] = "plan", [NEXT_EXEC] = "exec"};

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

int run_state_set(char **field, const char *v)
{
	char *c = strdup(v ? v : "");

	if (!c)
		return -1;
	free(*field);
	*field = c;
	return 0;
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
	cJSON_Delete(s->doc);
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
	    run_state_set(&s->pending_sql, NULL) || !(s->doc = cJSON_CreateObject()) ||
	    !cJSON_AddArrayToObject(s->doc, "history")) {
		run_state_free(s);
		return ERR_NOMEM;
	}
	return OK;
}

static const char *jstr(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : "";
}

static int jint(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valueint : 0;
}

/* the scalar keys: taken out of the document on load, written back on save */
static const char *const scalar_keys[] = {"v", "mode", "target", "provider", "question", "now", "scope",
                                          "model", "step_mode", "no_cache", "edited", "attempt",
                                          "max_retries", "from_cache", "next", "stage", "pending_sql", NULL};

enum err run_state_load(const char *json, struct run_state *s)
{
	cJSON *j = json ? cJSON_Parse(json) : NULL;
	const char *next;

	memset(s, 0, sizeof *s);
	if (!cJSON_IsObject(j)) {
		cJSON_Delete(j);
		return ERR_PARSE;
	}
	s->mode = !strcmp(jstr(j, "mode"), "react") ? RUN_REACT : RUN_EXTRACT;
	if (run_state_set(&s->target, jstr(j, "target")) || run_state_set(&s->provider, jstr(j, "provider")) ||
	    run_state_set(&s->question, jstr(j, "question")) || run_state_set(&s->now, jstr(j, "now")) ||
	    run_state_set(&s->scope, jstr(j, "scope")) || run_state_set(&s->model, jstr(j, "model")) ||
	    run_state_set(&s->pending_sql, jstr(j, "pending_sql"))) {
		cJSON_Delete(j);
		run_state_free(s);
		return ERR_NOMEM;
	}
	s->step_mode = jint(j, "step_mode");
	s->no_cache = jint(j, "no_cache");
	s->edited = jint(j, "edited");
	s->attempt = jint(j, "attempt");
	s->max_retries = jint(j, "max_retries");
	s->from_cache = jint(j, "from_cache");
	next = jstr(j, "next");
	s->next = !strcmp(next, "exec") ? NEXT_EXEC : !strcmp(next, "plan") ? NEXT_PLAN : NEXT_INSPECT;
	s->stage = run_stage_of(jstr(j, "stage"));
	for (int i = 0; scalar_keys[i]; i++)
		cJSON_DeleteItemFromObjectCaseSensitive(j, scalar_keys[i]);
	s->doc = j;
	return OK;
}

char *run_state_json(const struct run_state *s)
{
	cJSON *j = cJSON_Duplicate(s->doc, 1);
	char *out = NULL;

	if (!j)
		return NULL;
	if (cJSON_AddNumberToObject(j, "v", 1) && cJSON_AddStringToObject(j, "mode", run_mode_name(s->mode)) &&
	    cJSON_AddStringToObject(j, "target", s->target) && cJSON_AddStringToObject(j, "provider", s->provider) &&
	    cJSON_AddStringToObject(j, "question", s->question) && cJSON_AddStringToObject(j, "now", s->now) &&
	    cJSON_AddStringToObject(j, "scope", s->scope) && cJSON_AddStringToObject(j, "model", s->model) &&
	    cJSON_AddNumberToObject(j, "step_mode", s->step_mode) && cJSON_AddNumberToObject(j, "no_cache", s->no_cache) &&
	    cJSON_AddNumberToObject(j, "edited", s->edited) &&
	    cJSON_AddNumberToObject(j, "attempt", s->attempt) &&
	    cJSON_AddNumberToObject(j, "max_retries", s->max_retries) &&
	    cJSON_AddNumberToObject(j, "from_cache", s->from_cache) &&
	    cJSON_AddStringToObject(j, "next", next_names[s->next]) &&
	    (s->stage ? cJSON_AddStringToObject(j, "stage", run_stage_name(s->stage)) != NULL
	              : cJSON_AddNullToObject(j, "stage") != NULL) &&
	    cJSON_AddStringToObject(j, "pending_sql", s->pending_sql))
		out = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	return out;
}
