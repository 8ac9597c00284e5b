/* xlsx.c: XLSX through libxlsxwriter (constant memory), typed cells, fetcher and writer on two threads, packed by a child within the deadline. */
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <xlsxwriter.h>
#include "export/export_impl.h"

#define CHUNK_ROWS 2048
#define CHUNK_BYTES (1 << 20)   /* text in one chunk before it is handed over, whatever its rows */
#define NCHUNKS 4               /* chunks in flight: bounds memory whatever the row count */
#define XLSX_MAX_ROWS 1048575   /* Excel's 1,048,576 rows minus the header */
#define XLSX_MAX_STR 32767      /* characters in one cell */
#define MAX_WIDTH 60

enum kind { K_BLANK, K_NUM, K_STR, K_BOOL, K_DATE, K_TIME, K_TS };

struct cell {
	unsigned char kind;
	double num;
	uint32_t off;               /* K_STR: offset of the NUL-terminated text in chunk->strs */
};

struct chunk {
	struct cell *cells;         /* CHUNK_ROWS * ncols */
	int nrows;
	char *strs;
	size_t slen, scap;
};

/* A bounded queue of chunk pointers; NULL is the end marker. */
struct queue {
	struct chunk *items[NCHUNKS + 1];
	int head, n;
	pthread_mutex_t mu;
	pthread_cond_t more, less;
};

struct xstate {
	struct exp *e;
	lxw_workbook *wb;
	lxw_worksheet *ws, *prov;
	lxw_format *bold, *fdate, *ftime, *fts, *wrap;
	struct chunk chunks[NCHUNKS];
	struct queue full, empty;
	struct chunk *cur;
	pthread_t writer;
	int writer_started;
	volatile int writer_err;    /* set by the writer; read by the fetcher to stop early */
	volatile int over_cap;      /* set by the writer: the row file reached o->tmp_max_bytes */
	int ncols;
	enum kind *kinds;           /* per column, from the type */
	int *width;                 /* widest value in characters, per column */
	long long rows_written;
	long long nrows;
	int truncated;
};

static void q_init(struct queue *q)
{
	memset(q, 0, sizeof *q);
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->more, NULL);
	pthread_cond_init(&q->less, NULL);
}

static void q_destroy(struct queue *q)
{
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->more);
	pthread_cond_destroy(&q->less);
}

static void q_push(struct queue *q, struct chunk *c)
{
	pthread_mutex_lock(&q->mu);
	while (q->n == NCHUNKS + 1)
		pthread_cond_wait(&q->less, &q->mu);
	q->items[(q->head + q->n) % (NCHUNKS + 1)] = c;
	q->n++;
	pthread_cond_signal(&q->more);
	pthread_mutex_unlock(&q->mu);
}

static struct chunk *q_pop(struct queue *q)
{
	struct chunk *c;

	pthread_mutex_lock(&q->mu);
	while (q->n == 0)
		pthread_cond_wait(&q->more, &q->mu);
	c = q->items[q->head];
	q->head = (q->head + 1) % (NCHUNKS + 1);
	q->n--;
	pthread_cond_signal(&q->less);
	pthread_mutex_unlock(&q->mu);
	return c;
}

/* ---- value conversion (fetcher thread) ------------------------------------------- */

/* days_from_civil: days since 1970-01-01 of a proleptic Gregorian date. */
static long days_from_civil(long y, unsigned m, unsigned d)
{
	long era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (long)doe - 719468;
}

static int digits(const char *s, int n, long *out)
{
	long v = 0;

	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 1;
}

/* parse_date: "YYYY-MM-DD" (DateStyle ISO) into an Excel serial; 0 when not representable. */
static int parse_date(const char *s, size_t n, double *serial)
{
	long y, m, d, days;

	if (n < 10 || s[4] != '-' || s[7] != '-' || !digits(s, 4, &y) || !digits(s + 5, 2, &m) ||
	    !digits(s + 8, 2, &d) || m < 1 || m > 12 || d < 1 || d > 31 || y < 1900 || y > 9999)
		return 0;
	if (n > 10 && s[10] != ' ' && s[10] != 'T')
		return 0;   /* "2024-01-01 BC" and the like stay text */
	days = days_from_civil(y, (unsigned)m, (unsigned)d) - days_from_civil(1899, 12, 30);
	if (days < 61)
		days--;     /* Excel counts a 29 February 1900 that never was */
	*serial = (double)days;
	return 1;
}

