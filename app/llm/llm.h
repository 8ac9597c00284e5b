/* llm.h: one chat-completion interface over several providers (openai-compatible via libcurl, builtin). */
#ifndef ASKQL_LLM_H
#define ASKQL_LLM_H

#include <stddef.h>
#include "util/err.h"

struct llm_msg { const char *role; const char *content; };   /* "system", "user", "assistant" */

struct llm_reply {
	char *text;            /* heap; the whole answer */
	int tokens_in, tokens_out;
	int attempts;          /* HTTP attempts made (retries + 1) */
	int http_status;       /* last status, 0 for builtin */
	double ms;
	char *error;           /* heap; set when the call failed */
	char *attempt_log;     /* heap; one line per HTTP attempt ("1: HTTP 429 12 ms") for steps */
	int timed_out;         /* 1 when the last attempt hit the timeout */
};
void llm_reply_free(struct llm_reply *r);

/* Called with each piece of streamed text as it arrives (SSE); may be NULL.  A call with
 * piece NULL and n 0 means the stream restarted (a retry): discard what was shown so far. */
typedef void (*llm_stream_fn)(void *ctx, const char *piece, size_t n);

struct llm;  /* a provider instance */

/* llm_open: the provider named by conf llm_provider ("openai" or "builtin") or by name
 * when non-NULL.  NULL with err when misconfigured (e.g. openai without base URL). */
struct llm *llm_open(const char *name, char *err, size_t errlen);
void llm_close(struct llm *l);
const char *llm_name(const struct llm *l);

/*
 * llm_chat: send messages, wait for the answer (retries with exponential backoff and
 * jitter on 429/5xx/timeouts, up to conf llm_retries; total deadline conf llm_timeout_ms
 * per attempt).  Returns OK with r->text, or ERR_NET/ERR_TIMEOUT/ERR_PARSE with r->error.
 * The API key never appears in r->error or in logs.
 */
enum err llm_chat(struct llm *l, const struct llm_msg *msgs, int n, llm_stream_fn fn, void *ctx,
                  struct llm_reply *r);

/* llm_is_builtin: 1 for the builtin provider (the pipeline then calls the offline
 * planner directly instead of llm_chat, which refuses with ERR_INPUT). */
int llm_is_builtin(const struct llm *l);
/* llm_model: the configured model name ("builtin" for builtin). */
const char *llm_model(const struct llm *l);

/* One request of llm_chat_many. */
struct llm_req {
	const struct llm_msg *msgs;
	int n;
	llm_stream_fn fn;      /* may be NULL */
	void *ctx;
};
/*
 * llm_chat_many: run n requests concurrently (curl multi), each with the retry policy of
 * llm_chat; returns when all are done.  replies[i] and errs[i] receive each outcome (the
 * caller frees each reply with llm_reply_free).  Returns OK when every request succeeded,
 * else the first non-OK error.
 */
enum err llm_chat_many(struct llm *l, const struct llm_req *reqs, int n, struct llm_reply *replies,
                       enum err *errs);

/*
 * llm_backoff_ms: the delay before retry number retry (0 = first retry): base * 2^retry
 * capped at max, "equal jitter" (half fixed, half uniform random from *seed), so the
 * result lies in [d/2, d].  Pure: unit tests check the schedule.
 */
long llm_backoff_ms(long base_ms, long max_ms, int retry, unsigned *seed);

/* llm_redact: replace every occurrence of secret in s (in place, same length "***...")
 * so provider error texts that echo the key never reach logs or steps. */
void llm_redact(char *s, const char *secret);

#endif
