/* exec.c: the read-only executor: guarded SQL, least-privilege role, READ ONLY transaction, cursor in chunks. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sql/exec.h"
#include "sql/explain.h"
#include "sql/guard.h"
#include "sql/suppress.h"
#include "catalog/phi.h"
#include "store/level.h"
#include "store/db.h"
#include "store/target.h"
#include "util/conf.h"
#include "util/log.h"
#include "util/sb.h"

/* The cursor the executor declares; one per connection at a time. */
#define CURSOR_PREFIX "DECLARE askql_cur NO SCROLL CURSOR FOR "
#define POOL_MAX 8
/* the text width assumed for one value of a bounded type (see fixed_width) */
#define FIXED_WIDTH 96
/* rows in the first FETCH of a result whose row width is unknown */
#define FIRST_WIDE_FETCH 8
/* the target's statement slots: advisory lock class 'ast\0' + slot, in the target database
 * (never one of the app database's classes: 'asu' in store/slot.c, 'askq' in store/run.c) */
#define TARGET_SLOT_CLASS 0x61737400L
#define TARGET_SLOT_MAX 64
/* how often a statement waiting for a target slot tries again */
#define TARGET_SLOT_RETRY_MS 100

/* ---- structured errors ---------------------------------------------------------- */

void exec_error_free(struct exec_error *e)
{
	if (!e)
		return;
	free(e->message);
	free(e->detail);
	free(e->hint);
	free(e->missing_column);
	free(e->missing_relation);
	free(e->suggested);
	memset(e, 0, sizeof *e);
}

static char *dup_or_null(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}

/* between: the text of s after prefix and before the next terminator, heap; NULL if absent.
 * Error messages do not escape quotes in names, so the terminator is the whole tail. */
static char *between(const char *s, const char *prefix, const char *term)
{
	const char *a, *b;

	if (!s || !(a = strstr(s, prefix)))
		return NULL;
	a += strlen(prefix);
	if (!(b = strstr(a, term)) || b == a)
		return NULL;
	return strndup(a, (size_t)(b - a));
}

void exec_error_parse_hints(struct exec_error *e)
{
	char *v;

	if (!e->missing_column) {
		/* unqualified: column "x" does not exist; qualified: column t.x does not exist */
		if ((v = between(e->message, "column \"", "\" does not exist"))) {
			e->missing_column = v;
		} else if ((v = between(e->message, "column ", " does not exist"))) {
			char *dot = strrchr(v, '.');

			e->missing_column = strdup(dot ? dot + 1 : v);
			free(v);
		}
	}
	if (!e->missing_relation)
		e->missing_relation = between(e->message, "relation \"", "\" does not exist");
	if (!e->suggested) {
		/* PostgreSQL prints "T.C" in one pair of quotes; the seed also accepted "T"."C" */
		const char *p = "Perhaps you meant to reference the column \"";

		const char *a = e->hint ? strstr(e->hint, p) : NULL, *b;

		if (a) {
			a += strlen(p);
			/* "T.C", or the seed's "T"."C": up to the closing quote of the name */
			b = strchr(a, '"');
			if (b && !strncmp(b, "\".\"", 3))
				b = strchr(b + 3, '"');
			if (b && b > a) {
				char *s, *w;

				e->suggested = strndup(a, (size_t)(b - a));
				for (s = w = e->suggested; s && *s; s++)
					if (*s != '"')
						*w++ = *s;
				if (e->suggested)
					*w = '\0';
			}
		}
	}
}

