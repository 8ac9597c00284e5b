/* ask.c: the start page: question box, mode, extraction or ReAct, provider in use, example questions. */
#include <stdio.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "pages/pages.h"
#include "store/level.h"
#include "store/db.h"
#include "util/conf.h"

/* One example: its text and a link that fills the question box (URL-encoded here, HTML-escaped by the template). */
static void example(cJSON *ex, const char *q)
{
	cJSON *o = cJSON_CreateObject();
	struct sb h = SB_INIT;

	sb_puts(&h, "/?q=");
	sb_url(&h, q);
	cJSON_AddStringToObject(o, "text", q);
	cJSON_AddStringToObject(o, "href", sb_cstr(&h));
	cJSON_AddItemToArray(ex, o);
	sb_free(&h);
}

/* Example questions: the catalog's verified questions first (most used), then verified runs,
 * then stock questions known to work on the demo database.  A question can name a patient: a
 * verified run's only when the viewer's current level allows what the run read, the catalog's
 * only to a viewer who reads the target identified (docs/privacy.md, "Stored results and the
 * viewer's level now"). */
static void examples(struct req *r, cJSON *d)
{
	cJSON *ex = cJSON_AddArrayToObject(d, "examples");
	char uid[24];
	const char *p[2] = {conf_get("target_name"), uid};
	struct sb q = SB_INIT;

	snprintf(uid, sizeof uid, "%lld", r->user.id);
	sb_puts(&q, "(SELECT v.question FROM askql.cat_verified v WHERE v.target = $1 AND ");
	level_sql_viewer(&q, "v", 2);
	sb_puts(&q, " = 'identified' ORDER BY v.success_count DESC, v.id LIMIT 3) UNION ALL "
	            "(SELECT r.question FROM askql.runs r WHERE r.verified AND r.status = 'ok' AND ");
	level_sql_allows(&q, "r", 2);
	sb_puts(&q, " ORDER BY r.created_at DESC LIMIT 3)");
	PGresult *res = sb_ok(&q) ? db_query(db_app(), sb_cstr(&q), 2, p, NULL, 0) : NULL;
	sb_free(&q);

	for (int i = 0; res && i < PQntuples(res) && cJSON_GetArraySize(ex) < 3; i++) {
		int dup = 0;
		cJSON *it;

		cJSON_ArrayForEach(it, ex)
			dup |= !strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "text")), PQgetvalue(res, i, 0));
		if (!dup)
			example(ex, PQgetvalue(res, i, 0));
	}
	PQclear(res);
	for (int i = 1; i <= 4; i++) {
		char key[24];
		const char *q;

		snprintf(key, sizeof key, "web.example_%d", i);
		q = view_t(r, key);
		if (strcmp(q, key))
			example(ex, q);
	}
	cJSON_AddBoolToObject(d, "has_examples", cJSON_GetArraySize(ex) > 0);
}

enum err page_ask(struct req *r)
{
	cJSON *d = view_data(r, "ask.title");
	const char *q = req_param(r, "q");
	long long parent = req_param_int(r, "parent", 0);

	if (!d)
		return ERR_NOMEM;
	cJSON_AddStringToObject(d, "question", q ? q : "");
	if (parent > 0)
		cJSON_AddNumberToObject(d, "parent", (double)parent);
	cJSON_AddStringToObject(d, "provider", conf_get("llm_provider"));
	cJSON_AddStringToObject(d, "model", !strcmp(conf_get("llm_provider"), "builtin") ? "" : conf_get("llm_model"));
	cJSON_AddStringToObject(d, "target", conf_get("target_name"));
	/* a selector when there is more than one database, the default chosen */
	view_targets(d, NULL);
	examples(r, d);
	return view_render(r, 200, "ask", d);
}
