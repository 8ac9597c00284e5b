/* sb.c: string builder and context escapers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb.h"
#include "arena.h"

static int grow(struct sb *sb, size_t need)
{
	size_t cap;
	char *nb;

	if (sb->oom)
		return 0;
	if (sb->len + need + 1 <= sb->cap)
		return 1;
	cap = sb->cap ? sb->cap : 64;
	while (cap < sb->len + need + 1) {
		if (cap > ((size_t)1 << 40)) {
			sb->oom = 1;
			return 0;
		}
		cap *= 2;
	}
	if (sb->arena)
		nb = arena_realloc(sb->arena, sb->buf, sb->cap, cap);
	else
		nb = realloc(sb->buf, cap);
	if (!nb) {
		sb->oom = 1;
		return 0;
	}
	sb->buf = nb;
	sb->cap = cap;
	return 1;
}

void sb_init_arena(struct sb *sb, struct arena *a)
{
	memset(sb, 0, sizeof *sb);
	sb->arena = a;
}

void sb_append(struct sb *sb, const char *s, size_t n)
{
	if (!n || !grow(sb, n))
		return;
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sb_puts(struct sb *sb, const char *s)
{
	if (s)
		sb_append(sb, s, strlen(s));
}

void sb_putc(struct sb *sb, char c)
{
	sb_append(sb, &c, 1);
}

void sb_vprintf(struct sb *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n <= 0 || !grow(sb, (size_t)n))
		return;
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void sb_printf(struct sb *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vprintf(sb, fmt, ap);
	va_end(ap);
}

const char *sb_cstr(const struct sb *sb)
{
	return sb->buf ? sb->buf : "";
}

char *sb_steal(struct sb *sb)
{
	char *p = sb->buf;

	if (!p)
		p = strdup("");
	memset(sb, 0, sizeof *sb);
	return p;
}

void sb_reset(struct sb *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

void sb_free(struct sb *sb)
{
	struct arena *a = sb->arena;

	if (!a)
		free(sb->buf);
	memset(sb, 0, sizeof *sb);
	sb->arena = a;
}

int sb_ok(const struct sb *sb)
{
	return !sb->oom;
}

void sb_html(struct sb *sb, const char *s)
{
	const char *run;

	if (!s)
		return;
	for (run = s; *s; s++) {
		const char *rep;

		switch (*s) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		default: continue;
		}
		sb_append(sb, run, (size_t)(s - run));
		sb_puts(sb, rep);
		run = s + 1;
	}
	sb_append(sb, run, (size_t)(s - run));
}

void sb_json_str(struct sb *sb, const char *s)
{
	sb_putc(sb, '"');
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			sb_putc(sb, '\\');
			sb_putc(sb, (char)c);
		} else if (c == '\n') {
			sb_puts(sb, "\\n");
		} else if (c == '\r') {
			sb_puts(sb, "\\r");
		} else if (c == '\t') {
			sb_puts(sb, "\\t");
		} else if (c < 0x20 || c == '<' || c == '>' || c == '&') {
			/* <>& escaped too so JSON embedded in HTML cannot close a tag */
			sb_printf(sb, "\\u%04x", c);
		} else {
			sb_putc(sb, (char)c);
		}
	}
	sb_putc(sb, '"');
}

void sb_url(struct sb *sb, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == '~') {
			sb_putc(sb, (char)c);
		} else {
			sb_putc(sb, '%');
			sb_putc(sb, hex[c >> 4]);
			sb_putc(sb, hex[c & 15]);
		}
	}
}