/* chars: number of UTF-8 characters in the first n bytes of s. */
static int chars(const char *s, size_t n)
{
	int c = 0;

	for (size_t i = 0; i < n && s[i]; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			c++;
	return c;
}

void exec_error_from_result(struct exec_error *e, const PGresult *r, int pos_offset)
{
	const char *st = PQresultErrorField(r, PG_DIAG_SQLSTATE);
	const char *msg = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
	const char *pos = PQresultErrorField(r, PG_DIAG_STATEMENT_POSITION);

	exec_error_free(e);
	snprintf(e->sqlstate, sizeof e->sqlstate, "%s", st ? st : "");
	e->message = strdup(msg ? msg : PQresultErrorMessage(r));
	e->detail = dup_or_null(PQresultErrorField(r, PG_DIAG_MESSAGE_DETAIL));
	e->hint = dup_or_null(PQresultErrorField(r, PG_DIAG_MESSAGE_HINT));
	if (pos) {
		int p = atoi(pos) - pos_offset;

		e->position = p > 0 ? p : 0;
	}
	exec_error_parse_hints(e);
}

char *exec_error_text(const struct exec_error *e)
{
	struct sb sb = SB_INIT;

	if (e->sqlstate[0])
		sb_printf(&sb, "%s: ", e->sqlstate);
	sb_puts(&sb, e->message ? e->message : "unknown error");
	if (e->detail)
		sb_printf(&sb, " [%s]", e->detail);
	if (e->hint)
		sb_printf(&sb, " (%s)", e->hint);
	return sb_steal(&sb);
}

static void json_field(struct sb *sb, const char *k, const char *v, int *first)
{
	if (!v)
		return;
	sb_printf(sb, "%s\"%s\":", *first ? "" : ",", k);
	sb_json_str(sb, v);
	*first = 0;
}

char *exec_error_json(const struct exec_error *e)
{
	struct sb sb = SB_INIT;
	int first = 1;

	sb_putc(&sb, '{');
	json_field(&sb, "sqlstate", e->sqlstate[0] ? e->sqlstate : NULL, &first);
	json_field(&sb, "message", e->message, &first);
	json_field(&sb, "detail", e->detail, &first);
	json_field(&sb, "hint", e->hint, &first);
	if (e->position)
		sb_printf(&sb, "%s\"position\":%d", first ? "" : ",", e->position), first = 0;
	json_field(&sb, "missing_column", e->missing_column, &first);
	json_field(&sb, "missing_relation", e->missing_relation, &first);
	json_field(&sb, "suggested", e->suggested, &first);
	sb_putc(&sb, '}');
	return sb_steal(&sb);
}

static void set_msg(struct exec_error *e, const char *fmt, const char *arg)
{
	char buf[1024];

	if (!e)
		return;
	exec_error_free(e);
	snprintf(buf, sizeof buf, fmt, arg);
	e->message = strdup(buf);
}

/* ---- connection pool ------------------------------------------------------------ */

struct slot {
	char *conninfo;
	PGconn *c;
	int busy;
};
static struct slot pool[POOL_MAX];
static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;

const char *exec_conninfo(void)
{
	static int warned;
	const char *ci = conf_get("target_ro_db");

	if (*ci)
		return ci;
	if (!warned++)
		log_warn("exec: target_ro_db is empty, running analyst SQL as target_db's role");
	return conf_get("target_db");
}

/* ms_setting: a timeout from conf; 0, negative or garbage falls back to def, never "off". */
static long ms_setting(const char *name, long def)
{
	long v = conf_get_int(name);

	return v > 0 ? v : def;
}

/* An idle connection with something to read was ended by the server (a restart, a terminated
 * backend): all it has to say then is its FATAL message and EOF. */
static int idle_ended(PGconn *c)
{
	struct pollfd pf = {PQsocket(c), POLLIN, 0};

	return pf.fd < 0 || poll(&pf, 1, 0) != 0;
}

PGconn *exec_pool_get(const char *conninfo, char *err, size_t errlen)
{
	struct slot *s = NULL;
	PGconn *c;

	if (!conninfo)
		conninfo = exec_conninfo();
	pthread_mutex_lock(&pool_mu);
	for (int i = 0; i < POOL_MAX && !s; i++)
		if (pool[i].c && !pool[i].busy && !strcmp(pool[i].conninfo, conninfo))
			s = &pool[i];
	if (!s) {
		/* an empty slot, else evict an idle connection to another database */
		for (int i = 0; i < POOL_MAX && !s; i++)
			if (!pool[i].c && !pool[i].busy)
				s = &pool[i];
		for (int i = 0; i < POOL_MAX && !s; i++)
			if (!pool[i].busy) {
				s = &pool[i];
				PQfinish(s->c);
				s->c = NULL;
			}
		if (s && !s->c) {
			free(s->conninfo);
			s->conninfo = strdup(conninfo);
			if (!s->conninfo)
				s = NULL;
		}
	}
	if (s)
		s->busy = 1;
	pthread_mutex_unlock(&pool_mu);

	c = s ? s->c : NULL;
	/* a broken or ended idle connection is replaced, not PQreset: a reset logs in with the
	 * password read at the first connect, a new connection reads the password file again
	 * (rotated passwords, docs/pg-auth.md) */
	if (c && (PQstatus(c) != CONNECTION_OK || idle_ended(c))) {
		PQfinish(c);
		c = NULL;
	}
	if (!c) {
		struct target_conn_out why;

		/* by askql's deadline for every host together (a tarpit target holds a run's or a
		 * download's worker target_connect_ms at most), and never in the peer's words (issue 27) */
		if (!(c = target_conn_open(conninfo, target_conn_deadline(), &why))) {
			char t[300];

			target_conn_text(&why, t, sizeof t);
			err_set(err, errlen, "cannot connect: %s", t);
		}
		/* issue 27: a connection that lands in askql's own database is never a target's, however
		 * its conninfo is spelled or when it was registered (store/target.h) */
		if (c && target_conn_is_app(db_app(), c) == 1) {
			PQfinish(c);
			c = NULL;
			err_set(err, errlen, "this target's connection leads to askql's own database: refused");
			log_error("a target connection leads to the app database: refused");
		}
	}
	if (s) {
		pthread_mutex_lock(&pool_mu);
		s->c = c;
		if (!c)
			s->busy = 0;
		pthread_mutex_unlock(&pool_mu);
	}
	/* every slot busy: an unpooled connection, closed by exec_pool_put */
	return c;
}

void exec_pool_put(PGconn *c, int broken)
{
	int pooled = 0;

	if (!c)
		return;
	if (!broken && (PQstatus(c) != CONNECTION_OK || PQtransactionStatus(c) != PQTRANS_IDLE))
		broken = 1;
	pthread_mutex_lock(&pool_mu);
	for (int i = 0; i < POOL_MAX; i++) {
		if (pool[i].c == c) {
			pooled = 1;
			pool[i].busy = 0;
			if (broken)
				pool[i].c = NULL;
			break;
		}
	}
	pthread_mutex_unlock(&pool_mu);
	if (!pooled || broken)
		PQfinish(c);
}

void exec_pool_close(void)
{
	pthread_mutex_lock(&pool_mu);
	for (int i = 0; i < POOL_MAX; i++) {
		if (pool[i].busy)
			continue;
		PQfinish(pool[i].c);
		pool[i].c = NULL;
		free(pool[i].conninfo);
		pool[i].conninfo = NULL;
	}
	pthread_mutex_unlock(&pool_mu);
}

/* ---- running -------------------------------------------------------------------- */

static void classify(struct exec_col *c)
{
	switch (c->type_oid) {
	case 20: case 21: case 23: case 26: case 700: case 701: case 1700:
		c->is_numeric = 1;
		break;
	case 1082: case 1083: case 1114: case 1184: case 1266:
		c->is_temporal = 1;
		break;
	case 16:
		c->is_bool = 1;
		break;
	default:
		break;
	}
}

/* begin_tx: BEGIN READ ONLY with the timeouts, work_mem (and ISO dates, which the exports and
 * the XLSX typing rely on whatever the server's default), then temp_file_limit where the role
 * may set it; one retry after a reset when the connection turns out broken (server restart)
 * before anything ran.  temp_file_limit is a superuser setting: for an ordinary executor role
 * it is the role's own default that bounds temp files (docs/executor-limits.md), and a role
 * left without one is logged once per process. */
static PGresult *begin_tx(PGconn *c)
{
	static int warned;
	char q[1024];
	long tfl = conf_get_int("exec_temp_file_limit_kb");
	PGresult *r;

	snprintf(q, sizeof q,
	         "BEGIN READ ONLY; SET LOCAL statement_timeout = %ld; SET LOCAL lock_timeout = %ld; "
	         "SET LOCAL idle_in_transaction_session_timeout = %ld; SET LOCAL datestyle = 'ISO, YMD'; "
	         "SET LOCAL work_mem = %ld; "
	         /* short-circuit: set_config runs only when the role holds SET on the parameter */
	         "SELECT CASE WHEN %ld > 0 AND %s THEN set_config('temp_file_limit', '%ld', true) END, "
	         "(SELECT setting FROM pg_settings WHERE name = 'temp_file_limit')",
	         ms_setting("statement_timeout_ms", 30000), ms_setting("lock_timeout_ms", 2000),
	         ms_setting("idle_tx_timeout_ms", 60000), ms_setting("exec_work_mem_kb", 8192), tfl,
	         PQserverVersion(c) >= 150000 ? "has_parameter_privilege('temp_file_limit', 'SET')"
	                                      : "(SELECT rolsuper FROM pg_roles WHERE rolname = current_user)",
	         tfl);
	for (int attempt = 0; ; attempt++) {
		r = PQexec(c, q);
		if (PQresultStatus(r) == PGRES_TUPLES_OK || attempt == 1 ||
		    PQstatus(c) != CONNECTION_BAD)
			break;
		PQclear(r);
		log_info("exec: connection lost, reconnecting");
		PQreset(c);
	}
	if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1) {
		if (tfl > 0 && PQgetisnull(r, 0, 0) && !strcmp(PQgetvalue(r, 0, 1), "-1") && !warned++)
			log_warn("exec: the executor's role has no temp_file_limit and may not set one: "
			         "ALTER ROLE ... SET temp_file_limit as a superuser (docs/executor-limits.md)");
		PQclear(r);
		r = PQmakeEmptyPGresult(c, PGRES_COMMAND_OK);
	}
	return r;
}

