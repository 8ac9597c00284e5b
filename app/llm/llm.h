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
};
void llm_reply_free(struct llm_reply *r);

/* Called with each piece of streamed text as it arrives (SSE); may be NULL. */
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

#endif
