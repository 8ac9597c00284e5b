/* exec.h: the read-only executor: runs guarded SQL as the least-privilege role, in chunks. */
#ifndef ASKQL_EXEC_H
#define ASKQL_EXEC_H

#include <stddef.h>
#include <libpq-fe.h>
#include "util/err.h"

/* A structured database error (react-framework.md 5.3 hints extracted). */
struct exec_error {
	char sqlstate[6];
	char *message, *detail, *hint;  /* heap or NULL */
	int position;                   /* 1-based, 0 unknown */
	char *missing_column;           /* from 'column "X" does not exist' */
	char *missing_relation;         /* from 'relation "X" does not exist' */
	char *suggested;                /* from 'Perhaps you meant to reference the column "T.C"' */
};
void exec_error_free(struct exec_error *e);
/* exec_error_text: one line "SQLSTATE: message (hint)" into a heap string. */
char *exec_error_text(const struct exec_error *e);

/* Column description of a result. */
struct exec_col {
	char *name;
	unsigned int type_oid;
	int is_numeric, is_temporal, is_bool;
};

/*
 * Row sink: called once with the columns (valid until exec_run returns), then once per row (values are text as
 * PostgreSQL prints them, NULL for SQL NULL; valid only during the call), then
 * done.  Returning non-OK from a callback stops the query (it is cancelled).
 */
struct exec_sink {
	enum err (*begin)(void *ctx, const struct exec_col *cols, int ncols);
	enum err (*row)(void *ctx, const char *const *vals, const int *lens, int ncols);
	enum err (*end)(void *ctx, long long nrows, int truncated);
	void *ctx;
};

struct exec_opts {
	const char *conninfo;   /* NULL: conf target_ro_db (or target_db if empty) */
	long max_rows;          /* stop (truncated=1) after this many rows; 0: no cap */
	size_t max_bytes;       /* stop (truncated=1) after this many value bytes; 0: no cap */
	int chunk_rows;         /* most rows per FETCH of the cursor; 0: 1000 (fewer when the budget
	                         * below says so) */
	/* Extensions (zero-initialised fields keep the old behaviour): */
	long limit;             /* LIMIT the guard adds when the SQL has none; 0: max_rows+1 when
	                         * max_rows is set (so truncation is detected), else none; -1: none */
	int (*relation_ok)(void *ctx, const char *schema, const char *name);  /* guard catalog check; NULL: off */
	void *relation_ctx;
	size_t fetch_bytes;     /* result bytes held in this process at once; 0: conf exec_fetch_bytes */
	long timeout_ms;        /* the whole run (waiting for a target slot, the transaction, every FETCH
	                         * and the sink's work) ends by then: the statement is cancelled, the
	                         * transaction rolled back, ERR_TIMEOUT.  0: no bound beyond
	                         * statement_timeout per statement (docs/export-deadline.md) */
	int (*cancelled)(void *ctx);  /* when non-NULL, asked every EXEC_POLL_MS while the server works
	                               * and between rows; non-zero (the reader went away) cancels the
	                               * statement and rolls back: ERR_IO */
	void *cancel_ctx;
	long *suppress_k;       /* when non-NULL: set to the k the statement left smaller groups out
	                         * with (aggregate access level or release, below), 0 when it did not.
	                         * How many groups were left out is not known, on purpose: PostgreSQL
	                         * drops them (HAVING), and the number would tell of the patients */
	int release;            /* 1: an export marked for release: the safe aggregate form as at the
	                         * aggregate level, whatever the connection's level, and counts
	                         * rounded to conf release_round */
};

/* How often exec_run looks at the clock and opts->cancelled while it waits for the server. */
#define EXEC_POLL_MS 200

/*
 * exec_run: guard sql again (never trusts the caller), then take one of the target's
 * concurrent-statement slots (conf target_max_statements, waiting up to target_wait_ms; a
 * transaction-level advisory lock in the target database, so every worker and the CLI share
 * them and the slot ends with the transaction), then run it inside
 * BEGIN READ ONLY with statement_timeout, lock_timeout and
 * idle_in_transaction_session_timeout, work_mem (and temp_file_limit where the role may
 * set it) from conf, fetching through a cursor so memory stays flat, and feed the sink.
 * Memory is bounded by bytes as well as rows (docs/executor-limits.md): when every column
 * has a bounded text width, a FETCH asks for as many rows as fit half of fetch_bytes;
 * otherwise the server measures each row, rows come one at a time (libpq single-row
 * mode), and a row wider than fetch_bytes (or than max_bytes) ends the result as
 * truncated without being sent.  On a database error returns ERR_DB and
 * fills *dberr (when non-NULL); on a guard refusal returns ERR_DENIED with the
 * reason in dberr->message.  Connections are pooled per process and per conninfo,
 * reset after a server restart.
 */
