/* extract.c: the extraction loop: inspector -> planner -> executor (self-correction) -> packager. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/agent_int.h"
#include "agent/planner.h"
#include "util/conf.h"
#include "util/log.h"
#include "util/sb.h"

/* Record a failed attempt in st.history (what the next planner prompt carries). */
static void add_history(struct agent *a, const char *sql, const char *error, const struct exec_out *eo)
{
	cJSON *h = cJSON_GetObjectItemCaseSensitive(a->state.doc, "history"), *o = cJSON_CreateObject();

	if (!h)
		h = cJSON_AddArrayToObject(a->state.doc, "history");
	cJSON_AddNumberToObject(o, "attempt", a->state.attempt);
	cJSON_AddStringToObject(o, "sql", sql ? sql : "");
	cJSON_AddStringToObject(o, "error", error ? error : "");
	if (eo && eo->missing_column)
		cJSON_AddStringToObject(o, "missing_column", eo->missing_column);
	if (eo && eo->missing_relation)
		cJSON_AddStringToObject(o, "missing_relation", eo->missing_relation);
	if (eo && eo->suggested)
		cJSON_AddStringToObject(o, "suggested", eo->suggested);
	cJSON_AddItemToArray(h, o);
}

/* The plan shown at a pause (tables, columns, join path, value mappings). */
static cJSON *pause_plan(struct agent *a)
{
	cJSON *p = cJSON_CreateObject(), *plan = cJSON_GetObjectItemCaseSensitive(a->state.doc, "plan");
	static const char *keys[] = {"tables", "columns", "joins", "mappings", "intent", NULL};

	for (int i = 0; plan && keys[i]; i++) {
		cJSON *v = cJSON_GetObjectItemCaseSensitive(plan, keys[i]);

		if (v)
			cJSON_AddItemToObject(p, keys[i], cJSON_Duplicate(v, 1));
	}
	return p;
}

static void fail_out(struct agent *a)
{
	cJSON *h = cJSON_GetObjectItemCaseSensitive(a->state.doc, "history"), *last = cJSON_GetArrayItem(h, cJSON_GetArraySize(h) - 1);
	cJSON *e = last ? cJSON_GetObjectItemCaseSensitive(last, "error") : NULL;
	struct sb m = SB_INIT;

	sb_printf(&m, "no working SQL after %d of %d attempts; last error: %s", a->state.attempt,
	          a->state.max_retries, cJSON_IsString(e) ? e->valuestring : "unknown");
	a->res->attempts = a->state.attempt;
	a->res->max_attempts = a->state.max_retries;
	{
		struct run_update u = RUN_UPDATE_INIT;

		u.attempts = a->state.attempt;
		run_set(a->app, a->run_id, &u);
	}
	agent_end(a, "error", sb_cstr(&m));
	sb_free(&m);
}

/* inspect_stage: the inspector, then the query cache (a hit goes straight to execution); in
 * step mode the run then pauses on the plan.  1 when the run paused or stopped, 0 to go on. */
static int inspect_stage(struct agent *a, int step_mode)
{
	char *cached;

	inspector_run(a);
	if (!a->state.no_cache && (cached = cache_lookup(a))) {
		struct step s = {.kind = "info", .name = "cache", .status = "ok", .ms = 0};
		cJSON *o = cJSON_CreateObject();
		char *out;

		cJSON_AddStringToObject(o, "sql", cached);
		cJSON_AddStringToObject(o, "hit", "normalised question + catalog version");
		out = json_text(o);
		s.output = out;
		agent_step(a, &s);
		free(out);
		cJSON_Delete(o);
		run_state_set(&a->state.pending_sql, cached);
		a->state.from_cache = 1;
		a->state.attempt = 1;
		a->state.next = NEXT_EXEC;
		free(cached);
	} else {
		a->state.next = NEXT_PLAN;
	}
	if (step_mode) {
		cJSON *p = cJSON_CreateObject();

		cJSON_AddItemToObject(p, "plan", pause_plan(a));
		if (a->state.from_cache)
			cJSON_AddStringToObject(p, "sql", a->state.pending_sql);
		agent_pause(a, "plan", p);
		return 1;
	}
	return 0;
}

