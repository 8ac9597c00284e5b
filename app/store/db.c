/* db.c: libpq connection helpers and the migration runner. */
#include <dirent.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "store/db.h"
#include "util/conf.h"
#include "util/file.h"
#include "util/log.h"

static PGconn *app_conn;

/*
 * Prepared statements on the app connection: the pages run the same few statements on every
 * request, and parsing + planning them was most of PostgreSQL's time per page.  Keyed by the
 * statement text and the backend's pid (a reset connection has none prepared); at most PS_MAX
 * texts, the rest run unprepared.
 */
#define PS_MAX 128
static struct ps { unsigned long h; char *sql; } ps[PS_MAX];
static int nps, ps_pid;

static unsigned long ps_hash(const char *s)
{
	unsigned long h = 1469598103934665603UL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211UL;
	return h;
}

static void ps_forget(void)
{
	for (int i = 0; i < nps; i++)
		free(ps[i].sql);
	nps = 0;
}

/* The prepared statement's name for sql on the app connection (prepared now if new); NULL: run it unprepared. */
static const char *ps_name(PGconn *c, const char *sql, int n, char *name, size_t len)
{
	unsigned long h = ps_hash(sql);
	PGresult *r;
	int ok;

	if (PQbackendPID(c) != ps_pid) {
		ps_forget();
		ps_pid = PQbackendPID(c);
	}
	for (int i = 0; i < nps; i++) {
		if (ps[i].h == h && !strcmp(ps[i].sql, sql)) {
			snprintf(name, len, "askql_ps%d", i);
			return name;
		}
	}
	if (nps == PS_MAX || PQtransactionStatus(c) == PQTRANS_INERROR)
		return NULL;
	snprintf(name, len, "askql_ps%d", nps);
	r = PQprepare(c, name, sql, n, NULL);
	ok = PQresultStatus(r) == PGRES_COMMAND_OK;
	PQclear(r);
	if (!ok || !(ps[nps].sql = strdup(sql)))
		return NULL;
	ps[nps++].h = h;
	return name;
}

static void quiet_notice(void *arg, const char *msg)
{
	log_debug("postgres: %s", msg);
}

/* Our defaults come first and the caller's conninfo (key=value or a postgresql:// URI,
 * expanded from dbname) last, so any setting it names wins.  The passwords come from conf
 * pg_passfile, unless PGPASSFILE names another file, as it would for psql (docs/pg-auth.md). */
static const char *const conn_keys[] = {"connect_timeout", "application_name", "passfile", "dbname", NULL};

static void conn_vals(const char *vals[5], const char *conninfo)
{
	const char *env = getenv("PGPASSFILE");

	vals[0] = "5";
	vals[1] = "askql";
	vals[2] = env && *env ? NULL : conf_get("pg_passfile");
	vals[3] = conninfo;
	vals[4] = NULL;
}

PGconn *db_connect_start(const char *conninfo)
{
	/* the encoding goes in the startup packet: PQsetClientEncoding afterwards is a round trip
	 * that a stalling server could hold without bound */
	static const char *const keys[] = {"client_encoding", "connect_timeout", "application_name", "passfile",
	                                   "dbname", NULL};
	const char *vals[6] = {"UTF8"};
	PGconn *c;

	conn_vals(vals + 1, conninfo);
	if ((c = PQconnectStartParams(keys, vals, 1)))
		PQsetNoticeProcessor(c, quiet_notice, NULL);
	return c;
}

PGconn *db_connect(const char *conninfo, char *err, size_t errlen)
{
	const char *vals[5];
	PGconn *c;

	conn_vals(vals, conninfo);
	c = PQconnectdbParams(conn_keys, vals, 1);
	if (!c || PQstatus(c) != CONNECTION_OK) {
		if (err)
			snprintf(err, errlen, "cannot connect: %s",
			         c ? PQerrorMessage(c) : "out of memory");
		PQfinish(c);
		return NULL;
	}
	PQsetClientEncoding(c, "UTF8");
	/* NOTICEs ("already exists, skipping") are not errors; keep them off stderr. */
	PQsetNoticeProcessor(c, quiet_notice, NULL);
	return c;
}

PGconn *db_app(void)
{
	char err[512];

	if (app_conn && PQstatus(app_conn) == CONNECTION_OK) {
		/* A server restart is only noticed on use.  An idle connection with nothing to read
		 * is alive (a server going away sends an error and closes: the socket turns readable);
		 * only then pay a probe round trip, so callers never fail their first query after one. */
		struct pollfd pf = {PQsocket(app_conn), POLLIN, 0};
		PGresult *r;
		int ok;

		if (poll(&pf, 1, 0) == 0)
			return app_conn;
		r = PQexec(app_conn, "SELECT 1");
		ok = PQresultStatus(r) == PGRES_TUPLES_OK;
		PQclear(r);
		if (ok)
			return app_conn;
	}
	if (app_conn) {
		PGconn *fresh;

		PQreset(app_conn);
		if (PQstatus(app_conn) == CONNECTION_OK)
			return app_conn;
		/* PQreset logs in again with the password libpq read at the first connect; after the
		 * passwords were rotated (docs/pg-auth.md) only a new connection reads the file again.
		 * The old object is left as it is, never freed (a run in flight may hold this pointer):
		 * a few kB, once per rotation that outlives a connection. */
		if ((fresh = db_connect(conf_get("app_db"), err, sizeof err))) {
			log_info("app database: reconnected with a new connection");
			app_conn = fresh;
			return app_conn;
		}
		/* reset again on the next call */
		log_error("app database: %s", PQerrorMessage(app_conn));
		return NULL;
	}
	app_conn = db_connect(conf_get("app_db"), err, sizeof err);
	if (!app_conn)
		log_error("app database: %s", err);
	return app_conn;
}