enum err exec_begin(PGconn *c, struct exec_error *e)
{
	PGresult *r = begin_tx(c);
	enum err rc = OK;

	if (PQresultStatus(r) != PGRES_COMMAND_OK) {
		if (e)
			exec_error_from_result(e, r, 0);
		rc = PQstatus(c) == CONNECTION_BAD ? ERR_NET : ERR_DB;
	}
	PQclear(r);
	return rc;
}

/* drain: read every pending result; when cancel, ask the server to stop first. */
static void drain(PGconn *c, int cancel)
{
	PGresult *r;

	if (cancel) {
		char eb[256];
		PGcancel *cn = PQgetCancel(c);

		if (cn) {
			PQcancel(cn, eb, sizeof eb);
			PQfreeCancel(cn);
		}
	}
	while ((r = PQgetResult(c)))
		PQclear(r);
}

/* ---- deadlines and readers that left (docs/export-deadline.md) ----------------------- */

static double mono_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* What one exec_run watches besides the server: its deadline (0: none) and its reader. */
struct watch {
	const struct exec_opts *o;
	double deadline;
	double next;            /* when the reader is asked again */
};

/* watch_check: OK, or ERR_TIMEOUT (the deadline passed) / ERR_IO (the reader left) with the
 * reason in dberr.  The clock is read every time; the reader, which costs a system call, at
 * most every EXEC_POLL_MS. */
static enum err watch_check(struct watch *w, struct exec_error *dberr)
{
	double now;
	char m[128];

	if (w->deadline <= 0 && !w->o->cancelled)
		return OK;
	now = mono_ms();
	if (w->deadline > 0 && now >= w->deadline) {
		snprintf(m, sizeof m, "stopped at the time limit for the whole result (%ld ms)", w->o->timeout_ms);
		set_msg(dberr, "%s", m);
		return ERR_TIMEOUT;
	}
	if (w->o->cancelled && now >= w->next) {
		w->next = now + EXEC_POLL_MS;
		if (w->o->cancelled(w->o->cancel_ctx)) {
			set_msg(dberr, "%s", "stopped: the reader went away");
			return ERR_IO;
		}
	}
	return OK;
}

/* await: wait until c has a result to read without blocking, looking at the watch at least every
 * EXEC_POLL_MS meanwhile.  OK; ERR_NET when the connection broke; the watch's errors (the
 * statement is still running then: the caller cancels it). */
static enum err await(PGconn *c, struct watch *w, struct exec_error *dberr)
{
	enum err rc;

	/* a row already in libpq's buffer costs no system call: rows stream at full speed */
	while (PQisBusy(c)) {
		struct pollfd p = {PQsocket(c), POLLIN, 0};
		int ms = EXEC_POLL_MS;

		if ((rc = watch_check(w, dberr)) != OK)
			return rc;
		if (w->deadline > 0 && w->deadline - mono_ms() < ms)
			ms = (int)(w->deadline - mono_ms()) + 1;
		if (poll(&p, 1, ms < 1 ? 1 : ms) < 0 && errno != EINTR) {
			set_msg(dberr, "poll: %s", strerror(errno));
			return ERR_NET;
		}
		/* also after a quiet poll: whatever libpq may hold is looked at again */
		if (!PQconsumeInput(c)) {
			set_msg(dberr, "%s", PQerrorMessage(c));
			return ERR_NET;
		}
	}
	return OK;
}

/* watched: one statement through the extended protocol (never more than one), its result read
 * under the watch.  NULL with *rc set when the watch or the connection ended the wait: the
 * statement was cancelled and its results read.  Caller clears the result. */
static PGresult *watched(PGconn *c, const char *q, struct watch *w, enum err *rc, struct exec_error *dberr)
{
	PGresult *r, *extra;

	*rc = OK;
	if (!PQsendQueryParams(c, q, 0, NULL, NULL, NULL, NULL, 0)) {
		set_msg(dberr, "%s", PQerrorMessage(c));
		*rc = ERR_NET;
		return NULL;
	}
	if ((*rc = await(c, w, dberr)) != OK) {
		drain(c, 1);
		return NULL;
	}
	r = PQgetResult(c);
	while ((extra = PQgetResult(c)))
		PQclear(extra);
	return r;
}

/* ---- the target's concurrent statements (conf target_max_statements) ------------------ */

/*
 * target_slot: inside the transaction just begun on c, take one of the target database's
 * target_max_statements slots as a transaction-level advisory lock, so it ends with the
 * transaction whatever happens (ROLLBACK, a reset, a killed worker) and every worker and CLI
 * connected to that database counts against the same slots.  When all are taken, try again every
 * TARGET_SLOT_RETRY_MS for up to target_wait_ms, under the watch.  OK (also when the limit is
 * 0); ERR_LIMIT with the reason in dberr; ERR_DB/ERR_NET; the watch's errors.
 */
static enum err target_slot(PGconn *c, struct watch *w, struct exec_error *dberr)
{
	long max = conf_get_int("target_max_statements"), wait = conf_get_int("target_wait_ms");
	double until = mono_ms() + (double)(wait > 0 ? wait : 0);
	char q[192], m[192];
	enum err rc;

	if (max <= 0)
		return OK;
	if (max > TARGET_SLOT_MAX)
		max = TARGET_SLOT_MAX;
	/* LIMIT 1 stops the scan at the first lock taken: at most one slot is held */
	snprintf(q, sizeof q, "SELECT s FROM generate_series(0, %ld) AS s WHERE pg_try_advisory_xact_lock(%ld, s::int) LIMIT 1",
	         max - 1, TARGET_SLOT_CLASS);
	for (;;) {
		PGresult *r = PQexec(c, q);
		int got = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1;

		if (PQresultStatus(r) != PGRES_TUPLES_OK) {
			if (dberr)
				exec_error_from_result(dberr, r, 0);
			PQclear(r);
			return PQstatus(c) == CONNECTION_BAD ? ERR_NET : ERR_DB;
		}
		PQclear(r);
		if (got)
			return OK;
		if (mono_ms() >= until)
			break;
		/* a short sleep that still notices the deadline and the reader */
		for (double t = mono_ms() + TARGET_SLOT_RETRY_MS; mono_ms() < t; ) {
			if ((rc = watch_check(w, dberr)) != OK)
				return rc;
			poll(NULL, 0, 20);
		}
	}
	snprintf(m, sizeof m, "the database already runs %ld statements from askql, the most it may "
	         "(target_max_statements); try again in a moment", max);
	set_msg(dberr, "%s", m);
	return ERR_LIMIT;
}

/* deadline_timeout: SET LOCAL statement_timeout to what is left of the deadline when that is
 * shorter, so the server stops on its own even if this process cannot cancel (killed). */
static enum err deadline_timeout(PGconn *c, struct watch *w, struct exec_error *dberr)
{
	char q[96];
	long left;
	PGresult *r;
	enum err rc = OK;

