/* packager.c: the packager node: preview rows, column types, attempt statistics; the run ends ok. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/agent_int.h"
#include "llm/prompt.h"
#include "pages/answer.h"
#include "util/conf.h"
#include "util/log.h"
#include "util/sb.h"

static const char *col_type(const struct exec_col *c)
{
	if (c->is_bool)
		return "boolean";
	if (c->is_numeric)
		return "number";
	if (c->is_temporal)
		return "datetime";
	return "text";
}

/* aggregate: every row of the result is an aggregate (a column computed by avg, count, sum, min, max), so
 * the rows say nothing of single patients */
static int aggregate(const struct exec_out *eo)
{
	for (int j = 0; j < eo->r.ncols; j++) {
		char agg[16], src[64];

		if (answer_source(eo->sql, eo->r.cols[j].name, agg, sizeof agg, src, sizeof src) && agg[0])
			return 1;
	}
	return 0;
}

/*
 * llm_sentence: the answer sentence in Korean and English from the run's model, {"ko","en","by":"llm"} as
 * JSON text (heap), or NULL (builtin provider, conf answer_llm_rows 0, a row-level, truncated or larger
 * result, a target whose llm_data_policy is not rows, or the model failed: the run page then words it
 * offline).  The model is sent the question,
 * the column names and the result's rows, nothing else.  Recorded as an "answer" step.
 */
static char *llm_sentence(struct agent *a, const struct exec_out *eo, const char *cols_json, const char *rows_json)
{
	long lim = conf_get_int("answer_llm_rows");
	long long t0 = agent_now_us();
	char err[256], *sys = NULL, *out = NULL;
	struct llm *l;
	struct llm_msg m[2];
	struct llm_reply rep = {0};
	struct sb u = SB_INIT;
	struct step s = {.kind = "llm", .name = "answer", .status = "ok"};
	cJSON *j = NULL, *o;
	const char *ko, *en, *b, *e;

	if (lim <= 0 || eo->r.truncated || eo->r.nrows == 0 || eo->r.nrows > lim || !aggregate(eo))
		return NULL;
	/* rows go to the model only under llm_data_policy rows (docs/llm-policy.md): schema and
	 * values keep the offline sentence */
	if (a->policy != LLM_POLICY_ROWS)
		return NULL;
	if (!(l = agent_llm(a, err, sizeof err)) || llm_is_builtin(l))
		return NULL;
	sys = prompt_get(a->app, "answer", NULL);
	sb_printf(&u, "Question: %s\nSQL: %s\nColumns: %s\nRows: %s\n", a->state.question ? a->state.question : "",
	          eo->sql, cols_json, rows_json);
	m[0].role = "system";
	m[0].content = sys ? sys : "Answer the question from the rows in one sentence, as JSON {\"ko\": \"...\", \"en\": \"...\"}.";
	m[1].role = "user";
	m[1].content = sb_cstr(&u);
	if (llm_chat(l, m, 2, NULL, NULL, &rep) == OK && rep.text && (b = strchr(rep.text, '{')) && (e = strrchr(b, '}')) &&
	    (j = cJSON_ParseWithLength(b, (size_t)(e - b + 1))) &&
	    (ko = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "ko"))) && *ko && strlen(ko) < 1000 &&
	    (en = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "en"))) && *en && strlen(en) < 1000) {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "ko", ko);
		cJSON_AddStringToObject(o, "en", en);
		cJSON_AddStringToObject(o, "by", "llm");
		out = json_text(o);
		cJSON_Delete(o);
	} else {
		/* a failed sentence degrades to the offline one; the run goes on */
		s.status = "degraded";
		s.error = rep.error ? rep.error : "the model's reply is not {\"ko\": ..., \"en\": ...}";
	}
	a->res->llm_ms += rep.ms;
	s.output = out;
	s.raw = rep.text;
	s.ms = agent_ms_since(t0);
	s.tokens_in = rep.tokens_in;
	s.tokens_out = rep.tokens_out;
	agent_step(a, &s);
	cJSON_Delete(j);
	llm_reply_free(&rep);
	sb_free(&u);
	free(sys);
	return out;
}

