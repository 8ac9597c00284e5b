/* llm.c: the chat-completion client: openai-compatible over libcurl (multi, retries, SSE) and builtin. */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <curl/curl.h>
#include <cjson/cJSON.h>
#include "llm/llm.h"
#include "llm/sse.h"
#include "util/conf.h"
#include "util/log.h"
#include "util/sb.h"

#define MAX_BODY (8u << 20)   /* a chat answer larger than this is refused */

struct llm {
	int builtin;
	char *base_url, *key, *model;
	double temperature;
	long max_tokens, timeout_ms, connect_ms, backoff_ms, backoff_max_ms;
	int retries, stream;
	unsigned seed;
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void curl_init(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
}

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1000.0 + (double)t.tv_nsec / 1e6;
}

void llm_reply_free(struct llm_reply *r)
{
	if (!r)
		return;
	free(r->text);
	free(r->error);
	free(r->attempt_log);
	r->text = r->error = r->attempt_log = NULL;
}

struct llm *llm_open(const char *name, char *err, size_t errlen)
{
	struct llm *l;
	const char *base;

	if (!name || !*name)
		name = conf_get("llm_provider");
	if (!*name)
		name = "builtin";
	if (strcmp(name, "builtin") && strcmp(name, "openai")) {
		snprintf(err, errlen, "unknown LLM provider '%.32s' (builtin or openai)", name);
		return NULL;
	}
	if (!(l = calloc(1, sizeof *l))) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (!strcmp(name, "builtin")) {
		l->builtin = 1;
		return l;
	}
	base = conf_get("llm_base_url");
	if (!*base) {
		snprintf(err, errlen, "provider openai needs llm_base_url (e.g. http://127.0.0.1:8000/v1)");
		free(l);
		return NULL;
	}
	pthread_once(&curl_once, curl_init);
	l->base_url = strdup(base);
	l->key = strdup(conf_get("llm_api_key"));
	l->model = strdup(conf_get("llm_model"));
	l->temperature = strtod(conf_get("llm_temperature"), NULL);
	l->max_tokens = conf_get_int("llm_max_tokens");
	l->timeout_ms = conf_get_int("llm_timeout_ms");
	l->connect_ms = conf_get_int("llm_connect_timeout_ms");
	l->retries = (int)conf_get_int("llm_retries");
	l->backoff_ms = conf_get_int("llm_backoff_ms");
	l->backoff_max_ms = conf_get_int("llm_backoff_max_ms");
	l->stream = conf_get_int("llm_stream") != 0;
	l->seed = (unsigned)getpid() ^ (unsigned)time(NULL);
	if (l->retries < 0)
		l->retries = 0;
	if (l->timeout_ms <= 0)
		l->timeout_ms = 60000;
	if (!l->base_url || !l->key || !l->model) {
		llm_close(l);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	/* "http://host/v1/" and "http://host/v1" are the same base */
	for (size_t n = strlen(l->base_url); n > 0 && l->base_url[n - 1] == '/'; n--)
		l->base_url[n - 1] = '\0';
	return l;
}

void llm_close(struct llm *l)
{
	if (!l)
		return;
	free(l->base_url);
	if (l->key) {
		/* wipe the secret before handing the memory back */
		volatile char *k = l->key;
		while (*k)
			*k++ = 0;
		free(l->key);
	}
	free(l->model);
	free(l);
}

const char *llm_name(const struct llm *l)
{
	return l->builtin ? "builtin" : "openai";
}

int llm_is_builtin(const struct llm *l)
{
	return l && l->builtin;
}

const char *llm_model(const struct llm *l)
{
	return l->builtin ? "builtin" : l->model;
}

long llm_backoff_ms(long base_ms, long max_ms, int retry, unsigned *seed)
{
	long d = base_ms > 0 ? base_ms : 1, half;

	for (int i = 0; i < retry && d < max_ms; i++)
		d *= 2;
	if (max_ms > 0 && d > max_ms)
		d = max_ms;
	half = d / 2;
	return d - half + (half > 0 ? (long)(rand_r(seed) % (unsigned)(half + 1)) : 0);
}

void llm_redact(char *s, const char *secret)
{
	size_t n;
	char *p;

	if (!s || !secret || (n = strlen(secret)) < 4)
		return;
	while ((p = strstr(s, secret)))
		memset(p, '*', n);
}

/* One request's transfer state across its attempts. */
struct xfer {
	struct llm *l;
	const struct llm_req *req;
	struct llm_reply *rep;
	enum err *errp;
	char *body;              /* request JSON */
	CURL *h;
	struct curl_slist *hdrs;
	struct sb resp;          /* non-stream body / error body */
	struct sse sse;
	struct sb text;          /* streamed text */
	struct sb log;           /* attempt log */
	int streaming, is_sse, done_seen, stream_err;
	long status, retry_after_ms;
	int attempt;
	double t0, at0, next_at;
	int state;               /* 0 waiting, 1 running, 2 finished */
	char errmsg[512];
};

static char *request_json(struct llm *l, const struct llm_req *q, int stream)
{
	cJSON *o = cJSON_CreateObject(), *msgs = cJSON_AddArrayToObject(o, "messages");
	char *s;

	cJSON_AddStringToObject(o, "model", l->model);
	for (int i = 0; i < q->n; i++) {
		cJSON *m = cJSON_CreateObject();

		cJSON_AddStringToObject(m, "role", q->msgs[i].role);
		cJSON_AddStringToObject(m, "content", q->msgs[i].content ? q->msgs[i].content : "");
		cJSON_AddItemToArray(msgs, m);
	}
	cJSON_AddNumberToObject(o, "temperature", l->temperature);
	if (l->max_tokens > 0)
		cJSON_AddNumberToObject(o, "max_tokens", (double)l->max_tokens);
	if (stream) {
		cJSON_AddTrueToObject(o, "stream");
		cJSON_AddTrueToObject(cJSON_AddObjectToObject(o, "stream_options"), "include_usage");
	}
	s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return s;
}

static void take_usage(struct xfer *x, cJSON *root)
{
	cJSON *u = cJSON_GetObjectItemCaseSensitive(root, "usage"), *v;

	if (!cJSON_IsObject(u))
		return;
	if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(u, "prompt_tokens")))
		x->rep->tokens_in = v->valueint;
	if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(u, "completion_tokens")))
		x->rep->tokens_out = v->valueint;
}

