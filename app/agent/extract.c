/* extract.c: the extraction loop: inspector -> planner -> executor (self-correction) -> packager. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/agent_int.h"
#include "agent/planner.h"
#include "util/conf.h"
#include "util/log.h"
#include "util/sb.h"

/* Record a failed attempt in the history (what the next planner prompt carries). */
static void add_history(struct agent *a, const char *sql, const char *error, const struct exec_out *eo)
{
	struct run_attempt *at;

	if (run_history_add(&a->state, a->state.attempt, sql, error, &at) != OK ||
	    (eo && (run_state_opt(&at->missing_column, eo->missing_column) ||
	            run_state_opt(&at->missing_relation, eo->missing_relation) ||
	            run_state_opt(&at->suggested, eo->suggested))))
		log_warn("run %lld: no memory to record attempt %d", a->run_id, a->state.attempt);
	else if (eo) {
		/* the code and the place: all of the error a model may read under schema and values */
		memcpy(at->sqlstate, eo->sqlstate, sizeof at->sqlstate);
		at->position = eo->position;
	}
}

static void fail_out(struct agent *a)
{
	const struct run_attempt *last = run_history_last(&a->state);
	struct sb m = SB_INIT;

	sb_printf(&m, "no working SQL after %d of %d attempts; last error: %s", a->state.attempt,
	          a->state.max_retries, last ? last->error : "unknown");
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
		a->state.analyst_sql = 0;
		a->state.attempt = 1;
		a->state.next = NEXT_EXEC;
		free(cached);
	} else {
		a->state.next = NEXT_PLAN;
	}
	if (step_mode) {
		struct run_pause_spec p = {.plan = PLAN_VIEW_BRIEF,
		                           .sql = a->state.from_cache ? a->state.pending_sql : NULL};

		agent_pause(a, RUN_STAGE_PLAN, &p);
		return 1;
	}
	return 0;
}

/* back_to_rejected: the analyst's comment on the last SQL (last) could not be applied and there
 * is no other SQL: the run pauses again at the SQL they rejected, with the reason.  Frees *po. */
static void back_to_rejected(struct agent *a, struct plan_out *po, const struct run_attempt *last)
{
	struct run_pause_spec p = {.plan = PLAN_VIEW_BRIEF, .comment = last->comment,
	                           .note = po->missing ? po->missing : "the comment could not be applied"};

	a->state.attempt--;   /* nothing was tried */
	run_state_set(&a->state.pending_sql, last->sql);
	a->state.next = NEXT_EXEC;
	p.sql = a->state.pending_sql;
	p.attempt = a->state.attempt;
	p.max_attempts = a->state.max_retries;
	agent_pause(a, RUN_STAGE_SQL, &p);
	plan_out_free(po);
}

/* end_declined: the planner declined: the run ends "unanswerable" when nothing failed before,
 * else as an error (no better SQL).  Frees *po. */
static void end_declined(struct agent *a, struct plan_out *po)
{
	struct sb m = SB_INIT;
	int failed_before = a->state.nhistory > 0;

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
	const struct run_attempt *last = run_history_last(&a->state);
	if (po.unanswerable && step_mode && last && last->comment) {
		/* the analyst's comment could not be applied and there is no other SQL: the run goes
		 * on, back at the SQL they rejected, with the reason; only "stop" ends it */
		back_to_rejected(a, &po, last);
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
	a->state.analyst_sql = 0;
	a->state.next = NEXT_EXEC;
	plan_out_free(&po);
	if (step_mode) {
		struct run_pause_spec p = {.plan = PLAN_VIEW_BRIEF, .sql = a->state.pending_sql,
		                           .attempt = a->state.attempt, .max_attempts = a->state.max_retries};

		agent_pause(a, RUN_STAGE_SQL, &p);
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
	/* a cached answer was checked when it was made, but every word is checked again: an entry
	 * made before a check existed may leave one out */
	char *finding = !eo.ok || a->state.analyst_sql ? NULL
	              : a->state.from_cache ? coverage_run(a, eo.sql) : result_check_run(a, &eo);
	/* the offline planner's reading that finds no row is more often a misreading than a true
	 * "none": it is asked back, naming the condition that matches nothing (docs/coverage.md) */
	if (!finding && eo.ok && !a->state.analyst_sql && !strcmp(a->state.provider, "builtin"))
		finding = empty_check_run(a, &eo);
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

/* Apply plan edits to the state's plan (shown and sent to the LLM) and keep them for the
 * offline planner.  0, or -1 when one could not be kept (no memory). */
static int apply_edits(struct agent *a, const struct agent_decision *d)
{
	for (int i = 0; i < d->nedits; i++) {
		const struct planner_edit *e = &d->edits[i];

		if (!e->table)
			continue;   /* every edit names a table (agent_decision_parse, run_step.c) */
		if (run_edit_add(&a->state, e) != OK || run_plan_edit(&a->state.plan, e) != OK)
			return -1;
	}
	return 0;
}

/* Shared by both modes: a plan-stage decision.  1 when handled. */
int agent_plan_decide(struct agent *a, const struct agent_decision *d)
{
	if (d->kind == AGENT_PLAN_EDIT) {
		if (apply_edits(a, d))
			agent_end(a, "error", "the plan edits could not be applied (out of memory)");
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
			a->state.analyst_sql = 1;
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
			a->state.analyst_sql = 1;
			break;
		case AGENT_REJECT: {
			struct sb m = SB_INIT;

			sb_printf(&m, "rejected by the analyst%s%s", d->comment && *d->comment ? ": " : "",
			          d->comment ? d->comment : "");
			add_history(a, a->state.pending_sql, sb_cstr(&m), NULL);
			sb_free(&m);
			if (d->comment && *d->comment && run_history_last(&a->state)) {
				/* the analyst's words: the offline planner reads them as a change to the question */
				if (run_state_opt(&run_history_last(&a->state)->comment, d->comment))
					log_warn("run %lld: no memory for the analyst's comment", a->run_id);
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
