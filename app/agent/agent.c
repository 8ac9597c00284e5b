/* agent.c: start and resume runs, the state kept in runs.state, steps and results. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "agent/agent_int.h"
#include "agent/planner.h"
#include "catalog/catalog.h"
#include "sql/guard.h"
#include "llm/llm.h"
#include "store/db.h"
#include "store/level.h"
#include "store/target.h"
#include "catalog/llm_policy.h"
#include "util/conf.h"
#include "util/log.h"
#include "util/sb.h"

long long agent_now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000LL + t.tv_nsec / 1000;
}

double agent_ms_since(long long t0_us)
{
	return (double)(agent_now_us() - t0_us) / 1000.0;
}

char *json_text(const cJSON *j)
{
	return j ? cJSON_PrintUnformatted(j) : NULL;
}


void agent_step(struct agent *a, const struct step *s)
{
	long long now = agent_now_us();

	if (step_add(a->app, a->run_id, s, NULL) == OK)
		a->nsteps++;
	/* alive in this worker: at most once a second (reliability checks stale runs) */
	if (now - a->heartbeat_us >= 1000000) {
		run_heartbeat(a->app, a->run_id);
		a->heartbeat_us = now;
	}
}

struct llm *agent_llm(struct agent *a, char *err, size_t errlen)
{
	if (!a->llm && (a->llm = llm_open(a->state.provider, err, errlen)))
		/* the model that plans from now on is part of the cache key of what the run stores */
		run_state_set(&a->state.model, llm_model(a->llm));
	return a->llm;
}

/*
 * Steps are progress records: while a run is being worked on its writes commit without
 * waiting for the WAL flush (a crash loses at most the last few hundred milliseconds of
 * steps, never consistency).  The write that ends or pauses a run is durable again.
 */
void agent_async_commits(struct agent *a, int on)
{
	db_exec(a->app, on ? "SET synchronous_commit = off" : "RESET synchronous_commit", 0, NULL, NULL, 0);
}

static void save_state(struct agent *a, const char *status, const char *error)
{
	struct run_update u = RUN_UPDATE_INIT;
	char *s = run_state_json(&a->state);

	if (status)
		agent_async_commits(a, 0);
	u.status = status;
	u.error = error;
	u.state_json = s;
	u.edited = a->state.edited;
	run_set(a->app, a->run_id, &u);
	free(s);
}

void agent_pause(struct agent *a, enum run_stage stage, const struct run_pause_spec *spec)
{
	cJSON *pj;

	if (run_pause_set(&a->state, stage, spec) != OK) {
		agent_end(a, "error", "out of memory while pausing the run");
		return;
	}
	save_state(a, "paused", NULL);
	snprintf(a->res->status, sizeof a->res->status, "paused");
	if (a->state.mode != RUN_REACT) {
		a->res->attempts = a->state.attempt;
		a->res->max_attempts = a->state.max_retries;
	}
	free(a->res->pause_json);
	pj = run_pause_json(&a->state);
	a->res->pause_json = json_text(pj);
	cJSON_Delete(pj);
	a->done = 1;
}

void agent_end(struct agent *a, const char *status, const char *error)
{
	a->state.stage = RUN_STAGE_NONE;
	run_pause_free(&a->state.pause);
	save_state(a, status, error);
	snprintf(a->res->status, sizeof a->res->status, "%s", status);
	if (error) {
		free(a->res->error);
		a->res->error = strdup(error);
	}
	a->done = 1;
}

/* The parent run of a follow-up, in the state's parent. */
static void load_parent(struct agent *a, long long parent_id)
{
	struct run_row pr;

	if (parent_id <= 0 || run_get(a->app, parent_id, &pr) != OK)
		return;
	/* a follow-up goes on from its parent's SQL: what an analyst shaped there shapes this too */
	if (pr.edited)
		a->state.edited = 1;
	if (run_parent_set(&a->state, pr.id, pr.question, pr.sql, pr.columns_json, pr.row_count) != OK)
		log_warn("run %lld: no memory for its parent run %lld", a->run_id, parent_id);
	run_row_free(&pr);
}

