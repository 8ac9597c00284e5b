/* access.h: the audit of data access: every run's SQL executed, result page shown and download or export, one append-only row (askql.access_audit). */
#ifndef ASKQL_ACCESS_H
#define ASKQL_ACCESS_H

#include <stddef.h>
#include <libpq-fe.h>
#include "util/err.h"

struct catalog;

/* What kind of access; one row each. */
enum access_kind {
	ACCESS_RUN = 0,       /* a run's SQL executed (extraction executor, ReAct previews and lookups) */
	ACCESS_VIEW,          /* a result page that shows rows (the run page, the API's run) */
	ACCESS_DOWNLOAD,      /* a web or API download: csv, zip, json, xlsx */
	ACCESS_EXPORT,        /* `askql export` */
	ACCESS_AUDIT_EXPORT   /* the audit log itself exported as CSV from Admin -> Audit */
};
enum access_channel { ACCESS_WEB = 0, ACCESS_API, ACCESS_CLI };

/* One access.  Every pointer may be NULL unless said otherwise; nothing is kept after the call. */
struct access_rec {
	enum access_kind kind;
	enum access_channel channel;
	long long user_id;        /* askql user; 0: none (the CLI: os_user is recorded instead) */
	const char *user_name;    /* that user's name as it is now */
	int user_from_run;        /* 1: user_id/user_name are the owner of run_id (a run executing) */
	const char *target;       /* the target database's registered name */
	long long run_id;         /* 0: none */
	const char *sql;          /* the SQL as given to the executor (fingerprinted and parsed here) */
	long long rows;           /* rows read or sent; -1: unknown (a failed access) */
	const char *format;       /* "page", "csv", "zip", "json", "ndjson", "xlsx" or NULL (a run) */
	int failed;               /* 1: the access did not complete (rows may still have left) */
	const char *detail_json;  /* a JSON object kept as it is (filters of an audit export, ...) */
	const char *level;        /* the access level the rows were read at ("identified", "limited",
	                           * "aggregate"); NULL: the user's level on target now (issue 27: a
	                           * stored run's rows at the run's level, a release file at its floor) */
	struct catalog *cat;      /* the target's catalog when the caller holds it; NULL: loaded here
	                           * (catalog_get, which invalidates a catalog the caller holds) */
};

/*
 * access_record: write a as one askql.access_audit row over app: user (or none and the OS user for
 * the CLI), target, access level (a->level, else the user's on that target in askql.user_levels, else
 * 'identified'), the SQL's
 * fingerprint (the guard's, as history uses) and text, the catalog columns it reads with their PHI
 * class (phi_column_class; a column the catalog does not know has no class), row count, format and
 * time.  A failure never loses the record silently: it is logged at error level as one line
 * "access audit NOT WRITTEN: {...}" holding the whole record, and the return value says it, so the
 * caller decides whether the access may go on (README "Privacy": pages fail closed, a stream that
 * already left logs loudly).  OK, ERR_INPUT (a NULL), ERR_DB (err says why).
 */
enum err access_record(PGconn *app, const struct access_rec *a, char *err, size_t errlen);

/* access_ready: 1 when an audit row could be written now (the app connection answers and may
 * INSERT into askql.access_audit); checked before a stream starts so the stream fails closed. */
int access_ready(PGconn *app);

/* access_kind_name, access_channel_name: the stored words ("run", "view", "download", "export",
 * "audit_export"; "web", "api", "cli"); static. */
const char *access_kind_name(enum access_kind k);
const char *access_channel_name(enum access_channel c);

#endif
