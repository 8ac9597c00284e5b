/* agent.h: the agent pipeline's entry points: start a run, resume a paused one (step mode). */
#ifndef ASKQL_AGENT_H
#define ASKQL_AGENT_H

#include <stddef.h>
#include <libpq-fe.h>
#include "llm/llm.h"
#include "util/err.h"

struct planner_edit;   /* agent/planner.h: add/remove table, add/remove value mapping */

/*
 * How a run is asked.  Every string is borrowed for the duration of the call.
 * A run is one row of askql.runs; every node, tool call, LLM call, policy rewrite and
 * human decision is one row of askql.steps written as it happens (store/run.h), so a
 * page or the progress stream can read a run while it is still going.
 */
struct agent_opts {
	long long user_id;         /* 0: none (CLI) */
	long long parent_id;       /* follow-up of this run (its question, SQL and result shape
	                            * go into the plan); 0: a new question */
	const char *target;        /* catalog target name; NULL: conf target_name */
	const char *conninfo;      /* target conninfo for the executor (read-only role); NULL: conf */
	const char *mode;          /* "extract" (inspector -> planner -> executor -> packager with
	                            * self-correction) or "react" (tool loop); NULL: "extract" */
	const char *provider;      /* "builtin" (offline planner) or "openai"; NULL: conf llm_provider */
	int step_mode;             /* 1: pause before each consequential step (see agent_resume) */
	int no_cache;              /* 1: neither read nor write the query cache */
	const char *now;           /* reference time "YYYY-MM-DD HH:MM:SS" for relative dates; NULL: conf now */
	llm_stream_fn on_text;     /* LLM text as it streams (may be NULL); see llm.h for the reset call */
	void *ctx;
	/* Called once, right after the run row exists (before any step), with its id: a page
	 * streaming the run's steps from another thread learns the id at once.  May be NULL. */
	void (*on_run)(void *ctx, long long run_id);
	/* ReAct mode: each completed section of a streaming reply ("reasoning" with its text,
	 * "tool_call" with the tool name) as soon as it is complete.  May be NULL. */
	void (*on_section)(void *ctx, const char *section, const char *text);
};

/*
 * The outcome of agent_start / agent_resume.  status is one of
 *   "ok"           sql ran; columns/rows hold the preview
 *   "error"        unrecoverable (LLM down, retries used up); error says why; steps kept
 *   "unanswerable" the database has no table/column for it; error names what is missing
 *   "paused"       step mode: waiting for agent_resume; pause_json says on what
 *   "stopped"      the analyst stopped or rejected the plan
 * Heap strings (NULL when absent), freed by agent_result_free.
 */
struct agent_result {
	long long run_id;
	char status[16];
	char *sql;              /* final SQL (guarded, LIMIT possibly added) */
	char *columns_json;     /* [{"name":..,"type":..}] */
	char *rows_json;        /* [[v,..],..]: numbers as JSON numbers, NULL as null */
	long long row_count;
	int truncated;
	int attempts;           /* extract: planner attempts made; react: tool calls made */
	int max_attempts;       /* extract: max_retries; react: react_max_calls */
	char *answer;           /* "12 rows; succeeded on attempt 2 of 3" */
	char *error;
	/* When paused: {"stage":"plan"|"sql"|"submit", "plan":{tables,columns,joins,mappings},
	 * "sql":"...", "attempt":n, "tool":"execute_sql_preview"}.  The page shows it and
	 * offers the decisions below. */
	char *pause_json;
	int nsteps;             /* steps recorded for the run so far */
	double ms;              /* wall time of this call (start or resume) */
	double llm_ms;          /* of which spent waiting for the LLM (HTTP), for the benchmark */
};
void agent_result_free(struct agent_result *r);
/* agent_result_json: {"status","sql","columns","rows","attempts","steps","error","run_id",
 * "answer","pause"}; columns as a list of names.  Heap string, caller frees. */
char *agent_result_json(const struct agent_result *r);

/*
 * agent_start: create the run, then run it until it ends or (step mode) pauses.
 * Returns OK whenever the run was created and brought to a status (including "error"
 * and "unanswerable": see res->status); ERR_INPUT for an empty question or unknown
 * mode/provider (no run created), ERR_DB when the run cannot be stored.
 * The LLM provider and the catalog are opened per call.
 */
enum err agent_start(PGconn *app, const struct agent_opts *o, const char *question,
                     struct agent_result *res);