	if (w->deadline <= 0)
		return OK;
	left = (long)(w->deadline - mono_ms()) + 1;
	if (left >= ms_setting("statement_timeout_ms", 30000))
		return OK;
	snprintf(q, sizeof q, "SET LOCAL statement_timeout = %ld", left > 1 ? left : 1);
	r = PQexec(c, q);
	if (PQresultStatus(r) != PGRES_COMMAND_OK) {
		if (dberr)
			exec_error_from_result(dberr, r, 0);
		rc = PQstatus(c) == CONNECTION_BAD ? ERR_NET : ERR_DB;
	}
	PQclear(r);
	return rc;
}

/* position offset: characters before the caller's text in the statement we sent. */
static int pos_offset(const char *sent_sql, const char *orig)
{
	const char *at = strstr(sent_sql, orig);
	int off = (int)strlen(CURSOR_PREFIX);

	if (at)
		off += chars(sent_sql, (size_t)(at - sent_sql));
	return off;
}

/* ---- fetching within a byte budget (docs/executor-limits.md) ------------------------ */

/* memory_gate: EXPLAIN (VERBOSE, FORMAT JSON) the guarded statement in the open transaction and
 * refuse it (ERR_DENIED, the reason in dberr) when its estimates pass exec_max_agg_rows,
 * exec_max_series_rows or exec_max_cost (explain_gate): defence in depth beside the target's own
 * statement_timeout and work_mem, which do not bound an array_agg's state (docs/executor-limits.md).
 * The plan is the one the statement will get: same role, same transaction, same settings. */
#define GATE_PREFIX "EXPLAIN (VERBOSE, FORMAT JSON) "
#define GATE_PREFIX_PLAIN "EXPLAIN (FORMAT JSON) "

static enum err memory_gate(PGconn *c, const char *gsql, const char *orig, struct watch *w,
                            struct exec_error *dberr)
{
	struct explain_gate_limits lim = {(double)conf_get_int("exec_max_agg_rows"),
	                                  (double)conf_get_int("exec_max_series_rows"),
	                                  (double)conf_get_int("exec_max_cost")};
	struct explain_gate_out out;
	enum err rc = OK;

	if (lim.max_agg_rows <= 0 && lim.max_series_rows <= 0 && lim.max_cost <= 0)
		return OK;
	/* first without VERBOSE: a verbose plan prints every constant the planner folded, and
	 * repeat('x', 40000000) would come back as 40 MB of text into the worker; VERBOSE only when
	 * the plan aggregates or sets up rows in its target list, whose functions only it names */
	for (int verbose = 0; verbose < 2 && rc == OK; verbose++) {
		const char *prefix = verbose ? GATE_PREFIX : GATE_PREFIX_PLAIN;
		struct sb q = SB_INIT;
		PGresult *r;
		int off;

		sb_puts(&q, prefix);
		sb_puts(&q, gsql);
		if (!sb_ok(&q))
			return ERR_NOMEM;
		/* the caller's positions: the characters before its text in what was sent */
		off = strstr(sb_cstr(&q), orig ? orig : "\1") ? pos_offset(sb_cstr(&q), orig) - (int)strlen(CURSOR_PREFIX)
		                                            : (int)strlen(prefix);
		r = watched(c, sb_cstr(&q), w, &rc, dberr);
		sb_free(&q);
		if (!r)
			return rc;
		if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) {
			/* the statement itself is wrong: its error, as running it would give */
			if (dberr)
				exec_error_from_result(dberr, r, off);
			rc = PQstatus(c) == CONNECTION_BAD ? ERR_NET : ERR_DB;
		} else if (!verbose && explain_gate_needs_verbose(PQgetvalue(r, 0, 0))) {
			PQclear(r);
			continue;   /* judged on the verbose plan, which names the aggregates */
		} else if (explain_gate(PQgetvalue(r, 0, 0), &lim, &out) == OK && out.kind != GATE_OK) {
			char *m = explain_gate_text(&out);

			set_msg(dberr, "%s", m ? m : "refused before it ran: the plan passes a memory limit");
			free(m);
			rc = ERR_DENIED;
		}
		PQclear(r);
		break;
	}
	return rc;
}

/* fixed_width: the longest text PostgreSQL prints for a value of a type whose output is
 * bounded (integers, floats, dates, times, booleans, uuids, addresses, names), rounded up; 0 for every other
 * type (text, bytea, numeric, json, arrays, composites, domains...): its width is unbounded. */
static int fixed_width(unsigned int oid)
{
	switch (oid) {
	case 16: case 18: case 20: case 21: case 23: case 26: case 28: case 700: case 701: case 790:
	case 1082: case 1083: case 1114: case 1184: case 1186: case 1266: case 2950:
	case 650: case 869: case 774: case 829: case 19:
		return FIXED_WIDTH;
	default:
		return 0;
	}
}

/* width_term: the text width in bytes of wrapped column i (of type oid), as SQL, as cheap as
 * can be: text and varchar know their length without converting or detoasting; bytea prints
 * as hex; a numeric is converted only when it may print over 64 characters. */
static void width_term(struct sb *q, unsigned int oid, int i)
{
	switch (oid) {
	case 25: case 1042: case 1043:
		sb_printf(q, "coalesce(octet_length(askql_%d)::bigint, 0)", i);
		break;
	case 17:
		sb_printf(q, "coalesce(2 * octet_length(askql_%d)::bigint + 2, 0)", i);
		break;
	case 1700:
		sb_printf(q, "coalesce(CASE WHEN scale(askql_%d) <= 30 AND abs(askql_%d) < 1e30 THEN 64 "
		          "ELSE octet_length(askql_%d::text) END, 0)", i, i, i);
		break;
	default:
		sb_printf(q, "coalesce(octet_length(askql_%d::text)::bigint, 0)", i);
		break;
	}
}

/*
 * wrap_sql: the cursor for a result with columns of unbounded width.  The server computes
 * each row's width before sending it; a row wider than rowcap goes out with its unbounded
 * values NULL and the last column askql_over true, so no row larger than the cap ever
 * reaches this process.  Original names and types stay (the exporters classify by type).
 * Two OFFSET 0 fences keep the planner from copying expressions: the caller's columns are
 * computed once (not again inside the width) and the width once (not again per column).
 * Appended to q.
 */
static void wrap_sql(struct sb *q, PGconn *c, const char *gsql, const struct exec_col *cols, int ncols,
                     long fixed, size_t rowcap)
{
	sb_puts(q, "SELECT ");
	for (int j = 0; j < ncols; j++) {
		char *id = PQescapeIdentifier(c, cols[j].name, strlen(cols[j].name));

		if (fixed_width(cols[j].type_oid))
			sb_printf(q, "askql_w.askql_%d AS %s, ", j + 1, id ? id : "\"?column?\"");
		else
			sb_printf(q, "CASE WHEN askql_w.askql_over THEN NULL ELSE askql_w.askql_%d END AS %s, ",
			          j + 1, id ? id : "\"?column?\"");
		PQfreemem(id);
	}
	sb_printf(q, "askql_w.askql_over FROM (SELECT askql_r.*, %ld", fixed);
	for (int j = 0; j < ncols; j++) {
		if (fixed_width(cols[j].type_oid))
			continue;
		sb_puts(q, " + ");
		width_term(q, cols[j].type_oid, j + 1);
	}
	sb_printf(q, " > %zu AS askql_over FROM (SELECT * FROM (\n%s\n) AS askql_q(", rowcap, gsql);
	for (int j = 0; j < ncols; j++)
		sb_printf(q, "%saskql_%d", j ? ", " : "", j + 1);
	sb_puts(q, ") OFFSET 0) AS askql_r OFFSET 0) AS askql_w");
}

