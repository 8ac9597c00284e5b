/* verify.c: verified queries: an analyst proposes a run, an admin accepts it (few-shot example and cache entry) or rejects it (docs/shared-memory.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/agent_int.h"
#include "store/db.h"
#include "util/conf.h"
#include "util/log.h"

enum vstate { V_NONE, V_PROPOSED, V_ACCEPTED, V_REJECTED, V_NSTATES };
static const char *const vnames[V_NSTATES] = {"", "proposed", "accepted", "rejected"};

enum { V_DENY = -1, V_NA = -2 };   /* refused (ERR_DENIED); does not apply (ERR_INPUT) */

/* What each action does from each state.  to: the next state, or V_DENY / V_NA; admin_only: the
 * action needs an admin; admin_from: leaving this state needs an admin (taking back what an admin
 * decided). */
static const struct {
	int admin_only;
	int to[V_NSTATES];
	int admin_from[V_NSTATES];
} moves[] = {
	/*                  from: none        proposed     accepted     rejected */
	[VERIFY_PROPOSE] = {0, {V_PROPOSED, V_PROPOSED, V_ACCEPTED, V_DENY}, {0, 0, 0, 0}},
	[VERIFY_RETRACT] = {0, {V_NONE, V_NONE, V_NONE, V_NONE}, {0, 0, 1, 1}},
	[VERIFY_ACCEPT]  = {1, {V_ACCEPTED, V_ACCEPTED, V_ACCEPTED, V_ACCEPTED}, {0, 0, 0, 0}},
	[VERIFY_REJECT]  = {1, {V_NA, V_REJECTED, V_NA, V_REJECTED}, {0, 0, 0, 0}},
};

static int vstate_of(const char *s)
{
	for (int i = 0; s && i < V_NSTATES; i++)
		if (!strcmp(s, vnames[i]))
			return i;
	return -1;
}

const char *agent_verify_next(const char *from, enum agent_verify_action act, int admin, enum err *why)
{
	int f = vstate_of(from), to;

	*why = ERR_INPUT;
	if (f < 0 || (unsigned)act > VERIFY_REJECT)
		return NULL;
	if ((moves[act].admin_only || moves[act].admin_from[f]) && !admin) {
		*why = ERR_DENIED;
		return NULL;
	}
	to = moves[act].to[f];
	if (to < 0) {
		*why = to == V_DENY ? ERR_DENIED : ERR_INPUT;
		return NULL;
	}
	*why = OK;
	return vnames[to];
}

/* The run as the key of its shared entries needs it: its saved state, completed for runs whose
 * state predates the scope and the model (the owner's scope; the configured model). */
static enum err load_agent(PGconn *app, PGresult *r, struct agent *a)
{
	const char *state = PQgetisnull(r, 0, 5) ? NULL : PQgetvalue(r, 0, 5);
	const char *kind = PQgetvalue(r, 0, 3), *prov = PQgetvalue(r, 0, 4);

	memset(a, 0, sizeof *a);
	a->app = app;
	a->run_id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	if (!state || run_state_load(state, &a->state) != OK) {
		if (run_state_init(&a->state, !strcmp(kind, "react") ? RUN_REACT : RUN_EXTRACT, PQgetvalue(r, 0, 1),
		                   prov, PQgetvalue(r, 0, 2), NULL) != OK)
			return ERR_NOMEM;
	}
	/* the run's own columns are the truth for what it asked */
	if (run_state_set(&a->state.target, PQgetvalue(r, 0, 1)) || run_state_set(&a->state.question, PQgetvalue(r, 0, 2)))
		return ERR_NOMEM;
	if (!*a->state.provider && run_state_set(&a->state.provider, prov))
		return ERR_NOMEM;
	if (!*a->state.scope) {
		char scope[64];

		agent_scope(app, strtoll(PQgetvalue(r, 0, 7), NULL, 10), scope, sizeof scope);
		if (run_state_set(&a->state.scope, scope))
			return ERR_NOMEM;
	}
	if (!*a->state.model &&
	    run_state_set(&a->state.model, strcmp(a->state.provider, "builtin") ? conf_get("llm_model") : "builtin"))
		return ERR_NOMEM;
	return OK;
}

/* share: the accepted run becomes memory others get: a few-shot example and a cache entry. */
static enum err share(PGconn *app, PGresult *r)
{
	struct agent a;
	char err[256];
	const char *target = PQgetvalue(r, 0, 1), *question = PQgetvalue(r, 0, 2), *sql = PQgetvalue(r, 0, 6);
	int followup = !PQgetisnull(r, 0, 8);
	enum err rc;

