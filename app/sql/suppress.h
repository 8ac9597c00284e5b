/* suppress.h: small-cell suppression for the aggregate access level and exports for release: only aggregate queries, and each result group counts its distinct patients so groups under k are dropped (issue 16 item 3; docs/privacy.md). */
#ifndef ASKQL_SUPPRESS_H
#define ASKQL_SUPPRESS_H

#include <stddef.h>
#include "util/err.h"

/* The column suppress_rewrite adds first to the select list (removed before any sink sees a row). */
#define SUPPRESS_COLUMN "askql_n"

/*
 * suppress_rewrite: sql (one SELECT, not yet guarded) for the aggregate level or release.  Refuses
 * (ERR_DENIED, reason set, worded without the caller's scope: exec_run puts "at the aggregate level: "
 * or "for release: " before it) a query whose result is not aggregated: a UNION/INTERSECT/EXCEPT at the top, or a
 * SELECT with neither GROUP BY nor an aggregate call (count, sum, avg, min, max, ...) in its select
 * list; and one that reads no table holding a patient key (has_col(ctx, table, key) for each FROM
 * table, as written, and each key of keys, in order).  Otherwise *out (heap, caller frees) is sql
 * with "count(DISTINCT T.KEY) AS askql_n, " put before the first select-list item and positional
 * GROUP BY / ORDER BY references (GROUP BY 1) moved up by one; the caller guards *out as any
 * SQL.  ERR_PARSE (reason) when sql does not parse, ERR_NOMEM.  reason holds at most reasonlen bytes.
 */
enum err suppress_rewrite(const char *sql, const char *const *keys, int nkeys,
                          int (*has_col)(void *ctx, const char *table, const char *col), void *ctx,
                          char **out, char *reason, size_t reasonlen);

#endif
