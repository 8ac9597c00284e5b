/* db.h: libpq connections (per process, reconnecting) and migrations. */
#ifndef ASKQL_DB_H
#define ASKQL_DB_H

#include <stddef.h>
#include <libpq-fe.h>
#include "util/err.h"

/*
 * db_connect: open a connection to conninfo, key=value or a postgresql:// URI (connect_timeout 5 s
 * and application_name askql unless it sets them; passwords from conf pg_passfile unless it names a passfile or
 * PGPASSFILE is set).  Returns NULL on failure with a message in err.  Caller PQfinish()es.
 */
PGconn *db_connect(const char *conninfo, char *err, size_t errlen);
/* db_connect_start: PQconnectStartParams with db_connect's defaults (the caller polls; libpq
 * ignores connect_timeout then: store/target_conn.h keeps a deadline).  NULL only out of memory. */
PGconn *db_connect_start(const char *conninfo);

/*
 * db_app: this process's connection to the app database (conf "app_db").
 * Opened lazily, checked before return, reset once if the server went away
 * (e.g. PostgreSQL restarted).  NULL when it cannot connect; the caller shows
 * an error page.  Owned by db; never PQfinish() it.
 */
PGconn *db_app(void);
/* db_app_close: close the app connection (tests, fork). */
void db_app_close(void);

/*
 * db_query: run sql with n text parameters (NULL entries are SQL NULL).
 * Returns the result (caller PQclear()s) when it is TUPLES_OK or COMMAND_OK;
 * otherwise NULL, and the error text is copied to err when err is non-NULL.
 */
PGresult *db_query(PGconn *c, const char *sql, int n, const char *const *params,
                   char *err, size_t errlen);
/* db_exec: like db_query but discards the result. */
enum err db_exec(PGconn *c, const char *sql, int n, const char *const *params,
                 char *err, size_t errlen);

/*
 * db_migrate: apply dir/NNN_*.sql in name order, each once, inside a
 * transaction with an advisory lock so concurrent starters do not race.
 * Records applied files in askql.schema_migrations.  Idempotent.
 */
enum err db_migrate(PGconn *c, const char *dir, char *err, size_t errlen);

#endif