/* send_fetch: ask for the next rows; in single-row mode libpq hands them over one by one. */
static enum err send_fetch(PGconn *c, const char *fetch, int single, struct exec_error *dberr)
{
	if (!PQsendQuery(c, fetch) || (single && !PQsetSingleRowMode(c))) {
		set_msg(dberr, "%s", PQerrorMessage(c));
		return ERR_NET;
	}
	return OK;
}

/* fetch_budget: result bytes exec_run may hold at once (opts, else conf, else 8 MiB). */
static size_t fetch_budget(const struct exec_opts *opts)
{
	long v = conf_get_int("exec_fetch_bytes");

	if (opts->fetch_bytes > 0)
		return opts->fetch_bytes;
	return v > 0 ? (size_t)v : (size_t)8 << 20;
}

static enum err run_core(const char *sql, const struct exec_opts *opts, const struct exec_sink *sink,
                         struct exec_error *dberr)
{
	struct exec_opts dflt = {0};
	struct guard_opts go = {0};
	struct guard_result g = {0};
	struct sb q = SB_INIT;
	struct exec_col *cols = NULL;
	const char **vals = NULL;
	int *lens = NULL, ncols = 0, chunk, inflight = 0, broken = 0, truncated = 0, done = 0;
	int single = 0, begun = 0, nwide = 0;
	long long nrows = 0, got = 0;
	long fetch_n, fixed = 0;
	size_t bytes = 0, budget, rowcap, widest = 0;
	char fetch[64], cerr[512];
	PGconn *c = NULL;
	PGresult *r = NULL;
	struct watch w = {0};
	enum err rc = OK;

	if (!opts)
		opts = &dflt;
	if (dberr)
		exec_error_free(dberr);
	w.o = opts;
	if (opts->timeout_ms > 0)
		w.deadline = mono_ms() + (double)opts->timeout_ms;
	chunk = opts->chunk_rows > 0 ? opts->chunk_rows : 1000;
	budget = fetch_budget(opts);
	/* no single row larger than the budget, nor than the byte cap that would cut it anyway */
	rowcap = opts->max_bytes > 0 && opts->max_bytes < budget ? opts->max_bytes : budget;

	/* never trust the caller: guard again */
	go.limit = opts->limit > 0 ? opts->limit : opts->limit == 0 && opts->max_rows > 0 ? opts->max_rows + 1 : 0;
	go.allow_system_catalogs = conf_get_int("allow_system_catalogs") != 0;
	go.relation_ok = opts->relation_ok;
	go.relation_ctx = opts->relation_ctx;
	if ((rc = guard_check(sql, &go, &g)) != OK) {
		set_msg(dberr, "guard failed: %s", err_str(rc));
		goto out;
	}
	if (!g.allowed) {
		set_msg(dberr, "%s", g.reason ? g.reason : "refused by the guard");
		if (dberr)
			dberr->position = g.position;
		rc = ERR_DENIED;
		goto out;
	}

	if (!(c = exec_pool_get(opts->conninfo, cerr, sizeof cerr))) {
		set_msg(dberr, "%s", cerr);
		rc = ERR_NET;
		goto out;
	}
	if ((rc = exec_begin(c, dberr)) != OK)
		goto out;
	if ((rc = target_slot(c, &w, dberr)) != OK || (rc = deadline_timeout(c, &w, dberr)) != OK ||
	    (rc = memory_gate(c, g.sql, sql, &w, dberr)) != OK)
		goto out;

	/* the guarded text ends the statement: nothing is appended after it */
	sb_puts(&q, CURSOR_PREFIX);
	sb_puts(&q, g.sql);
	while (q.len > strlen(CURSOR_PREFIX) && strchr(" \t\r\n;", q.buf[q.len - 1]))
		q.buf[--q.len] = '\0';
	if (!sb_ok(&q)) {
		rc = ERR_NOMEM;
		goto out;
	}
	/* extended protocol: a single statement only, even if the guard were fooled; planning may
	 * take long too, so under the watch */
	if (!(r = watched(c, sb_cstr(&q), &w, &rc, dberr)))
		goto out;
	if (PQresultStatus(r) != PGRES_COMMAND_OK) {
		if (dberr)
			exec_error_from_result(dberr, r, pos_offset(g.sql, sql));
		rc = ERR_DB;
		goto out;
	}
	PQclear(r);

	/* the columns, before any row: they decide how rows are fetched */
	r = PQdescribePortal(c, "askql_cur");
	if (PQresultStatus(r) != PGRES_COMMAND_OK) {
		if (dberr)
			exec_error_from_result(dberr, r, 0);
		rc = PQstatus(c) == CONNECTION_BAD ? ERR_NET : ERR_DB;
		goto out;
	}
	ncols = PQnfields(r);
	cols = calloc((size_t)ncols + 1, sizeof *cols);
	vals = calloc((size_t)ncols + 1, sizeof *vals);
	lens = calloc((size_t)ncols + 1, sizeof *lens);
	if (!cols || !vals || !lens) {
		rc = ERR_NOMEM;
		goto out;
	}
	for (int j = 0; j < ncols; j++) {
		if (!(cols[j].name = strdup(PQfname(r, j)))) {
			rc = ERR_NOMEM;
			goto out;
		}
		cols[j].type_oid = PQftype(r, j);
		classify(&cols[j]);
		fixed += fixed_width(cols[j].type_oid);
		nwide += !fixed_width(cols[j].type_oid);
	}
	PQclear(r);
	r = NULL;

	if (nwide) {
		/* a row may be of any size: re-declare with the server measuring each row, and take
		 * rows one at a time, so at most one row of at most rowcap bytes is held */
		r = PQexec(c, "CLOSE askql_cur");
		if (PQresultStatus(r) != PGRES_COMMAND_OK) {
			if (dberr)
				exec_error_from_result(dberr, r, 0);
			rc = PQstatus(c) == CONNECTION_BAD ? ERR_NET : ERR_DB;
			goto out;
		}
		PQclear(r);
		sb_reset(&q);
		sb_puts(&q, CURSOR_PREFIX);
		wrap_sql(&q, c, g.sql, cols, ncols, fixed, rowcap);
		if (!sb_ok(&q)) {
			rc = ERR_NOMEM;
			goto out;
		}
		if (!(r = watched(c, sb_cstr(&q), &w, &rc, dberr)))
			goto out;
		if (PQresultStatus(r) != PGRES_COMMAND_OK) {
			if (dberr)
				exec_error_from_result(dberr, r, 0);
			rc = PQstatus(c) == CONNECTION_BAD ? ERR_NET : ERR_DB;
			goto out;
		}
		PQclear(r);
		r = NULL;
		single = 1;
		/* the server builds a whole FETCH before sending it: a first small one shows how
		 * wide the rows are, the next ones are sized from it (below) */
		fetch_n = chunk < FIRST_WIDE_FETCH ? chunk : FIRST_WIDE_FETCH;
	} else {
		/* every row is narrow and of known most width: whole FETCHes, two at a time (the
		 * one being handed out and the one asked for in advance) within the budget */
		size_t per_row = (size_t)fixed + 16 * (size_t)ncols + 64;

		fetch_n = (long)(budget / 2 / per_row);
		if (fetch_n > chunk)
			fetch_n = chunk;
		if (fetch_n < 1)
			fetch_n = 1;
	}

