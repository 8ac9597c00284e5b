/* export.c: the export front door: formats, output writers, temp file + rename, provenance (a CSV's in a zip beside it). */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "export/export_impl.h"
#include "util/conf.h"

#define NFORMATS 5
static const char *const exts[] = {"csv", "json", "ndjson", "xlsx", "zip"};
static const char *const mimes[] = {
	"text/csv; charset=utf-8",
	"application/json",
	"application/x-ndjson",
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	"application/zip",
};

enum err export_format_parse(const char *s, enum export_format *f)
{
	for (int i = 0; s && i < NFORMATS; i++) {
		if (!strcasecmp(s, exts[i])) {
			*f = (enum export_format)i;
			return OK;
		}
	}
	return ERR_INPUT;
}

const char *export_ext(enum export_format f)
{
	return (unsigned)f < NFORMATS ? exts[f] : "bin";
}

const char *export_content_type(enum export_format f)
{
	return (unsigned)f < NFORMATS ? mimes[f] : "application/octet-stream";
}

char *export_filename(enum export_format f, time_t t, char *buf, size_t n)
{
	struct tm tm;
	char ts[32];

	localtime_r(&t, &tm);
	strftime(ts, sizeof ts, "%Y%m%d_%H%M%S", &tm);
	snprintf(buf, n, "extraction_%s.%s", ts, export_ext(f));
	return buf;
}

static enum err stdio_write(void *ctx, const char *p, size_t n)
{
	return fwrite(p, 1, n, (FILE *)ctx) == n ? OK : ERR_IO;
}

void export_out_stdio(struct export_out *out, FILE *f)
{
	out->write = stdio_write;
	out->ctx = f;
}

/* ---- shared helpers for the formats --------------------------------------------- */

enum err exp_flush(struct exp *e)
{
	enum err rc;

	if (!e->len)
		return OK;
	if ((rc = e->out->write(e->out->ctx, e->buf, e->len)) != OK)
		return rc;
	e->st->bytes_out += e->len;
	e->len = 0;
	return OK;
}

char *exp_reserve(struct exp *e, size_t n, enum err *rc)
{
	if (e->len + n > e->cap) {
		if ((*rc = exp_flush(e)) != OK)
			return NULL;
		if (n > e->cap) {
			/* one huge value: grow rather than split the escaping logic */
			char *nb = realloc(e->buf, n);

			if (!nb) {
				*rc = ERR_NOMEM;
				return NULL;
			}
			e->buf = nb;
			e->cap = n;
		}
	}
	*rc = OK;
	return e->buf + e->len;
}

enum err exp_put(struct exp *e, const char *p, size_t n)
{
	enum err rc;
	char *w = exp_reserve(e, n, &rc);

	if (!w)
		return rc;
	memcpy(w, p, n);
	e->len += n;
	return OK;
}

void exp_iso_time(time_t t, char *buf, size_t n)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void exp_provenance_json(struct exp *e, struct sb *sb)
{
	char ts[32];

	exp_iso_time(e->st->started, ts, sizeof ts);
	sb_puts(sb, "\"question\":");
	if (e->o->question)
		sb_json_str(sb, e->o->question);
	else
		sb_puts(sb, "null");
	sb_puts(sb, ",\"sql\":");
	sb_json_str(sb, e->sql);
	sb_printf(sb, ",\"started_at\":\"%s\",\"format\":\"%s\",\"generator\":\"askql\"", ts,
	          export_ext(e->o->format));
	/* who took it, from which database and run: null when the caller does not know (the CLI) */
	sb_puts(sb, ",\"user\":");
	if (e->o->user)
		sb_json_str(sb, e->o->user);
	else
		sb_puts(sb, "null");
	sb_puts(sb, ",\"target\":");
	if (e->o->target)
		sb_json_str(sb, e->o->target);
	else
		sb_puts(sb, "null");
	if (e->o->run_id > 0)
		sb_printf(sb, ",\"run_id\":%lld", e->o->run_id);
	else
		sb_puts(sb, ",\"run_id\":null");
	/* marked for release: groups of fewer patients than k were left out (the summary counts them) */
	if (e->o->release)
		sb_printf(sb, ",\"for_release\":true,\"suppress_k\":%ld,\"release_round\":%ld", exec_suppress_k(),
		          exec_release_round());
	else
		sb_puts(sb, ",\"for_release\":false");
}

