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
CLI_CMD(target);
CLI_CMD(phi);
CLI_CMD(audit);
#undef CLI_CMD

/* cli_opt: remove "FLAG VALUE" or "FLAG=VALUE" from argv and return VALUE (NULL: absent).
 * cli_flag: remove a boolean FLAG from argv; 1 if it was there. */
const char *cli_opt(int *argc, char **argv, const char *flag);
int cli_flag(int *argc, char **argv, const char *flag);

struct target;
/*
 * cli_target: resolve a command's --target SPEC and --name NAME (either may be NULL) to a
 * registered target (store/target.h): SPEC a name or conninfo/URL, NAME an alias for a name,
 * neither the default.  With both, SPEC must be NAME's database.  On failure prints
 * "askql CMD: <why, naming the command to run>" and returns 1; 0 on success, t to be freed
 * with target_free.
 */
int cli_target(const char *cmd, const char *spec, const char *name, struct target *t);
/* cli_use_catalog: point ok and ctx at the catalog of target name so the guard refuses
 * relations it does not know; leaves them untouched when the target is not indexed. */
void cli_use_catalog(const char *target_name, int (**ok)(void *, const char *, const char *), void **ctx);
/* cli_user_id: the askql.users id of name (a command's --user: that user's access level, the audit
 * row's user); 0 after printing "askql CMD: no user named NAME" when there is none. */
long long cli_user_id(const char *cmd, const char *name);

#endif
