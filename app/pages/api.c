/* api.c: the JSON API for scripts and notebooks (bearer token): start a run, read it and its steps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "agent/agent.h"
#include "pages/pages.h"
#include "store/access.h"
#include "store/db.h"
#include "util/log.h"


/* A field of the JSON body, else the declared form parameter. */
static const char *field(struct req *r, const cJSON *body, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(body, name);

	if (cJSON_IsString(v))
		return v->valuestring;
	return req_param(r, name);
}

static enum err runs_start(struct req *r)
{
	cJSON *body = NULL, *j;
	const char *q, *mode, *kind;
	struct agent_opts o;
	struct agent_result res;
	char *txt;
	enum err e;

	if (r->ctype && !strncmp(r->ctype, "application/json", 16) && r->body)
		if (!(body = cJSON_ParseWithLength(r->body, r->body_len)))
			return ERR_INPUT;
	q = field(r, body, "question");
	mode = field(r, body, "mode");
	kind = field(r, body, "kind");
	if (!q || !*q || strlen(q) > 2000) {
		cJSON_Delete(body);
		return ERR_INPUT;
	}
	memset(&o, 0, sizeof o);
	memset(&res, 0, sizeof res);
	o.user_id = r->user.id;
	o.mode = kind && !strcmp(kind, "react") ? "react" : "extract";
	o.step_mode = mode && !strcmp(mode, "step");
	{
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(body, "parent");

		o.parent_id = cJSON_IsNumber(p) ? (long long)p->valuedouble : req_param_int(r, "parent", 0);
	}
	if (o.parent_id) {
		cJSON *chk = NULL;
		enum level lv;

		if (run_load(r, o.parent_id, &chk) != OK) {
			cJSON_Delete(body);
			return ERR_NOTFOUND;
		}
		/* a follow-up carries its parent's question, SQL and plan into the new run and the prompt:
		 * only of a run the caller's current level allows (issue 27), as on the web (run_start.c) */
		if ((e = run_level_check(r, chk, &lv)) != OK) {
			if (e == ERR_DENIED)
				e = run_level_refuse(r, chk, lv, "levels.followup_withheld");
			cJSON_Delete(chk);
			cJSON_Delete(body);
			return e;
		}
		cJSON_Delete(chk);
	}
	e = agent_start(db_app(), &o, q, &res);
	cJSON_Delete(body);
	if (e != OK) {
		agent_result_free(&res);
		return e;
	}
	txt = agent_result_json(&res);
	j = txt ? cJSON_Parse(txt) : NULL;
	free(txt);
	if (!j)
		j = cJSON_CreateObject();
	if (!cJSON_GetObjectItemCaseSensitive(j, "run_id"))
		cJSON_AddNumberToObject(j, "run_id", (double)res.run_id);
	{
		char url[64];

		snprintf(url, sizeof url, "/api/runs/%lld", res.run_id);
		cJSON_AddStringToObject(j, "url", url);
		resp_header(r, "Location", url);
	}
	agent_result_free(&res);
	e = resp_json(r, 201, j);
	cJSON_Delete(j);
	return e;
}

enum err api_runs_start(struct req *r)
{
	return page_limited(r, SLOT_RUN, runs_start);
}

/* The run without page-only fields (rendered HTML, paging links). */
static void strip(cJSON *run)
{
	static const char *const drop[] = {"sql_html", "chart_svg", "columns", "rows", "paging", "status_text",
	                                   "has_result", "preview_rows", "chart_kind", "chart_chooser", "error_text", NULL};

	for (const char *const *k = drop; *k; k++)
		cJSON_DeleteItemFromObjectCaseSensitive(run, *k);
	for (cJSON *c = run->child, *n; c; c = n) {
		n = c->next;
		if (!strncmp(c->string, "status_", 7))
			cJSON_DeleteItemFromObjectCaseSensitive(run, c->string);
	}
}


enum err api_run(struct req *r)
{
	cJSON *run = NULL;
	char ids[24];
	const char *p[1] = {ids};
	PGresult *res;
	enum err e;

	if ((e = run_load(r, r->arg_id, &run)) != OK)
		return e;
	if (run_withhold(r, run, &e))
		return e;
	strip(run);
	/* the result as stored: columns and preview rows, plain JSON */
	snprintf(ids, sizeof ids, "%lld", r->arg_id);
	res = db_query(db_app(), "SELECT columns::text, preview::text FROM askql.runs WHERE id = $1", 1, p, NULL, 0);
	if (res && PQntuples(res) == 1) {
		if (!PQgetisnull(res, 0, 0))
			cJSON_AddItemToObject(run, "columns", cJSON_Parse(PQgetvalue(res, 0, 0)));
		if (!PQgetisnull(res, 0, 1))
			cJSON_AddItemToObject(run, "rows", cJSON_Parse(PQgetvalue(res, 0, 1)));
	}
	PQclear(res);
	{
		/* the rows sent are an access, audited first; none are sent when that fails */
		cJSON *rows = cJSON_GetObjectItemCaseSensitive(run, "rows");

		if (cJSON_IsObject(rows))
			rows = cJSON_GetObjectItemCaseSensitive(rows, "rows");
		if (cJSON_IsArray(rows) &&
		    view_access(r, run, ACCESS_VIEW, "json", cJSON_GetArraySize(rows), 0) != OK) {
			cJSON_Delete(run);
			return page_notice(r, 503, "audit.unavailable", NULL, 0);
		}
	}
	e = resp_json(r, 200, run);
	cJSON_Delete(run);
	return e;
}

enum err api_run_steps(struct req *r)
{
	cJSON *run = NULL, *steps = NULL, *s;
	enum err e;

	if ((e = run_load(r, r->arg_id, &run)) != OK)
		return e;
	if (run_withhold(r, run, &e))
		return e;
	if ((e = run_steps_json(r, r->arg_id, (int)req_param_int(r, "after", 0), &steps)) != OK) {
		cJSON_Delete(run);
		return e;
	}
	cJSON_ArrayForEach(s, steps) {
		cJSON_DeleteItemFromObjectCaseSensitive(s, "sql_html");
		cJSON_DeleteItemFromObjectCaseSensitive(s, "label");
	}
	/* steps carry result rows (previews): an access, audited first; nothing is sent when that
	 * fails (issue 27).  Rows: those the run keeps, which its steps can show. */
	const cJSON *pr = cJSON_GetObjectItemCaseSensitive(run, "preview_rows");

	if (cJSON_GetArraySize(steps) > 0 &&
	    view_access_detail(r, run, ACCESS_VIEW, "json", cJSON_IsNumber(pr) ? (long long)pr->valuedouble : 0, 0,
	                       "{\"via\":\"steps\"}", NULL) != OK) {
		cJSON_Delete(steps);
		cJSON_Delete(run);
		return page_notice(r, 503, "audit.unavailable", NULL, 0);
	}
	cJSON_Delete(run);
	e = resp_json(r, 200, steps);
	cJSON_Delete(steps);
	return e;
}
