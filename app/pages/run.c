/* run.c: the run page: steps, SQL, answer, result table and chart, confirmation forms, downloads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "pages/pages.h"
#include "store/db.h"
#include "store/run.h"
#include "util/log.h"

/* The pause of a step-mode run as form data: stage, plan tables and mappings, proposed SQL. */
static void add_pause(cJSON *d)
{
	cJSON *st = cJSON_GetObjectItemCaseSensitive(d, "state"), *pause, *stage, *plan, *sql;

	if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d, "paused")) || !cJSON_IsObject(st))
		return;
	pause = cJSON_GetObjectItemCaseSensitive(st, "pause");
	if (!cJSON_IsObject(pause))
		pause = st;
	stage = cJSON_GetObjectItemCaseSensitive(pause, "stage");
	plan = cJSON_GetObjectItemCaseSensitive(pause, "plan");
	sql = cJSON_GetObjectItemCaseSensitive(pause, "sql");
	{
		cJSON *p = cJSON_AddObjectToObject(d, "pause");
		const char *sv = cJSON_IsString(stage) ? stage->valuestring : "sql";
		char key[32];

		cJSON_AddStringToObject(p, "stage", sv);
		snprintf(key, sizeof key, "stage_%s", sv);
		cJSON_AddBoolToObject(p, key, 1);
		if (cJSON_IsString(sql))
			cJSON_AddStringToObject(p, "sql", sql->valuestring);
		if (cJSON_IsObject(plan)) {
			static const char *const lists[] = {"tables", "columns", "joins", "mappings", NULL};

			for (const char *const *l = lists; *l; l++) {
				cJSON *src = cJSON_GetObjectItemCaseSensitive(plan, *l), *it, *dst;

				if (!cJSON_IsArray(src))
					continue;
				dst = cJSON_AddArrayToObject(p, *l);
				cJSON_ArrayForEach(it, src) {
					cJSON *o = cJSON_CreateObject();
					char *txt;

					if (cJSON_IsString(it)) {
						cJSON_AddStringToObject(o, "name", it->valuestring);
						cJSON_AddStringToObject(o, "text", it->valuestring);
						cJSON_AddStringToObject(o, "key", it->valuestring);
					} else {
						const cJSON *n = cJSON_GetObjectItemCaseSensitive(it, "name");
						const cJSON *t = cJSON_GetObjectItemCaseSensitive(it, "table");
						const cJSON *c = cJSON_GetObjectItemCaseSensitive(it, "column");
						const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, "value");
						const cJSON *sc = cJSON_GetObjectItemCaseSensitive(it, "score");
						const cJSON *ph = cJSON_GetObjectItemCaseSensitive(it, "phrase");

						txt = cJSON_PrintUnformatted(it);
						cJSON_AddStringToObject(o, "text", txt ? txt : "");
						free(txt);
						if (cJSON_IsString(n))
							cJSON_AddStringToObject(o, "name", n->valuestring);
						else if (cJSON_IsString(t))
							cJSON_AddStringToObject(o, "name", t->valuestring);
						if (cJSON_IsString(t))
							cJSON_AddStringToObject(o, "table", t->valuestring);
						if (cJSON_IsString(c))
							cJSON_AddStringToObject(o, "column", c->valuestring);
						if (cJSON_IsString(v))
							cJSON_AddStringToObject(o, "value", v->valuestring);
						if (cJSON_IsString(ph))
							cJSON_AddStringToObject(o, "phrase", ph->valuestring);
						if (cJSON_IsNumber(sc)) {
							char b[16];

							snprintf(b, sizeof b, "%.2f", sc->valuedouble);
							cJSON_AddStringToObject(o, "score", b);
						}
						/* the key a remove button posts: table, or table.column=value */
						if (!strcmp(*l, "mappings") && cJSON_IsString(t) && cJSON_IsString(c) && cJSON_IsString(v)) {
							struct sb k = SB_INIT;

							sb_printf(&k, "%s.%s=%s", t->valuestring, c->valuestring, v->valuestring);
							cJSON_AddStringToObject(o, "key", sb_cstr(&k));
							sb_free(&k);
						} else if (cJSON_IsString(n) || cJSON_IsString(t)) {
							cJSON_AddStringToObject(o, "key", cJSON_IsString(n) ? n->valuestring : t->valuestring);
						}
					}
					cJSON_AddItemToArray(dst, o);
				}
			}
		}
	}
}

enum err page_run(struct req *r)
{
	cJSON *d, *run = NULL, *steps = NULL;
	enum err e;
	double t0 = now_ms();

	if ((e = run_load(r, r->arg_id, &run)) != OK)
		return e;
	/* a run whose worker died shows as failed, not as running for ever */
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(run, "running")) && run_sweep(db_app()) > 0) {
		cJSON_Delete(run);
		if ((e = run_load(r, r->arg_id, &run)) != OK)
			return e;
	}
	if ((e = run_steps_json(r, r->arg_id, 0, &steps)) != OK) {
		cJSON_Delete(run);
		return e;
	}
	d = view_data(r, "run.title");
	cJSON_AddItemToObject(d, "run", run);
	cJSON_AddItemToObject(run, "steps", steps);
	{
		int n = cJSON_GetArraySize(steps);

		cJSON_AddNumberToObject(run, "last_seq", n ? cJSON_GetNumberValue(
			cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(steps, n - 1), "seq")) : 0);
	}
	add_pause(run);
	if (req_param(r, "notice") && !strcmp(req_param(r, "notice"), "refused"))
		cJSON_AddStringToObject(d, "notice", view_t(r, "web.decision_refused"));
	else if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
	             cJSON_GetObjectItemCaseSensitive(run, "state"), "pause"), "note")))
		cJSON_AddStringToObject(d, "notice", view_t(r, "web.comment_not_applied"));
	cJSON_AddBoolToObject(d, "can_edit", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(run, "paused")));
	e = view_render(r, 200, "run", d);
	log_info("run page %lld rendered in %.3f ms", r->arg_id, now_ms() - t0);
	return e;
}

enum err page_run_stream(struct req *r)
{
	char to[48];

	snprintf(to, sizeof to, "/runs/%lld", r->arg_id);
	return resp_redirect(r, to);
}
