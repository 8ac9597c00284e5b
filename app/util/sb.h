/* sb.h: the one growable string builder (length-tracked, always NUL-terminated). */
#ifndef ASKQL_SB_H
#define ASKQL_SB_H

#include <stddef.h>
#include <stdarg.h>

/*
 * A struct sb owns its buffer (malloc'd) unless it was set up with sb_init_arena,
 * in which case the arena owns it and sb_free is a no-op.  buf is NULL until the
 * first append; sb_cstr() always returns a valid NUL-terminated string.
 * On allocation failure the builder sets oom=1 and ignores further appends, so
 * callers check once at the end (sb_ok) instead of after every append.
 */
struct arena;
struct sb {
	char *buf;
	size_t len, cap;
	struct arena *arena; /* NULL: heap */
	int oom;
};

#define SB_INIT {0}

void sb_init_arena(struct sb *sb, struct arena *a);
void sb_append(struct sb *sb, const char *s, size_t n);
void sb_puts(struct sb *sb, const char *s);
void sb_putc(struct sb *sb, char c);
void sb_printf(struct sb *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(struct sb *sb, const char *fmt, va_list ap);
/* sb_cstr: the contents; valid until the next append or free. Never NULL. */
const char *sb_cstr(const struct sb *sb);
/* sb_steal: hand the heap buffer to the caller (caller frees); sb is reset. */
char *sb_steal(struct sb *sb);
void sb_reset(struct sb *sb);   /* length 0, keeps the buffer */
void sb_free(struct sb *sb);    /* frees heap buffers; sb is reusable afterwards */
int sb_ok(const struct sb *sb); /* 1 unless an allocation failed */

/* Escapers: append s escaped for the named context (NULL s appends nothing). */
void sb_html(struct sb *sb, const char *s);      /* & < > " ' escaped */
void sb_json_str(struct sb *sb, const char *s);  /* with the quotes */
void sb_url(struct sb *sb, const char *s);       /* percent-encoding for a query arg */

#endif