/* parse_time: "HH:MM:SS[.ffffff]" at s into a fraction of a day; ignores a zone after it. */
static int parse_time(const char *s, size_t n, double *frac)
{
	long h, mi, se;
	double f = 0, scale = 0.1;

	if (n < 8 || s[2] != ':' || s[5] != ':' || !digits(s, 2, &h) || !digits(s + 3, 2, &mi) ||
	    !digits(s + 6, 2, &se) || h > 24 || mi > 59 || se > 60)
		return 0;
	if (n > 8 && s[8] == '.')
		for (size_t i = 9; i < n && s[i] >= '0' && s[i] <= '9'; i++, scale /= 10)
			f += (s[i] - '0') * scale;
	*frac = ((double)(h * 3600 + mi * 60 + se) + f) / 86400.0;
	return 1;
}

/* parse_number: PostgreSQL's text of a number; 0 when it is NaN/Infinity or a whole number
 * of over 15 significant digits (an identifier Excel would corrupt), so the exact text is kept.
 * A fraction with more digits (AVG over numeric gives 16-20) is written as the nearest double:
 * Excel shows 15 digits anyway, and a number cell is what an analyst sums and charts. */
static int parse_number(const char *s, size_t n, int integer, double *v)
{
	int sig = 0, lead = 1;
	char *end;

	if (integer && n <= 15) {
		long x = 0;
		size_t i = 0;
		int neg = 0;

		if (n && s[0] == '-') {
			neg = 1;
			i = 1;
		}
		if (i == n)
			return 0;
		for (; i < n; i++) {
			if (s[i] < '0' || s[i] > '9')
				return 0;
			x = x * 10 + (s[i] - '0');
		}
		*v = (double)(neg ? -x : x);
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		if (s[i] >= '1' && s[i] <= '9')
			lead = 0;
		if (s[i] == 'e' || s[i] == 'E')
			break;
		if (s[i] >= '0' && s[i] <= '9' && !lead)
			sig++;
	}
	if (sig > 15 && !memchr(s, '.', n))
		return 0;
	*v = strtod(s, &end);
	return end == s + n && isfinite(*v);
}

/* add_str: copy text into the chunk, made safe for XML and a cell; returns width in chars. */
static int add_str(struct chunk *c, const char *v, size_t n, uint32_t *off)
{
	size_t i, chars = 0;
	int bad = 0;
	char *w;

	if (n > XLSX_MAX_STR) {
		/* Excel's limit is in characters: cut after the 32,767th */
		size_t k = 0, nc = 0;

		for (; k < n; k++)
			if (((unsigned char)v[k] & 0xC0) != 0x80 && nc++ == XLSX_MAX_STR)
				break;
		n = k;
	}
	if (c->slen + n + 1 > c->scap) {
		size_t nc = c->scap ? c->scap : 65536;
		char *ns;

		while (nc < c->slen + n + 1)
			nc *= 2;
		if (!(ns = realloc(c->strs, nc)))
			return -1;
		c->strs = ns;
		c->scap = nc;
	}
	*off = (uint32_t)c->slen;
	w = c->strs + c->slen;
	for (i = 0; i < n; i++) {
		unsigned char u = (unsigned char)v[i];

		chars += (u & 0xC0) != 0x80;
		bad |= u < 0x20 && u != '\t' && u != '\n' && u != '\r';
	}
	memcpy(w, v, n);
	if (bad)   /* control characters are not allowed in XML 1.0 */
		for (i = 0; i < n; i++)
			if ((unsigned char)w[i] < 0x20 && w[i] != '\t' && w[i] != '\n' && w[i] != '\r')
				w[i] = '?';
	w[n] = '\0';
	c->slen += n + 1;
	return (int)chars;
}

