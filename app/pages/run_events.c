/* run_events.c: GET /runs/N/events: server-sent events with each new step (rendered HTML) until the run settles. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cjson/cJSON.h>
#include "pages/pages.h"
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

enum err page_run_events(struct req *r)
{
	cJSON *run = NULL;
	int seq = (int)req_param_int(r, "after", 0);
	double start = now_ms();
	enum err e;
	const char *last = req_env(r, "HTTP_LAST_EVENT_ID");

	if (last && atoi(last) > seq)
		seq = atoi(last);
	if ((e = run_load(r, r->arg_id, &run)) != OK)
		return e;
	cJSON_Delete(run);
	resp_header(r, "X-Accel-Buffering", "no");
	resp_begin(r, 200, "text/event-stream; charset=utf-8", 0);
	if (resp_puts(r, "retry: 2000\n\n") != OK || resp_flush(r) != OK)
		return OK;
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
				if (e != OK) {
					cJSON_Delete(steps);
					return OK;       /* the browser went away */
				}
			}
			cJSON_Delete(steps);
		}
		if (strcmp(st, "running")) {
			event(r, "done", 0, st);
			return OK;
		}
		if (now_ms() - start > MAX_WAIT_MS) {
			event(r, "timeout", 0, "");
			return OK;
		}
		/* a heartbeat comment keeps proxies from timing out and detects a gone client */
		if (resp_puts(r, ": hb\n\n") != OK || resp_flush(r) != OK)
			return OK;
		nanosleep(&ts, NULL);
	}
}