	snprintf(fetch, sizeof fetch, "FETCH %ld FROM askql_cur", fetch_n);
	if ((rc = send_fetch(c, fetch, single, dberr)) != OK)
		goto out;
	inflight = 1;
	while (!done) {
		ExecStatusType st;
		int n, more = 0;

		/* the server may take long over a FETCH: meanwhile the deadline and the reader are watched */
		if ((rc = await(c, &w, dberr)) != OK)
			goto out;
		r = PQgetResult(c);
		if (!r) {
			set_msg(dberr, "%s", PQerrorMessage(c));
			rc = ERR_NET;
			goto out;
		}
		st = PQresultStatus(r);
		if (st != PGRES_TUPLES_OK && st != PGRES_SINGLE_TUPLE) {
			if (dberr)
				exec_error_from_result(dberr, r, 0);
			rc = PQstatus(c) == CONNECTION_BAD ? ERR_NET : ERR_DB;
			goto out;
		}
		n = PQntuples(r);
		got += n;
		if (st == PGRES_TUPLES_OK) {
			/* the end of one FETCH (in single-row mode it carries no rows) */
			PGresult *extra;

			while ((extra = PQgetResult(c)))
				PQclear(extra);
			inflight = 0;
			more = got == fetch_n;
			got = 0;
			if (single && more) {
				/* as many rows of the widest width seen as fit the budget: what the server
				 * materialises for one FETCH stays about the budget, within work_mem */
				long n = (long)(budget / (widest + 16 * (size_t)ncols + 64));

				/* and growing at most eightfold: a few narrow rows say little of the next ones */
				if (n > fetch_n * 8)
					n = fetch_n * 8;
				fetch_n = n > chunk ? chunk : n < 1 ? 1 : n;
				snprintf(fetch, sizeof fetch, "FETCH %ld FROM askql_cur", fetch_n);
				widest = 0;
			}
		}
		if (!begun) {
			if (sink->begin && (rc = sink->begin(sink->ctx, cols, ncols)) != OK)
				goto out;
			begun = 1;
		}
		/* ask for the next FETCH before handing rows out: the server produces it while the
		 * sink works (two cores) */
		if (st == PGRES_TUPLES_OK) {
			if (more) {
				if ((rc = send_fetch(c, fetch, single, dberr)) != OK)
					goto out;
				inflight = 1;
			} else {
				done = 1;
			}
		}
		for (int i = 0; i < n; i++) {
			size_t rb = 0;

			if (single && PQgetvalue(r, i, ncols)[0] == 't') {
				/* the server withheld a row wider than rowcap */
				truncated = 1;
				done = 1;
				break;
			}
			for (int j = 0; j < ncols; j++) {
				vals[j] = PQgetisnull(r, i, j) ? NULL : PQgetvalue(r, i, j);
				lens[j] = PQgetlength(r, i, j);
				rb += (size_t)lens[j];
			}
			if (rb > widest)
				widest = rb;
			if ((opts->max_rows > 0 && nrows >= opts->max_rows) ||
			    (opts->max_bytes > 0 && bytes + rb > opts->max_bytes)) {
				truncated = 1;
				done = 1;
				break;
			}
			if (sink->row && (rc = sink->row(sink->ctx, vals, lens, ncols)) != OK)
				goto out;
			nrows++;
			bytes += rb;
			/* rows that come fast still end at the deadline, and a sink that takes its time
			 * still notices a reader that left */
			if ((rc = watch_check(&w, dberr)) != OK)
				goto out;
		}
		PQclear(r);
		r = NULL;
	}
	if (inflight) {
		/* capped: the rows asked for in advance are not needed.  A whole FETCH in batch mode
		 * is bounded by the budget and read through; rows still streaming in single-row mode
		 * may be many wide ones, so the server is told to stop */
		drain(c, single);
		inflight = 0;
	}
	if (sink->end)
		rc = sink->end(sink->ctx, nrows, truncated);
out:
	if (c) {
		if (inflight)
			drain(c, 1);
		if (PQtransactionStatus(c) != PQTRANS_IDLE && PQstatus(c) == CONNECTION_OK) {
			PGresult *rb = PQexec(c, "ROLLBACK");

			if (PQresultStatus(rb) != PGRES_COMMAND_OK)
				broken = 1;
			PQclear(rb);
		}
		exec_pool_put(c, broken);
	}
	PQclear(r);
	for (int j = 0; cols && j < ncols; j++)
		free(cols[j].name);
	free(cols);
	free(vals);
	free(lens);
	sb_free(&q);
	guard_free(&g);
	return rc;
}

/* ---- in-memory results ---------------------------------------------------------- */

struct collect {
	struct exec_result *res;
	long long cap;
};

static enum err collect_begin(void *ctx, const struct exec_col *cols, int ncols)
{
	struct collect *k = ctx;
	struct exec_result *res = k->res;

	if (!(res->cols = calloc((size_t)ncols + 1, sizeof *res->cols)))
		return ERR_NOMEM;
	res->ncols = ncols;
	for (int j = 0; j < ncols; j++) {
		res->cols[j] = cols[j];
		if (!(res->cols[j].name = strdup(cols[j].name)))
			return ERR_NOMEM;
	}
	return OK;
}

static enum err collect_row(void *ctx, const char *const *vals, const int *lens, int ncols)
{
	struct collect *k = ctx;
	struct exec_result *res = k->res;
	char **row;

	if (res->nrows == k->cap) {
		long long nc = k->cap ? k->cap * 2 : 64;
		char ***nr = realloc(res->rows, (size_t)nc * sizeof *nr);

		if (!nr)
			return ERR_NOMEM;
		res->rows = nr;
		k->cap = nc;
	}
	if (!(row = calloc((size_t)ncols + 1, sizeof *row)))
		return ERR_NOMEM;
	res->rows[res->nrows++] = row;
	for (int j = 0; j < ncols; j++)
		if (vals[j] && !(row[j] = strndup(vals[j], (size_t)lens[j])))
			return ERR_NOMEM;
	return OK;
}

static enum err collect_end(void *ctx, long long nrows, int truncated)
{
	struct collect *k = ctx;

	k->res->truncated = truncated;
	return OK;
}

