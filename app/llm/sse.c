/* sse.c: Server-Sent Events line parser (only the data field matters to the LLM client). */
#include <string.h>
#include "llm/sse.h"

void sse_init(struct sse *p)
{
	memset(p, 0, sizeof *p);
}

void sse_free(struct sse *p)
{
	sb_free(&p->line);
	sb_free(&p->data);
	memset(p, 0, sizeof *p);
}

static void line_done(struct sse *p, sse_event_fn fn, void *ctx)
{
	const char *l = sb_cstr(&p->line);
	size_t n = p->line.len;

	if (n == 0) {
		/* blank line: dispatch */
		if (p->has_data && !p->stopped) {
			p->events++;
			if (fn(ctx, sb_cstr(&p->data), p->data.len))
				p->stopped = 1;
		}
		sb_reset(&p->data);
		p->has_data = 0;
	} else if (l[0] == ':') {
		/* comment (keep-alive) */
	} else if (n >= 5 && !strncmp(l, "data", 4) && (l[4] == ':' || n == 4)) {
		const char *v = l + 5;
		size_t vn = n - 5;

		if (vn && *v == ' ') {
			v++;
			vn--;
		}
		if (p->has_data)
			sb_putc(&p->data, '\n');
		sb_append(&p->data, v, vn);
		p->has_data = 1;
	} else if (n == 4 && !strncmp(l, "data", 4)) {
		if (p->has_data)
			sb_putc(&p->data, '\n');
		p->has_data = 1;
	}
	/* event:, id:, retry: are not used by chat completions */
	sb_reset(&p->line);
}

void sse_feed(struct sse *p, const char *buf, size_t n, sse_event_fn fn, void *ctx)
{
	size_t i = 0, start;

	if (p->last_cr && n && buf[0] == '\n')
		i = 1;
	p->last_cr = 0;
	start = i;
	for (; i < n; i++) {
		if (buf[i] != '\n' && buf[i] != '\r')
			continue;
		sb_append(&p->line, buf + start, i - start);
		line_done(p, fn, ctx);
		if (buf[i] == '\r') {
			if (i + 1 < n && buf[i + 1] == '\n')
				i++;
			else if (i + 1 == n)
				p->last_cr = 1;
		}
		start = i + 1;
	}
	if (start < n)
		sb_append(&p->line, buf + start, n - start);
}