/* check_cap: mark the workbook over its byte cap once the sheet's row file has reached it
 * (issue 27: a 3.7 GB row file in /tmp).  The writer stops writing; the fetcher stops fetching. */
static void check_cap(struct xstate *x)
{
	FILE *f = x->ws->optimize_tmpfile;
	off_t at = f ? ftello(f) : 0;

	if (at >= 0 && (long long)at >= x->e->o->tmp_max_bytes)
		x->over_cap = 1;
}

static void *writer_main(void *arg)
{
	struct xstate *x = arg;
	struct chunk *c;

	while ((c = q_pop(&x->full))) {
		for (int i = 0; i < c->nrows && !x->writer_err && !x->over_cap; i++) {
			lxw_row_t row = (lxw_row_t)(x->rows_written + 1);
			const struct cell *cl = &c->cells[(size_t)i * (size_t)x->ncols];
			lxw_error le = LXW_NO_ERROR;

			for (int j = 0; j < x->ncols && le == LXW_NO_ERROR; j++) {
				lxw_col_t col = (lxw_col_t)j;

				switch (cl[j].kind) {
				case K_BLANK:
					break;
				case K_NUM:
					le = worksheet_write_number(x->ws, row, col, cl[j].num, NULL);
					break;
				case K_STR:
					le = worksheet_write_string(x->ws, row, col, c->strs + cl[j].off, NULL);
					break;
				case K_BOOL:
					le = worksheet_write_boolean(x->ws, row, col, cl[j].num != 0, NULL);
					break;
				case K_DATE:
					le = worksheet_write_number(x->ws, row, col, cl[j].num, x->fdate);
					break;
				case K_TIME:
					le = worksheet_write_number(x->ws, row, col, cl[j].num, x->ftime);
					break;
				case K_TS:
					le = worksheet_write_number(x->ws, row, col, cl[j].num, x->fts);
					break;
				}
			}
			if (le != LXW_NO_ERROR)
				x->writer_err = 1;
			x->rows_written++;
			/* the row file's size every 256 rows (ftello costs a system call): a wide chunk may
			 * pass the cap by at most 256 rows */
			if (x->e->o->tmp_max_bytes > 0 && (x->rows_written & 255) == 0)
				check_cap(x);
		}
		if (x->e->o->tmp_max_bytes > 0)
			check_cap(x);
		c->nrows = 0;
		c->slen = 0;
		q_push(&x->empty, c);
	}
	return NULL;
}

static enum err x_begin(void *ctx, const struct exec_col *cols, int ncols)
{
	struct xstate *x = ctx;

	x->ncols = ncols;
	x->e->cols = cols;
	x->e->ncols = ncols;
	if (!(x->kinds = calloc((size_t)ncols + 1, sizeof *x->kinds)) ||
	    !(x->width = calloc((size_t)ncols + 1, sizeof *x->width)))
		return ERR_NOMEM;
	for (int j = 0; j < ncols; j++) {
		const struct exec_col *c = &cols[j];

		x->kinds[j] = c->is_numeric ? K_NUM : c->is_bool ? K_BOOL : K_STR;
		if (c->type_oid == 1082)
			x->kinds[j] = K_DATE;
		else if (c->type_oid == 1083 || c->type_oid == 1266)
			x->kinds[j] = K_TIME;
		else if (c->type_oid == 1114 || c->type_oid == 1184)
			x->kinds[j] = K_TS;
		x->width[j] = (int)strlen(c->name) + 2;   /* room for the filter arrow */
		if (worksheet_write_string(x->ws, 0, (lxw_col_t)j, c->name, x->bold) != LXW_NO_ERROR)
			return ERR_IO;
	}
	worksheet_freeze_panes(x->ws, 1, 0);
	for (int i = 0; i < NCHUNKS; i++) {
		x->chunks[i].cells = calloc((size_t)CHUNK_ROWS * (size_t)(ncols ? ncols : 1), sizeof(struct cell));
		if (!x->chunks[i].cells)
			return ERR_NOMEM;
		q_push(&x->empty, &x->chunks[i]);
	}
	if (pthread_create(&x->writer, NULL, writer_main, x) != 0)
		return ERR_INTERNAL;
	x->writer_started = 1;
	return OK;
}

