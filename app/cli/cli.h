/* cli.h: the subcommands of bin/askql; each lives in app/cli/cmd_<name>.c. */
#ifndef ASKQL_CLI_H
#define ASKQL_CLI_H

/*
 * Every subcommand: argv[0] is the subcommand name; returns the process exit
 * status (0 ok, 1 refused/failed as documented by the command, 2 usage error).
 * The configuration is already loaded (conf_load) when it is called.
 */
#define CLI_CMD(name) int cmd_##name(int argc, char **argv)
CLI_CMD(migrate);
CLI_CMD(user);
CLI_CMD(index);
CLI_CMD(search);
CLI_CMD(guard);
CLI_CMD(explain);
CLI_CMD(export);
CLI_CMD(ask);
CLI_CMD(eval);
CLI_CMD(critique);
CLI_CMD(render);
#undef CLI_CMD

/* cli_opt: remove "FLAG VALUE" or "FLAG=VALUE" from argv and return VALUE (NULL: absent).
 * cli_flag: remove a boolean FLAG from argv; 1 if it was there. */
const char *cli_opt(int *argc, char **argv, const char *flag);
int cli_flag(int *argc, char **argv, const char *flag);

/* cli_use_catalog: for the configured target (target NULL or equal to conf target_db), point
 * ok and ctx at the indexed catalog's relation check so the guard refuses unknown relations;
 * leaves them untouched for another --target or when the target is not indexed. */
void cli_use_catalog(const char *target, int (**ok)(void *, const char *, const char *), void **ctx);

#endif
