/* routes.h: the shape of a route in the one dispatch table (routes.c) and its declared parameters. */
#ifndef ASKQL_ROUTES_H
#define ASKQL_ROUTES_H

#include "http/http.h"

/* How a declared parameter is validated before the handler sees it. */
enum ptype {
	P_INT = 1,   /* optional '-' then 1-18 digits */
	P_WORD,      /* [A-Za-z0-9_.:-], e.g. a mode, a table or prompt name */
	P_TEXT,      /* any valid UTF-8 (control characters other than tab/CR/LF refused) */
	P_DATE,      /* YYYY-MM-DD */
	P_FILE,      /* a multipart file part (binary allowed) */
	P_PATH       /* where to go next (next=): a value resp_local_path refuses, or longer than max,
	              * reaches the handler as "/"; never a 400 (docs/auth.md) */
};
struct pspec {
	const char *name;
	enum ptype type;
	int max;     /* longest value in bytes */
};

enum {
	R_AUTH  = 1 << 0,   /* a session (or bearer token for R_API) is required, else sign-in / 401 */
	R_ADMIN = 1 << 1,   /* role admin required, else 403 */
	R_CSRF  = 1 << 2,   /* POST must carry the session's (or sign-in form's) CSRF token */
	R_API   = 1 << 3,   /* JSON API: bearer tokens accepted, errors as JSON */
	R_PUBLIC = 1 << 4,  /* reachable without a session */
	R_PWCHANGE = 1 << 5 /* open while the user must change a reset password (docs/auth.md) */
};

/* A handler returns OK once it has answered; any other value becomes the error page. */
typedef enum err (*handler_fn)(struct req *r);

struct route {
	enum method method;
	const char *pattern;            /* "/runs/:id/events": ":id" digits, ":name" a P_WORD segment */
	handler_fn fn;                  /* never NULL */
	int flags;
	const struct pspec *params;     /* terminated by {0}; undeclared parameters never reach fn */
};

#endif
