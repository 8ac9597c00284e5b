/* main.c: bin/askql, the command-line front end sharing the workers' code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "catalog/catalog.h"
#include "cli/cli.h"
#include "store/db.h"
#include "store/target.h"
#include "util/conf.h"
#include "util/log.h"

struct cmd {
	const char *name;
	int (*fn)(int, char **);
	const char *usage;
};

/* The one dispatch table of the CLI. */
static const struct cmd cmds[] = {
	{"migrate", cmd_migrate, "migrate                 apply conf/migrations to the app database"},
	{"user", cmd_user, "user add NAME ROLE [--password-file F] | user token NAME"},
	{"index", cmd_index, "index [--target URL] [--docs DIR] [--metadata FILE]"},
	{"search", cmd_search, "search [--target URL] [--json] \"question\""},
	{"guard", cmd_guard, "guard [--target URL] [--json] \"SQL\""},
	{"explain", cmd_explain, "explain [--target URL] [--json] \"SQL\""},
	{"export", cmd_export, "export [--target URL] --sql \"...\" --format csv|json|ndjson|xlsx -o FILE"},
	{"ask", cmd_ask, "ask [--target URL] [--provider builtin|openai] [--mode extract|react] [--now TS] [--json] \"question\""},
	{"eval", cmd_eval, "eval [--target URL] [--now TS] FILE.jsonl"},
	{"critique", cmd_critique, "critique --case ID [--json] | --text FILE"},
	{"target", cmd_target, "target add NAME CONNINFO [--ro CONNINFO] [--metadata F] | list | test NAME | default NAME | rm NAME | levels NAME [--as CONNINFO]"},
	{"phi", cmd_phi, "phi list [--target T] [--table TABLE] [--json] | set [--target T] TABLE.COLUMN CLASS --reason TEXT [--by ADMIN] | clear ... | check [FILE]"},
	{"audit", cmd_audit, "audit verify|anchor     check the hash chains of both audit logs and their anchored heads; anchor: write the heads out"},
	{"render", cmd_render, "render TEMPLATE DATA.json   render a template to stdout"},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: askql [--conf FILE] COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
		fprintf(f, "  %s\n", cmds[i].usage);
}

/* cli_opt: find "flag VALUE" or "flag=VALUE" in argv, remove it, return VALUE (NULL if absent). */
const char *cli_opt(int *argc, char **argv, const char *flag)
{
	size_t fl = strlen(flag);

	for (int i = 1; i < *argc; i++) {
		const char *v = NULL;
		int take = 0;

		if (!strcmp(argv[i], flag) && i + 1 < *argc) {
			v = argv[i + 1];
			take = 2;
		} else if (!strncmp(argv[i], flag, fl) && argv[i][fl] == '=') {
			v = argv[i] + fl + 1;
			take = 1;
		}
		if (take) {
			memmove(&argv[i], &argv[i + take], (size_t)(*argc - i - take + 1) * sizeof *argv);
			*argc -= take;
			return v;
		}
	}
	return NULL;
}

/* cli_flag: 1 if the boolean flag is present (and removes it). */
int cli_flag(int *argc, char **argv, const char *flag)
{
	for (int i = 1; i < *argc; i++) {
		if (!strcmp(argv[i], flag)) {
			memmove(&argv[i], &argv[i + 1], (size_t)(*argc - i) * sizeof *argv);
			(*argc)--;
			return 1;
		}
	}
	return 0;
}

/* cli_target: see cli.h. */
int cli_target(const char *cmd, const char *spec, const char *name, struct target *t)
{
	char err[1024];
	PGconn *app;

	if (!(app = db_app())) {
		fprintf(stderr, "askql %s: cannot connect to app_db\n", cmd);
		return 1;
	}
	if (target_resolve(app, spec && *spec ? spec : name, t, err, sizeof err) != OK) {
		fprintf(stderr, "askql %s: %s\n", cmd, err);
		return 1;
	}
	if (spec && *spec && name && *name && strcmp(name, t->name)) {
		fprintf(stderr, "askql %s: --target names the database of target '%s', not '%s'\n", cmd, t->name, name);
		target_free(t);
		return 1;
	}
	return 0;
}

/* cli_use_catalog: see cli.h. */
void cli_use_catalog(const char *target_name, int (**ok)(void *, const char *, const char *), void **ctx)
{
	char err[256];
	PGconn *app;
	struct catalog *cat;

	if (!(app = db_app()) || !(cat = catalog_get(app, target_name, err, sizeof err)))
		return;
	*ok = catalog_relation_ok;
	*ctx = cat;
}

/* cli_user_id: see cli.h. */
long long cli_user_id(const char *cmd, const char *name)
{
	const char *p[1] = {name};
	char err[256];
	long long id = 0;
	PGresult *res;

	if (name && (res = db_query(db_app(), "SELECT id FROM askql.users WHERE name = $1", 1, p, err, sizeof err))) {
		id = PQntuples(res) ? atoll(PQgetvalue(res, 0, 0)) : 0;
		PQclear(res);
	}
	if (id <= 0)
		fprintf(stderr, "askql %s: no user named %s\n", cmd, name ? name : "(none)");
	return id;
}

int main(int argc, char **argv)
{
	const char *cf = NULL, *errmsg;

	if (argc > 2 && !strcmp(argv[1], "--conf")) {
		cf = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (conf_load(cf, &errmsg) != OK) {
		fprintf(stderr, "askql: %s\n", errmsg);
		return 2;
	}
	log_open(NULL, LOG_WARN);
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
		if (strcmp(argv[1], cmds[i].name))
			continue;
		return cmds[i].fn(argc - 1, argv + 1);
	}
	fprintf(stderr, "askql: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