enum err exec_fetch(const char *sql, const struct exec_opts *opts, struct exec_result *res,
                    struct exec_error *dberr)
{
	struct exec_opts o = {0};
	struct collect k = {res, 0};
	struct exec_sink sink = {collect_begin, collect_row, collect_end, &k};
	struct timespec t0, t1;
	enum err rc;

	if (opts)
		o = *opts;
	if (o.max_rows <= 0)
		o.max_rows = conf_get_int("preview_limit") > 0 ? conf_get_int("preview_limit") : 1000;
	if (!o.max_bytes && conf_get_int("max_page_bytes") > 0)
		o.max_bytes = (size_t)conf_get_int("max_page_bytes");
	memset(res, 0, sizeof *res);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = exec_run(sql, &o, &sink, dberr);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	res->ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	if (rc != OK)
		exec_result_free(res);
	return rc;
}

void exec_result_free(struct exec_result *res)
{
	if (!res)
		return;
	for (long long i = 0; i < res->nrows; i++) {
		if (!res->rows[i])
			continue;
		for (int j = 0; j < res->ncols; j++)
			free(res->rows[i][j]);
		free(res->rows[i]);
	}
	free(res->rows);
	for (int j = 0; j < res->ncols && res->cols; j++)
		free(res->cols[j].name);
	free(res->cols);
	memset(res, 0, sizeof *res);
}

/* json_number_ok: s is a JSON number (PostgreSQL prints NaN/Infinity, which are not). */
static int json_number_ok(const char *s)
{
	const char *p = s;

	if (*p == '-')
		p++;
	if (*p < '0' || *p > '9')
		return 0;
	if (*p == '0' && p[1] >= '0' && p[1] <= '9')
		return 0;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (*p < '0' || *p > '9')
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return *p == '\0';
}

char *exec_result_json(const struct exec_result *res)
{
	struct sb sb = SB_INIT;

	sb_puts(&sb, "{\"columns\":[");
	for (int j = 0; j < res->ncols; j++) {
		if (j)
			sb_putc(&sb, ',');
		sb_json_str(&sb, res->cols[j].name);
	}
	sb_puts(&sb, "],\"rows\":[");
	for (long long i = 0; i < res->nrows; i++) {
		sb_puts(&sb, i ? ",[" : "[");
		for (int j = 0; j < res->ncols; j++) {
			const char *v = res->rows[i][j];

			if (j)
				sb_putc(&sb, ',');
			if (!v)
				sb_puts(&sb, "null");
			else if (res->cols[j].is_numeric && json_number_ok(v))
				sb_puts(&sb, v);
			else if (res->cols[j].is_bool)
				sb_puts(&sb, *v == 't' ? "true" : "false");
			else
				sb_json_str(&sb, v);
		}
		sb_putc(&sb, ']');
	}
	sb_printf(&sb, "],\"row_count\":%lld,\"truncated\":%s,\"ms\":%.1f}", res->nrows,
	          res->truncated ? "true" : "false", res->ms);
	if (!sb_ok(&sb)) {
		sb_free(&sb);
		return NULL;
	}
	return sb_steal(&sb);
}

/* ---- the aggregate access level and release: the safe aggregate form (sql/suppress.h) ---------- */

/* The rewritten statement's rows: its first column is the group's patients (the statement's own
 * HAVING has already left out every group under k); the sink gets the rest. */
struct supp {
	const struct exec_sink *inner;
	long k;
	long long passed;
};

static enum err supp_begin(void *ctx, const struct exec_col *cols, int ncols)
{
	struct supp *s = ctx;

	/* the rewrite put the count first; anything else means the statement is not ours */
	if (ncols < 2 || strcmp(cols[0].name, SUPPRESS_COLUMN))
		return ERR_INTERNAL;
	return s->inner->begin ? s->inner->begin(s->inner->ctx, cols + 1, ncols - 1) : OK;
}

static enum err supp_row(void *ctx, const char *const *vals, const int *lens, int ncols)
{
	struct supp *s = ctx;

	/* never true: PostgreSQL's HAVING said so already.  A second wall, should the rewrite be wrong. */
	if (!vals[0] || atol(vals[0]) < s->k) {
		log_error("suppress: a group of %s patients came back past HAVING; left out", vals[0] ? vals[0] : "NULL");
		return OK;
	}
	s->passed++;
	return s->inner->row ? s->inner->row(s->inner->ctx, vals + 1, lens + 1, ncols - 1) : OK;
}

static enum err supp_end(void *ctx, long long nrows, int truncated)
{
	struct supp *s = ctx;

	return s->inner->end ? s->inner->end(s->inner->ctx, s->passed, truncated) : OK;
}

long exec_suppress_k(void)
{
	return conf_get_int("suppress_k") > 0 ? conf_get_int("suppress_k") : 11;
}

long exec_release_round(void)
{
	return conf_get_int("release_round") > 1 ? conf_get_int("release_round") : 1;
}

/* What suppress_rewrite learns of the target's tables, asked once per table and statement. */
#define SUPP_TABLES 32
struct supp_table {
	char *schema, *table;   /* as asked (schema "" for the search path) */
	char **cols;            /* its columns, in order (granted to the session or not) */
	unsigned char *uniq;    /* cols[i] is unique in the table (or the table a level's view shows) */
	int ncols, tied;
};
struct supp_db {
	PGconn *c;
	const struct phi_rules *rules;   /* NULL: the rules could not be loaded (every table tied) */
	struct supp_table t[SUPP_TABLES];
	int nt;
};

/* supp_load: the table's columns, which are unique, and whether its rows are persons'.  A table
 * that is not there (or past SUPP_TABLES) has no columns. */
