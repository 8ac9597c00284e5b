/* run.c: the run page: steps, SQL, answer, result table and chart, confirmation forms, downloads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "pages/pages.h"
#include "pages/step_words.h"
#include "store/access.h"
#include "store/db.h"
#include "store/run.h"
#include "util/log.h"

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
	/* the rows, steps and answer are shown only at a level the viewer has now (issue 27) */
	if (run_withhold(r, run, &e))
		return e;
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
	run_pause_data(r, d, run);     /* step mode: run_pause.c */
	run_release_offer(r, run);     /* downloads for release: run_view.c */
	cJSON_AddBoolToObject(d, "can_edit", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(run, "paused")));
	/* rows shown are an access: audited before they are, and not shown when that fails (fail
	 * closed: the stored rows stay where they are, nothing is lost by refusing the page) */
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(run, "has_result")) &&
	    view_access(r, run, ACCESS_VIEW, "page", (long long)cJSON_GetNumberValue(
	                cJSON_GetObjectItemCaseSensitive(run, "preview_rows")), 0) != OK) {
		cJSON_Delete(d);
		return page_notice(r, 503, "audit.unavailable", NULL, 0);
	}
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
