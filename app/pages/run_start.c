/* run_start.c: starting a run: POST /runs (answers when done) and POST /runs/0/stream (streams its steps). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cjson/cJSON.h>
#include "agent/agent.h"
#include "pages/pages.h"
#include "store/db.h"
#include "store/target.h"
#include "util/arena.h"
#include "util/conf.h"
#include "util/log.h"


/* The agent runs in a thread with its own connection while the request thread streams its steps. */
struct job {
	struct agent_opts o;
	const char *question;
	PGconn *conn;
	struct agent_result res;
	enum err e;
	volatile int done;
	long long run_id;          /* set by on_run from the agent's thread as soon as the run exists */
};

/* agent_opts.on_run: the id of this request's own run (two identical questions at once each
 * get their own) */
static void job_on_run(void *ctx, long long run_id)
{
	struct job *j = ctx;

	__atomic_store_n(&j->run_id, run_id, __ATOMIC_RELEASE);
}

static void *job_main(void *p)
{
	struct job *j = p;

	j->e = agent_start(j->conn, &j->o, j->question, &j->res);
	__atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Read the form into agent options; ERR_INPUT when the question is empty.  *answered 1: a refusal
 * was written (a follow-up of a run the user's level withholds now), the caller returns OK at once. */
static enum err opts(struct req *r, struct agent_opts *o, const char **q, int *answered)
{
	const char *mode = req_param(r, "mode"), *kind = req_param(r, "kind"), *target = req_param(r, "target");

	*answered = 0;
	*q = req_param(r, "question");
	if (!*q || !**q)
		return ERR_INPUT;
	memset(o, 0, sizeof *o);
	o->user_id = r->user.id;
	o->parent_id = req_param_int(r, "parent", 0);
	o->mode = kind && !strcmp(kind, "react") ? "react" : "extract";
	o->step_mode = mode && !strcmp(mode, "step");
	/* a chosen database must be registered (agent_start resolves it again; a name that is not
	 * one is refused here with a clear status instead of an error run) */
	if (target && *target) {
		struct target t;

		if (target_get(db_app(), target, &t, NULL, 0) != OK)
			return ERR_NOTFOUND;
		target_free(&t);
		o->target = target;
	}
	/* a follow-up only continues a run the user may see */
	if (o->parent_id) {
		cJSON *d = NULL;

		if (run_load(r, o->parent_id, &d) != OK)
			return ERR_NOTFOUND;
		/* and only one her current level allows: a follow-up carries the parent's question, SQL,
		 * columns and plan into the new run and the model's prompt (issue 27; docs/privacy.md) */
		{
			enum level lv;
			enum err e = run_level_check(r, d, &lv);

			if (e == ERR_DENIED) {
				e = run_level_refuse(r, d, lv, "levels.followup_withheld");
				*answered = 1;
			}
			if (e != OK || *answered) {
				cJSON_Delete(d);
				return e;
			}
		}
		/* a follow-up asks the parent's database */
		{
			const cJSON *pt = cJSON_GetObjectItemCaseSensitive(d, "target");

			if (!o->target && cJSON_IsString(pt))
				o->target = arena_strdup(r->a, pt->valuestring);
		}
		cJSON_Delete(d);
	}
	return OK;
}

static enum err run_start(struct req *r)
{
	struct agent_opts o;
	struct agent_result res;
	const char *q;
	enum err e;
	char to[48];
	int answered;

	if ((e = opts(r, &o, &q, &answered)) != OK || answered)
		return e;
	memset(&res, 0, sizeof res);
	e = agent_start(db_app(), &o, q, &res);
	if (e != OK || !res.run_id) {
		agent_result_free(&res);
		return e == OK ? ERR_INTERNAL : e;
	}
	snprintf(to, sizeof to, "/runs/%lld", res.run_id);
	agent_result_free(&res);
	return resp_redirect(r, to);
}

enum err page_run_start(struct req *r)
{
	return page_limited(r, SLOT_RUN, run_start);
}

/* Write the steps after *seq as HTML fragments; returns 0 when the client went away. */
static int push_steps(struct req *r, long long id, int *seq)
{
	cJSON *steps = NULL, *s;
	int alive = 1;

	if (run_steps_json(r, id, *seq, &steps) != OK)
		return 1;
	cJSON_ArrayForEach(s, steps) {
		char *html = view_fragment(r, "step", s);

		*seq = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(s, "seq"));
		if (html && alive && (resp_puts(r, html) != OK || resp_flush(r) != OK))
			alive = 0;
		free(html);
	}
	cJSON_Delete(steps);
	return alive;
}

/* POST /runs/0/stream: a progressive page: the top at once, each step as it is recorded,
 * then a link (and a refresh) to the finished run.  Works without JavaScript. */
static enum err run_stream_start(struct req *r)
{
	struct job j;
	pthread_t th;
	const char *q;
	cJSON *d;
	char *top = NULL, *bottom = NULL, errb[256];
	long long id = 0;
	int seq = 0, alive = 1, answered;
	enum err e;

	if (r->arg_id != 0)
		return ERR_NOTFOUND;
	memset(&j, 0, sizeof j);
	if ((e = opts(r, &j.o, &q, &answered)) != OK || answered)
		return e;
	j.question = q;
	j.o.on_run = job_on_run;
	j.o.ctx = &j;
	if (!(j.conn = db_connect(conf_get("app_db"), errb, sizeof errb))) {
		log_error("stream: %s", errb);
		return ERR_DB;
	}
	d = view_data(r, "run.title");
	cJSON_AddStringToObject(d, "question", q);
	top = view_string(r, "stream_top", d);
	resp_begin(r, 200, "text/html; charset=utf-8", 0);
	if (top) {
		resp_puts(r, top);
		/* padding so browsers paint before the first step arrives */
		resp_puts(r, "<!--                                                                                  -->\n");
		resp_flush(r);
	}
	if (pthread_create(&th, NULL, job_main, &j) != 0) {
		PQfinish(j.conn);
		free(top);
		cJSON_Delete(d);
		return ERR_INTERNAL;
	}
	while (!__atomic_load_n(&j.done, __ATOMIC_ACQUIRE)) {
		struct timespec ts = {0, 150 * 1000 * 1000};

		nanosleep(&ts, NULL);
		if (!id)
			id = __atomic_load_n(&j.run_id, __ATOMIC_ACQUIRE);
		if (id && alive)
			alive = push_steps(r, id, &seq);
	}
	pthread_join(th, NULL);
	if (j.res.run_id)
		id = j.res.run_id;
	if (id && alive)
		push_steps(r, id, &seq);
	if (id)
		cJSON_AddNumberToObject(d, "id", (double)id);
	if (j.e != OK)
		cJSON_AddStringToObject(d, "error", err_str(j.e));
	bottom = view_string(r, "stream_bottom", d);
	if (bottom)
		resp_puts(r, bottom);
	log_info("stream run %lld finished: %s", id, j.res.status);
	agent_result_free(&j.res);
	PQfinish(j.conn);
	free(top);
	free(bottom);
	cJSON_Delete(d);
	return OK;
}

enum err page_run_stream_start(struct req *r)
{
	if (r->arg_id != 0)
		return ERR_NOTFOUND;
	return page_limited(r, SLOT_RUN, run_stream_start);
}
