/* cmd_explain.c: `askql explain`: EXPLAIN (never ANALYZE) a guarded query and print the findings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "catalog/catalog.h"
#include "cli/cli.h"
#include "store/target.h"
#include "store/db.h"
#include "util/conf.h"
#include "sql/explain.h"

int cmd_explain(int argc, char **argv)
{
	const char *target = cli_opt(&argc, argv, "--target");
	int json = cli_flag(&argc, argv, "--json");
	int plan = cli_flag(&argc, argv, "--plan");
	struct explain_opts o = {0};
	struct target t = {0};
	struct explain_result res;
	struct exec_error dberr = {0};
	char *out = NULL;
	enum err rc;

	if (argc != 2) {
		fprintf(stderr, "usage: askql explain [--target NAME|CONNINFO] [--json] [--plan] \"SQL\"\n");
		return 2;
	}
	/* --target NAME|URL: a registered target; EXPLAIN runs on its read-only connection, the
	 * hypothetical-index checks on its indexing one, the guard knows its catalog */
	if (target) {
		if (cli_target("explain", target, NULL, &t))
			return 1;
		o.conninfo = target_exec_conninfo(&t);
		o.hypo_conninfo = t.conninfo;
		cli_use_catalog(t.name, &o.relation_ok, &o.relation_ctx);
	} else {
		cli_use_catalog(conf_get("target_name"), &o.relation_ok, &o.relation_ctx);
	}
	rc = explain_run(argv[1], &o, &res, &dberr);
	if (rc != OK) {
		if (json) {
			out = exec_error_json(&dberr);
			printf("{\"error\":%s}\n", out ? out : "null");
		} else {
			out = exec_error_text(&dberr);
			fprintf(stderr, "askql explain: %s%s\n", rc == ERR_DENIED ? "refused by the guard: " : "",
			        out ? out : err_str(rc));
			if (dberr.position)
				fprintf(stderr, "askql explain: at character %d\n", dberr.position);
		}
		goto done;
	}
	out = json ? explain_json(&res) : explain_text(&res);
	fputs(out ? out : "", stdout);
	if (json)
		putchar('\n');
	if (plan && res.plan_json)
		printf("%s\n", res.plan_json);
	explain_free(&res);
done:
	free(out);
	exec_error_free(&dberr);
	return rc == OK ? 0 : 1;
}
