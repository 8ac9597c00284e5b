/* fuzz_sse.c: libFuzzer target for the SSE parser: any split of the bytes gives the same events. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "llm/sse.h"
#include "util/sb.h"

static int collect(void *ctx, const char *data, size_t n)
{
	struct sb *s = ctx;

	if (strlen(data) != n)
		abort();   /* data is NUL-terminated at n */
	sb_append(s, data, n);
	sb_putc(s, '\x1e');
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sb whole = SB_INIT, split = SB_INIT;
	struct sse p;
	size_t cut = size ? data[0] % (size + 1) : 0;

	if (size > 64 * 1024 || memchr(data, '\0', size))
		return 0;
	sse_init(&p);
	sse_feed(&p, (const char *)data, size, collect, &whole);
	sse_free(&p);
	/* the same bytes in two pieces, cut anywhere */
	sse_init(&p);
	sse_feed(&p, (const char *)data, cut, collect, &split);
	sse_feed(&p, (const char *)data + cut, size - cut, collect, &split);
	sse_free(&p);
	if (whole.len != split.len || (whole.len && memcmp(whole.buf, split.buf, whole.len)))
		abort();
	sb_free(&whole);
	sb_free(&split);
	return 0;
}
