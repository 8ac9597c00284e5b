/* export_impl.h: what the format writers share (buffered output, provenance); not for callers. */
#ifndef ASKQL_EXPORT_IMPL_H
#define ASKQL_EXPORT_IMPL_H

#include "export/export.h"
#include "util/sb.h"
#include <stdint.h>
#include <zlib.h>

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

/* ---- zip.c: a streamed zip of entries (EXPORT_ZIP: the CSV and provenance.json) ---- */
#define ZIP_ENTRIES 4
struct zip_entry {
	char name[256];
	uint32_t crc, csize, usize, offset;
};
struct zipw {
	const struct export_out *out;   /* where the archive's bytes go */
	uint64_t off;                   /* bytes written so far */
	unsigned dos_time, dos_date;
	struct zip_entry e[ZIP_ENTRIES];
	int n, open;                    /* entries begun; 1: the last one is being written */
	z_stream zs;
	unsigned char obuf[64 * 1024];
};
/* zip_init: an empty archive writing to out, its entries stamped with t (local time). */
void zip_init(struct zipw *z, const struct export_out *out, time_t t);
/* zip_begin / zip_write / zip_end: one entry, deflated as it comes; zip_finish: the central
 * directory.  ERR_LIMIT at 4 GiB (no zip64), out's error as it is.  zip_cleanup frees zlib's
 * state whatever happened. */
enum err zip_begin(struct zipw *z, const char *name);
enum err zip_write(struct zipw *z, const char *p, size_t n);
enum err zip_end(struct zipw *z);
enum err zip_finish(struct zipw *z);
void zip_cleanup(struct zipw *z);

#endif