/* The asker's role scope is part of the query cache key (docs/shared-memory.md); a user whose role
 * cannot be read gets a scope of their own, never another's. */
void agent_scope(PGconn *app, long long user_id, char *buf, size_t n)
{
	char uid[32];
	const char *p[1] = {uid};
	PGresult *r;

	if (user_id <= 0) {
		snprintf(buf, n, "cli");
		return;
	}
	snprintf(uid, sizeof uid, "%lld", user_id);
	snprintf(buf, n, "user:%lld", user_id);
	if ((r = db_query(app, "SELECT role FROM askql.users WHERE id = $1", 1, p, NULL, 0))) {
		if (PQntuples(r) == 1)
			snprintf(buf, n, "%s", PQgetvalue(r, 0, 0));
		PQclear(r);
	}
}

/* Work on a run until it ends or pauses. */
static void drive(struct agent *a)
{
	if (a->state.mode == RUN_REACT)
		react_continue(a);
	else
		extract_continue(a);
	if (!a->done)
		agent_end(a, "error", "the pipeline stopped without a result (bug)");
}

static void agent_release(struct agent *a)
{
	a->res->nsteps = a->nsteps;
	a->res->ms = agent_ms_since(a->t0_us);
	inspector_release(a);
	free(a->owned_conninfo);
	llm_close(a->llm);
	run_state_free(&a->state);
}

/* Steps already stored for a resumed run (so nsteps counts the whole run). */
static int count_steps(PGconn *app, long long run_id)
{
	char rid[32];
	const char *p[1] = {rid};
	PGresult *r;
	int n = 0;

	snprintf(rid, sizeof rid, "%lld", run_id);
	if ((r = db_query(app, "SELECT count(*) FROM askql.steps WHERE run_id = $1", 1, p, NULL, 0))) {
		n = atoi(PQgetvalue(r, 0, 0));
		PQclear(r);
	}
	return n;
}

enum err agent_start(PGconn *app, const struct agent_opts *o, const char *question,
                     struct agent_result *res)
{
	struct agent a;
	struct run_new rn = {0};
	const char *mode = o->mode && *o->mode ? o->mode : "extract";
	const char *prov = o->provider && *o->provider ? o->provider : conf_get("llm_provider");
	const char *now = o->now && *o->now ? o->now : conf_get("now");
	const char *target;
	struct target tg;
	char err[512], lerr[512], tname[TARGET_NAME_MAX], scope[64];
	int resolved, level_bad = 0;
	enum level run_level = LEVEL_IDENTIFIED;
	enum err rc;

