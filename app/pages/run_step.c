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

/* The same SQL apart from line ends and surrounding space (a textarea posts CRLF). */
static int same_sql(const char *a, const char *b)
{
	while (*a && strchr(" \t\r\n", *a)) a++;
	while (*b && strchr(" \t\r\n", *b)) b++;
	for (;;) {
		while (*a == '\r') a++;
		while (*b == '\r') b++;
		if (!*a || !*b) {
			while (*a && strchr(" \t\r\n;", *a)) a++;
			while (*b && strchr(" \t\r\n;", *b)) b++;
			return !*a && !*b;
		}
		if (*a != *b)
			return 0;
		a++, b++;
	}
}

static int posted(const char **vals, int nv, const char *v)
{
	for (int i = 0; i < nv; i++)
		if (!strcmp(vals[i], v))
			return 1;
	return 0;
}

/*
 * The plan form ticks what to INCLUDE (issue 15): every table, column and value mapping the
 * paused plan offered (read from the run's state, not from the form) that is not ticked is a
 * removal.  0, or -1 when an edit does not fit.
 */
static int include_edits(struct req *r, const cJSON *run, struct planner_edit *edits, int *n)
{
	const cJSON *plan = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(run, "state"), "pause"), "plan"), *it;
	const char **tv, **cv, **mv;
	int nt = req_params_all(r, "include_table", &tv), nc = req_params_all(r, "include_column", &cv);
	int nm = req_params_all(r, "include_mapping", &mv);

	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(plan, "tables")) {
		const char *t = cJSON_IsString(it) ? it->valuestring
		                                   : cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "name"));

		if (t && !posted(tv, nt, t) && *n < MAX_EDITS)
			edits[(*n)++] = (struct planner_edit){.op = PLAN_REMOVE_TABLE, .table = arena_strdup(r->a, t)};
	}
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(plan, "columns")) {
		const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "table"));
		const char *c = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "column"));
		const char *k;

		if (!t || !c || !(k = arena_printf(r->a, "%s.%s", t, c)))
			continue;
		/* a column of a removed table goes with its table */
		if (!posted(cv, nc, k) && posted(tv, nt, t) && *n < MAX_EDITS)
			edits[(*n)++] = (struct planner_edit){.op = PLAN_REMOVE_COLUMN, .table = arena_strdup(r->a, t),
			                                      .column = arena_strdup(r->a, c)};
	}
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(plan, "mappings")) {
		const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "table"));
		const char *c = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "column"));
		const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "value"));
		const char *k;

		if (!t || !c || !v || !(k = arena_printf(r->a, "%s.%s=%s", t, c, v)))
			continue;
		if (!posted(mv, nm, k) && *n < MAX_EDITS) {
			edits[*n].op = PLAN_REMOVE_MAPPING;
			if (!mapping(r, k, &edits[(*n)++]))
				return -1;
		}
	}
	return 0;
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
	memset(&d, 0, sizeof d);
	memset(edits, 0, sizeof edits);
	d.user_id = r->user.id;
	d.comment = req_param(r, "comment");
	if (!action) {
		e = ERR_INPUT;
		goto out;
	}
	if (!strcmp(action, "run")) {
		/* the SQL form's one button: the box as proposed is an approval, a changed box an edit */
		const char *proposed = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(run, "state"), "pause"), "sql"));

		d.sql = req_param(r, "sql");
		if (!d.sql || !*d.sql) {
			e = ERR_INPUT;
			goto out;
		}
		d.kind = proposed && same_sql(d.sql, proposed) ? AGENT_APPROVE : AGENT_EDIT;
		if (d.kind == AGENT_APPROVE)
			d.sql = NULL;
	} else if (!strcmp(action, "approve")) {
		d.kind = AGENT_APPROVE;
	} else if (!strcmp(action, "edit")) {
		d.kind = AGENT_EDIT;
		d.sql = req_param(r, "sql");
		if (!d.sql || !*d.sql) {
			e = ERR_INPUT;
			goto out;
		}
	} else if (!strcmp(action, "reject")) {
		d.kind = AGENT_REJECT;
	} else if (!strcmp(action, "stop")) {
		d.kind = AGENT_STOP;
	} else if (!strcmp(action, "plan")) {
		/* every change of the plan form at once: checked removals plus the additions */
		const char **vals;
		int nv;

		d.kind = AGENT_PLAN_EDIT;
		if ((v = req_param(r, "ticks")) && !strcmp(v, "include") && include_edits(r, run, edits, &d.nedits)) {
			e = ERR_INPUT;
			goto out;
		}
		/* remove_* (the form before issue 15, scripts) still names removals directly */
		nv = req_params_all(r, "remove_table", &vals);
		for (int i = 0; i < nv && d.nedits < MAX_EDITS; i++)
			if (*vals[i])
				edits[d.nedits++] = (struct planner_edit){.op = PLAN_REMOVE_TABLE, .table = vals[i]};
		nv = req_params_all(r, "remove_mapping", &vals);
		for (int i = 0; i < nv && d.nedits < MAX_EDITS; i++) {
			if (!*vals[i])
				continue;
			edits[d.nedits].op = PLAN_REMOVE_MAPPING;
			if (!mapping(r, vals[i], &edits[d.nedits++])) {
				e = ERR_INPUT;
				goto out;
			}
		}
		if ((v = req_param(r, "add_table")) && *v && d.nedits < MAX_EDITS)
			edits[d.nedits++] = (struct planner_edit){.op = PLAN_ADD_TABLE, .table = v};
		if ((v = req_param(r, "add_mapping")) && *v && d.nedits < MAX_EDITS) {
			edits[d.nedits].op = PLAN_ADD_MAPPING;
			if (!mapping(r, v, &edits[d.nedits++])) {
				e = ERR_INPUT;
				goto out;
			}
		}
		if (!d.nedits)
			d.kind = AGENT_APPROVE;      /* nothing changed: go on as planned */
		d.edits = edits;
	} else {
		e = ERR_INPUT;
		goto out;
	}
	cJSON_Delete(run);
	run = NULL;
	memset(&res, 0, sizeof res);
	e = agent_resume(db_app(), r->arg_id, &d, &res);
	log_info("run %lld: %s -> %s", r->arg_id, action, e == OK ? res.status : err_str(e));
	agent_result_free(&res);
	if (e == ERR_DENIED)
		e = OK;               /* resumed elsewhere meanwhile: show the run as it is now */
	if (e == ERR_NOTFOUND)
		return e;
	/* a decision that does not fit: the run stays paused and its page says so; edited SQL the
	 * guard refused comes back in the box with the reason (run_pause.c), at the box */
	snprintf(to, sizeof to, e == ERR_INPUT ? "/runs/%lld?notice=refused#edit-sql" : "/runs/%lld", r->arg_id);
	if (e != OK && e != ERR_INPUT)
		return e;
	return resp_redirect(r, to);
out:
	cJSON_Delete(run);
	return e;
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
