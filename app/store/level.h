/* level.h: access levels per user and target (identified, limited, aggregate), enforced by PostgreSQL roles, views and column GRANTs (issue 16). */
#ifndef ASKQL_LEVEL_H
#define ASKQL_LEVEL_H

#include <stddef.h>
#include <libpq-fe.h>
#include "util/err.h"

struct target;
struct sb;

/* Least to most restrictive.  A user with no stored level is LEVEL_IDENTIFIED. */
enum level { LEVEL_IDENTIFIED = 0, LEVEL_LIMITED, LEVEL_AGGREGATE };
#define LEVEL__MAX 3

/* The schema, in every target database set up for levels, holding the generalising views. */
#define LEVEL_VIEW_SCHEMA "askql_limited"

/* level_name: "identified", "limited", "aggregate" (static). */
const char *level_name(enum level lv);
/* level_parse: one of the three names (case-sensitive) into *out; 0 ok, -1 anything else. */
int level_parse(const char *s, enum level *out);

/*
 * level_role_prefix: the roles of target name are PREFIX_identified, PREFIX_limited,
 * PREFIX_aggregate, PREFIX being "askql_" and the name lower-cased with every character other
 * than a-z, 0-9 and _ turned into _, cut to 40 bytes.  Roles are per cluster: two targets
 * on one cluster must not share a prefix (level_setup refuses when another target has it).
 */
void level_role_prefix(const char *target, char *out, size_t n);

/*
 * level_of: user_id's level on target (LEVEL_IDENTIFIED when nothing is stored, or for
 * user_id <= 0: the CLI's operator).  ERR_DB with err.
 */
enum err level_of(PGconn *app, long long user_id, const char *target, enum level *out,
                  char *err, size_t errlen);
/*
 * level_set: store user_id's level on target and record an askql.audit row "level.set"
 * ({"user","user_id","target","level","previous"}), by: the admin's id (0: none, the CLI),
 * in one transaction.  ERR_NOTFOUND for an unknown user or target, ERR_DB.
 */
enum err level_set(PGconn *app, long long user_id, const char *target, enum level lv, long long by,
                   char *err, size_t errlen);

/*
 * level_conninfo: the connection the executor uses for user_id's SQL on t: the target's
 * read-only conninfo with options "-c role=PREFIX_LEVEL" (and, for limited and aggregate,
 * "-c search_path=askql_limited,public", so unqualified table names find the views).  The
 * role is a startup parameter, so RESET ROLE inside the session returns to it, not to the
 * login role.  When t is not set up for levels: the plain read-only conninfo for an identified
 * user; ERR_DENIED (err says run askql target levels) for limited or aggregate.  *out heap
 * (caller frees); *lv_out (may be NULL) the level.  ERR_DB, ERR_PARSE.
 */
enum err level_conninfo(PGconn *app, const struct target *t, long long user_id, char **out,
                        enum level *lv_out, char *err, size_t errlen);

/*
 * level_conninfo_release: the connection an export for release reads with: user_id's level, but
 * at least limited, so the file is built from the generalising views (no direct identifier, dates
 * to the month) whatever the user may read otherwise; identifiers cannot leave inside an aggregate
 * (string_agg of names, min of a birth date).  ERR_DENIED (err says run askql target levels) when
 * t is not set up for levels; otherwise as level_conninfo (*lv_out: the level used).
 */
enum err level_conninfo_release(PGconn *app, const struct target *t, long long user_id, char **out,
                                enum level *lv_out, char *err, size_t errlen);

/*
 * level_allows: 1 when a viewer now at level viewer may see rows that were read at level held: the
 * viewer's level is the same or less restrictive (identified sees all three, limited sees limited
 * and aggregate, aggregate sees aggregate only).  Issue 27: stored results follow the viewer's
 * current level, not the level they were made with.
 */
int level_allows(enum level viewer, enum level held);

/*
 * level_sql_allows: append to out a SQL boolean expression that is level_allows(the current level of
 * user $uid_param on run_alias.target, run_alias.access_level) for a row of askql.runs, with the
 * same readings as run_level_check: a run with no recorded (or an unknown) level counts as
 * identified, a viewer with no stored level (or a run with no target) as identified, a stored level
 * the CHECK should have refused as aggregate.  For lists and searches that must leave out what the
 * viewer may not see without asking once per row (history.c; docs/privacy.md).  run_alias is a
 * trusted SQL name (a literal of the caller), never user input.
 */
void level_sql_allows(struct sb *out, const char *run_alias, int uid_param);
/* level_sql_viewer: append a SQL text expression: the name of user $uid_param's current level on
 * run_alias.target ('identified' when none is stored), as level_of reads it. */
void level_sql_viewer(struct sb *out, const char *run_alias, int uid_param);

/*
 * level_run_record: note in askql.runs.access_level that run_id's SQL is about to read rows at lv,
 * keeping the least restrictive level the run ever read at (a run resumed at a stricter level still
 * holds its earlier rows).  ERR_DB with err.
 */
enum err level_run_record(PGconn *app, long long run_id, enum level lv, char *err, size_t errlen);

/* level_ready: 1 when target is set up for access levels (askql target levels), 0 when not or the
 * app database cannot say. */
int level_ready(PGconn *app, const char *target);

/* level_conninfo_is_aggregate: 1 when conninfo (as level_conninfo made it) logs in with the role
 * of an aggregate level (options "-c role=askql_..._aggregate"); 0 otherwise or unparsable. */
int level_conninfo_is_aggregate(const char *conninfo);

/*
 * level_setup: create (or bring up to date) t's three roles with admin_conninfo (a role that
 * may CREATE ROLE and grant them to the read-only login; NULL: t's indexing connection), make
 * the executor's login a member of each, then level_refresh.  Records the setup in
 * askql.target_levels.  The target must be indexed (the views follow its PHI classes).
 * ERR_NOTFOUND not indexed, ERR_DENIED prefix taken by another target, ERR_DB/ERR_NET.
 */
enum err level_setup(PGconn *app, const struct target *t, const char *admin_conninfo,
                     char *err, size_t errlen);
/*
 * level_refresh: as t's indexing connection (the owner): one transaction that (re)creates the
 * schema askql_limited with one view per catalog table of schema public, columns in the
 * table's order, quasi-identifier dates truncated to the month and ages over 89 given as 90;
 * grants SELECT on the tables to PREFIX_identified and, column by column, SELECT on the views
 * to PREFIX_limited and PREFIX_aggregate for columns that are neither direct identifiers nor
 * quasi-identifiers without a generalisation (nor unclassified).  OK without doing anything
 * when t is not set up for levels (*done 0).  Called by askql index after every indexing.
 */
enum err level_refresh(PGconn *app, const struct target *t, int *done, char *err, size_t errlen);

/*
 * level_test: check t's levels in the database: each role exists, cannot log in, the
 * read-only login is a member; limited/aggregate may read no base table and no direct
 * identifier column of a view; identified may read every catalog table.  Writes one line per
 * finding to out ("ok ..." or "WARNING: ..."); *nwarn the warnings.  OK when not set up
 * (one line saying so).  ERR_DB/ERR_NET when a connection fails.
 */
enum err level_test(PGconn *app, const struct target *t, struct sb *out, int *nwarn,
                    char *err, size_t errlen);

#endif
