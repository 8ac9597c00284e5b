/* download.c: CSV (alone or zipped with provenance.json), JSON and XLSX of a run's full result, re-run under the user's limits and a deadline, streamed by the export layer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cjson/cJSON.h>
#include "export/export.h"
#include "pages/decline_words.h"
#include "pages/pages.h"
#include "store/access.h"
#include "store/db.h"
#include "store/level.h"
#include "store/target.h"
#include "util/conf.h"
#include "util/log.h"

struct dl {
	struct req *r;
	enum export_format f;
	const char *disp;       /* Content-Disposition, sent only with the first byte of the file */
};

/* The export layer writes straight into the FastCGI stream; the headers go with its first bytes,
 * so an error before any byte still becomes an error page. */
static enum err to_resp(void *ctx, const char *p, size_t n)
{
	struct dl *d = ctx;

	if (!d->r->began) {
		resp_header(d->r, "Content-Disposition", d->disp);
		resp_begin(d->r, 200, export_content_type(d->f), 0);
	}
	return resp_write(d->r, p, n);
}

/* The export asks this while its query runs: a client that hung up stops it (docs/export-deadline.md). */
static int client_gone(void *ctx)
{
	return resp_gone(ctx);
}

/* failed: the answer to an export that failed before its first byte (a cut-off stream is
 * aborted by the caller instead). */
static enum err failed(struct req *r, enum err e, long timeout_ms)
{
	char secs[24];

	switch (e) {
	case ERR_DENIED:
		return ERR_DENIED;
	case ERR_LIMIT:     /* the target's statement slots */
		return page_busy(r, "limit.target", conf_get_int("target_max_statements"));
	case ERR_TIMEOUT:
		snprintf(secs, sizeof secs, "%ld", (timeout_ms + 999) / 1000);
		return page_notice(r, 503, "download.timeout", (const char *const[]){"seconds", secs, NULL}, 0);
	case ERR_IO:
		if (resp_gone(r)) {
			/* nobody is left to answer: nothing is written, the access log says 499 (nginx's
			 * code for a client that closed the request) and the connection is dropped */
			r->began = 1;
			r->status = 499;
			r->abort_conn = 1;
			return OK;
		}
		return ERR_INTERNAL;
	default:
		return ERR_INTERNAL;
	}
}

/* Stream run id's result as format; ERR_NOTFOUND unless owner or admin and the run has SQL.
 * release: marked for release (exec_opts.release): aggregates only, small groups left out. */
static enum err download(struct req *r, long long id, const char *fmt, int release)
{
	cJSON *run = NULL;
	const char *sql, *q;
	enum export_format f;
	struct export_opts o;
	struct dl dl = {r, EXPORT_CSV, NULL};
	struct export_out out = {to_resp, &dl};
	struct export_stats st;
	struct exec_error dberr;
	char fname[112], disp[176], base[96], detail[160], *conninfo = NULL;
	/* the level the file is read at: the downloader's now, at least limited for release (audited) */
	enum level read_lv = LEVEL_IDENTIFIED;
	enum err e;

