/* run.c: runs and steps in the app schema, each write committed at once so any worker sees it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "store/db.h"
#include "store/run.h"
#include "util/log.h"
#include "util/sb.h"

/*
 * Liveness of a run: the connection that runs it holds the session advisory lock
 * (RUN_LOCK_CLASS, run id).  PostgreSQL drops it when that connection ends (a killed worker,
 * a dead CLI, a server restart), so a 'running' run whose lock can be taken is stale.
 */
#define RUN_LOCK_CLASS "1634953585"     /* 'askq' */
#define RUN_LOCK_KEY "(($1::bigint % 2147483647)::int)"

/* A query on c, with one reset and retry when the connection was found broken (a server restart
 * is noticed on first use; nothing ran on the dead connection). */
static PGresult *query_again(PGconn *c, const char *sql, int n, const char *const *p, char *err, size_t errlen)
{
	PGresult *r;

	if (PQstatus(c) != CONNECTION_OK)
		PQreset(c);
	r = db_query(c, sql, n, p, err, errlen);
	if (!r && PQstatus(c) == CONNECTION_BAD) {
		log_warn("app connection lost; reconnecting");
		PQreset(c);
		r = db_query(c, sql, n, p, err, errlen);
	}
	return r;
}

static void run_unlock(PGconn *c, long long run_id)
{
	char rid[32];
	const char *p[1] = {rid};

	snprintf(rid, sizeof rid, "%lld", run_id);
	db_exec(c, "SELECT pg_advisory_unlock(" RUN_LOCK_CLASS ", " RUN_LOCK_KEY ")", 1, p, NULL, 0);
}

int run_sweep(PGconn *c)
{
	PGresult *r;
	int n;

	r = query_again(c, "UPDATE askql.runs SET status = 'error', finished_at = now(), updated_at = now(),"
	                   " error = 'stopped without finishing: its worker (pid ' || coalesce(worker_pid::text, '?') ||"
	                   " ') or its database connection went away'"
	                   " WHERE status = 'running' AND pg_try_advisory_xact_lock(" RUN_LOCK_CLASS ","
	                   " (id % 2147483647)::int) RETURNING id",
	                0, NULL, NULL, 0);
	if (!r)
		return -1;
	n = PQntuples(r);
	for (int i = 0; i < n; i++)
		log_warn("run %s marked failed: no live worker holds it", PQgetvalue(r, i, 0));
	PQclear(r);
	return n;
}

enum err run_create(PGconn *c, const struct run_new *n, long long *id)
{
	char uid[32], pid[32], wpid[16], err[512];
	const char *p[8];
	PGresult *r;

	snprintf(uid, sizeof uid, "%lld", n->user_id);
	snprintf(pid, sizeof pid, "%lld", n->parent_id);
	p[0] = n->user_id > 0 ? uid : NULL;
	p[1] = n->parent_id > 0 ? pid : NULL;
	p[2] = n->target && *n->target ? n->target : "demo";
	p[3] = n->kind && *n->kind ? n->kind : "extract";
	p[4] = n->step_mode ? "true" : "false";
	p[5] = n->provider && *n->provider ? n->provider : "builtin";
	p[6] = n->question ? n->question : "";
	snprintf(wpid, sizeof wpid, "%d", (int)getpid());
	p[7] = wpid;
	run_sweep(c);
	r = query_again(c, "INSERT INTO askql.runs(user_id, parent_id, target, kind, step_mode, provider,"
	                   " question, status, worker_pid, heartbeat_at)"
	                   " VALUES ($1, $2, $3, $4, $5, $6, $7, 'running', $8::int, now())"
	                   " RETURNING id, pg_advisory_lock(" RUN_LOCK_CLASS ", (id % 2147483647)::int)",
	                8, p, err, sizeof err);
	if (!r) {
		log_error("run_create: %s", err);
		return ERR_DB;
	}
	*id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	return OK;
}

enum err step_add(PGconn *c, long long run_id, const struct step *s, int *seq)
{
	char rid[32], ms[32], ti[16], to[16], err[512];
	const char *p[14];
	PGresult *r = NULL;