	memset(res, 0, sizeof *res);
	memset(&a, 0, sizeof a);
	if (!question || !*question)
		return ERR_INPUT;
	if (strcmp(mode, "extract") && strcmp(mode, "react"))
		return ERR_INPUT;
	if (!*prov)
		prov = "builtin";
	if (strcmp(prov, "builtin") && strcmp(prov, "openai"))
		return ERR_INPUT;
	/* The run's target: a registered name (or the default); its connection comes from the
	 * registry, so a run never pairs one database with another's catalog (docs/targets.md). */
	resolved = target_resolve(app, o->target, &tg, err, sizeof err) == OK;
	if (!resolved && o->target && *o->target && !o->conninfo) {
		log_warn("agent_start: %s", err);
		return ERR_NOTFOUND;
	}
	snprintf(tname, sizeof tname, "%s", resolved ? tg.name : o->target && *o->target ? o->target
	                                                       : conf_get("target_name"));
	target = tname;
	rn.user_id = o->user_id;
	rn.parent_id = o->parent_id;
	rn.target = target;
	rn.kind = mode;
	rn.step_mode = o->step_mode;
	rn.provider = prov;
	rn.question = question;
	/* the run's first row is a progress record too (see agent_async_commits) */
	db_exec(app, "SET synchronous_commit = off", 0, NULL, NULL, 0);
	if ((rc = run_create(app, &rn, &res->run_id)) != OK) {
		db_exec(app, "RESET synchronous_commit", 0, NULL, NULL, 0);
		return rc;
	}
	if (o->on_run)
		o->on_run(o->ctx, res->run_id);
	a.app = app;
	a.run_id = res->run_id;
	a.res = res;
	if (o->conninfo) {
		a.conninfo = o->conninfo;
	} else if (resolved) {
		/* the user's access level decides the role the SQL runs as (store/level.h) */
		if (level_conninfo(app, &tg, o->user_id, &a.owned_conninfo, &run_level, lerr, sizeof lerr) != OK)
			level_bad = 1;   /* the run ends with the reason once its state exists */
		else if (level_run_record(app, res->run_id, run_level, err, sizeof err) != OK)
			log_warn("agent_start run %lld: level not recorded: %s", res->run_id, err);
		a.restricted = run_level != LEVEL_IDENTIFIED;
		a.conninfo = a.owned_conninfo;
	}
	/* what the model may see of this target's data (an unregistered conninfo: the default) */
	a.policy = llm_policy_resolve(resolved ? tg.llm_data_policy : NULL, NULL);
	if (resolved)
		target_free(&tg);
	a.on_text = o->on_text;
	a.on_section = o->on_section;
	a.ctx = o->ctx;
	a.t0_us = a.heartbeat_us = agent_now_us();
	if (run_state_init(&a.state, !strcmp(mode, "react") ? RUN_REACT : RUN_EXTRACT, target, prov, question,
	                   now) != OK)
		return ERR_NOMEM;
	a.state.step_mode = o->step_mode ? 1 : 0;
	a.state.no_cache = o->no_cache || o->parent_id > 0 ? 1 : 0;
	agent_scope(app, o->user_id, scope, sizeof scope);
	/* the access level is part of the cache's scope: an answer read at one level is never served
	 * at another (store/level.h) */
	if (run_level != LEVEL_IDENTIFIED) {
		size_t l = strlen(scope);

		snprintf(scope + l, sizeof scope - l, ":%s", level_name(run_level));
	}
	run_state_set(&a.state.scope, scope);
	if (conf_get_int("max_retries") > 0)
		a.state.max_retries = (int)conf_get_int("max_retries");
	load_parent(&a, o->parent_id);
	if (level_bad) {
		agent_end(&a, "error", lerr);
		agent_release(&a);
		return OK;
	}
	/* A misconfigured provider is an unrecoverable error: say so on the run. */
	if (!agent_llm(&a, err, sizeof err)) {
		struct step s = {.kind = "llm", .name = "provider", .status = "error", .error = err, .ms = 0};

		agent_step(&a, &s);
		agent_end(&a, "error", err);
		agent_release(&a);
		return OK;
	}
	drive(&a);
	agent_async_commits(&a, 0);
	agent_release(&a);
	return OK;
}

/*
 * Edited SQL is checked by the guard before it is accepted (issue 15): a refused edit is the
 * analyst's draft, not an attempt.  It is recorded as a human "edit" step with status error,
 * output {"guard":"refused","guard_reason":..,"position":..,"attempt":n,"max_attempts":m} (the page
 * puts the draft back in the box with the reason), the run's state is not touched and the run
 * stays paused.  1 when refused (res->error holds the guard's reason), 0 when the edit may go on.
 */
static int edit_refused(struct agent *a, const struct agent_decision *d, const char *input_json)
{
	struct guard_result g;
	struct step s = {.kind = "human", .name = "edit", .status = "error"};
	struct sb m = SB_INIT;
	cJSON *o;
	char *out, err[256];
	int refused;

	if (!a->cat)
		a->cat = catalog_get_level(a->app, a->state.target, a->restricted, err, sizeof err);   /* NULL: the state's listing */
	refused = !executor_guard(a, d->sql, 0, &g);
	if (!refused) {
		guard_free(&g);
		return 0;
	}
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "guard", "refused");
	cJSON_AddStringToObject(o, "guard_reason", g.reason ? g.reason : "guard failed");
	if (g.position > 0)
		cJSON_AddNumberToObject(o, "position", g.position);
	cJSON_AddNumberToObject(o, "attempt", a->state.attempt);
	cJSON_AddNumberToObject(o, "max_attempts", a->state.max_retries);
	out = json_text(o);
	cJSON_Delete(o);
	sb_printf(&m, "refused by the SQL guard: %s", g.reason ? g.reason : "guard failed");
	s.input = input_json;
	s.output = out;
	s.error = sb_cstr(&m);
	agent_step(a, &s);
	free(a->res->error);
	a->res->error = strdup(g.reason ? g.reason : "guard failed");
	snprintf(a->res->status, sizeof a->res->status, "paused");
	free(out);
	sb_free(&m);
	guard_free(&g);
	return 1;
}

