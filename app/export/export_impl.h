/* export_impl.h: what the format writers share (buffered output, provenance); not for callers. */
#ifndef ASKQL_EXPORT_IMPL_H
#define ASKQL_EXPORT_IMPL_H

#include "export/export.h"
#include "util/sb.h"

#define EXP_BUF (256 * 1024)

/* One export in progress.  Formats append to buf; exp_flush hands it to out. */
struct exp {
	const struct export_opts *o;
	const struct export_out *out;
	const char *sql;                /* as the caller gave it (provenance) */
	struct export_stats *st;
	char *buf;
	size_t len, cap;
	const struct exec_col *cols;    /* valid during exec_run */
	int ncols;
	long long nrows;
	void *fmt;                      /* the format's own state */
};

/* exp_flush: hand buf to out; ERR_IO (or out's error) on failure. */
enum err exp_flush(struct exp *e);
/* exp_reserve: make room for n more bytes in buf (flushing first); returns the write
 * position or NULL with *rc set.  A single reservation may exceed EXP_BUF. */
char *exp_reserve(struct exp *e, size_t n, enum err *rc);
enum err exp_put(struct exp *e, const char *p, size_t n);
/* exp_iso_time: t as "YYYY-MM-DDTHH:MM:SSZ" into buf (21 bytes). */
void exp_iso_time(time_t t, char *buf, size_t n);
/* exp_provenance_json: the provenance fields (no braces) "question":..,"sql":..,... */
void exp_provenance_json(struct exp *e, struct sb *sb);
/* exp_type_name: a short type name for a column ("integer", "numeric", "timestamp", ...). */
const char *exp_type_name(unsigned int oid);

/* The sinks of each format (ctx is struct exp *). */
enum err csv_begin(void *ctx, const struct exec_col *cols, int ncols);
enum err csv_row(void *ctx, const char *const *vals, const int *lens, int ncols);
enum err csv_end(void *ctx, long long nrows, int truncated);
enum err json_begin(void *ctx, const struct exec_col *cols, int ncols);
enum err json_row(void *ctx, const char *const *vals, const int *lens, int ncols);
enum err json_end(void *ctx, long long nrows, int truncated);
void json_cleanup(struct exp *e);   /* frees the JSON writer's state (any outcome) */
/* xlsx_run: run the query and build the workbook at path (not streamed: a zip needs a file). */
enum err xlsx_run(struct exp *e, const struct exec_opts *xo, const char *path,
                  struct exec_error *dberr);

#endif