	snprintf(rid, sizeof rid, "%lld", run_id);
	snprintf(ms, sizeof ms, "%.3f", s->ms);
	snprintf(ti, sizeof ti, "%d", s->tokens_in);
	snprintf(to, sizeof to, "%d", s->tokens_out);
	p[0] = rid;
	p[1] = s->kind ? s->kind : "info";
	p[2] = s->name ? s->name : "";
	p[3] = s->status ? s->status : "ok";
	p[4] = s->input;
	p[5] = s->output;
	p[6] = s->prompt;
	p[7] = s->raw;
	p[8] = s->rewrite;
	p[9] = s->error;
	p[10] = s->ms >= 0 ? ms : NULL;
	p[11] = s->tokens_in > 0 ? ti : NULL;
	p[12] = s->tokens_out > 0 ? to : NULL;
	/* seq = next for this run; two writers racing on one run hit the unique key, so retry. */
	for (int tries = 0; tries < 3 && !r; tries++)
		r = query_again(c, "INSERT INTO askql.steps(run_id, seq, kind, name, status, input, output,"
		                " prompt, raw, rewrite, error, ms, tokens_in, tokens_out)"
		                " SELECT $1, coalesce(max(seq), 0) + 1, $2, $3, $4, $5::jsonb, $6::jsonb,"
		                " $7, $8, $9, $10, $11::float8, $12::int, $13::int"
		                " FROM askql.steps WHERE run_id = $1 RETURNING seq",
		             13, p, err, sizeof err);
	if (!r) {
		log_error("step_add run %lld %s: %s", run_id, p[2], err);
		return ERR_DB;
	}
	if (seq)
		*seq = atoi(PQgetvalue(r, 0, 0));
	PQclear(r);
	return OK;
}

/* Append "col = $n" for a non-NULL value. */
static void set_col(struct sb *q, const char **p, int *n, const char *col, const char *cast,
                    const char *val)
{
	if (!val)
		return;
	p[*n] = val;
	(*n)++;
	sb_printf(q, ", %s = $%d%s", col, *n, cast);
}

enum err run_set(PGconn *c, long long run_id, const struct run_update *u)
{
	struct sb q = SB_INIT;
	const char *p[20];
	char rid[32], rc_[32], tr[8], at[16], err[512];
	int n = 1;
	enum err rc = OK;

	snprintf(rid, sizeof rid, "%lld", run_id);
	p[0] = rid;
	sb_puts(&q, "UPDATE askql.runs SET updated_at = now()");
	set_col(&q, p, &n, "status", "", u->status);
	set_col(&q, p, &n, "sql", "", u->sql);
	set_col(&q, p, &n, "fingerprint", "", u->fingerprint);
	set_col(&q, p, &n, "normalized", "", u->normalized);
	if (u->tables_json) {
		p[n++] = u->tables_json;
		sb_printf(&q, ", tables = ARRAY(SELECT jsonb_array_elements_text($%d::jsonb))", n);
	}
	set_col(&q, p, &n, "columns", "::jsonb", u->columns_json);
	set_col(&q, p, &n, "preview", "::jsonb", u->preview_json);
	set_col(&q, p, &n, "answer", "", u->answer);
	set_col(&q, p, &n, "error", "", u->error);
	set_col(&q, p, &n, "state", "::jsonb", u->state_json);
	if (u->row_count >= 0) {
		snprintf(rc_, sizeof rc_, "%lld", u->row_count);
		set_col(&q, p, &n, "row_count", "::bigint", rc_);
	}
	if (u->truncated >= 0) {
		snprintf(tr, sizeof tr, "%s", u->truncated ? "true" : "false");
		set_col(&q, p, &n, "truncated", "::boolean", tr);
	}
	if (u->attempts >= 0) {
		snprintf(at, sizeof at, "%d", u->attempts);
		set_col(&q, p, &n, "attempts", "::int", at);
	}
	/* one way only: what an analyst shaped stays marked */
	if (u->edited > 0)
		sb_puts(&q, ", edited = true");
	if (u->status && strcmp(u->status, "running") && strcmp(u->status, "paused"))
		sb_puts(&q, ", finished_at = now()");
	else if (u->status)
		sb_puts(&q, ", finished_at = NULL");
	sb_puts(&q, " WHERE id = $1");
	if (!sb_ok(&q)) {
		rc = ERR_NOMEM;
		goto out;
	}
	{
		PGresult *r = query_again(c, sb_cstr(&q), n, p, err, sizeof err);

		if (!r) {
			rc = ERR_DB;
			log_error("run_set %lld: %s", run_id, err);
		}
		PQclear(r);
	}
	/* a run that stops running (finished or paused) no longer needs its liveness lock */
	if (rc == OK && u->status && strcmp(u->status, "running"))
		run_unlock(c, run_id);
out:
	sb_free(&q);
	return rc;
}

