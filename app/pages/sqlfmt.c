/* sqlfmt.c: a small SQL tokenizer for display: clause line breaks and highlight spans, all text escaped. */
#include <ctype.h>
#include <string.h>
#include <strings.h>
#include "pages/sqlfmt.h"

static const char *const keywords[] = {
	"select", "from", "where", "and", "or", "not", "in", "is", "null", "as", "on", "join", "left",
	"right", "inner", "outer", "full", "cross", "group", "by", "order", "having", "limit", "offset",
	"union", "all", "distinct", "case", "when", "then", "else", "end", "asc", "desc", "between",
	"like", "ilike", "with", "exists", "interval", "cast", "true", "false", "over", "partition",
	"nulls", "first", "last", "using", "intersect", "except", "filter", "lateral", "any", "some",
	"date", "timestamp", "extract", "count", "avg", "sum", "min", "max", "round", "coalesce", NULL
};
/* Clause starts that get their own line when formatting. */
static const char *const breaks[] = {
	"from", "where", "group", "order", "having", "limit", "offset", "union", "join", "left",
	"right", "inner", "full", "cross", "intersect", "except", NULL
};

static int in_list(const char *const *l, const char *w, size_t n)
{
	for (; *l; l++)
		if (strlen(*l) == n && !strncasecmp(*l, w, n))
			return 1;
	return 0;
}

static void span(struct sb *out, const char *cls, const char *p, size_t n)
{
	char tmp[256];

	sb_printf(out, "<span class=\"%s\">", cls);
	/* sb_html wants a C string: escape in slices */
	while (n > 0) {
		size_t k = n < sizeof tmp - 1 ? n : sizeof tmp - 1;

		memcpy(tmp, p, k);
		tmp[k] = '\0';
		sb_html(out, tmp);
		p += k;
		n -= k;
	}
	sb_puts(out, "</span>");
}

static void text(struct sb *out, const char *p, size_t n)
{
	char tmp[256];

	while (n > 0) {
		size_t k = n < sizeof tmp - 1 ? n : sizeof tmp - 1;

		memcpy(tmp, p, k);
		tmp[k] = '\0';
		sb_html(out, tmp);
		p += k;
		n -= k;
	}
}

void sql_html(struct sb *out, const char *sql, int format)
{
	const char *p = sql ? sql : "";
	int depth = 0, first = 1, prev_join_word = 0;

	while (*p) {
		const char *s = p;

		if (isspace((unsigned char)*p)) {
			while (isspace((unsigned char)*p))
				p++;
			/* formatting collapses whitespace; the next token decides on a line break */
			if (!format)
				text(out, s, (size_t)(p - s));
			else if (*p)
				sb_putc(out, ' ');
			continue;
		}
		if (p[0] == '-' && p[1] == '-') {
			while (*p && *p != '\n')
				p++;
			span(out, "c", s, (size_t)(p - s));
			if (format && *p)
				sb_putc(out, '\n');
			continue;
		}
		if (p[0] == '/' && p[1] == '*') {
			const char *e = strstr(p + 2, "*/");

			p = e ? e + 2 : p + strlen(p);
			span(out, "c", s, (size_t)(p - s));
			continue;
		}
		if (*p == '\'' || *p == '"') {
			char q = *p++;

			while (*p && !(*p == q && p[1] != q))
				p += (*p == q && p[1] == q) ? 2 : 1;
			if (*p)
				p++;
			if (q == '\'')
				span(out, "s", s, (size_t)(p - s));
			else
				text(out, s, (size_t)(p - s));
			continue;
		}
		if (isdigit((unsigned char)*p)) {
			while (isalnum((unsigned char)*p) || *p == '.')
				p++;
			span(out, "n", s, (size_t)(p - s));
			continue;
		}
		if (isalpha((unsigned char)*p) || *p == '_' || (unsigned char)*p >= 0x80) {
			size_t n;

			while (isalnum((unsigned char)*p) || *p == '_' || *p == '$' || (unsigned char)*p >= 0x80)
				p++;
			n = (size_t)(p - s);
			if (in_list(keywords, s, n)) {
				/* "LEFT JOIN": break before LEFT, not again before JOIN */
				int is_join = n == 4 && !strncasecmp(s, "join", 4);

				if (format && depth == 0 && !first && in_list(breaks, s, n) && !(is_join && prev_join_word)) {
					/* drop the space just written, break the line instead */
					if (out->len && out->buf[out->len - 1] == ' ')
						out->len--, out->buf[out->len] = '\0';
					sb_putc(out, '\n');
				}
				prev_join_word = (n == 4 && (!strncasecmp(s, "left", 4) || !strncasecmp(s, "full", 4))) ||
				                 (n == 5 && (!strncasecmp(s, "right", 5) || !strncasecmp(s, "inner", 5) ||
				                             !strncasecmp(s, "cross", 5))) ||
				                 (n == 5 && !strncasecmp(s, "outer", 5) && prev_join_word);
				span(out, "k", s, n);
			} else {
				prev_join_word = 0;
				text(out, s, n);
			}
			first = 0;
			continue;
		}
		if (*p == '(')
			depth++;
		else if (*p == ')' && depth > 0)
			depth--;
		p++;
		text(out, s, 1);
		first = 0;
	}
}
