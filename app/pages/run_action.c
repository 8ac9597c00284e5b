/* run_action.c: POST /runs/N/action: re-run, propose or retract a verified mark, delete (undoable; owner or admin only). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "agent/agent.h"
#include "pages/pages.h"
#include "store/db.h"
#include "store/run.h"
#include "util/arena.h"
#include "util/conf.h"
#include "util/log.h"


static enum err run_action(struct req *r)
{
	const char *action = req_param(r, "action");
	cJSON *run = NULL;
	char to[64];
	enum err e;

	if ((e = run_load(r, r->arg_id, &run)) != OK)
		return e;
	snprintf(to, sizeof to, "/runs/%lld", r->arg_id);
	if (action && strcmp(action, "delete")) {
		/* a run the viewer's current level withholds (issue 27): its asker may re-run its question
		 * at her level (the offer on the withheld page); nobody else gets its words back, and nobody
		 * marks as verified what she cannot see.  Deleting it stays possible. */
		enum level lv;

		if ((e = run_level_check(r, run, &lv)) == ERR_DENIED &&
		    !(!strcmp(action, "rerun") && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(run, "mine")))) {
			e = run_level_refuse(r, run, lv, !strcmp(action, "rerun") ? "levels.rerun_withheld" : "levels.withheld");
			cJSON_Delete(run);
			return e;
		}
		if (e != OK && e != ERR_DENIED) {
			cJSON_Delete(run);
			return e;
		}
		e = OK;
	}
	if (!action) {
		e = ERR_INPUT;
	} else if (!strcmp(action, "rerun")) {
		struct agent_opts o;
		struct agent_result res;
		const cJSON *kind = cJSON_GetObjectItemCaseSensitive(run, "kind");

		memset(&o, 0, sizeof o);
		memset(&res, 0, sizeof res);
		o.user_id = r->user.id;
		o.mode = cJSON_IsString(kind) && !strcmp(kind->valuestring, "react") ? "react" : "extract";
		o.step_mode = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(run, "step_mode"));
		o.no_cache = 1;     /* a re-run means: really run it again */
		/* and against the database the run asked, not the default one; agent_start resolves the
		 * name again and applies the user's current level there (a target gone since is an error) */
		{
			const char *tg = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "target"));

			o.target = tg && *tg ? arena_strdup(r->a, tg) : NULL;
		}
		if ((e = agent_start(db_app(), &o, cJSON_GetStringValue(
		                  cJSON_GetObjectItemCaseSensitive(run, "question")), &res)) == OK && res.run_id) {
			snprintf(to, sizeof to, "/runs/%lld", res.run_id);
		}
		agent_result_free(&res);
	} else if (!strcmp(action, "verify")) {
		/* an analyst's mark is a proposal for an admin; an admin's mark is the admin's acceptance
		 * (docs/shared-memory.md) */
		int admin = r->user.role && !strcmp(r->user.role, "admin");

		e = page_verify_apply(r, r->arg_id, admin ? VERIFY_ACCEPT : VERIFY_PROPOSE,
		                      admin ? "verified.accept" : "verified.propose");
		if (e == ERR_NOTFOUND)
			e = ERR_INPUT;     /* nothing verifiable: a bad request, not a missing run */
	} else if (!strcmp(action, "unverify")) {
		e = page_verify_apply(r, r->arg_id, VERIFY_RETRACT, "verified.retract");
	} else if (!strcmp(action, "delete")) {
		/* hidden, not gone: history offers an undo for conf history_undo_s (history.c) */
		e = run_trash(db_app(), r->arg_id, r->user.id, r->user.role && !strcmp(r->user.role, "admin"),
		              conf_get_int("history_undo_s"));
		snprintf(to, sizeof to, "/history?done=deleted&id=%lld", r->arg_id);
	} else {
		e = ERR_INPUT;
	}
	cJSON_Delete(run);
	if (e != OK)
		return e;
	log_info("run %lld: %s", r->arg_id, action);
	/* next= is P_PATH: a local path or "/" by now */
	return resp_redirect(r, !strcmp(action, "rerun") || !strcmp(action, "delete") || !req_param(r, "next")
	                        ? to : req_param(r, "next"));
}

/* A re-run works in this worker like a new run, so it takes a run slot; the other actions do not. */
enum err page_run_action(struct req *r)
{
	const char *action = req_param(r, "action");

	if (action && !strcmp(action, "rerun"))
		return page_limited(r, SLOT_RUN, run_action);
	return run_action(r);
}
