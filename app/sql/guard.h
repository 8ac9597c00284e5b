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
	/* 1: the caller runs the SQL with standard_conforming_strings=on (and client_encoding
	 * UTF8) forced for the session, so a backslash in a '...' literal is plain text.
	 * 0 (default): such literals are refused, because with standard_conforming_strings=off
	 * the server would end strings elsewhere than the guard's parser did. */
	int standard_strings;
};

struct guard_result {
	int allowed;                /* 1: sql may run */
	char *sql;                  /* the SQL to run (LIMIT possibly added); heap.  When allowed it
	                             * spans the statement's first to last token: no trailing ';'
	                             * or comment, so callers may embed it (DECLARE c CURSOR FOR ..) */
	char *reason;               /* when refused: specific reason; heap */
	int position;               /* 1-based char offset of the offending part; 0 unknown */
	char **warnings;            /* heap array of heap strings (JOINs > 3, depth > 2) */
	int nwarnings;
	char **tables;              /* relations touched, "schema.name" or "name" */
	int ntables;
	char **columns;             /* column references, alias resolved to the table where known
	                             * ("vital_data_table.sbp"), else as written ("q.x", "hr") */
	int ncolumns;
	char *fingerprint;          /* pg_query_fingerprint hex of the text as given (NULL: no parse) */
	char *normalized;           /* pg_query_normalize text of the text as given */
	int limit_added;            /* 1 when the guard added the LIMIT */
	int limit_clamped;          /* 1 when an existing LIMIT above opts->limit (or LIMIT ALL,
	                             * an expression, WITH TIES) was capped by wrapping:
	                             * SELECT * FROM (<statement>) AS q LIMIT n */
};

/*
 * Rules (README "SQL guard"): exactly one statement, a SELECT (WITH, set operations,
 * VALUES, TABLE); no other statement at any depth (data-modifying CTEs), no SELECT INTO,
 * no FOR UPDATE/SHARE, no function of app/sql/guard_denylist.def at any depth, no
 * schema-qualified call outside pg_catalog, no $n parameters, only the parse node
 * types a SELECT needs; relations must pass relation_ok; system catalogs only with
 * allow_system_catalogs.  Warnings: more than 3 JOINs, subquery depth over 2.
 *
 * guard_check: parse sql with PostgreSQL's own parser and decide.  Returns OK when
 * the check ran (whether or not allowed: see res->allowed), ERR_NOMEM / ERR_LIMIT
 * (sql over 100 KB) otherwise.  res is filled and must be released with guard_free.
 */
enum err guard_check(const char *sql, const struct guard_opts *opts, struct guard_result *res);
void guard_free(struct guard_result *res);

/* One token of PostgreSQL's scanner (libpg_query pg_query_scan): bytes [start, end) of the text
 * and its token code (pg_query.proto enum Token: 40 '(', 41 ')', 44 ',', 59 ';', 275 and 276
 * comments, keywords by their own codes). */
struct guard_tok { int start, end, token; };
/*
 * guard_scan: the tokens of sql, comments included, in order, into *toks (heap, caller frees) and
 * *ntoks.  OK; ERR_PARSE when the scanner fails (an unterminated string or comment), ERR_NOMEM;
 * on error *toks is NULL and *ntoks 0.
 */
enum err guard_scan(const char *sql, struct guard_tok **toks, int *ntoks);

/* guard_result_json: res as a JSON object string (heap, caller frees). */
char *guard_result_json(const struct guard_result *res);

#endif
