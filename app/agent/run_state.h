/* run_state.h: the typed state of one run: what a paused run needs to go on, saved as JSON only when it pauses or ends (docs/architecture.md). */
#ifndef ASKQL_RUN_STATE_H
#define ASKQL_RUN_STATE_H

#include <cjson/cJSON.h>
#include "agent/planner.h"
#include "agent/react_xml.h"
#include "util/err.h"

enum run_mode { RUN_EXTRACT, RUN_REACT };
/* what the extraction loop does next */
enum run_next { NEXT_INSPECT, NEXT_PLAN, NEXT_EXEC };
/* the step a paused run waits at (RUN_STAGE_NONE: not paused) */
enum run_stage { RUN_STAGE_NONE, RUN_STAGE_PLAN, RUN_STAGE_SQL, RUN_STAGE_SUBMIT };

/* A list of strings; the list owns them.  Zeroed is empty. */
struct run_strs {
	char **v;
	int n;
};

/* One failed attempt: what the next planner prompt (and the offline planner) learns from. */
struct run_attempt {
	int attempt;                    /* extraction: the attempt counter; ReAct: its place in the history */
	char *sql, *error;              /* never NULL ("" when none) */
	char *missing_column;           /* the executor's findings on the error; NULL: none */
	char *missing_relation;
	char *suggested;                /* "T.C" from PostgreSQL's hint; NULL: none */
	char *comment;                  /* the analyst's words on rejecting this SQL; NULL: none */
	char sqlstate[6];               /* the database's SQLSTATE when error is its message, else "" */
	int position;                   /* the error's 1-based character position in sql, 0 unknown */
	int empty;                      /* it ran but returned no rows (the planner reads it; no node sets it yet) */
};

/* A result column of the parent run. */
struct run_column {
	char *name;                     /* never NULL */
	char *type;                     /* NULL when not known */
};

/* The parent run of a follow-up (the question goes on from its SQL). */
struct run_parent {
	long long id;                   /* 0: the run is no follow-up, and the rest is empty */
	char *question;                 /* never NULL when id */
	char *sql;                      /* NULL: the parent has no SQL */
	struct run_column *columns;     /* its result columns */
	int ncolumns;
	long long row_count;
};

/* An analyst's plan edit, kept for the offline planner.  table is never NULL; the rest NULL when not given. */
struct run_edit {
	enum planner_edit_op op;
	char *table, *column, *value, *phrase;
};

struct plan_column {
	char *table, *column;           /* never NULL */
	char *type;                     /* NULL when not known */
};
/* A phrase of the question linked to a stored value. */
struct plan_mapping {
	char *phrase, *table, *column, *value;   /* never NULL (phrase "" when none) */
	char *how;                      /* how it was linked ("analyst" for an edit); NULL: not said */
};
/* A verified similar question (few-shot example). */
struct plan_example {
	char *question, *sql;           /* never NULL */
	double score;
};

/* The plan the inspector made: what the planner follows, the analyst sees at a pause and edits
 * (step mode) through struct planner_edit, never as JSON text. */
struct run_plan {
	int set;                        /* the inspector made one; 0: the rest is empty */
	struct run_strs tables;
	struct plan_column *columns;
	int ncolumns;
	struct run_strs joins;          /* "a.x = b.y" */
	struct plan_mapping *mappings;
	int nmappings;
	struct plan_example *examples;  /* at most 3 */
	int nexamples;
	char *intent;                   /* the question's intent; NULL: none (degraded) */
	char *block;                    /* the schema as prompt text; NULL: none */
	char *note;                     /* a note for the LLM (nothing linked); NULL: none */
};

/* How much of the plan a JSON view holds. */
enum plan_view {
	PLAN_VIEW_NONE,                 /* no plan */
	PLAN_VIEW_BRIEF,                /* tables, columns, joins, mappings, intent (the extraction pause) */
	PLAN_VIEW_SHOWN,                /* all but the prompt block (the ReAct pause) */
	PLAN_VIEW_ALL                   /* everything (runs.state, the degraded inspector step) */
};

/* What a paused step shows; meaningful while the state's stage is not RUN_STAGE_NONE.  Saved
 * as the "pause" object the run page reads (app/pages/run.c) with the stage in it. */
