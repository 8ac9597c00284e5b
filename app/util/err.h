/* err.h: the error values every module returns (errors are values, STYLE.md). */
#ifndef ASKQL_ERR_H
#define ASKQL_ERR_H

enum err {
	OK = 0,
	ERR_NOMEM,      /* allocation failed */
	ERR_INPUT,      /* caller gave bad input (size, syntax, encoding) */
	ERR_LIMIT,      /* an input exceeded a hard limit */
	ERR_NOTFOUND,   /* the thing asked for does not exist */
	ERR_DENIED,     /* not allowed (guard, permission, CSRF) */
	ERR_DB,         /* PostgreSQL reported an error */
	ERR_IO,         /* file or socket error */
	ERR_NET,        /* network / HTTP client error */
	ERR_TIMEOUT,    /* a deadline passed */
	ERR_PARSE,      /* could not parse (SQL, XML, JSON, template) */
	ERR_INTERNAL    /* a bug: should not happen */
};

/* err_str: a short English name for e; never NULL, static storage. */
const char *err_str(enum err e);

#include <stddef.h>

/* err_set: format a message into err (errlen bytes, always NUL-terminated); a NULL err or a
 * zero errlen is allowed and writes nothing. */
void err_set(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
