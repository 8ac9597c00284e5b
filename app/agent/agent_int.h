/* agent_int.h: what the agent's node, loop and tool files share (one run in progress). */
#ifndef ASKQL_AGENT_INT_H
#define ASKQL_AGENT_INT_H

#include <cjson/cJSON.h>
#include "agent/agent.h"
#include "catalog/catalog.h"
#include "catalog/llm_policy.h"
#include "sql/exec.h"
#include "store/run.h"
#include "agent/run_state.h"

/*
 * One run being worked on in this process.  Everything a resume needs is in state (typed,
 * run_state.h; saved as runs.state when the run pauses and at the end); the rest is rebuilt.
 */
struct agent {
	PGconn *app;
	long long run_id;
	struct run_state state;
	struct llm *llm;               /* NULL until needed; builtin or openai */
	const char *conninfo;          /* target for exec: the registry's read-only connection of the
	                                * run's target (owned_conninfo), or the caller's */
	char *owned_conninfo;          /* heap copy from the registry; freed by agent_release */
	int restricted;                /* the user's access level is limited or aggregate: the catalog
	                                * the run sees omits the columns it may not read (store/level.h) */
	llm_stream_fn on_text;
	void *ctx;
	void (*on_section)(void *ctx, const char *section, const char *text);
	enum llm_policy policy;        /* what LLM requests may carry of the target's data
	                                * (llm_data_policy, resolved at start and at each resume) */
	struct catalog *cat;           /* NULL when the target is not indexed (degraded) */
	struct retrieval ret;
	int have_ret;
	struct agent_result *res;
	int nsteps;
	int done;                      /* a terminal status or a pause was set */
	long long t0_us;
	long long heartbeat_us;        /* last run_heartbeat */
};

/* ---- agent.c ---- */
/* agent_step: record a step (never stops the run: a storage failure is logged). */
void agent_step(struct agent *a, const struct step *s);
/* agent_pause: the run pauses at stage showing spec (copied into the state's pause): state
 * saved, status paused, the pause in the result.  Without memory for the pause the run ends
 * with an error instead.  Either way the run is done. */
void agent_pause(struct agent *a, enum run_stage stage, const struct run_pause_spec *spec);
/* agent_end: terminal status (ok/error/unanswerable/stopped) with error text (may be NULL). */
void agent_end(struct agent *a, const char *status, const char *error);
/* agent_async_commits: on=1: the run's step writes do not wait for the WAL flush; 0: durable. */
void agent_async_commits(struct agent *a, int on);
/* agent_llm: the run's provider, opened on first use; NULL with err. */
struct llm *agent_llm(struct agent *a, char *err, size_t errlen);
/* agent_scope: user_id's role scope for the query cache key into buf: the role ("analyst",
 * "admin"), "cli" for no user (0), "user:ID" when the role cannot be read. */
void agent_scope(PGconn *app, long long user_id, char *buf, size_t n);
/* json_text: cJSON_PrintUnformatted(j) or NULL for NULL j (heap). */
char *json_text(const cJSON *j);
double agent_ms_since(long long t0_us);
long long agent_now_us(void);

/* ---- inspector.c ---- */
/* inspector_run: catalog retrieval (or the degraded schema listing), the plan in st.  It never
 * ends the run: a question nothing links to is declined by the planner (offline, with what it
 * could not link) or by the LLM (which gets the schema and a note). */
void inspector_run(struct agent *a);
/* inspector_reload: retrieval again without a step (a resumed run needs it for the planner). */
void inspector_reload(struct agent *a);
/* inspector_release: free the retrieval. */
void inspector_release(struct agent *a);
/* inspector_schema_block: the target's tables and columns as prompt text (degraded path). */
char *inspector_schema_block(struct agent *a);
/* inspector_relation_ok: guard callback: the catalog's check, or the schema listing's. */
int inspector_relation_ok(void *agent, const char *schema, const char *name);
/* inspector_columns: the listing as [{"table","column","type"}] (degraded search tools). */
const cJSON *inspector_columns(struct agent *a);

/* ---- plan.c (planner node) ---- */
struct plan_out {
	char *sql;             /* heap */
	int unanswerable;
	char *missing;         /* heap: what is missing */
	int failed;            /* the LLM could not be reached; error says why */
	char *error;
};
/* plan_run: one planner attempt (LLM or offline planner), recorded as a step. */
void plan_run(struct agent *a, struct plan_out *out);
void plan_out_free(struct plan_out *o);
/* plan_offline: the offline planner with the state's history, edits and follow-up (no step);
 * its explanation/decisions go into outj. */
void plan_offline(struct agent *a, struct plan_out *o, cJSON *outj);
/* plan_retry_block: "[PREVIOUS FAILED ATTEMPTS - LEARN FROM THESE ERRORS]" text of st.history ("" when none). */
char *plan_retry_block(struct agent *a);
/* plan_context_block: schema, mappings, relationships, examples, follow-up, reference time. */
char *plan_context_block(struct agent *a);