struct run_pause {
	enum plan_view plan;            /* the state's plan, shown as this view */
	char *sql;                      /* the SQL to confirm; NULL: none */
	char *tool;                     /* ReAct: the tool call waiting; NULL: none */
	char *rewrite;                  /* ReAct: the policy's rewrite of it; NULL: none */
	char *note;                     /* extraction: why it came back to a rejected SQL; NULL: none */
	char *comment;                  /* extraction: the analyst's comment that could not be applied */
	int attempt, max_attempts;      /* extraction's attempts; shown when max_attempts > 0 */
	int calls, max_calls;           /* ReAct's tool budget; shown when max_calls > 0 */
};

enum run_role { ROLE_SYSTEM, ROLE_USER, ROLE_ASSISTANT };
/* One message of the ReAct conversation. */
struct run_msg {
	enum run_role role;
	char *content;                  /* never NULL */
};

/* The tool call to run next without asking the model (a cache hit, the analyst's SQL, or a
 * call waiting at a pause). */
struct run_pending {
	int set;                        /* 0: none, and the rest is empty */
	struct react_call call;         /* tool, reasoning, parameters (call.how is not kept) */
	char *raw;                      /* the model's reply it came from; NULL: none */
	char *rewrite;                  /* the policy's rewrite; NULL: none */
	int decided;                    /* the analyst approved or edited it: run it, do not pause */
};

/* The ReAct loop's own state (react.c). */
struct run_react {
	int set;                        /* the loop started; 0: the rest is empty */
	int max_calls, calls;           /* the tool budget and what was spent */
	int iteration;                  /* model replies asked for */
	int any_explain;                /* some explain succeeded */
	int xml_streak;                 /* unusable replies in a row */
	struct run_strs explained;      /* SQL that passed explain, oldest first */
	struct run_strs tools_used;     /* tool names in call order */
	struct run_msg *messages;       /* the conversation, oldest first */
	int nmessages;
	struct run_pending pending;
	char *builtin_sql;              /* the builtin driver's last plan: its SQL, or */
	char *builtin_missing;          /* why there is none; both NULL: it has not planned */
	int builtin_planned_at;         /* the history's length when it planned */
};

struct run_state {
	enum run_mode mode;
	char *target, *provider, *question, *now;   /* never NULL ("" when not given) */
	char *scope;            /* the asker's role scope ("analyst", "admin", "cli"); part of the cache key */
	char *model;            /* the model of the provider last opened for the run; part of the cache key */
	int step_mode;          /* the analyst confirms each consequential step */
	int no_cache;           /* neither read nor write the query cache */
	int edited;             /* an analyst shaped the run (SQL or plan edit, rejection, edited parent):
	                         * its SQL is never shared (docs/shared-memory.md) */
	int attempt, max_retries;
	int from_cache;         /* pending_sql came from the query cache */
	int analyst_sql;        /* pending_sql is the analyst's own edit: run as written, its words not
	                         * second-guessed by the result checks (docs/coverage.md) */
	enum run_next next;
	enum run_stage stage;
	char *pending_sql;      /* the SQL about to run; never NULL ("" when none) */
	struct run_plan plan;
	struct run_edit *edits; /* the analyst's plan edits, in order */
	int nedits;
	struct run_parent parent;
	struct run_attempt *history;   /* failed attempts, oldest first */
	int nhistory;
	struct run_pause pause;
	struct run_react react;
};

/* run_state_init: a new run's state (strings copied; NULL means ""; scope and model ""; no
 * plan, parent, history or pause).  ERR_NOMEM, and s then needs no free. */
enum err run_state_init(struct run_state *s, enum run_mode mode, const char *target, const char *provider,
                        const char *question, const char *now);
/* run_state_load: parse a saved state (runs.state), also one saved before the parts were typed.
 * Unknown keys are ignored; a part of the wrong shape is empty.  ERR_PARSE when json is not a
 * JSON object, ERR_NOMEM; s then needs no free. */
enum err run_state_load(const char *json, struct run_state *s);
/* run_state_json: the whole state as one JSON text (heap, caller frees; NULL on no memory).
 * The keys are the ones pages read: stage, pause {stage, plan, sql, note ...}, question, model,
 * plan, history ... (docs/architecture.md). */
char *run_state_json(const struct run_state *s);
/* run_state_free: free every part; s is zeroed (a second free is harmless). */
void run_state_free(struct run_state *s);
/* run_state_set: replace a string field with a copy of v (NULL: ""); 0, or -1 on no memory
 * (the field keeps its old value). */
int run_state_set(char **field, const char *v);
/* run_state_opt: the same for a field where NULL means absent: NULL v makes it NULL. */
int run_state_opt(char **field, const char *v);
const char *run_mode_name(enum run_mode m);      /* "extract" or "react" (static) */
const char *run_stage_name(enum run_stage st);   /* "plan", "sql", "submit" (static); NULL for RUN_STAGE_NONE */
enum run_stage run_stage_of(const char *name);    /* RUN_STAGE_NONE when unknown */

