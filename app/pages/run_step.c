/* run_step.c: POST /runs/N/step: the analyst's decision on a paused run (approve, edit SQL, reject, stop, plan edits). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "agent/agent.h"
#include "agent/planner.h"
#include "pages/pages.h"
#include "store/db.h"
#include "util/arena.h"
#include "util/log.h"


#define MAX_EDITS 32

/* "table.column=value" into a mapping edit (arena strings); 0 when malformed. */
static int mapping(struct req *r, const char *s, struct planner_edit *e)
{
	const char *dot = strchr(s, '.'), *eq = dot ? strchr(dot, '=') : NULL;

	if (!dot || !eq || dot == s || eq == dot + 1)
		return 0;
	e->table = arena_strndup(r->a, s, (size_t)(dot - s));
	e->column = arena_strndup(r->a, dot + 1, (size_t)(eq - dot - 1));
	e->value = arena_strdup(r->a, eq + 1);
	return e->table && e->column && e->value;
}

static enum err run_step(struct req *r)
{
	const char *action = req_param(r, "action"), *v;
	struct agent_decision d;
	struct agent_result res;
	struct planner_edit edits[MAX_EDITS];
	cJSON *run = NULL;
	char to[48];
	enum err e;

	/* ownership first: other users' runs do not exist for this user */
	if ((e = run_load(r, r->arg_id, &run)) != OK)
		return e;
	cJSON_Delete(run);
	memset(&d, 0, sizeof d);
	memset(edits, 0, sizeof edits);
	d.user_id = r->user.id;
	d.comment = req_param(r, "comment");
	if (!action)
		return ERR_INPUT;
	if (!strcmp(action, "approve")) {
		d.kind = AGENT_APPROVE;
	} else if (!strcmp(action, "edit")) {
		d.kind = AGENT_EDIT;
		d.sql = req_param(r, "sql");
		if (!d.sql || !*d.sql)
			return ERR_INPUT;
	} else if (!strcmp(action, "reject")) {
		d.kind = AGENT_REJECT;
	} else if (!strcmp(action, "stop")) {
		d.kind = AGENT_STOP;
	} else if (!strcmp(action, "plan")) {
		/* every change of the plan form at once: checked removals plus the additions */
		const char **vals;
		int nv;

		d.kind = AGENT_PLAN_EDIT;
		nv = req_params_all(r, "remove_table", &vals);
		for (int i = 0; i < nv && d.nedits < MAX_EDITS; i++)
			if (*vals[i])
				edits[d.nedits++] = (struct planner_edit){.op = PLAN_REMOVE_TABLE, .table = vals[i]};
		nv = req_params_all(r, "remove_mapping", &vals);
		for (int i = 0; i < nv && d.nedits < MAX_EDITS; i++) {
			if (!*vals[i])
				continue;
			edits[d.nedits].op = PLAN_REMOVE_MAPPING;
			if (!mapping(r, vals[i], &edits[d.nedits++]))
				return ERR_INPUT;
		}
		if ((v = req_param(r, "add_table")) && *v && d.nedits < MAX_EDITS)
			edits[d.nedits++] = (struct planner_edit){.op = PLAN_ADD_TABLE, .table = v};
		if ((v = req_param(r, "add_mapping")) && *v && d.nedits < MAX_EDITS) {
			edits[d.nedits].op = PLAN_ADD_MAPPING;
			if (!mapping(r, v, &edits[d.nedits++]))
				return ERR_INPUT;
		}
		if (!d.nedits)
			d.kind = AGENT_APPROVE;      /* nothing changed: go on as planned */
		d.edits = edits;
	} else {
		return ERR_INPUT;
	}
	memset(&res, 0, sizeof res);
	e = agent_resume(db_app(), r->arg_id, &d, &res);
	log_info("run %lld: %s -> %s", r->arg_id, action, e == OK ? res.status : err_str(e));
	agent_result_free(&res);
	if (e == ERR_DENIED)
		e = OK;               /* resumed elsewhere meanwhile: show the run as it is now */
	if (e == ERR_NOTFOUND)
		return e;
	/* a decision that does not fit (e.g. edited SQL the guard refuses): the run stays paused
	 * and its page says so */
	snprintf(to, sizeof to, e == ERR_INPUT ? "/runs/%lld?notice=refused" : "/runs/%lld", r->arg_id);
	if (e != OK && e != ERR_INPUT)
		return e;
	return resp_redirect(r, to);
}

/* Every decision but stop resumes the run in this worker, so it takes a run slot; stopping is
 * always allowed, it frees one. */
enum err page_run_step(struct req *r)
{
	const char *action = req_param(r, "action");

	if (action && !strcmp(action, "stop"))
		return run_step(r);
	return page_limited(r, SLOT_RUN, run_step);
}