	rc = catalog_verified_add(app, target, question, sql, 1, err, sizeof err);
	if (rc == ERR_NOTFOUND) {
		/* a target that is not indexed has no few-shot examples; the cache entry still serves */
		log_warn("verified run %s: %s", PQgetvalue(r, 0, 0), err);
	} else if (rc != OK) {
		log_warn("verified run %s: %s", PQgetvalue(r, 0, 0), err);
		return rc;
	}
	if (followup)
		return OK;
	if ((rc = load_agent(app, r, &a)) == OK)
		rc = cache_store(&a, sql, CACHE_ACCEPTED);
	run_state_free(&a.state);
	return rc;
}

/* unshare: an accepted run taken back: its cache entries, and its example unless another
 * accepted run holds the same pair. */
static enum err unshare(PGconn *app, PGresult *r)
{
	const char *p[4] = {PQgetvalue(r, 0, 1), PQgetvalue(r, 0, 2), PQgetvalue(r, 0, 6), PQgetvalue(r, 0, 0)};
	char err[256];
	PGresult *o;
	enum err rc;

	if ((rc = cache_forget_run(app, strtoll(p[3], NULL, 10))) != OK)
		return rc;
	o = db_query(app, "SELECT 1 FROM askql.runs WHERE verify_state = 'accepted' AND target = $1 AND question = $2 "
	                  "AND sql = $3 AND id <> $4", 4, p, err, sizeof err);
	if (!o)
		return ERR_DB;
	if (PQntuples(o) == 0 && (rc = catalog_verified_remove(app, p[0], p[1], p[2], err, sizeof err)) != OK)
		log_warn("verified run %s: %s", p[3], err);
	PQclear(o);
	return rc;
}

enum err agent_verify(PGconn *app, long long run_id, long long user_id, enum agent_verify_action act)
{
	char rid[32], uid[32];
	const char *p[3] = {rid, uid, NULL};
	const char *from, *to;
	PGresult *r = NULL;
	enum err rc;
	int has_sql;

	snprintf(rid, sizeof rid, "%lld", run_id);
	snprintf(uid, sizeof uid, "%lld", user_id);
	if ((rc = db_exec(app, "BEGIN", 0, NULL, NULL, 0)) != OK)
		return rc;
	/* the run locked for the decision: two admins (or an admin and the owner) decide one at a time */
	r = db_query(app, "SELECT r.id, r.target, r.question, r.kind, r.provider, r.state::text, r.sql,"
	                  " coalesce(r.user_id, 0), r.parent_id, r.status, coalesce(r.verify_state, ''),"
	                  " coalesce((SELECT role FROM askql.users WHERE id = $2 AND NOT disabled), '')"
	                  " FROM askql.runs r WHERE r.id = $1 FOR UPDATE OF r", 2, p, NULL, 0);
	if (!r) {
		rc = ERR_DB;
		goto rollback;
	}
	if (PQntuples(r) != 1) {
		rc = ERR_NOTFOUND;
		goto rollback;
	}
	from = PQgetvalue(r, 0, 10);
	has_sql = !PQgetisnull(r, 0, 6) && !strcmp(PQgetvalue(r, 0, 9), "ok");
	if (!(to = agent_verify_next(from, act, !strcmp(PQgetvalue(r, 0, 11), "admin"), &rc)))
		goto rollback;
	if ((act == VERIFY_PROPOSE || act == VERIFY_ACCEPT) && !has_sql) {
		rc = ERR_NOTFOUND;
		goto rollback;
	}
	if (!strcmp(to, from)) {
		PQclear(r);
		return db_exec(app, "COMMIT", 0, NULL, NULL, 0);
	}
	p[2] = to;
	rc = db_exec(app, "UPDATE askql.runs SET verify_state = nullif($3, ''), verified = ($3 = 'accepted'),"
	                  " verify_proposed_by = CASE WHEN $3 = 'proposed' THEN $2::bigint"
	                  "                           WHEN $3 = '' THEN NULL ELSE verify_proposed_by END,"
	                  " verify_proposed_at = CASE WHEN $3 = 'proposed' THEN now()"
	                  "                           WHEN $3 = '' THEN NULL ELSE verify_proposed_at END,"
	                  " verify_reviewed_by = CASE WHEN $3 IN ('accepted', 'rejected') THEN $2::bigint END,"
	                  " verify_reviewed_at = CASE WHEN $3 IN ('accepted', 'rejected') THEN now() END"
	                  " WHERE id = $1", 3, p, NULL, 0);
	if (rc == OK && !strcmp(to, "accepted"))
		rc = share(app, r);
	else if (rc == OK && !strcmp(from, "accepted"))
		rc = unshare(app, r);
	if (rc != OK)
		goto rollback;
	PQclear(r);
	return db_exec(app, "COMMIT", 0, NULL, NULL, 0);
rollback:
	PQclear(r);
	db_exec(app, "ROLLBACK", 0, NULL, NULL, 0);
	return rc;
}