void db_app_close(void)
{
	ps_forget();
	ps_pid = 0;
	PQfinish(app_conn);
	app_conn = NULL;
}

PGresult *db_query(PGconn *c, const char *sql, int n, const char *const *params,
                   char *err, size_t errlen)
{
	PGresult *r;
	ExecStatusType st;
	char name[24];
	const char *pn;

	if (!c) {
		if (err)
			snprintf(err, errlen, "no database connection");
		return NULL;
	}
	if (c == app_conn && (pn = ps_name(c, sql, n, name, sizeof name))) {
		r = PQexecPrepared(c, pn, n, params, NULL, NULL, 0);
		st = PQresultStatus(r);
		if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK)
			return r;
		/* a table changed shape under the plan: forget every statement, run this one plainly */
		if (r && PQresultErrorField(r, PG_DIAG_SQLSTATE) &&
		    !strcmp(PQresultErrorField(r, PG_DIAG_SQLSTATE), "0A000") &&
		    strstr(PQresultErrorMessage(r), "cached plan")) {
			PQclear(r);
			PQclear(PQexec(c, "DEALLOCATE ALL"));
			ps_forget();
		} else {
			if (err)
				snprintf(err, errlen, "%s", r ? PQresultErrorMessage(r) : PQerrorMessage(c));
			PQclear(r);
			return NULL;
		}
	}
	r = PQexecParams(c, sql, n, NULL, params, NULL, NULL, 0);
	st = PQresultStatus(r);
	if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK)
		return r;
	if (err)
		snprintf(err, errlen, "%s", r ? PQresultErrorMessage(r) : PQerrorMessage(c));
	PQclear(r);
	return NULL;
}

enum err db_exec(PGconn *c, const char *sql, int n, const char *const *params,
                 char *err, size_t errlen)
{
	PGresult *r = db_query(c, sql, n, params, err, errlen);

	if (!r)
		return ERR_DB;
	PQclear(r);
	return OK;
}

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

enum err db_migrate(PGconn *c, const char *dir, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t nn = 0, i;
	enum err rc = OK;

	if (!d) {
		snprintf(err, errlen, "cannot open migrations dir %s", dir);
		return ERR_IO;
	}
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (l > 4 && !strcmp(de->d_name + l - 4, ".sql") && de->d_name[0] >= '0' &&
		    de->d_name[0] <= '9') {
			names = realloc(names, (nn + 1) * sizeof *names);
			names[nn++] = strdup(de->d_name);
		}
	}
	closedir(d);
	qsort(names, nn, sizeof *names, cmpstr);

	if ((rc = db_exec(c, "CREATE SCHEMA IF NOT EXISTS askql", 0, NULL, err, errlen)) != OK)
		goto out;
	if ((rc = db_exec(c, "CREATE TABLE IF NOT EXISTS askql.schema_migrations("
	                     " name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
	                  0, NULL, err, errlen)) != OK)
		goto out;
	for (i = 0; i < nn; i++) {
		const char *p[1] = {names[i]};
		char path[1024];
		char *sql;
		PGresult *r;

		if ((rc = db_exec(c, "BEGIN", 0, NULL, err, errlen)) != OK)
			goto out;
		db_exec(c, "SELECT pg_advisory_xact_lock(4242)", 0, NULL, NULL, 0);
		r = db_query(c, "SELECT 1 FROM askql.schema_migrations WHERE name=$1", 1, p, err, errlen);
		if (!r) {
			rc = ERR_DB;
			goto rollback;
		}
		if (PQntuples(r) > 0) {
			PQclear(r);
			db_exec(c, "COMMIT", 0, NULL, NULL, 0);
			continue;
		}
		PQclear(r);
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		if (!(sql = file_read(path, 0, NULL))) {
			snprintf(err, errlen, "cannot read %s", path);
			rc = ERR_IO;
			goto rollback;
		}
		r = PQexec(c, sql);
		free(sql);
		if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK) {
			snprintf(err, errlen, "%s: %s", names[i], PQresultErrorMessage(r));
			PQclear(r);
			rc = ERR_DB;
			goto rollback;
		}
		PQclear(r);
		if ((rc = db_exec(c, "INSERT INTO askql.schema_migrations(name) VALUES ($1)", 1, p,
		                  err, errlen)) != OK)
			goto rollback;
		if ((rc = db_exec(c, "COMMIT", 0, NULL, err, errlen)) != OK)
			goto out;
		log_info("migration applied: %s", names[i]);
	}
	goto out;
rollback:
	db_exec(c, "ROLLBACK", 0, NULL, NULL, 0);
out:
	for (i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	return rc;
}