enum err agent_resume(PGconn *app, long long run_id, const struct agent_decision *d,
                      struct agent_result *res)
{
	struct agent a;
	struct run_row rr;
	static const char *names[] = {"approve", "edit", "reject", "stop", "plan_edit"};
	cJSON *in;
	char *ins;
	enum err rc;
	struct step s = {0};
	long long user_id = 0;

	memset(res, 0, sizeof *res);
	memset(&a, 0, sizeof a);
	if ((unsigned)d->kind > AGENT_PLAN_EDIT || (d->kind == AGENT_EDIT && (!d->sql || !*d->sql)))
		return ERR_INPUT;
	if ((rc = run_claim(app, run_id, &rr)) != OK)
		return rc;
	a.app = app;
	a.run_id = run_id;
	a.res = res;
	a.on_text = d->on_text;
	a.ctx = d->ctx;
	a.t0_us = a.heartbeat_us = agent_now_us();
	res->run_id = run_id;
	rc = run_state_load(rr.state_json, &a.state);
	user_id = rr.user_id;
	run_row_free(&rr);
	if (rc != OK || a.state.stage == RUN_STAGE_NONE) {
		/* nothing to resume: put it back as it was found */
		struct run_update u = RUN_UPDATE_INIT;

		u.status = "paused";
		run_set(app, run_id, &u);
		run_state_free(&a.state);
		return ERR_INPUT;
	}
	{
		struct target tg;
		char terr[512];

		/* the connection is never stored in the run: it comes from the registry again */
		if (target_resolve(app, a.state.target, &tg, terr, sizeof terr) == OK) {
			/* the level is read again: a level lowered while the run was paused applies at once */
			enum level lv = LEVEL_IDENTIFIED;
			enum err lrc = level_conninfo(app, &tg, user_id, &a.owned_conninfo, &lv, terr, sizeof terr);

			/* the policy as it is now: an admin's stricter setting applies to paused runs too */
			a.policy = llm_policy_resolve(tg.llm_data_policy, NULL);
			target_free(&tg);
			a.restricted = lv != LEVEL_IDENTIFIED;
			if (lrc != OK) {
				agent_end(&a, "error", terr);
				agent_release(&a);
				return OK;
			}
			/* the run now holds rows read at lv too (run_view.c shows them by it) */
			if (level_run_record(app, run_id, lv, terr, sizeof terr) != OK)
				log_warn("agent_resume run %lld: level not recorded: %s", run_id, terr);
			a.conninfo = a.owned_conninfo;
		} else {
			log_warn("agent_resume run %lld: %s", run_id, terr);
			agent_end(&a, "error", "the run's target database is no longer registered");
			agent_release(&a);
			return OK;
		}
	}
	a.nsteps = count_steps(app, run_id);
	/* the human step records the decision as given */
	in = cJSON_CreateObject();
	cJSON_AddStringToObject(in, "decision", names[d->kind]);
	cJSON_AddStringToObject(in, "stage", run_stage_name(a.state.stage));
	if (d->sql)
		cJSON_AddStringToObject(in, "sql", d->sql);
	if (d->comment)
		cJSON_AddStringToObject(in, "comment", d->comment);
	if (d->user_id)
		cJSON_AddNumberToObject(in, "user_id", (double)d->user_id);
	if (d->nedits)
		cJSON_AddNumberToObject(in, "edits", d->nedits);
	ins = json_text(in);
	cJSON_Delete(in);
	if (d->kind == AGENT_EDIT && edit_refused(&a, d, ins)) {
		struct run_update u = RUN_UPDATE_INIT;

		/* no state saved: attempts, the pause and its SQL stay as they were */
		free(ins);
		u.status = "paused";
		run_set(app, run_id, &u);
		agent_release(&a);
		return ERR_INPUT;
	}
	s.kind = "human";
	s.name = names[d->kind];
	s.status = "ok";
	s.input = ins;
	agent_step(&a, &s);
	free(ins);
	if (d->kind == AGENT_STOP) {
		agent_end(&a, "stopped", d->comment && *d->comment ? d->comment : "stopped by the analyst");
		agent_release(&a);
		return OK;
	}
	/* Edited SQL, an edited plan and a rejection (its comment changes the question; without one
	 * a human still chose which SQL survives) make the answer the analyst's, not the system's: it
	 * stays in this run and is never shared.  Set before the decision is applied because a plan
	 * rejection ends the run inside it; a decision that does not fit saves no state. */
	if (d->kind == AGENT_EDIT || d->kind == AGENT_PLAN_EDIT || d->kind == AGENT_REJECT)
		a.state.edited = 1;
	rc = a.state.mode == RUN_REACT ? react_decide(&a, d) : extract_decide(&a, d);
	if (rc != OK) {
		struct run_update u = RUN_UPDATE_INIT;

		u.status = "paused";
		run_set(app, run_id, &u);
		agent_release(&a);
		return rc;
	}
	if (!a.done) {
		agent_async_commits(&a, 1);
		drive(&a);
		agent_async_commits(&a, 0);
	}
	agent_release(&a);
	return OK;
}