const char *exp_type_name(unsigned int oid)
{
	switch (oid) {
	case 16: return "boolean";
	case 20: return "bigint";
	case 21: return "smallint";
	case 23: return "integer";
	case 26: return "oid";
	case 700: return "real";
	case 701: return "double precision";
	case 1700: return "numeric";
	case 1082: return "date";
	case 1083: return "time";
	case 1114: return "timestamp";
	case 1184: return "timestamptz";
	case 1266: return "timetz";
	case 1186: return "interval";
	case 114: return "json";
	case 3802: return "jsonb";
	default: return "text";
	}
}

/* ---- running ---------------------------------------------------------------------- */

/* exec_opts_for: the executor's options for an export. */
static void exec_opts_for(const struct export_opts *o, struct exec_opts *xo)
{
	long cap = o->max_rows;

	memset(xo, 0, sizeof *xo);
	if (cap == 0)
		cap = conf_get_int("max_rows");
	xo->conninfo = o->conninfo;
	xo->max_rows = cap > 0 ? cap : 0;
	xo->limit = cap > 0 ? 0 : -1;    /* the guard adds LIMIT cap+1: truncation is seen */
	xo->chunk_rows = o->chunk_rows > 0 ? o->chunk_rows : 5000;
	xo->relation_ok = o->relation_ok;
	xo->relation_ctx = o->relation_ctx;
	xo->timeout_ms = o->timeout_ms;
	xo->cancelled = o->cancelled;
	xo->cancel_ctx = o->cancel_ctx;
	xo->release = o->release;
}

/* tmp_path: a fresh temporary file beside path (or in dir when path is NULL); *fd open. */
static enum err tmp_in(const char *dir, const char *base, char *buf, size_t n, int *fd,
                       char *err, size_t errlen)
{
	snprintf(buf, n, "%s/.%s.tmp.XXXXXX", dir, base);
	if ((*fd = mkstemp(buf)) < 0) {
		snprintf(err, errlen, "cannot create a file in %s: %s", dir, strerror(errno));
		return ERR_IO;
	}
	/* the file holds query results (often rows about patients): its owner only, as mkstemp made it;
	 * a share with others is a chmod the user decides on (issue 27: exports were 0644) */
	fchmod(*fd, 0600);
	return OK;
}

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* copy_file: the built file to out, by deadline (monotonic ms, 0: none) and while the reader stays:
 * a slow reader cannot stretch a download past export_timeout_ms (ERR_TIMEOUT mid-stream; the
 * caller cuts the transfer short). */
static enum err copy_file(const char *path, const struct export_opts *o, double deadline,
                          const struct export_out *out, struct export_stats *st)
{
	char buf[64 * 1024];
	size_t n;
	enum err rc = OK;
	FILE *f = fopen(path, "rb");

	if (!f)
		return ERR_IO;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
		if (deadline > 0 && mono_ms() >= deadline) {
			rc = ERR_TIMEOUT;
			break;
		}
		if (o->cancelled && o->cancelled(o->cancel_ctx)) {
			rc = ERR_IO;
			break;
		}
		if ((rc = out->write(out->ctx, buf, n)) != OK)
			break;
		st->bytes_out += n;
	}
	if (rc == OK && ferror(f))
		rc = ERR_IO;
	fclose(f);
	return rc;
}

const char *export_release_detail(const struct export_opts *o, const struct export_stats *st, char *buf, size_t n)
{
	if (!o->release)
		return NULL;
	snprintf(buf, n, "{\"for_release\":true,\"suppress_k\":%ld,\"release_round\":%ld}", exec_suppress_k(),
	         exec_release_round());
	return buf;
}