/* One SSE event of a streamed chat completion. */
static int on_event(void *ctx, const char *data, size_t n)
{
	struct xfer *x = ctx;
	cJSON *root, *ch, *c0, *delta, *content, *e;

	if (n == 6 && !memcmp(data, "[DONE]", 6)) {
		x->done_seen = 1;
		return 0;
	}
	if (!(root = cJSON_ParseWithLength(data, n)))
		return 0;   /* a keep-alive or vendor event we do not know: ignore */
	if ((e = cJSON_GetObjectItemCaseSensitive(root, "error"))) {
		cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "message");

		snprintf(x->errmsg, sizeof x->errmsg, "stream error: %s",
		         cJSON_IsString(m) ? m->valuestring : "unknown");
		x->stream_err = 1;
	}
	take_usage(x, root);
	ch = cJSON_GetObjectItemCaseSensitive(root, "choices");
	if (cJSON_IsArray(ch) && (c0 = cJSON_GetArrayItem(ch, 0))) {
		delta = cJSON_GetObjectItemCaseSensitive(c0, "delta");
		content = delta ? cJSON_GetObjectItemCaseSensitive(delta, "content") : NULL;
		if (cJSON_IsString(content) && *content->valuestring) {
			size_t cl = strlen(content->valuestring);

			sb_append(&x->text, content->valuestring, cl);
			if (x->req->fn)
				x->req->fn(x->req->ctx, content->valuestring, cl);
		}
	}
	cJSON_Delete(root);
	return 0;
}

static size_t on_header(char *p, size_t sz, size_t nm, void *ud)
{
	struct xfer *x = ud;
	size_t n = sz * nm;

	if (n > 12 && !strncasecmp(p, "retry-after:", 12)) {
		long s = strtol(p + 12, NULL, 10);

		if (s > 0 && s < 3600)
			x->retry_after_ms = s * 1000;
	}
	return n;
}

