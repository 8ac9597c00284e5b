/* cmd_migrate.c: `askql migrate`: apply the numbered SQL migrations to the app database. */
#include <stdio.h>
#include "cli/cli.h"
#include "store/db.h"
#include "store/target.h"
#include "util/conf.h"

int cmd_migrate(int argc, char **argv)
{
	const char *dir = cli_opt(&argc, argv, "--dir");
	char err[1024];
	PGconn *c = db_app();

	if (!c) {
		fprintf(stderr, "askql migrate: cannot connect to app_db (%s)\n", conf_get("app_db"));
		return 1;
	}
	if (db_migrate(c, dir ? dir : "conf/migrations", err, sizeof err) != OK) {
		fprintf(stderr, "askql migrate: %s\n", err);
		return 1;
	}
	/* the configured target_db is a registered target (the default when there is none) */
	if (target_sync_conf(c, err, sizeof err) != OK)
		fprintf(stderr, "askql migrate: warning: %s\n", err);
	return 0;
}