void agent_result_free(struct agent_result *r)
{
	if (!r)
		return;
	free(r->sql);
	free(r->columns_json);
	free(r->rows_json);
	free(r->answer);
	free(r->error);
	free(r->pause_json);
	memset(r, 0, sizeof *r);
}

char *agent_result_json(const struct agent_result *r)
{
	cJSON *o = cJSON_CreateObject(), *cols = cJSON_CreateArray(), *cj, *c;
	char *s;

	cJSON_AddStringToObject(o, "status", r->status);
	if (r->sql)
		cJSON_AddStringToObject(o, "sql", r->sql);
	else
		cJSON_AddNullToObject(o, "sql");
	/* columns as names; the typed form stays on the run */
	if ((cj = r->columns_json ? cJSON_Parse(r->columns_json) : NULL))
		cJSON_ArrayForEach(c, cj) {
			cJSON *n = cJSON_GetObjectItemCaseSensitive(c, "name");

			cJSON_AddItemToArray(cols, cJSON_CreateString(cJSON_IsString(n) ? n->valuestring :
			                                              cJSON_IsString(c) ? c->valuestring : ""));
		}
	cJSON_Delete(cj);
	cJSON_AddItemToObject(o, "columns", cols);
	c = r->rows_json ? cJSON_Parse(r->rows_json) : NULL;
	cJSON_AddItemToObject(o, "rows", c ? c : cJSON_CreateArray());
	cJSON_AddNumberToObject(o, "row_count", (double)r->row_count);
	cJSON_AddBoolToObject(o, "truncated", r->truncated);
	cJSON_AddNumberToObject(o, "attempts", r->attempts);
	cJSON_AddNumberToObject(o, "max_attempts", r->max_attempts);
	cJSON_AddNumberToObject(o, "steps", r->nsteps);
	if (r->error)
		cJSON_AddStringToObject(o, "error", r->error);
	else
		cJSON_AddNullToObject(o, "error");
	if (r->answer)
		cJSON_AddStringToObject(o, "answer", r->answer);
	cJSON_AddNumberToObject(o, "run_id", (double)r->run_id);
	if (r->pause_json && (c = cJSON_Parse(r->pause_json)))
		cJSON_AddItemToObject(o, "pause", c);
	s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return s;
}

enum err agent_decision_parse(const char *json, struct agent_decision *d, void **keep)
{
	static const char *names[] = {"approve", "edit", "reject", "stop", "plan_edit"};
	static const char *ops[] = {"add_table", "remove_table", "add_mapping", "remove_mapping",
	                            "remove_column"};
	cJSON *o = cJSON_Parse(json), *k, *e, *it;
	struct planner_edit *edits = NULL;
	int i, n = 0;

