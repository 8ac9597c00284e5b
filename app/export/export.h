/* export.h: streamed exports (CSV, JSON, NDJSON, XLSX) of guarded SQL, each carrying its provenance. */
#ifndef ASKQL_EXPORT_H
#define ASKQL_EXPORT_H

#include <stddef.h>
#include <stdio.h>
#include <time.h>
#include "sql/exec.h"
#include "util/err.h"

/*
 * Where export bytes go: write(ctx, p, n) must take all n bytes or return an error
 * (which stops and cancels the query).  A FILE* (export_out_stdio) or, in the web
 * worker, an FCGX stream.
 */
struct export_out {
	enum err (*write)(void *ctx, const char *p, size_t n);
	void *ctx;
};
/* export_out_stdio: out writes to f with fwrite (ERR_IO on a short write). */
void export_out_stdio(struct export_out *out, FILE *f);

/* EXPORT_ZIP: a zip holding the CSV (named after opts.basename) and provenance.json */
enum export_format { EXPORT_CSV = 0, EXPORT_JSON, EXPORT_NDJSON, EXPORT_XLSX, EXPORT_ZIP };
/* export_format_parse: "csv", "json", "ndjson", "xlsx", "zip" (case-insensitive); ERR_INPUT otherwise. */
enum err export_format_parse(const char *s, enum export_format *f);
const char *export_ext(enum export_format f);           /* "csv", ... (static) */
const char *export_content_type(enum export_format f);  /* MIME type (static) */
/* export_filename: "extraction_YYYYmmdd_HHMMSS.<ext>" for t (local time) into buf; returns buf. */
char *export_filename(enum export_format f, time_t t, char *buf, size_t n);

struct export_opts {
	enum export_format format;
	const char *question;       /* provenance; NULL: none */
	const char *user;           /* provenance: who exported it; NULL: none (JSON null) */
	const char *target;         /* provenance: the target database's name; NULL: none */
	long long run_id;           /* provenance: the run the SQL came from; 0: none */
	const char *basename;       /* EXPORT_ZIP: the CSV inside is <basename>.csv; NULL: "data" */
	const char *conninfo;       /* NULL: the executor's role (conf target_ro_db) */
	long max_rows;              /* rows before truncated=1; 0: conf max_rows; <0: no cap */
	int bom;                    /* CSV: start with a UTF-8 byte order mark (Excel) */
	int escape_formulas;        /* CSV: a text cell or column name starting with = + - @, tab or
	                             * CR (and not a plain number) gets a leading ', so a spreadsheet
	                             * shows it instead of running it (docs/csv-formulas.md); values
	                             * of numeric columns never.  JSON is never changed; XLSX always
	                             * writes text as text cells. */
	const char *tmpdir;         /* XLSX work files; NULL: $TMPDIR or /tmp (the web: conf export_tmp_dir) */
	long long tmp_max_bytes;    /* XLSX: the most bytes of uncompressed rows a workbook may hold in
	                             * tmpdir; past it the sheet ends there, marked truncated; 0: no cap */
	int (*relation_ok)(void *ctx, const char *schema, const char *name);  /* guard catalog check */
	void *relation_ctx;
	long timeout_ms;            /* the whole export ends by then (exec_opts.timeout_ms): ERR_TIMEOUT;
	                             * 0: none.  The web's downloads set conf export_timeout_ms.  For
	                             * XLSX it covers the query, packing the workbook and sending it */
	int (*cancelled)(void *ctx);  /* the reader went away (exec_opts.cancelled): ERR_IO; NULL: never */
	void *cancel_ctx;
	int chunk_rows;             /* rows per FETCH; 0: 5000 */
	int release;                /* 1: marked for release: only the safe aggregate form, groups of
	                             * fewer than conf suppress_k patients left out, counts rounded to
	                             * conf release_round (exec_opts.release); the provenance says so in
	                             * every format */
};

struct export_stats {
	long long rows;             /* data rows written */
	int truncated;              /* 1: stopped by max_rows (or the XLSX sheet limit) */
	size_t bytes_out;           /* bytes handed to out->write so far */
	long suppress_k;            /* the k the aggregate access level or release left groups of fewer
	                             * patients out with (sql/suppress.h); 0: no suppression */
	time_t started;
	double ms;
};

/*
 * export_run: guard sql again (through exec_run), run it read-only and stream the
 * result in format o->format to out, without holding it in memory.
 * Nothing reaches out before the first chunk of rows arrived, so errors of the
 * statement itself (syntax, missing column, permission, timeout in planning or the
 * first fetch) leave st->bytes_out == 0 and the caller may still send an error page.
 * XLSX is built in a temporary file and only streamed once complete, so an XLSX
 * failure never sends a byte.
 * For CSV/JSON/NDJSON a failure later in the stream returns the error with
 * st->bytes_out > 0: the output is incomplete.  JSON and NDJSON end with a summary
 * (row_count, truncated), so a reader can tell; for CSV over HTTP the caller must
 * abort the response (close the connection without ending the chunked body) rather
 * than finish it normally.  Returns OK, ERR_DENIED (guard; reason in dberr->message),
 * ERR_DB (dberr filled), ERR_NET, ERR_IO (out or temp file, or o->cancelled), ERR_TIMEOUT
 * (o->timeout_ms), ERR_LIMIT (the target's statement slots were all taken; reason in dberr).
 * Whatever the error, the statement was cancelled and its transaction rolled back.
 */
enum err export_run(const char *sql, const struct export_opts *o, const struct export_out *out,
                    struct export_stats *st, struct exec_error *dberr);

/*
 * export_file: export_run into path through a temporary file in the same directory,
 * renamed over path only on success (a failed export leaves no file).  err receives
 * a one-line message on any failure (including the database error text).
 */
/* export_release_detail: the access-audit detail of an export marked for release,
 * {"for_release":true,"suppress_k":K,"release_round":R}, into buf; NULL (buf untouched) when
 * o->release is 0. */
const char *export_release_detail(const struct export_opts *o, const struct export_stats *st, char *buf, size_t n);

enum err export_file(const char *sql, const struct export_opts *o, const char *path,
                     struct export_stats *st, struct exec_error *dberr, char *err, size_t errlen);

#endif