	if ((e = run_load(r, id, &run)) != OK)
		return e;
	sql = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "sql"));
	q = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "question"));
	if (!sql || !*sql || strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "status")), "ok")) {
		cJSON_Delete(run);
		return ERR_NOTFOUND;
	}
	if (export_format_parse(fmt ? fmt : "csv", &f) != OK || f == EXPORT_NDJSON) {
		cJSON_Delete(run);
		return ERR_INPUT;
	}
	memset(&o, 0, sizeof o);
	memset(&st, 0, sizeof st);
	memset(&dberr, 0, sizeof dberr);
	o.format = f;
	dl.f = f;
	o.question = q;
	/* provenance: who took it, from which database and run (every format carries it; the CSV in
	 * format=zip, beside it as provenance.json) */
	o.user = r->user.name;
	o.target = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "target"));
	o.run_id = id;
	o.bom = f == EXPORT_CSV || f == EXPORT_ZIP;
	/* a download is opened in a spreadsheet: text that looks like a formula is defused */
	o.escape_formulas = conf_get_int("csv_escape_formulas") != 0;
	/* the whole export, not each FETCH, ends by the deadline; a reader that left ends it sooner */
	o.timeout_ms = conf_get_int("export_timeout_ms");
	o.cancelled = client_gone;
	o.cancel_ctx = r;
	o.release = release;
	/* an XLSX is built on disk before a byte is sent: in askql's own directory, never /tmp, and to
	 * at most export_tmp_max_bytes of rows (issue 27) */
	o.tmpdir = conf_get("export_tmp_dir");
	o.tmp_max_bytes = conf_get_int("export_tmp_max_bytes");
	/* the file is read with the downloader's access level on the run's target, never with more */
	{
		struct target t;
		char terr[512];
		enum err le;

		/* a file for release: at least the limited level's views, so no identifier leaves inside an
		 * aggregate (store/level.h) */
		if ((le = target_resolve(db_app(), o.target, &t, terr, sizeof terr)) == OK) {
			le = release ? level_conninfo_release(db_app(), &t, r->user.id, &conninfo, &read_lv, terr, sizeof terr)
			             : level_conninfo(db_app(), &t, r->user.id, &conninfo, &read_lv, terr, sizeof terr);
			target_free(&t);
		}
		if (le != OK) {
			log_warn("download of run %lld refused: %s", id, terr);
			cJSON_Delete(run);
			if (le != ERR_DENIED)
				return ERR_NOTFOUND;
			return page_notice(r, 403, release ? "release.not_set_up" : "levels.not_set_up", NULL, 0);
		}
		o.conninfo = conninfo;
	}
	export_filename(f, time(NULL), fname, sizeof fname);
	/* the CSV inside a zip is named as the zip is; a file for release says so in its name */
	snprintf(base, sizeof base, "%.*s%s", (int)(strrchr(fname, '.') - fname), fname, release ? "_release" : "");
	if (release)
		snprintf(fname, sizeof fname, "%s.%s", base, export_ext(f));
	o.basename = base;
	snprintf(disp, sizeof disp, "attachment; filename=\"%s\"", fname);
	dl.disp = disp;   /* not now: an error page must not arrive as an attachment named .xlsx */
	/* the audit row is written when the stream ends (it holds the row count and the table is
	 * append-only); no stream starts unless that row can be written (fail closed) */
	if (!access_ready(db_app())) {
		log_error("download of run %lld refused: the access audit cannot be written", id);
		free(conninfo);
		cJSON_Delete(run);
		return page_notice(r, 503, "audit.unavailable", NULL, 0);
	}
	e = export_run(sql, &o, &out, &st, &dberr);
	/* a download the guard refused or the target's slots turned away read nothing */
	if (e != ERR_DENIED && e != ERR_LIMIT)
		view_access_detail(r, run, ACCESS_DOWNLOAD, export_ext(f), e == OK ? st.rows : (st.rows > 0 ? st.rows : -1),
		                   e != OK, export_release_detail(&o, &st, detail, sizeof detail), level_name(read_lv));
	free(conninfo);
	if (e != OK) {
		char *msg = exec_error_text(&dberr);

		if (e == ERR_IO && resp_gone(r))
			log_info("download of run %lld stopped after %zu bytes, %.0f ms: the client hung up", id,
			         st.bytes_out, st.ms);
		else
			log_error("download of run %lld failed after %zu bytes, %.0f ms: %s", id, st.bytes_out, st.ms,
			          msg ? msg : err_str(e));
		free(msg);
		cJSON_Delete(run);
		if (st.bytes_out == 0 && !r->began && e == ERR_DENIED) {
			/* refused before a byte: a result outside the safe aggregate form cannot be released;
			 * the guard, the aggregate level's form or the EXPLAIN memory gate refused the statement.
			 * 422 with the reason in the reader's words (it comes in English; ko.decline.tsv has it
			 * in Korean), as a page or, through the API, as JSON; no attachment header (issue 27:
			 * this was the generic error page) */
			struct sb why;
			enum err pe;

			sb_init_arena(&why, r->a);
			decline_words(r->lang, dberr.message && *dberr.message ? dberr.message : "refused by the safety check",
			              &why);
			pe = page_notice(r, 422, release ? "release.refused" : "download.refused",
			                 (const char *const[]){"reason", sb_cstr(&why), NULL}, 0);

			exec_error_free(&dberr);
			return pe;
		}
		if (st.bytes_out == 0 && !r->began && e == ERR_DB && !strcmp(dberr.sqlstate, "42501")) {
			/* a column the downloader's level may not read (PostgreSQL said so) */
			exec_error_free(&dberr);
			return page_notice(r, 403, "levels.err.permission.title", NULL, 0);
		}
		exec_error_free(&dberr);
		if (st.bytes_out == 0 && !r->began)
			return failed(r, e, o.timeout_ms);
		r->abort_conn = 1;    /* the stream is cut short; the client sees an incomplete transfer */
		return OK;
	}
	exec_error_free(&dberr);
	log_info("download run %lld %s: %lld rows, %zu bytes, %.1f ms", id, export_ext(f), st.rows, st.bytes_out, st.ms);
	cJSON_Delete(run);
	return OK;
}

static enum err download_this(struct req *r)
{
	long long rel = req_param_int(r, "release", 0);

	/* release=2 must not quietly become a download that is not for release */
	if (rel != 0 && rel != 1)
		return ERR_INPUT;
	return download(r, r->arg_id, req_param(r, "format"), rel == 1);
}

enum err page_download(struct req *r)
{
	return page_limited(r, SLOT_DOWNLOAD, download_this);
}

enum err api_run_download(struct req *r)
{
	return page_download(r);
}