	memset(d, 0, sizeof *d);
	*keep = NULL;
	if (!cJSON_IsObject(o) || !cJSON_IsString(k = cJSON_GetObjectItemCaseSensitive(o, "decision")))
		goto bad;
	for (i = 0; i < 5 && strcmp(k->valuestring, names[i]); i++)
		;
	if (i == 5)
		goto bad;
	d->kind = (enum agent_decision_kind)i;
	if (cJSON_IsString(k = cJSON_GetObjectItemCaseSensitive(o, "sql")))
		d->sql = k->valuestring;
	if (cJSON_IsString(k = cJSON_GetObjectItemCaseSensitive(o, "comment")))
		d->comment = k->valuestring;
	if (cJSON_IsArray(e = cJSON_GetObjectItemCaseSensitive(o, "edits"))) {
		edits = calloc((size_t)cJSON_GetArraySize(e) + 1, sizeof *edits);
		if (!edits)
			goto bad;
		cJSON_ArrayForEach(it, e) {
			cJSON *op = cJSON_GetObjectItemCaseSensitive(it, "op"), *f;
			int j;

			if (!cJSON_IsString(op))
				goto bad;
			for (j = 0; j < 5 && strcmp(op->valuestring, ops[j]); j++)
				;
			if (j == 5)
				goto bad;
			edits[n].op = (enum planner_edit_op)j;
			if (cJSON_IsString(f = cJSON_GetObjectItemCaseSensitive(it, "table")))
				edits[n].table = f->valuestring;
			if (cJSON_IsString(f = cJSON_GetObjectItemCaseSensitive(it, "column")))
				edits[n].column = f->valuestring;
			if (cJSON_IsString(f = cJSON_GetObjectItemCaseSensitive(it, "value")))
				edits[n].value = f->valuestring;
			if (cJSON_IsString(f = cJSON_GetObjectItemCaseSensitive(it, "phrase")))
				edits[n].phrase = f->valuestring;
			if (!edits[n].table)
				goto bad;
			n++;
		}
	}
	if (d->kind == AGENT_EDIT && !d->sql)
		goto bad;
	d->edits = edits;
	d->nedits = n;
	*keep = o;
	return OK;
bad:
	free(edits);
	cJSON_Delete(o);
	memset(d, 0, sizeof *d);
	return ERR_INPUT;
}

void agent_decision_free(struct agent_decision *d, void *keep)
{
	if (d) {
		free((void *)d->edits);
		memset(d, 0, sizeof *d);
	}
	cJSON_Delete(keep);
}

char *agent_normalize_question(const char *q)
{
	struct sb b = SB_INIT;
	int space = 0;

	for (const unsigned char *p = (const unsigned char *)q; *p; p++) {
		if (isspace(*p)) {
			space = b.len > 0;
			continue;
		}
		if (space)
			sb_putc(&b, ' ');
		space = 0;
		sb_putc(&b, (char)(*p < 128 ? tolower(*p) : *p));
	}
	/* trailing marks: the ASCII ones byte by byte, the full-width ones (？ ！ 。) as whole UTF-8
	 * sequences; a byte test against a string holding them cut "몇 %야" to an invalid sequence, since
	 * 야 ends in the byte 0xBC that ？ and ！ contain */
	for (int cut = 1; cut && b.len;) {
		cut = 0;
		if (strchr("?.! ", b.buf[b.len - 1]) && b.buf[b.len - 1]) {
			b.buf[--b.len] = '\0';
			cut = 1;
		} else if (b.len >= 3 && (!memcmp(b.buf + b.len - 3, "\xef\xbc\x9f", 3) || !memcmp(b.buf + b.len - 3, "\xef\xbc\x81", 3) ||
		                          !memcmp(b.buf + b.len - 3, "\xe3\x80\x82", 3))) {
			b.buf[b.len -= 3] = '\0';
			cut = 1;
		}
	}
	if (!b.buf)
		return strdup("");
	return sb_steal(&b);
}
