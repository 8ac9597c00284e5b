/* arena.h: per-request bump allocator, reset at the top of each request. */
#ifndef ASKQL_ARENA_H
#define ASKQL_ARENA_H

#include <stddef.h>

struct arena_block;
struct arena {
	struct arena_block *head;
	size_t used_total;  /* bytes handed out since the last reset */
	size_t limit;       /* 0: unlimited; else arena_alloc fails beyond it */
};

/* arena_alloc: n bytes, 16-aligned, zeroed; NULL on failure or over limit.
 * Memory lives until arena_reset/arena_free. */
void *arena_alloc(struct arena *a, size_t n);
void *arena_realloc(struct arena *a, void *old, size_t oldn, size_t n);
char *arena_strdup(struct arena *a, const char *s);
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_printf(struct arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* arena_reset: forget every allocation, keep the first block for reuse. */
void arena_reset(struct arena *a);
void arena_free(struct arena *a);

#endif
