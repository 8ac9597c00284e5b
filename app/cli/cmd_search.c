/* cmd_search.c: `askql search`: run the multi-axis retrieval for a question and print it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "catalog/catalog.h"
#include "cli/cli.h"
#include "store/target.h"
#include "store/db.h"
#include "util/conf.h"

static void print_text(const struct retrieval *r)
{
	printf("intent: %s\n", intent_name(r->intent));
	for (int i = 0; i < r->ntables; i++)
		printf("table  %-28s %.4f  %s\n", r->tables[i].name, r->tables[i].score, r->tables[i].sources);
	for (int i = 0; i < r->ncolumns; i++)
		printf("column %-28s %.4f  %s\n", r->columns[i].name, r->columns[i].score, r->columns[i].table);
	for (int i = 0; i < r->npaths; i++)
		for (int k = 0; k < r->paths[i].njoins; k++)
			printf("join   %s.%s -> %s.%s%s\n", r->paths[i].joins[k].from_table, r->paths[i].joins[k].from_col,
			       r->paths[i].joins[k].to_table, r->paths[i].joins[k].to_col,
			       r->paths[i].joins[k].inferred ? " (inferred)" : "");
	for (int i = 0; i < r->nvalues; i++)
		printf("value  \"%s\" -> %s.%s = '%s' (%s)\n", r->values[i].phrase, r->values[i].table,
		       r->values[i].column, r->values[i].value, r->values[i].how);
	for (int i = 0; i < r->nsuggestions; i++)
		printf("suggestion: %s\n", r->suggestions[i]);
	printf("\n%s", r->prompt_block ? r->prompt_block : "");
}

int cmd_search(int argc, char **argv)
{
	const char *target = cli_opt(&argc, argv, "--target"), *name = cli_opt(&argc, argv, "--name");
	const char *k = cli_opt(&argc, argv, "--k"), *budget = cli_opt(&argc, argv, "--budget");
	const char *hyde = cli_opt(&argc, argv, "--hyde"), *addv = cli_opt(&argc, argv, "--add-verified");
	int json = cli_flag(&argc, argv, "--json");
	struct retrieval_opts o = {0};
	struct retrieval r;
	struct catalog *cat;
	char err[1024];
	struct target t;
	PGconn *app;
	enum err rc;

	if (argc != 2 || !*argv[1]) {
		fprintf(stderr, "usage: askql search [--target URL] [--name N] [--json] [--k N] [--budget TOKENS] "
		        "[--hyde TEXT] [--add-verified SQL] \"question\"\n");
		return 2;
	}
	if (cli_target("search", target, name, &t))
		return 1;
	app = db_app();
	/* record a verified question-SQL pair first (tests, admins); retrieval then finds it */
	if (addv && catalog_verified_add(app, t.name, argv[1], addv, 1, err, sizeof err) != OK) {
		fprintf(stderr, "askql search: %s\n", err);
		target_free(&t);
		return 1;
	}
	cat = catalog_get(app, t.name, err, sizeof err);
	if (!cat)
		fprintf(stderr, "askql search: %s (run askql index --target %s)\n", err, t.name);
	target_free(&t);
	if (!cat)
		return 1;
	o.k = k ? atoi(k) : 0;
	o.token_budget = budget ? atoi(budget) : 0;
	o.hyde_text = hyde;
	/* as the inspector builds it (small schemas whole unless configured off) */
	o.whole_schema_tokens = conf_get_int("context_whole_schema_tokens") > 0 ? conf_get_int("context_whole_schema_tokens") : -1;
	if ((rc = catalog_retrieve(cat, argv[1], &o, &r)) != OK) {
		fprintf(stderr, "askql search: %s\n", err_str(rc));
		return 1;
	}
	if (json) {
		cJSON *j = retrieval_json(&r);
		char *s = j ? cJSON_Print(j) : NULL;

		if (s)
			printf("%s\n", s);
		free(s);
		cJSON_Delete(j);
	} else {
		print_text(&r);
	}
	retrieval_free(&r);
	return 0;
}