/* back_to_rejected: the analyst's comment on the last SQL could not be applied and there is
 * no other SQL: the run pauses again at the SQL they rejected, with the reason.  Frees *po. */
static void back_to_rejected(struct agent *a, struct plan_out *po, cJSON *last, const cJSON *comment)
{
	cJSON *p = cJSON_CreateObject();

	a->state.attempt--;   /* nothing was tried */
	run_state_set(&a->state.pending_sql, cJSON_GetObjectItemCaseSensitive(last, "sql")->valuestring);
	a->state.next = NEXT_EXEC;
	cJSON_AddStringToObject(p, "sql", a->state.pending_sql);
	cJSON_AddNumberToObject(p, "attempt", a->state.attempt);
	cJSON_AddNumberToObject(p, "max_attempts", a->state.max_retries);
	cJSON_AddStringToObject(p, "note", po->missing ? po->missing : "the comment could not be applied");
	cJSON_AddStringToObject(p, "comment", comment->valuestring);
	cJSON_AddItemToObject(p, "plan", pause_plan(a));
	plan_out_free(po);
	agent_pause(a, "sql", p);
}

/* end_declined: the planner declined: the run ends "unanswerable" when nothing failed before,
 * else as an error (no better SQL).  Frees *po. */
static void end_declined(struct agent *a, struct plan_out *po)
{
	struct sb m = SB_INIT;
	int failed_before = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(a->state.doc, "history")) > 0;

	/* declining after failed attempts means "no better SQL", not "no data for it" */
	if (failed_before) {
		sb_printf(&m, "no working SQL after %d attempt%s; the planner has no other SQL: %s",
		          a->state.attempt - 1, a->state.attempt == 2 ? "" : "s", po->missing);
		a->res->attempts = a->state.attempt - 1;
		a->res->max_attempts = a->state.max_retries;
	} else {
		sb_printf(&m, "cannot answer from this database: %s", po->missing);
	}
	agent_end(a, failed_before ? "error" : "unanswerable", sb_cstr(&m));
	sb_free(&m);
	plan_out_free(po);
}

/* plan_stage: one planner attempt; its SQL goes to execution (in step mode after a pause on
 * it).  1 when the run paused or ended, 0 to go on. */
static int plan_stage(struct agent *a, int step_mode)
{
	struct plan_out po;

	a->state.attempt = a->state.attempt + 1;
	plan_run(a, &po);
	if (po.failed) {
		struct sb m = SB_INIT;

		sb_printf(&m, "planner failed: %s", po.error ? po.error : "unknown");
		a->res->attempts = a->state.attempt;
		agent_end(a, "error", sb_cstr(&m));
		sb_free(&m);
		plan_out_free(&po);
		return 1;
	}
	cJSON *hist = cJSON_GetObjectItemCaseSensitive(a->state.doc, "history");
	cJSON *last = cJSON_GetArrayItem(hist, cJSON_GetArraySize(hist) - 1);
	const cJSON *comment = cJSON_GetObjectItemCaseSensitive(last, "comment");
	if (po.unanswerable && step_mode && cJSON_IsString(comment) && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(last, "sql"))) {
		/* the analyst's comment could not be applied and there is no other SQL: the run goes
		 * on, back at the SQL they rejected, with the reason; only "stop" ends it */
		back_to_rejected(a, &po, last, comment);
		return 1;
	}
	if (po.unanswerable) {
		end_declined(a, &po);
		return 1;
	}
	if (!po.sql) {
		add_history(a, NULL, "the planner's reply contains no SQL", NULL);
		plan_out_free(&po);
		if (a->state.attempt >= a->state.max_retries)
			fail_out(a);
		return 0;
	}
	run_state_set(&a->state.pending_sql, po.sql);
	a->state.next = NEXT_EXEC;
	plan_out_free(&po);
	if (step_mode) {
		cJSON *p = cJSON_CreateObject();

		cJSON_AddStringToObject(p, "sql", a->state.pending_sql);
		cJSON_AddNumberToObject(p, "attempt", a->state.attempt);
		cJSON_AddNumberToObject(p, "max_attempts", a->state.max_retries);
		cJSON_AddItemToObject(p, "plan", pause_plan(a));
		agent_pause(a, "sql", p);
		return 1;
	}
	return 0;
}