/* run_to: the export proper; xlsx_path is where an XLSX workbook is built. */
static enum err run_to(const char *sql, const struct export_opts *o, const struct export_out *out,
                       const char *xlsx_path, struct export_stats *st, struct exec_error *dberr)
{
	struct exp e = {0};
	struct exec_opts xo;
	struct exec_sink sink = {0};
	struct timespec t0, t1;
	enum err rc;

	memset(st, 0, sizeof *st);
	st->started = time(NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	exec_opts_for(o, &xo);
	xo.suppress_k = &st->suppress_k;   /* set before the sink's end: the summary can say it */
	e.o = o;
	e.out = out;
	e.sql = sql;
	e.st = st;
	if (o->format == EXPORT_XLSX) {
		rc = xlsx_run(&e, &xo, xlsx_path, dberr);
		goto out;
	}
	if (!(e.buf = malloc(EXP_BUF))) {
		rc = ERR_NOMEM;
		goto out;
	}
	e.cap = EXP_BUF;
	sink.ctx = &e;
	if (o->format == EXPORT_CSV) {
		sink.begin = csv_begin;
		sink.row = csv_row;
		sink.end = csv_end;
	} else {
		sink.begin = json_begin;
		sink.row = json_row;
		sink.end = json_end;
	}
	rc = exec_run(sql, &xo, &sink, dberr);
	if (rc == OK)
		rc = exp_flush(&e);
out:
	clock_gettime(CLOCK_MONOTONIC, &t1);
	st->ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	if (o->format == EXPORT_JSON || o->format == EXPORT_NDJSON)
		json_cleanup(&e);
	free(e.buf);
	return rc;
}

/* The CSV's bytes go into the zip's first entry, begun with the first of them: a statement that
 * fails before any row still leaves nothing written (st->bytes_out == 0). */
struct zip_csv {
	struct zipw *z;
	const char *name;
};

static enum err zip_csv_write(void *ctx, const char *p, size_t n)
{
	struct zip_csv *c = ctx;
	enum err rc;

	if (!c->z->n && (rc = zip_begin(c->z, c->name)) != OK)
		return rc;
	return zip_write(c->z, p, n);
}

/* run_zip: the CSV export into a zip, then provenance.json (question, SQL, times, user, target,
 * run, row count, truncated) written once the row count is known. */
static enum err run_zip(const char *sql, const struct export_opts *o, const struct export_out *out,
                        struct export_stats *st, struct exec_error *dberr)
{
	struct zipw *z = malloc(sizeof *z);
	struct export_opts co = *o;
	char name[300], ts[32];
	struct zip_csv c = {z, name};
	struct export_out zout = {zip_csv_write, &c};
	struct sb sb = SB_INIT;
	struct exp e = {0};
	enum err rc;

	memset(st, 0, sizeof *st);
	if (!z)
		return ERR_NOMEM;
	zip_init(z, out, time(NULL));
	snprintf(name, sizeof name, "%s.csv", o->basename && *o->basename ? o->basename : "data");
	co.format = EXPORT_CSV;
	if ((rc = run_to(sql, &co, &zout, NULL, st, dberr)) != OK)
		goto out;
	/* an empty result still has its header line, but be sure the entry exists */
	if (!z->n && (rc = zip_begin(z, name)) != OK)
		goto out;
	if ((rc = zip_end(z)) != OK)
		goto out;
	e.o = &co;
	e.sql = sql;
	e.st = st;
	exp_iso_time(time(NULL), ts, sizeof ts);
	sb_puts(&sb, "{\n \"provenance\":{");
	exp_provenance_json(&e, &sb);
	sb_printf(&sb, ",\"file\":");
	sb_json_str(&sb, name);
	sb_printf(&sb, "},\n \"summary\":{\"row_count\":%lld,\"truncated\":%s,\"finished_at\":\"%s\",", st->rows,
	          st->truncated ? "true" : "false", ts);
	if (st->suppress_k > 0)
		sb_printf(&sb, "\"small_groups_left_out_under\":%ld,", st->suppress_k);
	sb_puts(&sb, "\"complete\":true}\n}\n");
	if (!sb_ok(&sb)) {
		rc = ERR_NOMEM;
		goto out;
	}
	if ((rc = zip_begin(z, "provenance.json")) != OK || (rc = zip_write(z, sb.buf, sb.len)) != OK ||
	    (rc = zip_end(z)) != OK || (rc = zip_finish(z)) != OK)
		goto out;
out:
	zip_cleanup(z);
	free(z);
	sb_free(&sb);
	return rc;
}

enum err export_run(const char *sql, const struct export_opts *o, const struct export_out *out,
                    struct export_stats *st, struct exec_error *dberr)
{
	char tmp[4096], err[512];
	const char *dir;
	int fd = -1;
	enum err rc;
	double deadline = o->timeout_ms > 0 ? mono_ms() + (double)o->timeout_ms : 0;

	if (o->format == EXPORT_ZIP)
		return run_zip(sql, o, out, st, dberr);
	if (o->format != EXPORT_XLSX)
		return run_to(sql, o, out, NULL, st, dberr);
	/* a zip is written at close, so build the workbook in a file, then stream it */
	dir = o->tmpdir ? o->tmpdir : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	if (o->tmpdir && mkdir(o->tmpdir, 0700) != 0 && errno != EEXIST) {
		memset(st, 0, sizeof *st);
		if (dberr) {
			exec_error_free(dberr);
			snprintf(err, sizeof err, "cannot create %s: %s", o->tmpdir, strerror(errno));
			dberr->message = strdup(err);
		}
		return ERR_IO;
	}
	if ((rc = tmp_in(dir, "askql_export.xlsx", tmp, sizeof tmp, &fd, err, sizeof err)) != OK) {
		memset(st, 0, sizeof *st);
		if (dberr) {
			exec_error_free(dberr);
			dberr->message = strdup(err);
		}
		return rc;
	}
	close(fd);
	rc = run_to(sql, o, out, tmp, st, dberr);
	if (rc == OK && (rc = copy_file(tmp, o, deadline, out, st)) == ERR_TIMEOUT && dberr) {
		/* the deadline can pass between packing and the first byte sent: the reason is said, as
		 * it is for the query and the packing ("unknown error" in the log otherwise) */
		exec_error_free(dberr);
		dberr->message = strdup("stopped at the time limit for the whole result while sending the workbook");
	}
	unlink(tmp);
	return rc;
}

/* into_special: the built file tmp copied into path, an existing file that is not a regular one (a
 * device such as /dev/null, a FIFO): renaming over it would put a regular file in its place, as
 * root even /dev/null.  OK, or ERR_IO with err set. */
static enum err into_special(const char *tmp, const char *path, char *err, size_t errlen)
{
	char buf[65536];
	ssize_t n = 0;
	int in = open(tmp, O_RDONLY | O_CLOEXEC), out = in < 0 ? -1 : open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	enum err rc = in < 0 || out < 0 ? ERR_IO : OK;

	while (rc == OK && (n = read(in, buf, sizeof buf)) > 0)
		for (ssize_t off = 0, w; rc == OK && off < n; off += w)
			if ((w = write(out, buf + off, (size_t)(n - off))) < 0 && errno != EINTR)
				rc = ERR_IO;
			else if (w < 0)
				w = 0;
	if (n < 0)
		rc = ERR_IO;
	if (rc != OK)
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) != 0 && rc == OK) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		rc = ERR_IO;
	}
	unlink(tmp);
	return rc;
}

