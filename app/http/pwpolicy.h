/* pwpolicy.h: what a new password must be: long enough, not a repetition, not on the list of common passwords (docs/auth.md). */
#ifndef ASKQL_PWPOLICY_H
#define ASKQL_PWPOLICY_H

#include <stddef.h>
#include "util/err.h"

/* The verdict on a new password; the words for each are made at the edge (pw_verdict_key). */
enum pw_verdict {
	PW_OK = 0,
	PW_SHORT,        /* fewer than password_min_length characters (code points, not bytes) */
	PW_REPETITIVE,   /* fewer than PW_MIN_DISTINCT different characters ("aaaaaaaaaa", "abababab..") */
	PW_COMMON,       /* on the list of common passwords, ignoring ASCII case */
	PW_NO_LIST,      /* the list could not be read: nothing is accepted (fail closed) */
	PW__MAX
};

#define PW_MIN_DISTINCT 4
#define PW_MAX_BYTES 256      /* the longest password any form or file may give */

/* A sorted list of lower-cased passwords; heap memory owned by the list (pw_list_free). */
struct pw_list {
	char **v;
	size_t n;
};

/* pw_list_load: read path (one password a line, '#' comments, blank lines skipped; at most
 * 1,000,000 lines of at most PW_MAX_BYTES) into *l, lower-cased and sorted.  ERR_IO when unreadable,
 * ERR_LIMIT over the limits, ERR_NOMEM; on error *l is empty and err says why. */
enum err pw_list_load(const char *path, struct pw_list *l, char *err, size_t errlen);
void pw_list_free(struct pw_list *l);
/* pw_list_has: 1 when pw, ASCII-lower-cased, is on l. */
int pw_list_has(const struct pw_list *l, const char *pw);

/* pw_judge: the verdict on pw with the rules given (pure: no settings, no files); common NULL means
 * the list is missing (PW_NO_LIST for a password that passes the other rules). */
enum pw_verdict pw_judge(const char *pw, long min_len, const struct pw_list *common);

/* auth_password_check: pw_judge with password_min_length and the list in common_passwords_file,
 * loaded on first use and kept for the life of the process. */
enum pw_verdict auth_password_check(const char *pw);

/* pw_verdict_key: the i18n key of a verdict's message ({n}: the minimum length), NULL for PW_OK. */
const char *pw_verdict_key(enum pw_verdict v);

#endif
