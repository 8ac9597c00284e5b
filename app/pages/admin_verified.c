/* admin_verified.c: /admin/verified: the analysts' proposed verified queries, which an admin accepts or rejects, and the accepted ones (docs/shared-memory.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "agent/agent.h"
#include "pages/pages.h"
#include "store/db.h"
#include "util/log.h"
#include "util/sb.h"

/* The columns each list shows: who asked, who proposed or reviewed, and what the reviewer needs to
 * judge the SQL: whether the analyst wrote it (edited), the provider and model, a follow-up's parent. */
#define VERIFIED_COLS \
	"SELECT r.id, r.question, r.sql, r.target, r.provider, coalesce(r.state->>'model', '') AS model, " \
	"r.edited::text AS edited, CASE WHEN r.edited THEN 1 END AS is_edited, r.parent_id, " \
	"u.name AS owner, pu.name AS proposer, ru.name AS reviewer, " \
	"to_char(r.created_at, 'YYYY-MM-DD HH24:MI') AS created, " \
	"to_char(r.verify_proposed_at, 'YYYY-MM-DD HH24:MI') AS proposed_at, " \
	"to_char(r.verify_reviewed_at, 'YYYY-MM-DD HH24:MI') AS reviewed_at " \
	"FROM askql.runs r LEFT JOIN askql.users u ON u.id = r.user_id " \
	"LEFT JOIN askql.users pu ON pu.id = r.verify_proposed_by " \
	"LEFT JOIN askql.users ru ON ru.id = r.verify_reviewed_by "

static enum err add_list(cJSON *d, const char *key, const char *sql)
{
	PGresult *res = db_query(db_app(), sql, 0, NULL, NULL, 0);

	if (!res)
		return ERR_DB;
	cJSON_AddItemToObject(d, key, view_rows(res));
	PQclear(res);
	return OK;
}

enum err page_admin_verified(struct req *r)
{
	cJSON *d = view_data(r, "web.verified_title");
	enum err e;

	if ((e = add_list(d, "proposals", VERIFIED_COLS "WHERE r.verify_state = 'proposed' "
	                                  "ORDER BY r.verify_proposed_at DESC LIMIT 200")) != OK ||
	    (e = add_list(d, "accepted", VERIFIED_COLS "WHERE r.verify_state = 'accepted' "
	                                 "ORDER BY r.verify_reviewed_at DESC NULLS LAST LIMIT 500")) != OK ||
	    (e = add_list(d, "rejected", VERIFIED_COLS "WHERE r.verify_state = 'rejected' "
	                                 "ORDER BY r.verify_reviewed_at DESC NULLS LAST LIMIT 50")) != OK) {
		cJSON_Delete(d);
		return e;
	}
	return view_render(r, 200, "admin_verified", d);
}

enum err page_verify_apply(struct req *r, long long run_id, enum agent_verify_action act, const char *audit)
{
	enum err e = agent_verify(db_app(), run_id, r->user.id, act);
	char rid[24];
	const char *p[1] = {rid};
	struct sb det = SB_INIT;
	PGresult *res;

	if (e != OK)
		return e;
	/* the audit names the run and its question: the question survives a deleted run */
	snprintf(rid, sizeof rid, "%lld", run_id);
	sb_printf(&det, "{\"run\":%lld", run_id);
	if ((res = db_query(db_app(), "SELECT question, coalesce(verify_state, ''), edited::text FROM askql.runs "
	                              "WHERE id = $1", 1, p, NULL, 0)) && PQntuples(res) == 1) {
		sb_puts(&det, ",\"question\":");
		sb_json_str(&det, PQgetvalue(res, 0, 0));
		sb_puts(&det, ",\"state\":");
		sb_json_str(&det, PQgetvalue(res, 0, 1));
		sb_printf(&det, ",\"edited\":%s", PQgetvalue(res, 0, 2));
	}
	PQclear(res);
	sb_puts(&det, "}");
	view_audit(r, audit, sb_ok(&det) ? sb_cstr(&det) : NULL);
	log_info("run %lld: %s by user %lld", run_id, audit, r->user.id);
	sb_free(&det);
	return OK;
}

enum err page_admin_verified_save(struct req *r)
{
	static const struct {
		const char *action, *audit;
		enum agent_verify_action act;
	} acts[] = {
		{"accept", "verified.accept", VERIFY_ACCEPT},
		{"reject", "verified.reject", VERIFY_REJECT},
		{"withdraw", "verified.withdraw", VERIFY_RETRACT},
	};
	const char *action = req_param(r, "action");
	long long id = req_param_int(r, "id", 0);
	enum err e;

	if (!action || id <= 0)
		return ERR_INPUT;
	for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++) {
		if (strcmp(action, acts[i].action))
			continue;
		e = page_verify_apply(r, id, acts[i].act, acts[i].audit);
		return e == OK ? resp_redirect(r, "/admin/verified") : e;
	}
	return ERR_INPUT;
}