void packager_run(struct agent *a, struct exec_out *eo, int attempt, int max_attempts)
{
	long long t0 = agent_now_us();
	struct step s = {.kind = "node", .name = "packager", .status = "ok"};
	struct run_update u = RUN_UPDATE_INIT;
	cJSON *cols = cJSON_CreateArray(), *full = NULL, *rows = NULL, *outj = cJSON_CreateObject();
	char *rj = exec_result_json(&eo->r), *out, *st, *sentence;
	struct sb ans = SB_INIT;
	int react = a->state.mode == RUN_REACT;

	for (int j = 0; j < eo->r.ncols; j++) {
		cJSON *c = cJSON_CreateObject();

		cJSON_AddStringToObject(c, "name", eo->r.cols[j].name);
		cJSON_AddStringToObject(c, "type", col_type(&eo->r.cols[j]));
		cJSON_AddItemToArray(cols, c);
	}
	if (rj && (full = cJSON_Parse(rj)))
		rows = cJSON_DetachItemFromObjectCaseSensitive(full, "rows");
	if (!rows)
		rows = cJSON_CreateArray();
	sb_printf(&ans, "%lld row%s%s; ", eo->r.nrows, eo->r.nrows == 1 ? "" : "s",
	          eo->r.truncated ? " (preview truncated)" : "");
	if (react)
		sb_printf(&ans, "submitted after %d of %d tool calls", attempt, max_attempts);
	else
		sb_printf(&ans, "succeeded on attempt %d of %d", attempt, max_attempts);
	cJSON_AddStringToObject(outj, "statistics", sb_cstr(&ans));
	cJSON_AddNumberToObject(outj, "attempt", attempt);
	cJSON_AddNumberToObject(outj, "max_attempts", max_attempts);
	cJSON_AddNumberToObject(outj, "row_count", (double)eo->r.nrows);
	cJSON_AddBoolToObject(outj, "truncated", eo->r.truncated);
	cJSON_AddItemToObject(outj, "history", run_history_json(&a->state));
	out = json_text(outj);

	a->res->sql = strdup(eo->sql);
	a->res->columns_json = json_text(cols);
	a->res->rows_json = json_text(rows);
	a->res->row_count = eo->r.nrows;
	a->res->truncated = eo->r.truncated;
	a->res->attempts = attempt;
	a->res->max_attempts = max_attempts;
	a->res->answer = strdup(sb_cstr(&ans));

	s.output = out;
	s.ms = agent_ms_since(t0);
	agent_step(a, &s);

	a->state.stage = RUN_STAGE_NONE;
	run_pause_free(&a->state.pause);
	/* the whole state, as agent_end saves it (admin_verified.c reads the model; verify.c the
	 * cache key's scope and model) */
	st = run_state_json(&a->state);
	u.status = "ok";
	u.sql = eo->sql;
	u.fingerprint = eo->fingerprint;
	u.normalized = eo->normalized;
	u.tables_json = eo->tables_json;
	u.columns_json = a->res->columns_json;
	u.preview_json = a->res->rows_json;
	u.row_count = eo->r.nrows;
	u.truncated = eo->r.truncated;
	u.attempts = attempt;
	u.edited = a->state.edited;
	/* the model's sentence when it gave one (the run page words it offline otherwise) */
	sentence = llm_sentence(a, eo, a->res->columns_json, a->res->rows_json);
	u.answer = sentence ? sentence : a->res->answer;
	u.state_json = st;
	agent_async_commits(a, 0);
	run_set(a->app, a->run_id, &u);
	snprintf(a->res->status, sizeof a->res->status, "ok");
	a->done = 1;
	cache_offer(a, eo->sql);
	free(sentence);
	free(st);
	free(out);
	free(rj);
	sb_free(&ans);
	cJSON_Delete(cols);
	cJSON_Delete(full);
	cJSON_Delete(rows);
	cJSON_Delete(outj);
}
