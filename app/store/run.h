/* run.h: runs and steps in the app schema, written as they happen (any worker can pick a run up). */
#ifndef ASKQL_RUN_H
#define ASKQL_RUN_H

#include <libpq-fe.h>
#include "util/err.h"

struct run_new {
	long long user_id;      /* 0: none (CLI) */
	long long parent_id;    /* follow-up of; 0: none */
	const char *target;     /* "demo" */
	const char *kind;       /* "extract", "react", "critique" */
	int step_mode;
	const char *provider;   /* "builtin", "openai" */
	const char *question;
};
/* run_create: insert a run with status 'running'; *id receives its id. */
enum err run_create(PGconn *c, const struct run_new *n, long long *id);

/* A step as recorded; NULL fields are stored as NULL.  input/output are JSON text. */
struct step {
	const char *kind;       /* node, tool, policy, human, llm, info */
	const char *name;       /* "inspector", "planner", "explain", ... */
	const char *status;     /* ok, error, skipped, degraded, pending */
	const char *input, *output;   /* JSON text */
	const char *prompt, *raw, *rewrite, *error;
	double ms;
	int tokens_in, tokens_out;
};
/* step_add: append a step (seq = next), committed immediately; *seq receives it (may be NULL). */
enum err step_add(PGconn *c, long long run_id, const struct step *s, int *seq);

/* run_set: update columns of a run; fields NULL/negative are left unchanged.
 * status one of running, paused, ok, error, unanswerable, stopped (terminal ones
 * also set finished_at).  JSON fields are JSON text. */
struct run_update {
	const char *status, *sql, *fingerprint, *normalized, *tables_json /* ["a","b"] */;
	const char *columns_json, *preview_json, *answer, *error, *state_json;
	long long row_count;    /* -1: unchanged */
	int truncated;          /* -1: unchanged */
	int attempts;           /* -1: unchanged */
	int edited;             /* 1: an analyst shaped the run (never set back); 0/-1: unchanged */
};
#define RUN_UPDATE_INIT { .row_count = -1, .truncated = -1, .attempts = -1, .edited = -1 }
enum err run_set(PGconn *c, long long run_id, const struct run_update *u);

/*
 * run_sweep: mark failed (status 'error' with a reason) every 'running' run that no live
 * connection holds: run_create and run_claim take a session advisory lock on the run's id,
 * run_set releases it when the run finishes or pauses, and PostgreSQL releases it when the
 * connection ends (worker killed, CLI interrupted, server restarted).  run_create calls it;
 * pages may call it before showing a running run.  Returns how many runs it marked, -1 on error.
 */
int run_sweep(PGconn *c);

/* run_heartbeat: mark the run as alive in this worker (pid, now()). */
enum err run_heartbeat(PGconn *c, long long run_id);

/* A run as loaded back (agent_resume, follow-ups).  Strings are heap (run_row_free). */
struct run_row {
	long long id, user_id, parent_id;
	char *target, *kind, *provider, *question, *status, *sql, *columns_json, *state_json, *error;
	int step_mode, attempts;
	int edited;             /* runs.edited: an analyst shaped it (docs/shared-memory.md) */
	long long row_count;
};
/* run_get: load run id into *r (zeroed first).  ERR_NOTFOUND when absent, ERR_DB on failure. */
enum err run_get(PGconn *c, long long run_id, struct run_row *r);
void run_row_free(struct run_row *r);

/*
 * run_claim: atomically move a 'paused' run to 'running' (so that only one worker resumes
 * it) and load it into *r.  ERR_NOTFOUND when the run does not exist, ERR_DENIED when it
 * is not paused (someone else resumed it, or it finished).
 */
enum err run_claim(PGconn *c, long long run_id, struct run_row *r);

/*
 * Deleting a run is undoable for a while (docs: README "History"): run_trash only hides it
 * (runs.deleted_at, deleted_by), every reader of runs skips hidden ones, and run_purge removes
 * those hidden longer than the window for good (with their steps).
 *
 * run_trash: hide run id when user_id owns it or admin is set, recording user_id as the one who
 * deleted it, then purge older ones (window_s).  ERR_NOTFOUND when there is no such visible run
 * the user may delete; ERR_DB on failure.
 */
enum err run_trash(PGconn *c, long long id, long long user_id, int admin, long window_s);
/* run_restore: show a hidden run again when it was hidden less than window_s seconds ago and
 * user_id deleted it, owns it, or admin is set.  ERR_NOTFOUND otherwise (too late, or not
 * yours), ERR_DB on failure. */
enum err run_restore(PGconn *c, long long id, long long user_id, int admin, long window_s);
/* run_purge: delete for good the runs hidden more than window_s seconds ago.  Returns how
 * many, -1 on error. */
int run_purge(PGconn *c, long window_s);

/*
 * run_like_prefix: the ILIKE pattern for names starting with prefix (its % _ and \ made literal)
 * into out (n bytes, at least 4); a prefix too long for out is cut at a UTF-8 character
 * boundary.  Returns out.  ("lab" -> "lab%", "a_b" -> "a\_b%")
 */
char *run_like_prefix(const char *prefix, char *out, size_t n);

#endif