static size_t on_data(char *p, size_t sz, size_t nm, void *ud)
{
	struct xfer *x = ud;
	size_t n = sz * nm;

	if (!x->status) {
		char *ct = NULL;

		curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &x->status);
		curl_easy_getinfo(x->h, CURLINFO_CONTENT_TYPE, &ct);
		x->is_sse = x->status == 200 && ct && strstr(ct, "event-stream");
	}
	if (x->is_sse) {
		sse_feed(&x->sse, p, n, on_event, x);
		return n;
	}
	if (x->resp.len + n > MAX_BODY)
		return 0;   /* aborts the transfer: CURLE_WRITE_ERROR */
	sb_append(&x->resp, p, n);
	return n;
}

/* Prepare an easy handle for the next attempt. */
static enum err start(struct xfer *x)
{
	struct sb url = SB_INIT, auth = SB_INIT;

	x->status = 0;
	x->retry_after_ms = 0;
	x->is_sse = x->done_seen = x->stream_err = 0;
	x->errmsg[0] = '\0';
	sb_reset(&x->resp);
	sb_reset(&x->text);
	sse_free(&x->sse);
	sse_init(&x->sse);
	if (x->attempt > 0 && x->req->fn && x->streaming)
		x->req->fn(x->req->ctx, NULL, 0);
	x->attempt++;
	x->at0 = now_ms();
	if (!(x->h = curl_easy_init()))
		return ERR_NOMEM;
	sb_printf(&url, "%s/chat/completions", x->l->base_url);
	x->hdrs = curl_slist_append(NULL, "Content-Type: application/json");
	x->hdrs = curl_slist_append(x->hdrs, x->streaming ? "Accept: text/event-stream" : "Accept: application/json");
	if (*x->l->key) {
		sb_printf(&auth, "Authorization: Bearer %s", x->l->key);
		x->hdrs = curl_slist_append(x->hdrs, sb_cstr(&auth));
		memset(auth.buf, 0, auth.len);
	}
	curl_easy_setopt(x->h, CURLOPT_URL, sb_cstr(&url));
	curl_easy_setopt(x->h, CURLOPT_HTTPHEADER, x->hdrs);
	curl_easy_setopt(x->h, CURLOPT_POSTFIELDS, x->body);
	curl_easy_setopt(x->h, CURLOPT_TIMEOUT_MS, x->l->timeout_ms);
	curl_easy_setopt(x->h, CURLOPT_CONNECTTIMEOUT_MS, x->l->connect_ms > 0 ? x->l->connect_ms : 5000L);
	curl_easy_setopt(x->h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(x->h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(x->h, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(x->h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(x->h, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(x->h, CURLOPT_PRIVATE, x);
	curl_easy_setopt(x->h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(x->h, CURLOPT_USERAGENT, "askql");
	sb_free(&url);
	sb_free(&auth);
	x->state = 1;
	return OK;
}

/* The error text of a non-2xx body: error.message of the JSON, else its first bytes. */
static void body_error(struct xfer *x, char *out, size_t outlen)
{
	cJSON *root = cJSON_ParseWithLength(sb_cstr(&x->resp), x->resp.len), *e, *m;
	const char *msg = NULL;

	if (root && (e = cJSON_GetObjectItemCaseSensitive(root, "error"))) {
		if (cJSON_IsString(e))
			msg = e->valuestring;
		else if (cJSON_IsString(m = cJSON_GetObjectItemCaseSensitive(e, "message")))
			msg = m->valuestring;
	}
	snprintf(out, outlen, "%.300s", msg ? msg : sb_cstr(&x->resp));
	cJSON_Delete(root);
	for (char *p = out; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
}

/* Parse a whole (non-stream) chat completion into the reply. */
static enum err parse_body(struct xfer *x)
{
	cJSON *root = cJSON_ParseWithLength(sb_cstr(&x->resp), x->resp.len), *ch, *c0, *msg, *content;
	enum err rc = ERR_PARSE;

	if (!root) {
		snprintf(x->errmsg, sizeof x->errmsg, "answer is not JSON: %.120s", sb_cstr(&x->resp));
		return ERR_PARSE;
	}
	take_usage(x, root);
	ch = cJSON_GetObjectItemCaseSensitive(root, "choices");
	if (cJSON_IsArray(ch) && (c0 = cJSON_GetArrayItem(ch, 0)) &&
	    (msg = cJSON_GetObjectItemCaseSensitive(c0, "message")) &&
	    cJSON_IsString(content = cJSON_GetObjectItemCaseSensitive(msg, "content"))) {
		sb_reset(&x->text);
		sb_puts(&x->text, content->valuestring);
		if (x->req->fn && *content->valuestring)
			x->req->fn(x->req->ctx, content->valuestring, strlen(content->valuestring));
		rc = OK;
	} else {
		snprintf(x->errmsg, sizeof x->errmsg, "answer has no choices[0].message.content");
	}
	cJSON_Delete(root);
	return rc;
}

/* Decide what one finished attempt means: done (OK or final error) or retry later. */
static void finish(struct xfer *x, CURLcode cc)
{
	double ms = now_ms() - x->at0;
	enum err rc = OK;
	int retry = 0;
	char why[700] = "";

	if (!x->status)
		curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &x->status);
	x->rep->http_status = (int)x->status;
	x->rep->timed_out = 0;
	if (cc == CURLE_OPERATION_TIMEDOUT) {
		rc = ERR_TIMEOUT;
		retry = 1;
		x->rep->timed_out = 1;
		snprintf(why, sizeof why, "timeout after %.0f ms (llm_timeout_ms %ld)", ms, x->l->timeout_ms);
	} else if (cc != CURLE_OK && !(x->is_sse && x->status == 200)) {
		rc = ERR_NET;
		retry = 1;
		snprintf(why, sizeof why, "network error: %s", curl_easy_strerror(cc));
	} else if (x->status == 429 || x->status >= 500) {
		char be[320];

		body_error(x, be, sizeof be);
		rc = ERR_NET;
		retry = 1;
		snprintf(why, sizeof why, "HTTP %ld: %s", x->status, be);
	} else if (x->status < 200 || x->status >= 300) {
		char be[320];

		body_error(x, be, sizeof be);
		rc = ERR_NET;
		snprintf(why, sizeof why, "HTTP %ld: %s", x->status, be);
	} else if (x->is_sse) {
		if (x->stream_err) {
			rc = ERR_NET;
			retry = 1;
			snprintf(why, sizeof why, "%s", x->errmsg);
		} else if (!x->done_seen) {
			rc = ERR_NET;
			retry = 1;
			snprintf(why, sizeof why, "broken stream: ended before [DONE] after %zu bytes of text%s%s",
			         x->text.len, cc != CURLE_OK ? ": " : "", cc != CURLE_OK ? curl_easy_strerror(cc) : "");
		}
	} else if ((rc = parse_body(x)) != OK) {
		snprintf(why, sizeof why, "%s", x->errmsg);
	}
	llm_redact(why, x->l->key);
	sb_printf(&x->log, "%d: %s %.0f ms%s%s\n", x->attempt,
	          rc == OK ? "ok" : "failed", ms, *why ? ": " : "", why);
	if (rc != OK && retry && x->attempt <= x->l->retries) {
		long d = llm_backoff_ms(x->l->backoff_ms, x->l->backoff_max_ms, x->attempt - 1, &x->l->seed);

		if (x->retry_after_ms > d)
			d = x->retry_after_ms < x->l->backoff_max_ms ? x->retry_after_ms : x->l->backoff_max_ms;
		x->next_at = now_ms() + (double)d;
		x->state = 0;
		log_warn("llm attempt %d failed (%s); retry in %ld ms", x->attempt, why, d);
		return;
	}
	x->state = 2;
	*x->errp = rc;
	if (rc == OK) {
		x->rep->text = x->text.buf ? sb_steal(&x->text) : strdup("");
	} else {
		struct sb e = SB_INIT;

		sb_printf(&e, "%s (after %d attempt%s)", why, x->attempt, x->attempt == 1 ? "" : "s");
		x->rep->error = sb_steal(&e);
		log_warn("llm call failed: %s", x->rep->error);
	}
}

enum err llm_chat_many(struct llm *l, const struct llm_req *reqs, int n, struct llm_reply *replies,
                       enum err *errs)
{
	struct xfer *xs = NULL;
	CURLM *m = NULL;
	int pending = n;
	enum err rc = OK;
	double t0 = now_ms();

	for (int i = 0; i < n; i++) {
		memset(&replies[i], 0, sizeof replies[i]);
		errs[i] = ERR_INTERNAL;
	}
	if (l->builtin) {
		for (int i = 0; i < n; i++) {
			replies[i].error = strdup("the builtin provider has no chat endpoint: the pipeline calls the offline planner");
			errs[i] = ERR_INPUT;
		}
		return ERR_INPUT;
	}
	if (!(xs = calloc((size_t)n, sizeof *xs)) || !(m = curl_multi_init())) {
		rc = ERR_NOMEM;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		struct xfer *x = &xs[i];

		x->l = l;
		x->req = &reqs[i];
		x->rep = &replies[i];
		x->errp = &errs[i];
		x->streaming = l->stream && reqs[i].fn;
		x->t0 = x->next_at = t0;
		sse_init(&x->sse);
		if (!(x->body = request_json(l, &reqs[i], x->streaming))) {
			rc = ERR_NOMEM;
			goto out;
		}
	}
	while (pending > 0) {
		double now = now_ms(), wait = 1000;
		int running = 0, q;
		CURLMsg *msg;

		for (int i = 0; i < n; i++) {
			if (xs[i].state != 0 || xs[i].next_at > now)
				continue;
			if (start(&xs[i]) != OK) {
				rc = ERR_NOMEM;
				goto out;
			}
			curl_multi_add_handle(m, xs[i].h);
		}
		curl_multi_perform(m, &running);
		while ((msg = curl_multi_info_read(m, &q))) {
			struct xfer *x = NULL;

			if (msg->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&x);
			curl_multi_remove_handle(m, x->h);
			finish(x, msg->data.result);
			curl_easy_cleanup(x->h);
			curl_slist_free_all(x->hdrs);
			x->h = NULL;
			x->hdrs = NULL;
			if (x->state == 2) {
				x->rep->attempts = x->attempt;
				x->rep->ms = now_ms() - x->t0;
				x->rep->attempt_log = sb_steal(&x->log);
				pending--;
			}
		}
		if (!pending)
			break;
		now = now_ms();
		for (int i = 0; i < n; i++)
			if (xs[i].state == 0 && xs[i].next_at - now < wait)
				wait = xs[i].next_at - now;
		if (wait < 0)
			wait = 0;
		if (running && wait > 50)
			wait = 50;
		curl_multi_poll(m, NULL, 0, (int)wait, NULL);
	}
	for (int i = 0; i < n; i++)
		if (errs[i] != OK && rc == OK)
			rc = errs[i];
out:
	if (xs) {
		for (int i = 0; i < n; i++) {
			if (xs[i].h) {
				curl_multi_remove_handle(m, xs[i].h);
				curl_easy_cleanup(xs[i].h);
			}
			curl_slist_free_all(xs[i].hdrs);
			free(xs[i].body);
			sb_free(&xs[i].resp);
			sb_free(&xs[i].text);
			sb_free(&xs[i].log);
			sse_free(&xs[i].sse);
		}
		free(xs);
	}
	if (m)
		curl_multi_cleanup(m);
	return rc;
}

enum err llm_chat(struct llm *l, const struct llm_msg *msgs, int n, llm_stream_fn fn, void *ctx,
                  struct llm_reply *r)
{
	struct llm_req q = {msgs, n, fn, ctx};
	enum err e;

	llm_chat_many(l, &q, 1, r, &e);
	return e;
}
