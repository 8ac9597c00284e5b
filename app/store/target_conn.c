/* target_conn.c: connecting to a target database by a deadline askql keeps, and why it failed as a code, never the peer's words (issue 27; docs/privacy.md, "Connection tests"). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "store/db.h"
#include "store/target_conn.h"
#include "util/conf.h"

double target_conn_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* conf target_connect_ms, kept inside its range even if conf_load's check was skipped (tests) */
static long deadline_ms(void)
{
	long ms = conf_get_int("target_connect_ms");

	return ms < 1000 ? 1000 : ms > 10000 ? 10000 : ms;
}

double target_conn_deadline(void)
{
	return target_conn_now_ms() + (double)deadline_ms();
}

long target_conn_seconds(void)
{
	return (deadline_ms() + 999) / 1000;
}

/* wait_fd: poll fd for events until deadline; >0 ready, 0 the deadline passed, <0 an error */
static int wait_fd(int fd, short events, double deadline)
{
	for (;;) {
		double left = deadline - target_conn_now_ms();
		struct pollfd pf = {fd, events, 0};
		int n;

		if (left <= 0)
			return 0;
		n = poll(&pf, 1, left < 1 ? 1 : (int)left + 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			continue;   /* the loop's clock decides, not poll's rounding */
		return n;
	}
}

PGconn *target_conn_open(const char *conninfo, double deadline, struct target_conn_out *out)
{
	PostgresPollingStatusType st = PGRES_POLLING_WRITING;
	PGconn *c;

	memset(out, 0, sizeof *out);
	if (!(c = db_connect_start(conninfo ? conninfo : ""))) {
		out->fail = TCONN_NOMEM;
		return NULL;
	}
	/* a server's refusal reaches errorMessage as "SEVERITY:  SQLSTATE", without its text */
	PQsetErrorVerbosity(c, PQERRORS_SQLSTATE);
	/* libpq ignores connect_timeout when polled: the deadline is ours, for every host and
	 * address of the conninfo together (a list of ten tarpits is one deadline, not ten) */
	while (PQstatus(c) != CONNECTION_BAD && st != PGRES_POLLING_OK && st != PGRES_POLLING_FAILED) {
		int fd = PQsocket(c), n;

		if (fd < 0)
			break;
		n = wait_fd(fd, st == PGRES_POLLING_READING ? POLLIN : POLLOUT, deadline);
		if (n == 0) {
			out->timed_out = 1;
			break;
		}
		if (n < 0)
			break;
		st = PQconnectPoll(c);
	}
	if (!out->timed_out && PQstatus(c) == CONNECTION_OK) {
		PQsetErrorVerbosity(c, PQERRORS_DEFAULT);
		return c;
	}
	out->fail = out->timed_out ? TCONN_NO_SERVER : target_conn_classify(PQerrorMessage(c), out->sqlstate);
	if (out->fail == TCONN_OK)
		out->fail = TCONN_NO_SERVER;
	PQfinish(c);
	return NULL;
}

PGresult *target_conn_query(PGconn *c, const char *sql, double deadline)
{
	PGresult *r, *last = NULL;

	if (!c || !PQsendQuery(c, sql))
		return NULL;
	for (;;) {
		while (PQisBusy(c)) {
			if (wait_fd(PQsocket(c), POLLIN, deadline) <= 0 || !PQconsumeInput(c)) {
				PQclear(last);
				return NULL;
			}
		}
		if (!(r = PQgetResult(c)))
			break;
		PQclear(last);
		last = r;
	}
	return last;
}

enum target_conn_fail target_conn_classify(const char *m, char sqlstate[6])
{
	sqlstate[0] = '\0';
	if (!m)
		return TCONN_NO_SERVER;
	/* libpq writes a server's ErrorResponse as "FATAL:  28P01" (two spaces) at PQERRORS_SQLSTATE;
	 * its own messages have no such pair.  Any attempt of a multi-host list may carry it. */
	for (const char *p = strstr(m, ":  "); p; p = strstr(p + 1, ":  ")) {
		const char *s = p + 3;

		if (strspn(s, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ") == 5 && (s[5] == '\n' || s[5] == '\0')) {
			memcpy(sqlstate, s, 5);
			sqlstate[5] = '\0';
			break;
		}
	}
	if (*sqlstate) {
		if (!strncmp(sqlstate, "28", 2))
			return TCONN_LOGIN;
		if (!strcmp(sqlstate, "3D000"))
			return TCONN_NO_DATABASE;
		if (!strncmp(sqlstate, "53", 2) || !strncmp(sqlstate, "57", 2))
			return TCONN_BUSY;
		return TCONN_SERVER;
	}
	/* libpq's own words: a server that answered the SSL request 'N' under sslmode=require, or a
	 * certificate that does not verify (only a peer that answered 'S' gets that far) */
	if (strstr(m, "server does not support SSL") || strstr(m, "certificate"))
		return TCONN_TLS;
	/* the server asked for a password (a PostgreSQL authentication request) and none was given */
	if (strstr(m, "no password supplied"))
		return TCONN_LOGIN;
	if (strstr(m, "out of memory"))
		return TCONN_NOMEM;
	/* an attempt was made: refused, reset, timed out, unknown host, or an answer that is not
	 * PostgreSQL's ("received invalid response to SSL negotiation: ~") -- all one code */
	if (strstr(m, "connection to server") || strstr(m, "could not translate host name") ||
	    strstr(m, "timeout expired") || strstr(m, "could not connect") || strstr(m, "server closed"))
		return TCONN_NO_SERVER;
	/* no attempt: libpq refused the options themselves ("invalid sslmode value") */
	return TCONN_INPUT;
}

/* each code's i18n key and its English words (conf/i18n/en.conn.json holds the same; test_target_conn) */
static const struct {
	const char *key, *en;
} words[] = {
	[TCONN_OK] = {"conn.ok", "ok"},
	[TCONN_NO_SERVER] = {"conn.no_server",
	                     "no PostgreSQL server answered at this address within {seconds} s: nothing listens there, "
	                     "it cannot be reached, or what answers is not PostgreSQL"},
	[TCONN_LOGIN] = {"conn.login",
	                 "the PostgreSQL server refused the login: check the user, its password and the server's "
	                 "pg_hba.conf"},
	[TCONN_NO_DATABASE] = {"conn.no_database", "the PostgreSQL server has no database of that name (SQLSTATE {sqlstate})"},
	[TCONN_BUSY] = {"conn.busy",
	                "the PostgreSQL server does not accept connections now: too many connections, or it is starting "
	                "up or shutting down (SQLSTATE {sqlstate})"},
	[TCONN_SERVER] = {"conn.server", "the PostgreSQL server refused the connection (SQLSTATE {sqlstate})"},
	[TCONN_TLS] = {"conn.tls",
	               "no TLS connection could be set up: the server offers none while sslmode requires it, or its "
	               "certificate does not verify against sslrootcert"},
	[TCONN_INPUT] = {"conn.input",
	                 "the connection string is not valid: check the values of sslmode, port, hostaddr and connect_timeout"},
	[TCONN_STALLED] = {"conn.stalled",
	                   "the PostgreSQL server stopped answering during the test: it did not finish within {seconds} s"},
	[TCONN_NOMEM] = {"conn.nomem", "out of memory while connecting"},
};

const char *target_conn_key(enum target_conn_fail fail)
{
	return (unsigned)fail < sizeof words / sizeof words[0] ? words[fail].key : "conn.no_server";
}

const char *target_conn_english(enum target_conn_fail fail)
{
	return (unsigned)fail < sizeof words / sizeof words[0] ? words[fail].en : words[TCONN_NO_SERVER].en;
}

void target_conn_text(const struct target_conn_out *out, char *buf, size_t n)
{
	const char *p = target_conn_english(out->fail);
	size_t o = 0;

	/* the two placeholders, filled as i18n_format would */
	while (*p && o + 1 < n) {
		if (!strncmp(p, "{seconds}", 9)) {
			o += (size_t)snprintf(buf + o, n - o, "%ld", target_conn_seconds());
			p += 9;
		} else if (!strncmp(p, "{sqlstate}", 10)) {
			o += (size_t)snprintf(buf + o, n - o, "%s", out->sqlstate);
			p += 10;
		} else {
			buf[o++] = *p++;
		}
		if (o >= n)
			o = n - 1;
	}
	if (n)
		buf[o < n ? o : n - 1] = '\0';
}