enum err export_file(const char *sql, const struct export_opts *o, const char *path,
                     struct export_stats *st, struct exec_error *dberr, char *err, size_t errlen)
{
	char *d1 = strdup(path), *d2 = strdup(path), *dir, tmp[4096];
	struct export_out out;
	FILE *f = NULL;
	int fd = -1;
	struct stat sbuf;
	enum err rc;

	memset(st, 0, sizeof *st);
	err[0] = '\0';
	if (!d1 || !d2) {
		rc = ERR_NOMEM;
		goto out;
	}
	dir = dirname(d1);   /* may return a static "." rather than edit d1 */
	if (stat(dir, &sbuf) != 0 || !S_ISDIR(sbuf.st_mode)) {
		snprintf(err, errlen, "output directory %s does not exist", dir);
		rc = ERR_IO;
		goto out;
	}
	if ((rc = tmp_in(dir, basename(d2), tmp, sizeof tmp, &fd, err, errlen)) != OK)
		goto out;
	if (o->format == EXPORT_XLSX) {
		close(fd);
		fd = -1;
		rc = run_to(sql, o, NULL, tmp, st, dberr);
	} else {
		if (!(f = fdopen(fd, "wb"))) {
			snprintf(err, errlen, "cannot open %s: %s", tmp, strerror(errno));
			rc = ERR_IO;
			goto out;
		}
		fd = -1;
		export_out_stdio(&out, f);
		rc = o->format == EXPORT_ZIP ? run_zip(sql, o, &out, st, dberr) : run_to(sql, o, &out, NULL, st, dberr);
		if (fclose(f) != 0 && rc == OK) {
			snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
			rc = ERR_IO;
		}
		f = NULL;
	}
	if (rc == OK && lstat(path, &sbuf) == 0 && !S_ISREG(sbuf.st_mode) && !S_ISLNK(sbuf.st_mode)) {
		if (S_ISDIR(sbuf.st_mode)) {
			snprintf(err, errlen, "%s is a directory", path);
			rc = ERR_IO;
		} else if ((rc = into_special(tmp, path, err, errlen)) == OK) {
			goto out;
		}
	} else if (rc == OK && rename(tmp, path) != 0) {
		snprintf(err, errlen, "cannot rename to %s: %s", path, strerror(errno));
		rc = ERR_IO;
	}
	if (rc != OK) {
		unlink(tmp);
		if (!err[0] && dberr && dberr->message) {
			char *t = exec_error_text(dberr);

			snprintf(err, errlen, "%s", t ? t : dberr->message);
			free(t);
		} else if (!err[0] && rc == ERR_IO) {
			snprintf(err, errlen, "cannot write %s: %s", path, errno ? strerror(errno) : "I/O error");
		} else if (!err[0]) {
			snprintf(err, errlen, "%s", err_str(rc));
		}
	}
out:
	if (fd >= 0)
		close(fd);
	free(d1);
	free(d2);
	return rc;
}
