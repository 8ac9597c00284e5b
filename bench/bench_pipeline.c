/* bench_pipeline.c: the agent pipeline's own overhead per run (retrieval, guard, explain, execution, step writes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/agent.h"
#include "llm/prompt.h"
#include "store/db.h"
#include "util/conf.h"
#include "util/log.h"

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double pct(double *v, int n, double p)
{
	int i = (int)(p * (n - 1) + 0.5);

	return v[i < n ? i : n - 1];
}

/* bench_pipeline N MODE PROVIDER QUESTION: N runs after 3 warm-up runs; prints one table row. */
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100, ok = 0, steps = 0;
	const char *mode = argc > 2 ? argv[2] : "react", *prov = argc > 3 ? argv[3] : "openai";
	const char *q = argc > 4 ? argv[4] : "cases with potassium above 6.5";
	const char *label = argc > 5 ? argv[5] : mode;
	double *ovh = calloc((size_t)n, sizeof *ovh), *tot = calloc((size_t)n, sizeof *tot), llm = 0;
	const char *e;
	PGconn *app;

	if (conf_load(NULL, &e) != OK) {
		fprintf(stderr, "bench_pipeline: %s\n", e);
		return 2;
	}
	log_open(NULL, LOG_ERROR);
	if (!(app = db_app()))
		return 2;
	prompt_sync(app, NULL);
	for (int i = -3; i < n; i++) {
		struct agent_opts o = {0};
		struct agent_result r;

		o.mode = mode;
		o.provider = prov;
		o.no_cache = 1;
		if (agent_start(app, &o, q, &r) != OK) {
			fprintf(stderr, "bench_pipeline: agent_start failed\n");
			return 1;
		}
		if (i >= 0) {
			ovh[i] = r.ms - r.llm_ms;
			tot[i] = r.ms;
			llm += r.llm_ms;
			ok += !strcmp(r.status, "ok");
			steps += r.nsteps;
		} else if (strcmp(r.status, "ok")) {
			fprintf(stderr, "bench_pipeline: warm-up run %lld ended %s: %s\n", r.run_id, r.status,
			        r.error ? r.error : "");
		}
		agent_result_free(&r);
	}
	qsort(ovh, (size_t)n, sizeof *ovh, cmpd);
	qsort(tot, (size_t)n, sizeof *tot, cmpd);
	printf("| %-28s | %4d | %5.1f | %8.2f | %8.2f | %8.2f | %8.2f | %6.2f | %3d/%-3d |\n", label, n,
	       (double)steps / n, pct(ovh, n, 0.5), pct(ovh, n, 0.99), pct(tot, n, 0.5), pct(tot, n, 0.99),
	       llm / n, ok, n);
	free(ovh);
	free(tot);
	return ok == n ? 0 : 1;
}