/* exec_stage: run the pending SQL and check its result; a good result is packaged, a bad one
 * is forgotten (from the cache) or becomes history and another plan, or the end of the run.
 * 1 when the result was packaged, 0 to go on. */
static int exec_stage(struct agent *a)
{
	struct exec_out eo;
	char *sql = strdup(a->state.pending_sql);

	executor_run(a, "executor", sql, conf_get_int("preview_limit"), &eo);
	char *finding = eo.ok && !a->state.from_cache ? result_check_run(a, &eo) : NULL;
	if (finding) {
		/* it ran, but it does not answer the question asked: another attempt, with the reason */
		struct step s = {.kind = "policy", .name = "result_check", .status = "error", .error = finding, .ms = 0};

		agent_step(a, &s);
		free(eo.error);
		eo.error = finding;
		eo.ok = 0;
	}
	if (eo.ok) {
		packager_run(a, &eo, a->state.attempt, a->state.max_retries);
		exec_out_free(&eo);
		free(sql);
		return 1;
	}
	if (a->state.from_cache) {
		/* a stale cache entry: forget it and plan normally */
		cache_forget(a);
		a->state.from_cache = 0;
		a->state.attempt = 0;
		a->state.next = NEXT_PLAN;
	} else {
		add_history(a, sql, eo.error, &eo);
		if (a->state.attempt >= a->state.max_retries)
			fail_out(a);
		else
			a->state.next = NEXT_PLAN;
	}
	exec_out_free(&eo);
	free(sql);
	return 0;
}

void extract_continue(struct agent *a)
{
	int step_mode = a->state.step_mode;

	for (int guard = 0; !a->done && guard < 64; guard++) {
		enum run_next next = a->state.next;

		if (next == NEXT_INSPECT) {
			if (inspect_stage(a, step_mode))
				return;
		} else if (next == NEXT_PLAN) {
			if (plan_stage(a, step_mode))
				return;
		} else if (next == NEXT_EXEC) {
			if (exec_stage(a))
				return;
		} else {
			agent_end(a, "error", "unknown stage in the saved state");
		}
	}
}

/* Apply plan edits to st.plan (shown and sent to the LLM) and keep them for the offline planner. */
static void apply_edits(struct agent *a, const struct agent_decision *d)
{
	cJSON *plan = cJSON_GetObjectItemCaseSensitive(a->state.doc, "plan");
	cJSON *edits = cJSON_GetObjectItemCaseSensitive(a->state.doc, "edits");
	cJSON *tables, *maps, *cols;

	if (!plan)
		plan = cJSON_AddObjectToObject(a->state.doc, "plan");
	if (!edits)
		edits = cJSON_AddArrayToObject(a->state.doc, "edits");
	if (!(tables = cJSON_GetObjectItemCaseSensitive(plan, "tables")))
		tables = cJSON_AddArrayToObject(plan, "tables");
	if (!(maps = cJSON_GetObjectItemCaseSensitive(plan, "mappings")))
		maps = cJSON_AddArrayToObject(plan, "mappings");
	cols = cJSON_GetObjectItemCaseSensitive(plan, "columns");
	for (int i = 0; i < d->nedits; i++) {
		const struct planner_edit *e = &d->edits[i];
		cJSON *o = cJSON_CreateObject(), *it;
		int k = 0;

		cJSON_AddNumberToObject(o, "op", e->op);
		if (e->table)
			cJSON_AddStringToObject(o, "table", e->table);
		if (e->column)
			cJSON_AddStringToObject(o, "column", e->column);
		if (e->value)
			cJSON_AddStringToObject(o, "value", e->value);
		if (e->phrase)
			cJSON_AddStringToObject(o, "phrase", e->phrase);
		cJSON_AddItemToArray(edits, o);
		switch (e->op) {
		case PLAN_ADD_TABLE:
			cJSON_AddItemToArray(tables, cJSON_CreateString(e->table));
			break;
		case PLAN_REMOVE_TABLE:
			k = 0;
			cJSON_ArrayForEach(it, tables) {
				if (cJSON_IsString(it) && !strcmp(it->valuestring, e->table)) {
					cJSON_DeleteItemFromArray(tables, k);
					break;
				}
				k++;
			}
			break;
		case PLAN_ADD_MAPPING: {
			cJSON *m = cJSON_CreateObject();

			cJSON_AddStringToObject(m, "phrase", e->phrase ? e->phrase : "");
			cJSON_AddStringToObject(m, "table", e->table);
			cJSON_AddStringToObject(m, "column", e->column ? e->column : "");
			cJSON_AddStringToObject(m, "value", e->value ? e->value : "");
			cJSON_AddStringToObject(m, "how", "analyst");
			cJSON_AddItemToArray(maps, m);
			break;
		}
		case PLAN_REMOVE_MAPPING:
		case PLAN_REMOVE_COLUMN: {
			cJSON *arr = e->op == PLAN_REMOVE_MAPPING ? maps : cols;

			k = 0;
			cJSON_ArrayForEach(it, arr) {
				cJSON *t = cJSON_GetObjectItemCaseSensitive(it, "table");
				cJSON *c = cJSON_GetObjectItemCaseSensitive(it, "column");
				cJSON *v = cJSON_GetObjectItemCaseSensitive(it, "value");

				if (cJSON_IsString(t) && !strcmp(t->valuestring, e->table) &&
				    (!e->column || (cJSON_IsString(c) && !strcmp(c->valuestring, e->column))) &&
				    (e->op == PLAN_REMOVE_COLUMN || !e->value ||
				     (cJSON_IsString(v) && !strcmp(v->valuestring, e->value)))) {
					cJSON_DeleteItemFromArray(arr, k);
					break;
				}
				k++;
			}
			break;
		}
		}
	}
}

