/* target_conn.h: connecting to a target database by a deadline askql keeps, and why it failed as a code, never the peer's words (issue 27; docs/privacy.md, "Connection tests"). */
#ifndef ASKQL_TARGET_CONN_H
#define ASKQL_TARGET_CONN_H

#include <libpq-fe.h>

/*
 * Why a connection to a target failed.  A code crosses to the page, which words it in the reader's
 * language (conf/i18n/<lang>.conn.json, key target_conn_key()); the CLI and the logs use
 * target_conn_text().  Nothing a peer sent is kept: only the SQLSTATE of a PostgreSQL server's
 * refusal (five characters of [0-9A-Z]), which a port that speaks another protocol cannot produce.
 * A closed port, an unreachable or unknown host, a tarpit and a service that is not PostgreSQL are
 * one code: a connection test is not a port scanner (what still tells them apart is in the doc).
 */
enum target_conn_fail {
	TCONN_OK = 0,
	TCONN_NO_SERVER,     /* no PostgreSQL server answered by the deadline: refused, unreachable, unknown
	                      * host, silent, too slow, or what answered is not PostgreSQL */
	TCONN_LOGIN,         /* a PostgreSQL server refused the login (SQLSTATE class 28: password, role, pg_hba) */
	TCONN_NO_DATABASE,   /* 3D000 */
	TCONN_BUSY,          /* classes 53 and 57: too many connections, starting up, shutting down */
	TCONN_SERVER,        /* another error a PostgreSQL server answered with (sqlstate says which) */
	TCONN_TLS,           /* sslmode asks for TLS the server does not offer, or its certificate does not verify */
	TCONN_INPUT,         /* libpq refused the connection string itself (a keyword's value) */
	TCONN_STALLED,       /* logged in, then the server stopped answering before the deadline */
	TCONN_NOMEM,
};

struct target_conn_out {
	enum target_conn_fail fail;
	char sqlstate[6];      /* of a server's refusal (LOGIN, NO_DATABASE, BUSY, SERVER), else "" */
	int timed_out;         /* askql's deadline ended the attempt (logs only: the page says NO_SERVER) */
};

/* target_conn_now_ms: CLOCK_MONOTONIC in milliseconds. */
double target_conn_now_ms(void);
/* target_conn_deadline: now + conf target_connect_ms (1000 to 10000), as target_conn_now_ms counts. */
double target_conn_deadline(void);
/* target_conn_seconds: conf target_connect_ms in whole seconds, rounded up (for messages). */
long target_conn_seconds(void);

/*
 * target_conn_open: connect to conninfo with db_connect's defaults (store/db.h), giving up at
 * deadline_ms (target_conn_now_ms's clock) whatever the conninfo's connect_timeout or number of hosts:
 * PQconnectStartParams, then PQconnectPoll with poll() until the deadline.  Returns the connection
 * (the caller PQfinish()es) with out->fail TCONN_OK, or NULL with out filled.  out may not be NULL.
 * Not bounded: a blocking host name lookup inside libpq (getaddrinfo).
 */
PGconn *target_conn_open(const char *conninfo, double deadline_ms, struct target_conn_out *out);

/*
 * target_conn_query: PQexec(c, sql) that gives up at deadline_ms: NULL when the deadline passed
 * or sending failed (the connection is then of no further use: the caller PQfinish()es it), else
 * the result (caller PQclear()s), failed or not.
 */
PGresult *target_conn_query(PGconn *c, const char *sql, double deadline_ms);

/*
 * target_conn_classify: the code for libpq's error message of a failed attempt (made with
 * PQERRORS_SQLSTATE verbosity, as target_conn_open does), the server's SQLSTATE into sqlstate
 * ("" when none).  Pure: for tests.
 */
enum target_conn_fail target_conn_classify(const char *libpq_msg, char sqlstate[6]);

/* target_conn_key: the i18n key of fail ("conn.no_server", ...); placeholders {seconds}, {sqlstate}. */
const char *target_conn_key(enum target_conn_fail fail);
/* target_conn_english: fail's English words with their placeholders (as en.conn.json has them). */
const char *target_conn_english(enum target_conn_fail fail);
/* target_conn_text: fail in English into buf (of n bytes), with out's SQLSTATE and the deadline. */
void target_conn_text(const struct target_conn_out *out, char *buf, size_t n);

#endif
