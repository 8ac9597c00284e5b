/* run_events.c: GET /runs/N/events: server-sent events with each new step (rendered HTML) until the run settles. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cjson/cJSON.h>
#include "pages/pages.h"
#include "store/access.h"
#include "store/db.h"
#include "store/run.h"

#define MAX_WAIT_MS (10 * 60 * 1000)

/* One SSE event; data lines split at newlines as the format requires. */
static enum err event(struct req *r, const char *name, int id, const char *data)
{
	struct sb s;

	sb_init_arena(&s, r->a);
	if (id > 0)
		sb_printf(&s, "id: %d\n", id);
	sb_printf(&s, "event: %s\n", name);
	for (const char *p = data; ; ) {
		const char *nl = strchr(p, '\n');

		sb_puts(&s, "data: ");
		sb_append(&s, p, nl ? (size_t)(nl - p) : strlen(p));
		sb_putc(&s, '\n');
		if (!nl)
			break;
		p = nl + 1;
	}
	sb_putc(&s, '\n');
	if (resp_write(r, s.buf, s.len) != OK)
		return ERR_IO;
	return resp_flush(r);
}

static const char *status_of(long long id)
{
	static char st[16];
	char ids[24];
	const char *p[1] = {ids};
	PGresult *res;

	snprintf(ids, sizeof ids, "%lld", id);
	res = db_query(db_app(), "SELECT status FROM askql.runs WHERE id = $1", 1, p, NULL, 0);
	snprintf(st, sizeof st, "%s", res && PQntuples(res) == 1 ? PQgetvalue(res, 0, 0) : "error");
	PQclear(res);
	return st;
}

/* preview_rows: how many result rows run id keeps (what its steps can show); -1 when unknown */
static long long preview_rows(long long id)
{
	char ids[24];
	const char *p[1] = {ids};
	PGresult *res;
	long long n = -1;

	snprintf(ids, sizeof ids, "%lld", id);
	res = db_query(db_app(), "SELECT CASE jsonb_typeof(preview) WHEN 'array' THEN jsonb_array_length(preview) "
	               "WHEN 'object' THEN jsonb_array_length(coalesce(preview->'rows', '[]')) ELSE 0 END "
	               "FROM askql.runs WHERE id = $1", 1, p, NULL, 0);
	if (res && PQntuples(res) == 1 && !PQgetisnull(res, 0, 0))
		n = atoll(PQgetvalue(res, 0, 0));
	PQclear(res);
	return n;
}

/* audited: the stream's one access row once it ends, when it sent any step (steps carry result
 * rows); the stream already left, so a failure is logged in full by access_record (issue 27) */
static enum err audited(struct req *r, const cJSON *run, int sent, int failed)
{
	char detail[64];

	if (sent > 0) {
		snprintf(detail, sizeof detail, "{\"via\":\"events\",\"steps\":%d}", sent);
		view_access_detail(r, run, ACCESS_VIEW, "page", preview_rows(r->arg_id), failed, detail, NULL);
	}
	return OK;
}

enum err page_run_events(struct req *r)
{
	cJSON *run = NULL;
	int seq = (int)req_param_int(r, "after", 0), sent = 0;
	double start = now_ms();
	enum err e;
	const char *last = req_env(r, "HTTP_LAST_EVENT_ID");

	if (last && atoi(last) > seq)
		seq = atoi(last);
	if ((e = run_load(r, r->arg_id, &run)) != OK)
		return e;
	/* the steps carry result rows: only at a level the viewer has now (issue 27) */
	if (run_withhold(r, run, &e))
		return e;
	/* and audited: no stream starts unless its access row can be written (fail closed) */
	if (!access_ready(db_app())) {
		cJSON_Delete(run);
		return page_notice(r, 503, "audit.unavailable", NULL, 0);
	}
	resp_header(r, "X-Accel-Buffering", "no");
	resp_begin(r, 200, "text/event-stream; charset=utf-8", 0);
	if (resp_puts(r, "retry: 2000\n\n") != OK || resp_flush(r) != OK)
		goto out;
	for (int round = 1; ; round++) {
		cJSON *steps = NULL, *s;
		const char *st;

		/* every 5 s: runs whose worker died are marked failed, so this stream ends too */
		if (round % 20 == 0)
			run_sweep(db_app());
		st = status_of(r->arg_id);
		struct timespec ts = {0, 250 * 1000 * 1000};

		if (run_steps_json(r, r->arg_id, seq, &steps) == OK) {
			cJSON_ArrayForEach(s, steps) {
				char *html = view_fragment(r, "step", s);

				seq = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(s, "seq"));
				e = event(r, "step", seq, html ? html : "");
				free(html);
				sent++;
				if (e != OK) {
					cJSON_Delete(steps);
					goto out;       /* the browser went away */
				}
			}
			cJSON_Delete(steps);
		}
		if (strcmp(st, "running")) {
			event(r, "done", 0, st);
			goto out;
		}
		if (now_ms() - start > MAX_WAIT_MS) {
			event(r, "timeout", 0, "");
			goto out;
		}
		/* a heartbeat comment keeps proxies from timing out and detects a gone client */
		if (resp_puts(r, ": hb\n\n") != OK || resp_flush(r) != OK)
			goto out;
		nanosleep(&ts, NULL);
	}
out:
	audited(r, run, sent, 0);
	cJSON_Delete(run);
	return OK;
}
