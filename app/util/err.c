/* err.c: names for enum err. */
#include <stdarg.h>
#include <stdio.h>
#include "err.h"

const char *err_str(enum err e)
{
	switch (e) {
	case OK: return "ok";
	case ERR_NOMEM: return "out of memory";
	case ERR_INPUT: return "bad input";
	case ERR_LIMIT: return "limit exceeded";
	case ERR_NOTFOUND: return "not found";
	case ERR_DENIED: return "denied";
	case ERR_DB: return "database error";
	case ERR_IO: return "i/o error";
	case ERR_NET: return "network error";
	case ERR_TIMEOUT: return "timeout";
	case ERR_PARSE: return "parse error";
	case ERR_INTERNAL: return "internal error";
	}
	return "unknown error";
}

void err_set(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}