/* Shared by both modes: a plan-stage decision.  1 when handled. */
int agent_plan_decide(struct agent *a, const struct agent_decision *d)
{
	if (d->kind == AGENT_PLAN_EDIT) {
		apply_edits(a, d);
		return 1;
	}
	if (d->kind == AGENT_REJECT) {
		struct sb m = SB_INIT;

		sb_printf(&m, "plan rejected by the analyst%s%s", d->comment && *d->comment ? ": " : "",
		          d->comment ? d->comment : "");
		agent_end(a, "stopped", sb_cstr(&m));
		sb_free(&m);
		return 1;
	}
	return d->kind == AGENT_APPROVE;
}

enum err extract_decide(struct agent *a, const struct agent_decision *d)
{
	enum run_stage stage = a->state.stage;

	if (stage == RUN_STAGE_PLAN) {
		if (d->kind == AGENT_EDIT) {
			/* the analyst wrote the SQL: run it as the next attempt */
			a->state.attempt = a->state.attempt + 1;
			a->state.from_cache = 0;
			run_state_set(&a->state.pending_sql, d->sql);
			a->state.next = NEXT_EXEC;
		} else if (!agent_plan_decide(a, d)) {
			return ERR_INPUT;
		}
	} else if (stage == RUN_STAGE_SQL) {
		switch (d->kind) {
		case AGENT_APPROVE:
			break;
		case AGENT_EDIT:
			run_state_set(&a->state.pending_sql, d->sql);
			break;
		case AGENT_REJECT: {
			struct sb m = SB_INIT;

			sb_printf(&m, "rejected by the analyst%s%s", d->comment && *d->comment ? ": " : "",
			          d->comment ? d->comment : "");
			add_history(a, a->state.pending_sql, sb_cstr(&m), NULL);
			sb_free(&m);
			if (d->comment && *d->comment) {
				/* the analyst's words: the offline planner reads them as a change to the question */
				cJSON *h = cJSON_GetObjectItemCaseSensitive(a->state.doc, "history");
				cJSON *last = cJSON_GetArrayItem(h, cJSON_GetArraySize(h) - 1);
				if (last)
					cJSON_AddStringToObject(last, "comment", d->comment);
			}
			if (a->state.attempt >= a->state.max_retries)
				fail_out(a);
			else
				a->state.next = NEXT_PLAN;
			break;
		}
		default:
			return ERR_INPUT;
		}
	} else {
		return ERR_INPUT;
	}
	a->state.stage = RUN_STAGE_NONE;
	return OK;
}