/* run_strs_add: append a copy of v (NULL: "").  OK or ERR_NOMEM (l unchanged). */
enum err run_strs_add(struct run_strs *l, const char *v);
/* run_strs_find: the index of the first item equal to v, or -1 (also for NULL v). */
int run_strs_find(const struct run_strs *l, const char *v);
/* run_strs_free: free the items; l is empty afterwards. */
void run_strs_free(struct run_strs *l);

/* run_history_add: append a failed attempt (sql and error copied, NULL: ""); *out (may be NULL)
 * is the new entry, owned by s, whose optional fields the caller may set with run_state_opt.
 * OK or ERR_NOMEM (history unchanged). */
enum err run_history_add(struct run_state *s, int attempt, const char *sql, const char *error,
                         struct run_attempt **out);
/* run_history_last: the latest attempt (owned by s), or NULL when there is none. */
struct run_attempt *run_history_last(struct run_state *s);
/* run_history_json: the history as the JSON array runs.state holds (caller deletes; NULL on no memory). */
cJSON *run_history_json(const struct run_state *s);

/* run_parent_set: s's parent run (strings copied; sql NULL: none; columns_json the parent's
 * runs.columns text [{"name","type"}], NULL or unparsable: no columns).  ERR_NOMEM (no parent). */
enum err run_parent_set(struct run_state *s, long long id, const char *question, const char *sql,
                        const char *columns_json, long long row_count);

/* run_edit_add: keep an analyst's plan edit (strings copied).  ERR_INPUT without a table,
 * ERR_NOMEM (the edits unchanged). */
enum err run_edit_add(struct run_state *s, const struct planner_edit *e);

/* run_plan_add_column / _mapping / _example: append to the plan p (strings copied; NULL type
 * and how stay NULL, other NULLs become "").  OK or ERR_NOMEM (p unchanged). */
enum err run_plan_add_column(struct run_plan *p, const char *table, const char *column, const char *type);
enum err run_plan_add_mapping(struct run_plan *p, const char *phrase, const char *table, const char *column,
                              const char *value, const char *how);
enum err run_plan_add_example(struct run_plan *p, const char *question, const char *sql, double score);
/* run_plan_edit: apply one analyst edit to p: add or remove a table, add or remove a mapping
 * (a removal matches table, and column and value when given), remove a column (table, and
 * column when given); removals take the first match, a missing one is no error.  p is set.
 * OK or ERR_NOMEM. */
enum err run_plan_edit(struct run_plan *p, const struct planner_edit *e);
/* run_plan_json: the plan as a JSON object of view v ({} for an unset plan; NULL for
 * PLAN_VIEW_NONE or no memory); caller deletes. */
cJSON *run_plan_json(const struct run_plan *p, enum plan_view v);
/* run_plan_free: free the plan; p is unset afterwards. */
void run_plan_free(struct run_plan *p);

/* What a step shows when the run pauses there (strings borrowed, NULL: none; copied by run_pause_set). */
struct run_pause_spec {
	enum plan_view plan;
	const char *sql, *tool, *rewrite, *note, *comment;
	int attempt, max_attempts;      /* shown when max_attempts > 0 */
	int calls, max_calls;           /* shown when max_calls > 0 */
};
/* run_pause_set: s pauses at stage st (not RUN_STAGE_NONE) showing spec (copied, the old pause
 * freed).  OK; ERR_NOMEM leaves the pause empty and the stage as it was. */
enum err run_pause_set(struct run_state *s, enum run_stage st, const struct run_pause_spec *spec);
/* run_pause_json: the pause object of a paused s ({stage, plan?, sql?, ...}, what the run page
 * and agent_result.pause_json show), NULL when s is not paused or no memory; caller deletes. */
cJSON *run_pause_json(const struct run_state *s);
/* run_pause_free: free what the pause shows; p is empty afterwards (ready to fill again). */
void run_pause_free(struct run_pause *p);

/* run_react_add_msg: append a message (content copied; NULL: "").  OK or ERR_NOMEM. */
enum err run_react_add_msg(struct run_react *r, enum run_role role, const char *content);
const char *run_role_name(enum run_role r);      /* "system", "user", "assistant" */
/* run_pending_free: free the pending call; p is unset afterwards. */
void run_pending_free(struct run_pending *p);

#endif