static enum err x_row(void *ctx, const char *const *vals, const int *lens, int ncols)
{
	struct xstate *x = ctx;
	struct chunk *c;
	struct cell *cl;

	if (x->writer_err)
		return ERR_IO;
	if (x->over_cap)
		return ERR_LIMIT;       /* xlsx_run turns this into a truncated sheet */
	if (!x->cur)
		x->cur = q_pop(&x->empty);
	c = x->cur;
	cl = &c->cells[(size_t)c->nrows * (size_t)ncols];
	for (int j = 0; j < ncols; j++) {
		const char *v = vals[j];
		size_t n = (size_t)lens[j];
		int w = (int)n;
		double t;

		cl[j].kind = (unsigned char)x->kinds[j];
		if (!v) {
			cl[j].kind = K_BLANK;
			continue;
		}
		switch (x->kinds[j]) {
		case K_NUM:
			if (!parse_number(v, n, x->e->cols[j].type_oid == 20 || x->e->cols[j].type_oid == 21 ||
			                  x->e->cols[j].type_oid == 23, &cl[j].num))
				cl[j].kind = K_STR;
			break;
		case K_BOOL:
			cl[j].num = *v == 't';
			w = 5;
			break;
		case K_DATE:
			if (n != 10 || !parse_date(v, n, &cl[j].num))
				cl[j].kind = K_STR;
			w = 10;
			break;
		case K_TIME:
			if (!parse_time(v, n, &cl[j].num))
				cl[j].kind = K_STR;
			w = 8;
			break;
		case K_TS:
			/* "... BC" stays text: Excel has no dates before 1900 anyway */
			if (n >= 19 && v[n - 1] != 'C' && parse_date(v, n, &cl[j].num) &&
			    parse_time(v + 11, n - 11, &t))
				cl[j].num += t;
			else
				cl[j].kind = K_STR;
			w = 19;
			break;
		default:
			break;
		}
		if (cl[j].kind == K_STR && (w = add_str(c, v, n, &cl[j].off)) < 0)
			return ERR_NOMEM;
		if (w > x->width[j])
			x->width[j] = w;
	}
	x->nrows++;
	x->e->st->rows = x->nrows;
	/* wide rows fill a chunk by bytes before rows: the queue holds at most NCHUNKS times
	 * CHUNK_BYTES of text plus one row (cells are cut at 32,767 characters) */
	if (++c->nrows == CHUNK_ROWS || c->slen >= CHUNK_BYTES) {
		q_push(&x->full, c);
		x->cur = NULL;
	}
	return OK;
}

static enum err x_end(void *ctx, long long nrows, int truncated)
{
	struct xstate *x = ctx;

	x->truncated = truncated;
	return x->writer_err ? ERR_IO : OK;
}

/* finish_writer: hand over the last partial chunk and wait for the writer. */
static void finish_writer(struct xstate *x)
{
	if (!x->writer_started)
		return;
	if (x->cur && x->cur->nrows)
		q_push(&x->full, x->cur);
	x->cur = NULL;
	q_push(&x->full, NULL);
	pthread_join(x->writer, NULL);
	x->writer_started = 0;
}

