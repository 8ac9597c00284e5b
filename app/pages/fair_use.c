/* fair_use.c: per-user limits on concurrent runs and downloads, answered 429 with Retry-After. */
#include <stdio.h>
#include <cjson/cJSON.h>
#include "pages/pages.h"
#include "store/db.h"
#include "store/slot.h"
#include "util/conf.h"
#include "util/i18n.h"
#include "util/log.h"
#include "util/sb.h"

/* The 429: the reason and when to come back, for a browser or for a script. */
static enum err busy(struct req *r, enum slot_kind kind, long max)
{
	char secs[24], maxs[24];
	const char *key = kind == SLOT_RUN ? "limit.runs" : "limit.downloads";
	struct sb msg;
	long wait = conf_get_int("user_limit_retry_s");

	snprintf(secs, sizeof secs, "%ld", wait > 0 ? wait : 1);
	snprintf(maxs, sizeof maxs, "%ld", max);
	sb_init_arena(&msg, r->a);
	i18n_format(&msg, r->lang, key, (const char *const[]){"max", maxs, "seconds", secs, NULL});
	resp_header(r, "Retry-After", secs);
	if (r->via_token) {
		cJSON *j = cJSON_CreateObject();
		enum err e;

		if (!j)
			return ERR_NOMEM;
		cJSON_AddStringToObject(j, "error", "Too Many Requests");
		cJSON_AddNumberToObject(j, "status", 429);
		cJSON_AddStringToObject(j, "message", sb_cstr(&msg));
		cJSON_AddNumberToObject(j, "retry_after", (double)(wait > 0 ? wait : 1));
		e = resp_json(r, 429, j);
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
		return view_render(r, 429, "ask", d);
	}
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
		return busy(r, kind, max);
	}
	if (e != OK)
		return e;
	e = fn(r);
	slot_give(db_app(), kind, r->user.id, slot);
	return e;
}
