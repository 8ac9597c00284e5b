/* fair_use.c: per-user limits on concurrent runs and downloads, answered 429 with Retry-After; the notice pages they share. */
#include <stdio.h>
#include <cjson/cJSON.h>
#include "pages/pages.h"
#include "store/db.h"
#include "store/slot.h"
#include "util/conf.h"
#include "util/i18n.h"
#include "util/log.h"
#include "util/sb.h"

enum err page_notice(struct req *r, int status, const char *key, const char *const *vars, long retry_s)
{
	char secs[24];
	struct sb msg;

	sb_init_arena(&msg, r->a);
	i18n_format(&msg, r->lang, key, vars);
	if (retry_s > 0) {
		snprintf(secs, sizeof secs, "%ld", retry_s);
		resp_header(r, "Retry-After", secs);
	}
	if (r->via_token) {
		cJSON *j = cJSON_CreateObject();
		enum err e;

		if (!j)
			return ERR_NOMEM;
		cJSON_AddStringToObject(j, "error", resp_status_text(status));
		cJSON_AddNumberToObject(j, "status", status);
		cJSON_AddStringToObject(j, "message", sb_cstr(&msg));
		if (retry_s > 0)
			cJSON_AddNumberToObject(j, "retry_after", (double)retry_s);
		e = resp_json(r, status, j);
		cJSON_Delete(j);
		return e;
	}
	{
		/* the ask form again, the question kept, the reason above it (escaped by the template) */
		cJSON *d = view_data(r, "ask.title");
		const char *q = req_param(r, "question");

		if (!d)
			return ERR_NOMEM;
		cJSON_AddStringToObject(d, "question", q ? q : "");
		cJSON_AddStringToObject(d, "error", sb_cstr(&msg));
		cJSON_AddStringToObject(d, "target", conf_get("target_name"));
		view_targets(d, NULL);
		return view_render(r, status, "ask", d);
	}
}

enum err page_busy(struct req *r, const char *key, long max)
{
	char secs[24], maxs[24];
	long wait = conf_get_int("user_limit_retry_s");

	if (wait < 1)
		wait = 1;
	snprintf(secs, sizeof secs, "%ld", wait);
	snprintf(maxs, sizeof maxs, "%ld", max);
	return page_notice(r, 429, key, (const char *const[]){"max", maxs, "seconds", secs, NULL}, wait);
}

enum err page_limited(struct req *r, enum slot_kind kind, enum err (*fn)(struct req *))
{
	long max = conf_get_int(kind == SLOT_RUN ? "user_max_runs" : "user_max_downloads");
	int slot = -1;
	enum err e;

	e = slot_take(db_app(), kind, r->user.id, (int)(max > SLOT_MAX ? SLOT_MAX : max), &slot);
	if (e == ERR_LIMIT) {
		log_info("user %lld: %ld concurrent %s already, answered 429", r->user.id, max,
		         kind == SLOT_RUN ? "runs" : "downloads");
		return page_busy(r, kind == SLOT_RUN ? "limit.runs" : "limit.downloads", max);
	}
	if (e != OK)
		return e;
	e = fn(r);
	slot_give(db_app(), kind, r->user.id, slot);
	return e;
}