/* A human decision on a paused run. */
enum agent_decision_kind {
	AGENT_APPROVE = 0,   /* go on as proposed */
	AGENT_EDIT,          /* run sql instead of the proposed SQL (stage sql/submit, or plan: skip planning) */
	AGENT_REJECT,        /* stage plan: stop the run; stage sql: count the attempt as failed with
	                      * comment as its error and plan again; stage submit (react): the
	                      * comment goes back to the model as the tool result */
	AGENT_STOP,          /* end the run now (status "stopped") */
	AGENT_PLAN_EDIT      /* stage plan: apply edits (tables, value mappings) then continue */
};
struct agent_decision {
	enum agent_decision_kind kind;
	const char *sql;                      /* AGENT_EDIT */
	const char *comment;                  /* AGENT_REJECT (and recorded for every kind) */
	const struct planner_edit *edits;     /* AGENT_PLAN_EDIT */
	int nedits;
	long long user_id;                    /* who decided (recorded on the human step) */
	llm_stream_fn on_text;                /* as in agent_opts */
	void *ctx;
};

/*
 * agent_resume: apply decision d to paused run run_id and continue it until it ends or
 * pauses again; works in any worker (the run's state lives in askql.runs.state).  The
 * run is claimed atomically: ERR_DENIED when it is not paused (already resumed by
 * someone else, or finished), ERR_NOTFOUND when there is no such run, ERR_INPUT when the
 * decision does not fit the stage (e.g. AGENT_EDIT without sql); the run stays paused
 * in that case.  Edited SQL the guard refuses is ERR_INPUT too, with the guard's reason in
 * res->error: it is recorded as a refused "edit" step and uses no attempt (the state is not
 * touched).  Otherwise OK with res as for agent_start.
 */
enum err agent_resume(PGconn *app, long long run_id, const struct agent_decision *d,
                      struct agent_result *res);

/*
 * agent_decision_parse: fill d from a JSON object as a page or API posts it:
 * {"decision":"approve|edit|reject|stop|plan_edit", "sql":"..", "comment":"..",
 *  "edits":[{"op":"add_table|remove_table|add_mapping|remove_mapping|remove_column",
 *            "table":"..","column":"..","value":"..","phrase":".."}]}.
 * Strings point into *keep (a heap copy of the parsed document): free it with
 * agent_decision_free after the resume.  ERR_INPUT on bad JSON or unknown decision.
 */
enum err agent_decision_parse(const char *json, struct agent_decision *d, void **keep);
void agent_decision_free(struct agent_decision *d, void *keep);

/*
 * Verified queries (verify.c, docs/shared-memory.md).  A run's verified mark is a small state
 * machine: none -> proposed (anyone who may act on the run) -> accepted or rejected (an admin).
 * Only an accepted run is shared: its question and SQL become a few-shot example (the catalog's
 * verified pairs, find_similar_query) and a query cache entry; runs.verified is true exactly then.
 */
enum agent_verify_action {
	VERIFY_PROPOSE,   /* none -> proposed; shares nothing.  A rejected run cannot be proposed again */
	VERIFY_RETRACT,   /* proposed -> none; accepted or rejected -> none only by an admin (an
	                   * accepted run's example and cache entries are removed) */
	VERIFY_ACCEPT,    /* admin: none, proposed or rejected -> accepted; writes the example and the
	                   * cache entry (none for a follow-up, whose words need its parent) */
	VERIFY_REJECT     /* admin: proposed -> rejected; writes nothing */
};
/*
 * agent_verify: apply act to run_id's mark on behalf of user_id (whose role is read from the
 * database: the caller checks that the user may see the run, this checks the admin part).  The
 * state change and what it writes or removes commit together.  OK, also when the mark already is
 * where act leads; ERR_NOTFOUND when there is no such run, or (propose, accept) it has no
 * successful SQL; ERR_DENIED when the user may not do act here (not an admin, or proposing a
 * rejected run); ERR_INPUT when act does not apply to the current state (rejecting an accepted
 * run: retract it); ERR_DB.
 */
enum err agent_verify(PGconn *app, long long run_id, long long user_id, enum agent_verify_action act);
/*
 * agent_verify_next: the state act leads to from state from ("" for none, "proposed",
 * "accepted", "rejected"), for an admin (admin = 1) or not: a static string ("" for none),
 * equal to from when nothing changes; NULL with *why = ERR_DENIED or ERR_INPUT when act is not
 * allowed (as agent_verify returns).  Pure: the unit test checks the whole table.
 */
const char *agent_verify_next(const char *from, enum agent_verify_action act, int admin, enum err *why);

/* agent_normalize_question: the cache key form of q (lower case, spaces collapsed, trailing
 * punctuation dropped).  Heap string. */
char *agent_normalize_question(const char *q);

#endif