static const struct supp_table *supp_load(struct supp_db *d, const char *schema, const char *table)
{
	static const struct supp_table none = {0};
	const char *p[2] = {table, schema ? schema : ""};
	struct supp_table *t;
	PGresult *r;

	for (int i = 0; i < d->nt; i++)
		if (!strcmp(d->t[i].table, table) && !strcmp(d->t[i].schema, p[1]))
			return &d->t[i];
	if (d->nt >= SUPP_TABLES)
		return &none;
	t = &d->t[d->nt];
	memset(t, 0, sizeof *t);
	/* the relation as PostgreSQL finds it (the search path, or the schema named) and all its columns,
	 * granted or not: a column withheld at this level (a patient's name) still ties the rows to
	 * persons, and reading it fails in PostgreSQL anyway.  Unique by a one-column unique index of the
	 * relation or, for a generalising view of the limited level, of public's table of that name. */
	r = PQexecParams(d->c,
	                 "WITH r AS (SELECT c.oid, c.relname FROM pg_catalog.pg_class c WHERE c.oid = to_regclass("
	                 "CASE WHEN $2 = '' THEN quote_ident($1) ELSE quote_ident($2) || '.' || quote_ident($1) END)) "
	                 "SELECT a.attname::text, EXISTS (SELECT 1 FROM pg_catalog.pg_index i "
	                 "JOIN pg_catalog.pg_class t ON t.oid = i.indrelid JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace "
	                 "JOIN pg_catalog.pg_attribute ia ON ia.attrelid = t.oid AND ia.attnum = i.indkey[0] "
	                 "WHERE i.indisunique AND i.indnkeyatts = 1 AND i.indpred IS NULL AND t.relname = r.relname "
	                 "AND (t.oid = r.oid OR n.nspname = 'public') AND ia.attname = a.attname) "
	                 "FROM r JOIN pg_catalog.pg_attribute a ON a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped "
	                 "ORDER BY a.attnum",
	                 2, NULL, p, NULL, NULL, 0);
	t->schema = strdup(p[1]);
	t->table = strdup(table);
	if (!t->schema || !t->table) {
		free(t->schema);
		free(t->table);
		PQclear(r);
		return &none;
	}
	d->nt++;
	if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0) {
		int n = PQntuples(r);

		t->cols = calloc((size_t)n, sizeof *t->cols);
		t->uniq = calloc((size_t)n, 1);
		for (int i = 0; t->cols && t->uniq && i < n; i++) {
			if (!(t->cols[i] = strdup(PQgetvalue(r, i, 0))))
				break;
			t->uniq[i] = PQgetvalue(r, i, 1)[0] == 't';
			t->ncols++;
		}
		if (!d->rules) {
			t->tied = 1;
		} else {
			struct phi_table_in in = {table, NULL, (const char *const *)t->cols, NULL, t->ncols};
			struct phi_context pc;

			phi_table_context(d->rules, &in, &pc);
			t->tied = pc.person_linked;
		}
	} else if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		log_error("suppress: columns of %s: %s", table, PQerrorMessage(d->c));
	}
	PQclear(r);
	return t;
}

static int supp_col(const struct supp_table *t, const char *col)
{
	for (int i = 0; i < t->ncols; i++)
		if (!strcmp(t->cols[i], col))
			return i;
	return -1;
}

static int supp_has_col(void *ctx, const char *schema, const char *table, const char *col)
{
	return supp_col(supp_load(ctx, schema, table), col) >= 0;
}

static int supp_unique(void *ctx, const char *schema, const char *table, const char *col)
{
	const struct supp_table *t = supp_load(ctx, schema, table);
	int i = supp_col(t, col);

	return i >= 0 && t->uniq[i];
}

static int supp_tied(void *ctx, const char *schema, const char *table)
{
	return supp_load(ctx, schema, table)->tied;
}

static int supp_ident_name(void *ctx, const char *col)
{
	return phi_column_ties(((struct supp_db *)ctx)->rules, col);
}

static void supp_db_free(struct supp_db *d)
{
	for (int i = 0; i < d->nt; i++) {
		for (int j = 0; j < d->t[i].ncols; j++)
			free(d->t[i].cols[j]);
		free(d->t[i].cols);
		free(d->t[i].uniq);
		free(d->t[i].schema);
		free(d->t[i].table);
	}
	d->nt = 0;
}

enum err exec_suppress_form(const char *sql, const char *conninfo, int release, char **out, long *k,
                            struct exec_error *dberr)
{
	const char *ci = conninfo ? conninfo : exec_conninfo();
	char keys_buf[512], cerr[512], *keys[16], *save = NULL;
	struct supp_db *sd;
	struct suppress_refusal why;
	struct suppress_db db = {supp_has_col, supp_unique, supp_tied, supp_ident_name, NULL};
	struct suppress_opts so = {0};
	PGconn *c;
	int nkeys = 0, aggregate = level_conninfo_is_aggregate(ci);
	enum err rc;

	*out = NULL;
	if (k)
		*k = 0;
	if (dberr)
		exec_error_free(dberr);
	snprintf(keys_buf, sizeof keys_buf, "%s", conf_get("suppress_patient_keys"));
	for (char *t = strtok_r(keys_buf, ", ", &save); t && nkeys < 16; t = strtok_r(NULL, ", ", &save))
		keys[nkeys++] = t;
	if (!(sd = calloc(1, sizeof *sd)))
		return ERR_NOMEM;
	if (!(c = exec_pool_get(ci, cerr, sizeof cerr))) {
		free(sd);
		set_msg(dberr, "%s", cerr);
		return ERR_NET;
	}
	sd->c = c;
	sd->rules = phi_rules_get(cerr, sizeof cerr);
	if (!sd->rules)
		log_error("suppress: PHI rules: %s (every table is taken as persons' rows, every column name as an identifier)", cerr);
	db.ctx = sd;
	so.keys = (const char *const *)keys;
	so.nkeys = nkeys;
	so.db = &db;
	so.k = exec_suppress_k();
	/* counts and sums rounded wherever the statement's results go, the aggregate level's page,
	 * events, API and downloads as well as files for release: exact cells would give a group left
	 * out by subtracting the shown ones from a total (docs/privacy.md "Differencing") */
	so.round = exec_release_round();
	/* and sums and averages perturbed, spreads coarse: an exact average of a 0/1 condition, or a
	 * sum over an average, tells a group's size exactly (docs/privacy.md "Differencing") */
	so.noise = 1;
	so.noise_key = strtoll(conf_get("release_noise_key"), NULL, 10);
	rc = suppress_rewrite(sql ? sql : "", &so, out, &why);
	supp_db_free(sd);
	free(sd);
	exec_pool_put(c, PQstatus(c) != CONNECTION_OK);
	if (rc != OK && rc != ERR_NOMEM) {
		/* a refusal says why, as the guard's do, and whose rule it is (English, the record's
		 * language; ko.decline.tsv words it in Korean where it is shown) */
		struct sb m = SB_INIT;

		sb_puts(&m, aggregate || !release ? "at the aggregate level: " : "for release: ");
		suppress_reason(&why, &m);
		set_msg(dberr, "%s", sb_cstr(&m));
		if (dberr)
			dberr->position = why.position;
		sb_free(&m);
		return ERR_DENIED;
	}
	if (rc == OK && k)
		*k = so.k;
	return rc;
}

enum err exec_run(const char *sql, const struct exec_opts *opts, const struct exec_sink *sink,
                  struct exec_error *dberr)
{
	const char *ci = opts && opts->conninfo ? opts->conninfo : exec_conninfo();
	char *rewritten = NULL;
	struct supp sp = {0};
	struct exec_sink wrapped = {supp_begin, supp_row, supp_end, &sp};
	long k = 0;
	int aggregate = level_conninfo_is_aggregate(ci), release = opts && opts->release;
	enum err rc;

	if (opts && opts->suppress_k)
		*opts->suppress_k = 0;
	if (!aggregate && !release)
		return run_core(sql, opts, sink, dberr);
	if ((rc = exec_suppress_form(sql, ci, release, &rewritten, &k, dberr)) != OK)
		return rc;
	sp.inner = sink;
	sp.k = k;
	/* said before the sink's end, so an export's summary can say it */
	if (opts && opts->suppress_k)
		*opts->suppress_k = k;
	rc = run_core(rewritten, opts, &wrapped, dberr);
	free(rewritten);
	return rc;
}
