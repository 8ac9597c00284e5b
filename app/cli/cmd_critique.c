/* cmd_critique.c: askql critique [--target URL] [--user NAME] --case ID | --text FILE [--json] [--offline] [--html FILE]: the critique report. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "catalog/catalog.h"
#include "cli/cli.h"
#include "store/target.h"
#include "critique/critique.h"
#include "pages/report.h"
#include "store/db.h"
#include "util/conf.h"
#include "util/file.h"
#include "util/sb.h"


/* A few lines for people: summary, findings, critique points, nodes. */
static void print_text(const cJSON *r)
{
	const cJSON *x;

	printf("%s\n", crit_str(r, "summary"));
	printf("report %g, run %g, mode %s\n\nfindings:\n", crit_num(r, "report_id", 0), crit_num(r, "run_id", 0),
	       crit_str(r, "mode"));
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(cJSON_GetObjectItem(r, "structured_chart"), "findings"))
		printf("  %s %s\n", crit_str(x, "id"), crit_str(x, "text"));
	printf("critique points:\n");
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(cJSON_GetObjectItem(r, "critique"), "points"))
		printf("  %s [%s/%s] %s\n", crit_str(x, "id"), crit_str(x, "category"), crit_str(x, "severity"),
		       crit_str(x, "text"));
	printf("nodes:\n");
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(r, "nodes"))
		printf("  %-30s %-5s %-8s %s\n", crit_str(x, "name"), crit_str(x, "kind"), crit_str(x, "status"),
		       crit_str(x, "reason") ? crit_str(x, "reason") : "");
}

int cmd_critique(int argc, char **argv)
{
	const char *cas = cli_opt(&argc, argv, "--case"), *tf = cli_opt(&argc, argv, "--text");
	const char *html = cli_opt(&argc, argv, "--html");
	const char *target = cli_opt(&argc, argv, "--target");
	const char *lang = cli_opt(&argc, argv, "--lang");
	const char *user = cli_opt(&argc, argv, "--user");   /* read the chart at that user's access level */
	char tname[128] = "";
	int json = cli_flag(&argc, argv, "--json"), offline = cli_flag(&argc, argv, "--offline");
	int nostore = cli_flag(&argc, argv, "--no-store");
	char err[512] = "", *text = NULL, *out = NULL;
	long long run_id = 0, report_id = 0;
	int rc = 1;

	/* a user's level is looked up in the app database, which --no-store leaves alone */
	if ((!cas && !tf) || (cas && tf) || argc > 1 || (user && nostore)) {
		fprintf(stderr, "usage: askql critique [--target URL] [--user NAME] --case ID | --text FILE|- [--json] [--offline] "
		        "[--html FILE [--lang ko|en]] [--no-store]\n");
		return 2;
	}
	if (tf && !(text = file_read(tf, 0, NULL))) {
		fprintf(stderr, "askql critique: cannot read %s\n", tf);
		return 1;
	}
	/* another registered database: the executor reads it (read-only, guarded) and its catalog is used */
	if (target) {
		struct target t;

		if (cli_target("critique", target, NULL, &t)) {
			free(text);
			return 1;
		}
		conf_set("target_ro_db", target_exec_conninfo(&t), "flag:--target");
		snprintf(tname, sizeof tname, "%s", t.name);
		target_free(&t);
	}
	struct crit_request rq = { .caseid = cas ? atoll(cas) : 0, .text = text, .use_llm = !offline,
	                           .target = tname[0] ? tname : NULL };
	if (user && (rq.user_id = cli_user_id("critique", user)) <= 0) {
		free(text);
		return 1;
	}
	if (cas && rq.caseid <= 0) {
		fprintf(stderr, "askql critique: bad case id %s\n", cas);
		free(text);
		return 2;
	}
	PGconn *app = nostore ? NULL : db_app();
	if (crit_critique(app, &rq, &out, &run_id, &report_id, err, sizeof err) != OK) {
		fprintf(stderr, "askql critique: %s\n", err);
		goto done;
	}
	cJSON *r = cJSON_Parse(out);
	if (html) {
		struct sb sb = SB_INIT;
		/* a report about one patient: readable by its owner only (issue 27) */
		int fd = open(html, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;

		if (fd >= 0 && !f)
			close(fd);
		report_render(&sb, r, 1, lang ? lang : "en");
		if (!f || fwrite(sb_cstr(&sb), 1, sb.len, f) != sb.len) {
			fprintf(stderr, "askql critique: cannot write %s\n", html);
			if (f)
				fclose(f);
			sb_free(&sb);
			cJSON_Delete(r);
			goto done;
		}
		fclose(f);
		sb_free(&sb);
	}
	if (json)
		printf("%s\n", out);
	else
		print_text(r);
	cJSON_Delete(r);
	rc = 0;
done:
	free(out);
	free(text);
	return rc;
}