enum err run_heartbeat(PGconn *c, long long run_id)
{
	char rid[32], pid[16];
	const char *p[2] = {rid, pid};

	snprintf(rid, sizeof rid, "%lld", run_id);
	snprintf(pid, sizeof pid, "%d", (int)getpid());
	return db_exec(c, "UPDATE askql.runs SET worker_pid = $2::int, heartbeat_at = now() WHERE id = $1",
	               2, p, NULL, 0);
}

static char *dupv(PGresult *r, int col)
{
	return PQgetisnull(r, 0, col) ? NULL : strdup(PQgetvalue(r, 0, col));
}

#define ROW_COLS "id, coalesce(user_id, 0), coalesce(parent_id, 0), target, kind, provider, question," \
	" status, sql, columns::text, state::text, error, step_mode, attempts, coalesce(row_count, -1), edited"

static void fill_row(PGresult *r, struct run_row *o)
{
	o->id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	o->user_id = strtoll(PQgetvalue(r, 0, 1), NULL, 10);
	o->parent_id = strtoll(PQgetvalue(r, 0, 2), NULL, 10);
	o->target = dupv(r, 3);
	o->kind = dupv(r, 4);
	o->provider = dupv(r, 5);
	o->question = dupv(r, 6);
	o->status = dupv(r, 7);
	o->sql = dupv(r, 8);
	o->columns_json = dupv(r, 9);
	o->state_json = dupv(r, 10);
	o->error = dupv(r, 11);
	o->step_mode = PQgetvalue(r, 0, 12)[0] == 't';
	o->attempts = atoi(PQgetvalue(r, 0, 13));
	o->row_count = strtoll(PQgetvalue(r, 0, 14), NULL, 10);
	o->edited = PQgetvalue(r, 0, 15)[0] == 't';
}

enum err run_get(PGconn *c, long long run_id, struct run_row *o)
{
	char rid[32], err[512];
	const char *p[1] = {rid};
	PGresult *r;

	memset(o, 0, sizeof *o);
	snprintf(rid, sizeof rid, "%lld", run_id);
	if (!(r = db_query(c, "SELECT " ROW_COLS " FROM askql.runs WHERE id = $1", 1, p, err, sizeof err))) {
		log_error("run_get %lld: %s", run_id, err);
		return ERR_DB;
	}
	if (PQntuples(r) != 1) {
		PQclear(r);
		return ERR_NOTFOUND;
	}
	fill_row(r, o);
	PQclear(r);
	return OK;
}

enum err run_claim(PGconn *c, long long run_id, struct run_row *o)
{
	char rid[32], wpid[16], err[512];
	const char *p[2] = {rid, wpid};
	PGresult *r;

	memset(o, 0, sizeof *o);
	snprintf(rid, sizeof rid, "%lld", run_id);
	snprintf(wpid, sizeof wpid, "%d", (int)getpid());
	r = db_query(c, "UPDATE askql.runs SET status = 'running', updated_at = now(),"
	                " worker_pid = $2::int, heartbeat_at = now()"
	                " WHERE id = $1 AND status = 'paused' RETURNING " ROW_COLS ","
	                " pg_advisory_lock(" RUN_LOCK_CLASS ", (id % 2147483647)::int)",
	             2, p, err, sizeof err);
	if (!r) {
		log_error("run_claim %lld: %s", run_id, err);
		return ERR_DB;
	}
	if (PQntuples(r) == 1) {
		fill_row(r, o);
		PQclear(r);
		return OK;
	}
	PQclear(r);
	/* Distinguish "no such run" from "not paused" for the caller's message. */
	if (run_get(c, run_id, o) == OK) {
		run_row_free(o);
		return ERR_DENIED;
	}
	return ERR_NOTFOUND;
}

