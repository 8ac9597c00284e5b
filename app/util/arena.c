/* arena.c: per-request bump allocator (PostgreSQL's MessageContext, in small). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arena.h"

#define BLOCK_MIN (64 * 1024)

struct arena_block {
	struct arena_block *next;
	size_t size, used;
	_Alignas(16) unsigned char data[];
};

void *arena_alloc(struct arena *a, size_t n)
{
	struct arena_block *b = a->head;
	size_t need = (n + 15) & ~(size_t)15;
	void *p;

	if (n == 0)
		need = 16;
	if (need < n)
		return NULL; /* overflow */
	if (a->limit && a->used_total + need > a->limit)
		return NULL;
	if (!b || b->size - b->used < need) {
		size_t sz = need > BLOCK_MIN ? need : BLOCK_MIN;

		b = malloc(sizeof *b + sz);
		if (!b)
			return NULL;
		b->size = sz;
		b->used = 0;
		b->next = a->head;
		a->head = b;
	}
	p = b->data + b->used;
	b->used += need;
	a->used_total += need;
	memset(p, 0, n);
	return p;
}

void *arena_realloc(struct arena *a, void *old, size_t oldn, size_t n)
{
	void *p;

	if (n <= oldn && old)
		return old;
	p = arena_alloc(a, n);
	if (p && old && oldn)
		memcpy(p, old, oldn);
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return s ? arena_strndup(a, s, strlen(s)) : NULL;
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *p;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !(p = arena_alloc(a, (size_t)n + 1)))
		return NULL;
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void arena_reset(struct arena *a)
{
	struct arena_block *b = a->head, *next;

	if (!b)
		return;
	/* keep the oldest block (the last in the list), free the rest */
	while (b->next) {
		next = b->next;
		free(b);
		b = next;
	}
	b->used = 0;
	a->head = b;
	a->used_total = 0;
}

void arena_free(struct arena *a)
{
	struct arena_block *b = a->head, *next;

	for (; b; b = next) {
		next = b->next;
		free(b);
	}
	a->head = NULL;
	a->used_total = 0;
}
