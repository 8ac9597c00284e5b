/* main.c: bin/askql-fcgi, one FastCGI worker: accept loop, per-request arena, dispatch, access log. */
#include <fcgiapp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include "http/http.h"
#include "util/arena.h"
#include "util/conf.h"
#include "util/log.h"

static enum err put(void *ctx, const char *p, size_t n)
{
	FCGX_Request *fr = ctx;

	while (n > 0) {
		int k = n > (1 << 30) ? 1 << 30 : (int)n;

		if (FCGX_PutStr(p, k, fr->out) != k)
			return ERR_IO;     /* the client went away */
		p += k;
		n -= (size_t)k;
	}
	return OK;
}

static enum err flush(void *ctx)
{
	FCGX_Request *fr = ctx;

	return FCGX_FFlush(fr->out) == 0 ? OK : ERR_IO;
}

/* gone: nginx closes its end of the FastCGI connection when the client hangs up (it never sends
 * more after the request), so a hang-up shows on our socket before any write would fail. */
static int gone(void *ctx)
{
	FCGX_Request *fr = ctx;
	struct pollfd p = {fr->ipcFd, POLLRDHUP, 0};

	if (fr->ipcFd < 0)
		return 1;
	return poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

static long get(void *ctx, char *buf, size_t n)
{
	FCGX_Request *fr = ctx;

	return FCGX_GetStr(buf, n > (1 << 30) ? 1 << 30 : (int)n, fr->in);
}

/* One request: parse, dispatch, log one line with status and worker time. */
/* serve: one request; returns 1 when the connection must be dropped (see req.abort_conn). */
static int serve(FCGX_Request *fr, struct arena *a, unsigned long long seq)
{
	struct req r;
	enum err e;
	double ms;

	memset(&r, 0, sizeof r);
	r.a = a;
	r.env = fr->envp;
	r.t0 = now_ms();
	snprintf(r.id, sizeof r.id, "%05x%06llx", (unsigned)getpid() & 0xfffff, seq & 0xffffff);
	log_set_reqid(r.id);
	sb_init_arena(&r.hdr, a);
	r.out = (struct out){put, flush, fr, gone};
	e = req_parse(&r, get, fr, (size_t)conf_get_int("max_body_bytes"));
	if (e == OK) {
		http_dispatch(&r);
	} else {
		r.path = r.path ? r.path : "?";
		if (e == ERR_INPUT && r.method == M_OTHER)
			e = OK;
		if (r.method == M_OTHER) {
			resp_header(&r, "Allow", "GET, HEAD, POST");
			resp_error(&r, 405);
		} else {
			resp_error(&r, resp_err_status(e));
		}
	}
	if (!r.began)
		resp_error(&r, 500);
	ms = now_ms() - r.t0;
	log_info("%s %s %d %.2fms user=%s arena=%zuB", r.method_name ? r.method_name : "-",
	         r.path ? r.path : "-", r.status, ms, r.user.name ? r.user.name : "-", a->used_total);
	log_set_reqid(NULL);
	return r.abort_conn;
}

int main(void)
{
	FCGX_Request fr;
	struct arena a = {0};
	const char *errmsg;
	unsigned long long seq = 0;

	signal(SIGPIPE, SIG_IGN);
	if (conf_load(NULL, &errmsg) != OK) {
		fprintf(stderr, "askql-fcgi: %s\n", errmsg);
		return 1;
	}
	log_open(*conf_get("log_path") ? conf_get("log_path") : NULL, LOG_INFO);
	/* a request may not grow its arena past this: a runaway page fails, the worker lives */
	a.limit = (size_t)256 << 20;
	if (FCGX_Init() != 0 || FCGX_InitRequest(&fr, 0, 0) != 0) {
		log_error("FastCGI initialisation failed");
		return 1;
	}
	log_info("worker %d ready", (int)getpid());
	while (FCGX_Accept_r(&fr) >= 0) {
		arena_reset(&a);
		if (serve(&fr, &a, ++seq)) {
			/* No FCGI_END_REQUEST: nginx reports "upstream prematurely closed" and
			 * cuts the client's chunked response short instead of ending it cleanly. */
			FCGX_FFlush(fr.out);
			shutdown(fr.ipcFd, SHUT_RDWR);
		}
		FCGX_Finish_r(&fr);
	}
	arena_free(&a);
	return 0;
}
