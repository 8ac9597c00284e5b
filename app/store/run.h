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
};
#define RUN_UPDATE_INIT { .row_count = -1, .truncated = -1, .attempts = -1 }
enum err run_set(PGconn *c, long long run_id, const struct run_update *u);

/* run_heartbeat: mark the run as alive in this worker (pid, now()). */
enum err run_heartbeat(PGconn *c, long long run_id);

#endif
