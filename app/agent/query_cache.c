/* query_cache.c: the query cache in the app schema (target, catalog version, provider, model, mode, question; LRU with TTL). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/agent_int.h"
#include "store/db.h"
#include "util/conf.h"
#include "util/log.h"
#include "util/sb.h"

/* The key text (hashed with md5 by the database): target | catalog version | provider | model |
 * mode | question, so an answer of one provider or model is never served to a run of another. */
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
	{
		const char *prov = *a->state.provider ? a->state.provider : "builtin";

		sb_printf(&k, "%s|%s|%s|%s|%s|%s", a->state.target, *version, prov,
		          strcmp(prov, "builtin") ? conf_get("llm_model") : "", run_mode_name(a->state.mode), norm);
	}
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

void cache_store(struct agent *a, const char *sql)
{
	char *ver, *key, *norm, rid[32], ttl[32], max[32], err[256];
	const char *p[8];
	long ttl_s = conf_get_int("query_cache_ttl_s"), mx = conf_get_int("query_cache_max");

	if (ttl_s <= 0 || !sql)
		return;
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
	if (db_exec(a->app, "INSERT INTO askql.query_cache(key, target, catalog_version, mode, question, sql,"
	                    " run_id, expires_at) VALUES (md5($1), $2, $3, $4, $5, $6, $7,"
	                    " now() + make_interval(secs => $8::int))"
	                    " ON CONFLICT (key) DO UPDATE SET sql = EXCLUDED.sql, run_id = EXCLUDED.run_id,"
	                    " last_used_at = now(), expires_at = EXCLUDED.expires_at",
	            8, p, err, sizeof err) != OK)
		log_warn("query cache store: %s", err);
	/* LRU: keep the most recently used max entries; expired ones go too */
	p[0] = max;
	db_exec(a->app, "DELETE FROM askql.query_cache WHERE expires_at <= now() OR key IN"
	                " (SELECT key FROM askql.query_cache ORDER BY last_used_at DESC OFFSET $1::int)",
	        1, p, NULL, 0);
	free(key);
	free(ver);
	free(norm);
}

void cache_forget(struct agent *a)
{
	char *ver, *key = key_text(a, &ver);
	const char *p[1] = {key};

	db_exec(a->app, "DELETE FROM askql.query_cache WHERE key = md5($1)", 1, p, NULL, 0);
	free(key);
	free(ver);
}