static void write_provenance(struct xstate *x)
{
	struct exp *e = x->e;
	char ts[32], te[32], n[32], rid[32], sup[96], rel[128];
	const char *rows[][2] = {
		{"question", e->o->question ? e->o->question : ""},
		{"sql", e->sql},
		{"started_at", ts},
		{"finished_at", te},
		{"row_count", n},
		{"truncated", x->truncated ? "yes: the result was cut at the row or size limit" : "no"},
		{"user", e->o->user ? e->o->user : ""},
		{"target", e->o->target ? e->o->target : ""},
		{"run_id", rid},
		{"generator", "askql"},
		{"small_groups", sup},
		{"for_release", rel},
	};

	exp_iso_time(e->st->started, ts, sizeof ts);
	exp_iso_time(time(NULL), te, sizeof te);
	snprintf(n, sizeof n, "%lld", x->nrows);
	/* the aggregate access level's small cells (sql/suppress.h): never how many */
	if (e->st->suppress_k > 0)
		snprintf(sup, sizeof sup, "groups of fewer than %ld patients left out by the database", e->st->suppress_k);
	else
		snprintf(sup, sizeof sup, "none left out");
	if (e->o->release)
		snprintf(rel, sizeof rel, "yes: aggregates only, groups of fewer than %ld patients left out, counts rounded to %ld",
		         exec_suppress_k(), exec_release_round());
	else
		snprintf(rel, sizeof rel, "no");
	if (e->o->run_id > 0)
		snprintf(rid, sizeof rid, "%lld", e->o->run_id);
	else
		rid[0] = '\0';
	worksheet_write_string(x->prov, 0, 0, "field", x->bold);
	worksheet_write_string(x->prov, 0, 1, "value", x->bold);
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		char cut[XLSX_MAX_STR + 1];

		worksheet_write_string(x->prov, (lxw_row_t)(i + 1), 0, rows[i][0], NULL);
		if (!strcmp(rows[i][0], "row_count")) {
			worksheet_write_number(x->prov, (lxw_row_t)(i + 1), 1, (double)x->nrows, NULL);
			continue;
		}
		snprintf(cut, sizeof cut, "%s", rows[i][1]);
		worksheet_write_string(x->prov, (lxw_row_t)(i + 1), 1, cut, x->wrap);
	}
	worksheet_set_column(x->prov, 0, 0, 14, NULL);
	worksheet_set_column(x->prov, 1, 1, 100, NULL);
}

/* ERR_IO when a sheet's constant-memory row file could not be written (e.g. disk full). */
static enum err sheets_flushed(lxw_workbook *wb)
{
	lxw_worksheet *ws;

	LXW_FOREACH_WORKSHEET(ws, wb) {
		if (ws->optimize_tmpfile && (fflush(ws->optimize_tmpfile) != 0 || ferror(ws->optimize_tmpfile)))
			return ERR_IO;
	}
	return OK;
}

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* release_wb: free a workbook that will not be closed here (its sheets' row files closed first:
 * lxw_workbook_free leaves them open). */
static void release_wb(lxw_workbook *wb)
{
	lxw_worksheet *ws;

	LXW_FOREACH_WORKSHEET(ws, wb) {
		if (ws->optimize_tmpfile) {
			fclose(ws->optimize_tmpfile);
			ws->optimize_tmpfile = NULL;
		}
	}
	lxw_workbook_free(wb);
}

/*
 * close_by: pack the workbook (workbook_close: the sheet XML from the row file, deflated into the
 * zip at its path) by deadline (monotonic ms; 0: none) and while the reader stays.  Packing is one
 * libxlsxwriter call that cannot be interrupted and takes time in proportion to the rows, so it runs
 * in a child process that is killed at the deadline: ERR_TIMEOUT, or ERR_IO when the reader left
 * (the caller removes the partial file).  The writer thread has been joined, so the child is the
 * only thread of its process; it touches nothing but the workbook and leaves by _exit.  The
 * parent's copy of the workbook is freed without packing.  Without a deadline or a reader to watch,
 * packing happens here.
 */
static enum err close_by(lxw_workbook *wb, double deadline, const struct exec_opts *xo)
{
	pid_t pid;
	int status = 0;
	enum err rc = OK;

