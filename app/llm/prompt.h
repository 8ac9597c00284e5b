/* prompt.h: the XML prompts of conf/prompts, versioned in askql.prompts (admin pages edit and roll back). */
#ifndef ASKQL_PROMPT_H
#define ASKQL_PROMPT_H

#include <libpq-fe.h>
#include "util/err.h"

/*
 * prompt_sync: for every DIR/NAME.xml (dir NULL: conf prompt_dir) insert version 1 of NAME
 * into askql.prompts when NAME has no row yet; a file whose text no stored version has becomes
 * the next version, active only while the active version came from a file (an admin's edit
 * stays active).  Idempotent; called at start (workers, CLI).
 * Returns OK, ERR_IO (dir unreadable) or ERR_DB.
 */
enum err prompt_sync(PGconn *app, const char *dir);

/*
 * prompt_get: the body of the active version of name (highest active version), heap,
 * caller frees; *version receives it (may be NULL; 0 when read from the file).  Falls back
 * to prompt_dir/NAME.xml when the database is unavailable or has no row.  NULL when
 * neither exists.
 */
char *prompt_get(PGconn *app, const char *name, int *version);

/*
 * prompt_add: store body as a new version of name (max + 1) and make it the active one.
 * author/note may be NULL.  *version receives the new number (may be NULL).
 * ERR_INPUT when body is empty or not well-formed XML, ERR_DB on database failure.
 */
enum err prompt_add(PGconn *app, const char *name, const char *body, const char *author,
                    const char *note, int *version);

/* prompt_set_version: make version the only active version of name (rollback).
 * ERR_NOTFOUND when that version does not exist. */
enum err prompt_set_version(PGconn *app, const char *name, int version);

/*
 * prompt_render: copy tmpl replacing each {{key}} by the matching value (n pairs);
 * unknown keys are left as written.  Heap result, caller frees; NULL on no memory.
 */
char *prompt_render(const char *tmpl, const char *const *keys, const char *const *vals, int n);

#endif