/* ---- executor.c (executor node) ---- */
struct exec_out {
	int ok;
	char *sql;                  /* guarded SQL that ran */
	char *fingerprint, *normalized, *tables_json;
	struct exec_result r;
	char *error;                /* one line when !ok */
	char *missing_column, *missing_relation, *suggested;
	char sqlstate[6];           /* the database's SQLSTATE when it refused the statement, else "" */
	int position;               /* its 1-based character position in sql, 0 unknown */
	int refused;                /* the guard refused it */
	long suppress_k;            /* the k groups of fewer patients were left out with (aggregate
	                             * access level, sql/suppress.h); 0: none */
};
/* result_check (result_check.c): NULL when the result fits the question, else a finding (heap)
 * naming the failed check; the loop retries with it as feedback or declines.  patient_col: the
 * target's patient identifier, or NULL; patient_table: the table where it is unique (one row per
 * patient), or NULL.  result_check_run: the same for the run's question and target (both loops:
 * extraction before packaging, ReAct's submit_sql). */
char *result_check(const char *question, const struct exec_out *eo, const char *patient_col,
                   const char *patient_table);
char *result_check_run(struct agent *a, const struct exec_out *eo);
/* coverage_run (result_check.c): every word accounted for (docs/coverage.md): NULL when sql uses
 * what the run's question's words were linked to, else a finding (heap) naming the word; run on
 * SQL from every source (planner, model, cache, verified query), not on SQL the analyst shaped */
char *coverage_run(struct agent *a, const char *sql);
/* Empty results (empty_check.c; docs/coverage.md, "Empty results").  empty_parts_of: the
 * top-level FROM list and WHERE conditions of sql as written (conjuncts on the same leading column
 * joined into one condition, a top-level OR kept whole); ERR_PARSE for a WITH, a set operation or
 * no WHERE, ERR_LIMIT past EMPTY_MAX_PARTS conditions.  Free with empty_parts_free. */
#define EMPTY_MAX_PARTS 16
struct empty_parts {
	char *from;
	char *cond[EMPTY_MAX_PARTS];
	int n;
};
enum err empty_parts_of(const char *sql, struct empty_parts *p);
void empty_parts_free(struct empty_parts *p);
/* empty_check_run: NULL unless eo ran and found no row (and nothing was suppressed); then a
 * finding (heap) naming each condition that alone matches no row of the data, tried one short
 * statement each through the guard, or saying that only their combination is empty. */
char *empty_check_run(struct agent *a, const struct exec_out *eo);
/* executor_run: guard then run sql for a preview (max_rows rows), recorded as step name. */
void executor_run(struct agent *a, const char *name, const char *sql, long max_rows,
                  struct exec_out *out);
void exec_out_free(struct exec_out *o);
/* executor_guard: only the guard; *g filled (guard_free by caller); returns allowed. */
struct guard_result;
int executor_guard(struct agent *a, const char *sql, long limit, struct guard_result *g);

/* ---- packager.c ---- */
/* packager_run: preview rows, attempt statistics, the run's final columns; status ok. */
void packager_run(struct agent *a, struct exec_out *eo, int attempt, int max_attempts);

/* ---- extract.c / react.c ---- */
/* extract_continue / react_continue: run from the state's current stage until done. */
void extract_continue(struct agent *a);
void react_continue(struct agent *a);
/* react_resume_decision / extract_resume_decision: apply a decision at the pending stage.
 * ERR_INPUT when it does not fit (nothing changed). */
enum err extract_decide(struct agent *a, const struct agent_decision *d);
/* agent_plan_decide (extract.c): a plan-stage approve / plan_edit / reject, both modes; 1 when handled. */
int agent_plan_decide(struct agent *a, const struct agent_decision *d);
enum err react_decide(struct agent *a, const struct agent_decision *d);

/* ---- tools.c ---- */
struct react_call;
struct tool_out {
	cJSON *result;          /* what the model sees (owned) */
	int ok;                 /* the tool succeeded (explain: the SQL is valid) */
	int terminal;           /* submit_sql succeeded or cannot_answer: the run ends */
	struct exec_out eo;     /* submit_sql: the final result */
	char *missing;          /* cannot_answer */
};
/* tool_known: 1 when name is in the registry. */
int tool_known(const char *name);
/* tool_exec: run registry tool call->tool with call's parameters. */
void tool_exec(struct agent *a, const struct react_call *call, struct tool_out *out);
void tool_out_free(struct tool_out *o);
/* tool_names: the registry as a JSON array of names (for prompts and pages). */
const char *const *tool_names(int *n);

/* ---- query_cache.c (docs/shared-memory.md) ---- */
/* cache_lookup: the SQL cached for this run's key (target, catalog version, role scope, provider,
 * model, mode, normalised question), heap, or NULL. */
char *cache_lookup(struct agent *a);
enum cache_origin { CACHE_GENERATED, CACHE_ACCEPTED };
/* cache_store: store sql under the run's key, whatever the run was; only cache_offer and an
 * admin's acceptance (verify.c) call it.  OK (also when the cache is off), or ERR_DB. */
enum err cache_store(struct agent *a, const char *sql, enum cache_origin origin);
/* cache_offer: the packager's store: only SQL the system generated for the question as asked
 * (no analyst edit in the run, not a follow-up, not a cache hit); otherwise nothing. */
void cache_offer(struct agent *a, const char *sql);
/* cache_forget: drop the entry of this run's key (a stale hit). */
void cache_forget(struct agent *a);
/* cache_forget_run: drop every entry that came from run_id (a withdrawn verified query). */
enum err cache_forget_run(PGconn *app, long long run_id);

#endif