enum err exec_run(const char *sql, const struct exec_opts *opts, const struct exec_sink *sink,
                  struct exec_error *dberr);
/* At the aggregate access level (opts->conninfo logs in with role=askql_*_aggregate, store/level.h)
 * and for an export marked for release (opts->release) exec_run first checks sql against the safe
 * aggregate form and rewrites it (sql/suppress.h: the target's tables are asked for their columns,
 * unique keys and PHI context): a statement outside the form is ERR_DENIED with the reason in
 * dberr->message, opening "at the aggregate level: " or "for release: ", and dberr->position.  The
 * rewritten statement's HAVING leaves out every group of fewer than conf suppress_k patients (each
 * reference to a table with a patient key counted, and the patients behind each aggregate's values),
 * so no small group leaves the database; its counts and sums are rounded to conf release_round (at
 * the aggregate level as for release).  The sink gets the user's columns only (not the count column). */
/*
 * exec_suppress_form: the safe aggregate form's check and rewrite of sql (sql/suppress.h) as exec_run
 * makes it at the aggregate level (conninfo logs in with an _aggregate role; NULL: exec_conninfo())
 * or for release (release != 0), asking the target on conninfo about its tables.  OK: *out (heap,
 * caller frees) is the statement to run (its count column first, HAVING, counts and sums rounded to
 * exec_release_round) and *k (when non-NULL) the k it holds groups to.  ERR_DENIED: outside the
 * form, the reason in dberr->message ("at the aggregate level: " or "for release: " first) and
 * dberr->position (a SQL that does not parse too, with the parser's message); ERR_NET (cannot
 * connect; dberr), ERR_NOMEM.  *out is NULL unless OK.  Every path that runs or
 * plans an analyst's or a model's SQL at the aggregate level goes through it (exec_run, explain_run).
 */
enum err exec_suppress_form(const char *sql, const char *conninfo, int release, char **out, long *k,
                            struct exec_error *dberr);
/* exec_suppress_k: the k of small-cell suppression: conf suppress_k, or 11 when it is not positive. */
long exec_suppress_k(void);
/* exec_release_round: the base counts and sums of the safe aggregate form (aggregate level, files
 * for release) are rounded to: conf release_round, or 1 (not rounded) when it is below 2. */
long exec_release_round(void);
/* Errors of exec_run besides ERR_DB/ERR_DENIED: ERR_NET (cannot connect; message in dberr),
 * ERR_LIMIT (no target slot came free in time; message in dberr), ERR_TIMEOUT
 * (opts->timeout_ms passed), ERR_IO (opts->cancelled said so), or whatever a sink callback
 * returned; in each case the statement is cancelled and rolled back first.  sink->end is
 * called only on success. */

/* exec_error_from_result: fill e from a failed PGresult (fields, position adjusted by
 * minus pos_offset characters, hint columns extracted).  e must be zeroed or freed. */
void exec_error_from_result(struct exec_error *e, const PGresult *r, int pos_offset);
/* exec_error_parse_hints: set missing_column / missing_relation / suggested from
 * e->message and e->hint (react-framework.md 5.3).  Idempotent. */
void exec_error_parse_hints(struct exec_error *e);
/* exec_error_json: e as a JSON object (heap string). */
char *exec_error_json(const struct exec_error *e);

/*
 * The per-process pool, for modules that run their own statements on the target
 * (explain.c).  exec_pool_get: an idle connection to conninfo (NULL: the executor's
 * default), opened or reset as needed; NULL with a message in err.  Return it with
 * exec_pool_put (broken=1 closes it instead of keeping it).  Thread-safe.
 */
PGconn *exec_pool_get(const char *conninfo, char *err, size_t errlen);
void exec_pool_put(PGconn *c, int broken);
/* exec_begin: BEGIN READ ONLY with the conf timeouts on c (retried once after a reset
 * if the server went away meanwhile).  ERR_DB/ERR_NET with e filled. */
enum err exec_begin(PGconn *c, struct exec_error *e);
/* exec_pool_close: close every idle pooled connection (tests, after fork). */
void exec_pool_close(void);
/* exec_conninfo: the conninfo exec uses when opts->conninfo is NULL (static/conf storage). */
const char *exec_conninfo(void);

/* A small in-memory result for previews and the agent (at most max_rows rows). */
struct exec_result {
	struct exec_col *cols;
	int ncols;
	char ***rows;           /* rows[i][j]: heap string or NULL for SQL NULL */
	long long nrows;
	int truncated;
	double ms;
};
enum err exec_fetch(const char *sql, const struct exec_opts *opts, struct exec_result *res,
                    struct exec_error *dberr);
void exec_result_free(struct exec_result *res);
/* exec_result_json: {"columns":[..],"rows":[[..]..],"row_count":N,"truncated":b}; numbers
 * as JSON numbers, NULL as null. Heap string. */
char *exec_result_json(const struct exec_result *res);

#endif
