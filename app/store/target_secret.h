/* target_secret.h: targets' passwords kept out of askql.targets, in a 0600 file keyed by target name (docs/privacy.md "Target secrets"). */
#ifndef ASKQL_TARGET_SECRET_H
#define ASKQL_TARGET_SECRET_H

#include <stddef.h>
#include "util/err.h"

#define TSECRET_MAX 4               /* secrets of one target: password and sslpassword of two connections */
#define TSECRET_VALUE_MAX 1024      /* bytes of one secret */
#define TSECRET_FILE_MAX ((size_t)1 << 20)

/*
 * One secret of one target's connection.  which: "conn" (indexing) or "ro" (read-only); kw:
 * "password" or "sslpassword"; where: the host, hostaddr and port the connection string names, as
 * written: the secret is given back only to a connection string that still names the same place, so
 * pointing a registered target at another server (a changed row of askql.targets) never sends it there.
 */
struct tsecret {
	char which[8], kw[16];
	char where[600];
	char value[TSECRET_VALUE_MAX + 1];
};

/*
 * tsecret_split: conninfo without its secrets into *clean (heap, caller frees): unchanged when it sets
 * none, else rebuilt as key=value without them; the secrets into out[*n] (at most max), marked which.
 * conninfo NULL or "": *clean NULL, *n 0.  ERR_PARSE when conninfo does not parse, ERR_LIMIT for a secret
 * over TSECRET_VALUE_MAX or more than max, ERR_NOMEM; err says which (never the secret).
 */
enum err tsecret_split(const char *conninfo, const char *which, char **clean, struct tsecret *out, int *n, int max,
                       char *err, size_t errlen);

/*
 * tsecret_merge: the stored (secret-free) conninfo of target name's connection which, with the secrets
 * of list[0..n) that belong to it (same name is the caller's filter; same which, same where) added;
 * heap, caller frees.  A stored conninfo that sets a password itself, or with no secret of its own, is
 * returned as it is.  NULL stored: NULL.
 */
char *tsecret_merge(const char *stored, const char *which, const struct tsecret *list, int n);

/*
 * tsecret_load: the secrets the file at path keeps for name into out[*n] (at most max).  A missing file
 * is OK with *n 0.  ERR_IO (unreadable, larger than TSECRET_FILE_MAX), ERR_PARSE (a bad line; err names
 * the line number, never its content).
 */
enum err tsecret_load(const char *path, const char *name, struct tsecret *out, int *n, int max, char *err,
                      size_t errlen);

/*
 * tsecret_store: make the file at path hold exactly list[0..n) for name (n 0: none, the name's lines
 * removed), under a lock, in one rename, 0600 (util/pfile.h).  Other names' lines are kept.  ERR_IO,
 * ERR_PARSE (the file has a bad line: nothing is written), ERR_INPUT (a name with a tab or newline).
 */
enum err tsecret_store(const char *path, const char *name, const struct tsecret *list, int n, char *err,
                       size_t errlen);

#endif