void run_row_free(struct run_row *o)
{
	if (!o)
		return;
	free(o->target);
	free(o->kind);
	free(o->provider);
	free(o->question);
	free(o->status);
	free(o->sql);
	free(o->columns_json);
	free(o->state_json);
	free(o->error);
	memset(o, 0, sizeof *o);
}

/* ---- deleting with undo ------------------------------------------------------------ */

int run_purge(PGconn *c, long window_s)
{
	char w[24];
	const char *p[1] = {w};
	PGresult *r;
	int n;

	snprintf(w, sizeof w, "%ld", window_s < 0 ? 0 : window_s);
	if (!(r = query_again(c, "DELETE FROM askql.runs WHERE deleted_at IS NOT NULL"
	                         " AND deleted_at < now() - make_interval(secs => $1::int)", 1, p, NULL, 0)))
		return -1;
	n = atoi(PQcmdTuples(r));
	PQclear(r);
	return n;
}

enum err run_trash(PGconn *c, long long id, long long user_id, int admin, long window_s)
{
	char rid[24], uid[24], err[256];
	const char *p[3] = {rid, uid, admin ? "t" : "f"};
	PGresult *r;
	int n;

	snprintf(rid, sizeof rid, "%lld", id);
	snprintf(uid, sizeof uid, "%lld", user_id);
	r = query_again(c, "UPDATE askql.runs SET deleted_at = now(), deleted_by = nullif($2::bigint, 0)"
	                   " WHERE id = $1 AND deleted_at IS NULL AND (user_id = $2 OR $3::boolean)",
	                3, p, err, sizeof err);
	if (!r) {
		log_error("run_trash %lld: %s", id, err);
		return ERR_DB;
	}
	n = atoi(PQcmdTuples(r));
	PQclear(r);
	/* whoever deletes also clears what waited longer than the window */
	run_purge(c, window_s);
	return n == 1 ? OK : ERR_NOTFOUND;
}

enum err run_restore(PGconn *c, long long id, long long user_id, int admin, long window_s)
{
	char rid[24], uid[24], w[24], err[256];
	const char *p[4] = {rid, uid, admin ? "t" : "f", w};
	PGresult *r;
	int n;

	snprintf(rid, sizeof rid, "%lld", id);
	snprintf(uid, sizeof uid, "%lld", user_id);
	snprintf(w, sizeof w, "%ld", window_s < 0 ? 0 : window_s);
	r = query_again(c, "UPDATE askql.runs SET deleted_at = NULL, deleted_by = NULL"
	                   " WHERE id = $1 AND deleted_at >= now() - make_interval(secs => $4::int)"
	                   " AND (user_id = $2 OR deleted_by = $2 OR $3::boolean)",
	                4, p, err, sizeof err);
	if (!r) {
		log_error("run_restore %lld: %s", id, err);
		return ERR_DB;
	}
	n = atoi(PQcmdTuples(r));
	PQclear(r);
	return n == 1 ? OK : ERR_NOTFOUND;
}

char *run_like_prefix(const char *prefix, char *out, size_t n)
{
	size_t o = 0;

	for (const char *s = prefix ? prefix : ""; *s; s++) {
		size_t need = (*s == '%' || *s == '_' || *s == '\\') ? 2 : 1;

		if (o + need + 2 > n)
			break;
		if (need == 2)
			out[o++] = '\\';
		out[o++] = *s;
	}
	/* never end inside a multibyte character: drop its lead and continuation bytes */
	if (o && ((unsigned char)out[o - 1] & 0x80)) {
		size_t k = o;

		while (k > 0 && ((unsigned char)out[k - 1] & 0xC0) == 0x80)
			k--;
		if (k > 0 && ((unsigned char)out[k - 1] & 0xC0) == 0xC0) {
			unsigned char lead = (unsigned char)out[k - 1];
			size_t len = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;

			if (o - (k - 1) < len)
				o = k - 1;
		}
	}
	out[o++] = '%';
	out[o] = '\0';
	return out;
}
