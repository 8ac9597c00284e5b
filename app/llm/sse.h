/* sse.h: an incremental Server-Sent Events parser (text/event-stream), fed bytes as they arrive. */
#ifndef ASKQL_SSE_H
#define ASKQL_SSE_H

#include <stddef.h>
#include "util/sb.h"

/* Called once per event with its data lines joined by '\n' (NUL-terminated, valid only
 * during the call).  Returning non-zero stops further dispatch (sse->stopped = 1). */
typedef int (*sse_event_fn)(void *ctx, const char *data, size_t n);

struct sse {
	struct sb line;     /* the current, incomplete line */
	struct sb data;     /* data of the current event */
	int has_data;       /* a data field was seen in this event */
	int last_cr;        /* previous chunk ended in '\r' (a following '\n' belongs to it) */
	int stopped;
	long events;        /* events dispatched */
};

/* sse_init: empty parser.  sse_free: release its buffers (reusable after sse_init). */
void sse_init(struct sse *p);
void sse_free(struct sse *p);
/* sse_feed: parse n bytes; lines may end in \n, \r\n or \r and may be split anywhere
 * between calls; a blank line dispatches the event to fn. */
void sse_feed(struct sse *p, const char *buf, size_t n, sse_event_fn fn, void *ctx);

#endif