	if (deadline <= 0 && !xo->cancelled)
		return workbook_close(wb) == LXW_NO_ERROR ? OK : ERR_IO;
	fflush(NULL);               /* nothing buffered is written twice by the child */
	if ((pid = fork()) < 0) {
		release_wb(wb);
		return ERR_IO;
	}
	if (pid == 0)
		_exit(workbook_close(wb) == LXW_NO_ERROR ? 0 : 1);
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid) {
			rc = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? OK : ERR_IO;
			break;
		}
		if (w < 0) {
			rc = ERR_IO;
			break;
		}
		if (deadline > 0 && mono_ms() >= deadline)
			rc = ERR_TIMEOUT;
		else if (xo->cancelled && xo->cancelled(xo->cancel_ctx))
			rc = ERR_IO;
		if (rc != OK) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			break;
		}
		usleep(20000);
	}
	release_wb(wb);
	return rc;
}

enum err xlsx_run(struct exp *e, const struct exec_opts *xo_in, const char *path,
                  struct exec_error *dberr)
{
	/* the export's deadline (exec_run's own starts a moment later): query, rows and packing */
	double deadline = xo_in->timeout_ms > 0 ? mono_ms() + (double)xo_in->timeout_ms : 0;
	struct xstate x = {0};
	struct exec_opts xo = *xo_in;
	struct exec_sink sink = {x_begin, x_row, x_end, &x};
	lxw_workbook_options wo = {.constant_memory = LXW_TRUE, .tmpdir = (char *)e->o->tmpdir,
	                           .use_zip64 = LXW_TRUE};
	enum err rc;

	x.e = e;
	q_init(&x.full);
	q_init(&x.empty);
	if (xo.max_rows <= 0 || xo.max_rows > XLSX_MAX_ROWS) {
		xo.max_rows = XLSX_MAX_ROWS;
		xo.limit = 0;
	}
	if (!(x.wb = workbook_new_opt(path, &wo)) ||
	    !(x.ws = workbook_add_worksheet(x.wb, "data")) ||
	    !(x.prov = workbook_add_worksheet(x.wb, "provenance"))) {
		rc = ERR_IO;
		goto out;
	}
	x.bold = workbook_add_format(x.wb);
	format_set_bold(x.bold);
	x.fdate = workbook_add_format(x.wb);
	format_set_num_format(x.fdate, "yyyy-mm-dd");
	x.ftime = workbook_add_format(x.wb);
	format_set_num_format(x.ftime, "hh:mm:ss");
	x.fts = workbook_add_format(x.wb);
	format_set_num_format(x.fts, "yyyy-mm-dd hh:mm:ss");
	x.wrap = workbook_add_format(x.wb);
	format_set_text_wrap(x.wrap);

	rc = exec_run(e->sql, &xo, &sink, dberr);
	finish_writer(&x);
	if (rc == ERR_LIMIT && x.over_cap) {
		/* the byte cap: the rows written so far are the sheet, marked truncated like max_rows */
		rc = OK;
		x.truncated = 1;
		x.nrows = x.rows_written;
		exec_error_free(dberr);
	}
	if (rc == OK && x.writer_err)
		rc = ERR_IO;
	if (rc != OK)
		goto out;
	for (int j = 0; j < x.ncols; j++)
		worksheet_set_column(x.ws, (lxw_col_t)j, (lxw_col_t)j,
		                     x.width[j] + 1 > MAX_WIDTH ? MAX_WIDTH : x.width[j] + 1, NULL);
	write_provenance(&x);
	e->st->rows = x.nrows;
	e->st->truncated = x.truncated;
	/* libxlsxwriter does not check its constant-memory row files: a full temp disk shows here */
	if ((rc = sheets_flushed(x.wb)) != OK)
		goto out;
	rc = close_by(x.wb, deadline, &xo);
	x.wb = NULL;
	if (rc == ERR_TIMEOUT && dberr) {
		exec_error_free(dberr);
		dberr->message = strdup("stopped at the time limit for the whole result while packing the workbook");
	}
out:
	finish_writer(&x);
	if (x.wb)
		release_wb(x.wb);       /* failed: nothing to package */
	for (int i = 0; i < NCHUNKS; i++) {
		free(x.chunks[i].cells);
		free(x.chunks[i].strs);
	}
	free(x.kinds);
	free(x.width);
	q_destroy(&x.full);
	q_destroy(&x.empty);
	return rc;
}
