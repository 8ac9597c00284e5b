/* packager.c: the packager node: preview rows, column types, attempt statistics; the run ends ok. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/agent_int.h"
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

void packager_run(struct agent *a, struct exec_out *eo, int attempt, int max_attempts)
{
	long long t0 = agent_now_us();
	struct step s = {.kind = "node", .name = "packager", .status = "ok"};
	struct run_update u = RUN_UPDATE_INIT;
	cJSON *cols = cJSON_CreateArray(), *full = NULL, *rows = NULL, *outj = cJSON_CreateObject();
	char *rj = exec_result_json(&eo->r), *out, *st;
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
	u.answer = a->res->answer;
	u.state_json = st;
	agent_async_commits(a, 0);
	run_set(a->app, a->run_id, &u);
	snprintf(a->res->status, sizeof a->res->status, "ok");
	a->done = 1;
	cache_offer(a, eo->sql);
	free(st);
	free(out);
	free(rj);
	sb_free(&ans);
	cJSON_Delete(cols);
	cJSON_Delete(full);
	cJSON_Delete(rows);
	cJSON_Delete(outj);
}
