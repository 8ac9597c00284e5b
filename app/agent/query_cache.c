/* query_cache.c: the shared query cache in the app schema (target, catalog version, role scope, provider, model, mode, question; LRU with TTL). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/agent_int.h"
#include "store/db.h"
#include "util/conf.h"
#include "util/log.h"
#include "util/sb.h"

/* The run's scope and model for the key, never empty: a state saved before they were recorded
 * gets a value no current run has, so it can neither hit nor plant an entry. */
static const char *scope_of(const struct agent *a) { return *a->state.scope ? a->state.scope : "unknown"; }
static const char *provider_of(const struct agent *a) { return *a->state.provider ? a->state.provider : "builtin"; }
static const char *model_of(const struct agent *a) { return *a->state.model ? a->state.model : "unknown"; }

/* The key text (hashed with md5 by the database): target | catalog version | role scope |
 * provider | model | mode | question.  An answer is only ever served to a run asked in the same
 * scope, of the same provider and model (docs/shared-memory.md).  Heap; *version heap too. */
static char *key_text(struct agent *a, char **version)
{
	const char *p[1] = {a->state.target};
	char *norm = agent_normalize_question(a->state.question);
	struct sb k = SB_INIT;
	PGresult *r;

	*version = NULL;
	/* The catalog's version: a re-indexed schema invalidates every entry of the target. */
	if ((r = db_query(a->app, "SELECT version::text FROM askql.cat_targets WHERE name = $1", 1, p, NULL, 0))) {
		if (PQntuples(r) == 1)
			*version = strdup(PQgetvalue(r, 0, 0));
		PQclear(r);
	}
	if (!*version)
		*version = strdup("");
	sb_printf(&k, "%s|%s|%s|%s|%s|%s|%s", a->state.target, *version, scope_of(a), provider_of(a), model_of(a),
	          run_mode_name(a->state.mode), norm);
	free(norm);
	return sb_steal(&k);
}

char *cache_lookup(struct agent *a)
{
	char *ver, *key;
	const char *p[1];
	PGresult *r;
	char *sql = NULL;

	if (conf_get_int("query_cache_ttl_s") <= 0)
		return NULL;
	key = key_text(a, &ver);
	p[0] = key;
	r = db_query(a->app, "UPDATE askql.query_cache SET hits = hits + 1, last_used_at = now()"
	                     " WHERE key = md5($1) AND expires_at > now() RETURNING sql", 1, p, NULL, 0);
	if (r && PQntuples(r) == 1)
		sql = strdup(PQgetvalue(r, 0, 0));
	PQclear(r);
	free(key);
	free(ver);
	return sql;
}

enum err cache_store(struct agent *a, const char *sql, enum cache_origin origin)
{
	char *ver, *key, *norm, rid[32], ttl[32], max[32], err[256];
	const char *p[12];
	long ttl_s = conf_get_int("query_cache_ttl_s"), mx = conf_get_int("query_cache_max");
	enum err rc;

	if (ttl_s <= 0 || !sql)
		return OK;
	key = key_text(a, &ver);
	norm = agent_normalize_question(a->state.question);
	snprintf(rid, sizeof rid, "%lld", a->run_id);
	snprintf(ttl, sizeof ttl, "%ld", ttl_s);
	snprintf(max, sizeof max, "%ld", mx > 0 ? mx : 1000);
	p[0] = key;
	p[1] = a->state.target;
	p[2] = ver;
	p[3] = run_mode_name(a->state.mode);
	p[4] = norm;
	p[5] = sql;
	p[6] = a->run_id > 0 ? rid : NULL;
	p[7] = ttl;
	p[8] = scope_of(a);
	p[9] = provider_of(a);
	p[10] = model_of(a);
	p[11] = origin == CACHE_ACCEPTED ? "accepted" : "generated";
	rc = db_exec(a->app, "INSERT INTO askql.query_cache(key, target, catalog_version, mode, question, sql,"
	                     " run_id, expires_at, scope, provider, model, origin) VALUES (md5($1), $2, $3, $4, $5, $6, $7,"
	                     " now() + make_interval(secs => $8::int), $9, $10, $11, $12)"
	                     " ON CONFLICT (key) DO UPDATE SET sql = EXCLUDED.sql, run_id = EXCLUDED.run_id,"
	                     " origin = EXCLUDED.origin, last_used_at = now(), expires_at = EXCLUDED.expires_at",
	             12, p, err, sizeof err);
	if (rc != OK) {
		log_warn("query cache store: %s", err);
		goto out;
	}
	/* LRU: keep the most recently used max entries; expired ones go too */
	p[0] = max;
	db_exec(a->app, "DELETE FROM askql.query_cache WHERE expires_at <= now() OR key IN"
	                " (SELECT key FROM askql.query_cache ORDER BY last_used_at DESC OFFSET $1::int)",
	        1, p, NULL, 0);
out:
	free(key);
	free(ver);
	free(norm);
	return rc;
}

/*
 * The one rule for what a finished run shares by itself: SQL the system generated for the question
 * as asked.  Not when an analyst shaped the run (edited SQL or plan, a rejection, an edited parent),
 * not a follow-up (its words mean something only after its parent: no_cache), not a cache hit (the
 * entry is there already).  An admin's acceptance of a verified mark is the only other way in
 * (verify.c).
 */
void cache_offer(struct agent *a, const char *sql)
{
	if (a->state.no_cache || a->state.from_cache || a->state.edited)
		return;
	cache_store(a, sql, CACHE_GENERATED);
}

void cache_forget(struct agent *a)
{
	char *ver, *key = key_text(a, &ver);
	const char *p[1] = {key};

	db_exec(a->app, "DELETE FROM askql.query_cache WHERE key = md5($1)", 1, p, NULL, 0);
	free(key);
	free(ver);
}

enum err cache_forget_run(PGconn *app, long long run_id)
{
	char rid[32];
	const char *p[1] = {rid};

	snprintf(rid, sizeof rid, "%lld", run_id);
	return db_exec(app, "DELETE FROM askql.query_cache WHERE run_id = $1", 1, p, NULL, 0);
}
