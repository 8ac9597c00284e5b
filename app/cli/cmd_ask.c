/* cmd_ask.c: `askql ask`: ask a question through the agent pipeline (or resume a paused run). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "agent/agent.h"
#include "cli/cli.h"
#include "llm/prompt.h"
#include "store/db.h"
#include "store/target.h"
#include "util/conf.h"

static void usage(void)
{
	fprintf(stderr, "usage: askql ask [--target NAME|CONNINFO] [--provider builtin|openai] [--mode extract|react]\n"
	                "                 [--step] [--now TS] [--parent RUN] [--no-cache] [--user NAME] [--json] \"question\"\n"
	                "       askql ask --resume RUN --decision '{\"decision\":\"approve|edit|reject|stop|plan_edit\",...}' [--json]\n");
}

/* Human-readable output: status, SQL, a few rows. */
static void print_text(const struct agent_result *r)
{
	cJSON *rows = r->rows_json ? cJSON_Parse(r->rows_json) : NULL, *row, *v;
	int n = 0;

	printf("run %lld: %s\n", r->run_id, r->status);
	if (r->sql)
		printf("SQL: %s\n", r->sql);
	if (r->answer)
		printf("%s\n", r->answer);
	if (r->error)
		printf("error: %s\n", r->error);
	if (r->pause_json)
		printf("paused on: %s\n", r->pause_json);
	cJSON_ArrayForEach(row, rows) {
		int j = 0;

		if (n++ >= 20)
			break;
		cJSON_ArrayForEach(v, row) {
			char *s = cJSON_IsString(v) ? NULL : cJSON_PrintUnformatted(v);

			printf("%s%s", j++ ? "\t" : "", cJSON_IsString(v) ? v->valuestring : s);
			free(s);
		}
		putchar('\n');
	}
	cJSON_Delete(rows);
}

int cmd_ask(int argc, char **argv)
{
	const char *target = cli_opt(&argc, argv, "--target");
	const char *name = cli_opt(&argc, argv, "--name");
	const char *provider = cli_opt(&argc, argv, "--provider");
	const char *mode = cli_opt(&argc, argv, "--mode");
	const char *now = cli_opt(&argc, argv, "--now");
	const char *parent = cli_opt(&argc, argv, "--parent");
	const char *resume = cli_opt(&argc, argv, "--resume");
	const char *decision = cli_opt(&argc, argv, "--decision");
	const char *user = cli_opt(&argc, argv, "--user");   /* the run reads at that user's access level */
	int json = cli_flag(&argc, argv, "--json");
	int step = cli_flag(&argc, argv, "--step");
	int no_cache = cli_flag(&argc, argv, "--no-cache");
	struct agent_result res;
	PGconn *app;
	enum err rc;
	int status;

	if (now)
		conf_set("now", now, "flag:--now");
	if ((!resume && argc != 2) || (resume && (argc != 1 || !decision))) {
		usage();
		return 2;
	}
	if (!(app = db_app())) {
		fprintf(stderr, "askql ask: cannot connect to app_db\n");
		return 1;
	}
	prompt_sync(app, NULL);
	if (resume) {
		struct agent_decision d;
		void *keep;

		if (agent_decision_parse(decision, &d, &keep) != OK) {
			fprintf(stderr, "askql ask: bad --decision JSON\n");
			return 2;
		}
		rc = agent_resume(app, strtoll(resume, NULL, 10), &d, &res);
		agent_decision_free(&d, keep);
		if (rc == ERR_INPUT && res.error) {
			/* edited SQL the guard refused: the run still waits, no attempt used */
			fprintf(stderr, "askql ask: run %s: the edited SQL was refused (the run still waits): %s\n",
			        resume, res.error);
			agent_result_free(&res);
			return 1;
		}
		if (rc != OK) {
			fprintf(stderr, "askql ask: cannot resume run %s: %s\n", resume,
			        rc == ERR_DENIED ? "it is not paused" : rc == ERR_NOTFOUND ? "no such run"
			        : rc == ERR_INPUT ? "the decision does not fit the pause" : err_str(rc));
			return 1;
		}
	} else {
		struct agent_opts o = {0};
		struct target t;

		/* --target NAME|URL (or --name NAME): a registered target; the run's connection comes
		 * from the registry, never from a conninfo paired with another target's catalog */
		if (cli_target("ask", target, name, &t))
			return 1;
		o.target = t.name;
		o.mode = mode;
		o.provider = provider;
		o.step_mode = step;
		o.no_cache = no_cache;
		o.now = now;
		o.parent_id = parent ? strtoll(parent, NULL, 10) : 0;
		if (user && (o.user_id = cli_user_id("ask", user)) <= 0) {
			target_free(&t);
			return 1;
		}
		rc = agent_start(app, &o, argv[1], &res);
		target_free(&t);
		if (rc != OK) {
			fprintf(stderr, "askql ask: %s\n", rc == ERR_INPUT ? "empty question or unknown mode/provider"
			                                                   : err_str(rc));
			return rc == ERR_INPUT ? 2 : 1;
		}
	}
	if (json) {
		char *s = agent_result_json(&res);

		printf("%s\n", s ? s : "{}");
		free(s);
	} else {
		print_text(&res);
	}
	status = !strcmp(res.status, "ok") || !strcmp(res.status, "paused") || !strcmp(res.status, "unanswerable") ? 0 : 1;
	agent_result_free(&res);
	return status;
}
