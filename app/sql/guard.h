/* guard.h: the parser-based SQL guard (libpg_query): one read-only SELECT, or a reason why not. */
#ifndef ASKQL_GUARD_H
#define ASKQL_GUARD_H

#include "util/err.h"

struct guard_catalog;   /* the relations/columns a target allows; see catalog.h */

struct guard_opts {
	long limit;                 /* LIMIT to add when the statement has none; 0: add none */
	int allow_system_catalogs;  /* 1: pg_catalog / information_schema relations allowed */
	/* When non-NULL, every relation must be known to this callback (the indexed catalog):
	 * returns 1 when schema.name (schema may be NULL) is allowed. */
	int (*relation_ok)(void *ctx, const char *schema, const char *name);
	void *relation_ctx;
};

struct guard_result {
	int allowed;                /* 1: sql may run */
	char *sql;                  /* the SQL to run (LIMIT possibly added); heap */
	char *reason;               /* when refused: specific reason; heap */
	int position;               /* 1-based char offset of the offending part; 0 unknown */
	char **warnings;            /* heap array of heap strings (JOINs > 3, depth > 2) */
	int nwarnings;
	char **tables;              /* relations touched, "schema.name" or "name" */
	int ntables;
	char **columns;             /* column references as written, e.g. "v.sbp", "hr" */
	int ncolumns;
	char *fingerprint;          /* pg_query_fingerprint hex */
	char *normalized;           /* pg_query_normalize text */
	int limit_added;            /* 1 when the guard added the LIMIT */
};

/*
 * guard_check: parse sql with PostgreSQL's own parser and decide.  Returns OK when
 * the check ran (whether or not allowed: see res->allowed), ERR_NOMEM / ERR_LIMIT
 * (sql over 100 KB) otherwise.  res is filled and must be released with guard_free.
 */
enum err guard_check(const char *sql, const struct guard_opts *opts, struct guard_result *res);
void guard_free(struct guard_result *res);

/* guard_result_json: res as a JSON object string (heap, caller frees). */
char *guard_result_json(const struct guard_result *res);

#endif
