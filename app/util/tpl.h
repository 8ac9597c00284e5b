/* tpl.h: Mustache-compatible templates over cJSON data, HTML-escaped by default, rendered into a struct sb. */
#ifndef ASKQL_TPL_H
#define ASKQL_TPL_H

#include <stddef.h>
#include <cjson/cJSON.h>
#include "err.h"
#include "sb.h"

/*
 * The language is Mustache (spec modules comments, delimiters, interpolation,
 * inverted, partials, sections; no lambdas, no inheritance, no dynamic names):
 *   {{x}}         value of x, HTML-escaped (& < > " ' -> entities)
 *   {{{x}}} {{&x}} value of x, raw: rare, reviewed, grep for it
 *   {{#x}}..{{/x}} section: skipped if x is falsey, once per element of a
 *                  list, else once with x pushed on the context stack
 *   {{^x}}..{{/x}} inverted section: rendered only if x is falsey
 *   {{! c }}      comment          {{>name}} partial, {{=<% %>=}} delimiters
 *   {{a.b.c}}     dotted names     {{.}} the current context
 * Falsey: missing, null, false, 0, "" and the empty list ({} is truthy).
 * Numbers print as integers when integral (85), else shortest round trip
 * (1.21); true/false print as "true"/"false"; objects and lists print nothing.
 * Standalone tag lines (sections, inverted, comments, partials, delimiters
 * alone on their line) vanish with their newline; a standalone partial
 * indents every line of its template by the tag's indentation.
 *
 * Hard limits; exceeding one is ERR_LIMIT with a message, never a crash.
 */
#define TPL_MAX_SIZE     (1u << 20)         /* bytes of one template */
#define TPL_MAX_DEPTH    64                 /* nested sections in one template */
#define TPL_MAX_PARTIALS 16                 /* nested partial inclusions */
#define TPL_MAX_OUTPUT   ((size_t)32 << 20) /* bytes one render may append */
#define TPL_MAX_STEPS    5000000ul          /* nodes + loop iterations one render may visit */
#define TPL_MAX_DELIM    32                 /* bytes of a custom delimiter */

/* A compiled template: immutable after tpl_compile, owns a copy of its text. */
struct tpl;

/*
 * Partial lookup for tpl_render/tpl_exec.  get(ctx, name, &text, &len):
 * OK with text/len set (the text must stay valid until the render returns);
 * ERR_NOTFOUND: the partial renders as the empty string (the spec says so);
 * any other error aborts the render with that error.
 */
struct tpl_partials {
	enum err (*get)(void *ctx, const char *name, const char **text, size_t *len);
	void *ctx;
};

/*
 * tpl_compile: parse src[0..len) (need not be NUL-terminated; len <= TPL_MAX_SIZE).
 * OK: *out is a new template the caller frees with tpl_free.
 * ERR_PARSE (unclosed tag or section, mismatched close tag, bad delimiters,
 * empty name), ERR_LIMIT (size, depth) or ERR_NOMEM: *out is NULL and err
 * (if non-NULL) holds "line N: what" truncated to errlen.
 */
enum err tpl_compile(const char *src, size_t len, struct tpl **out, char *err, size_t errlen);
void tpl_free(struct tpl *t);  /* NULL is fine */

/*
 * tpl_exec: append t rendered over data (NULL: empty context) to out.
 * partials may be NULL (every partial is then empty).  On error out is
 * truncated back to its length at the call, and err holds the reason:
 * ERR_LIMIT (output, steps, partial depth), ERR_PARSE (a partial failed to
 * compile), ERR_NOMEM, or whatever partials->get returned.
 */
enum err tpl_exec(const struct tpl *t, const cJSON *data, const struct tpl_partials *partials,
		  struct sb *out, char *err, size_t errlen);

/* tpl_render: tpl_compile + tpl_exec + tpl_free, same contracts. */
enum err tpl_render(const char *src, size_t len, const cJSON *data, const struct tpl_partials *partials,
		    struct sb *out, char *err, size_t errlen);

/*
 * The per-process template cache, for the workers (single-threaded processes:
 * not safe to call from two threads at once).
 *
 * tpl_load: the compiled DIR/NAME.mustache, read and compiled at first use and
 * again whenever the file's mtime, size or inode changes.  NAME is letters,
 * digits, '_', '-', '.', '/' without ".." or a leading '/' (else ERR_INPUT).
 * OK: *out is owned by the cache and stays valid until the next tpl_load of
 * the same name (which may replace it), tpl_render_file, or tpl_cache_clear.
 * ERR_NOTFOUND (no such file), ERR_IO, ERR_LIMIT, ERR_PARSE, ERR_NOMEM: err says which file.
 */
enum err tpl_load(const char *dir, const char *name, const struct tpl **out, char *err, size_t errlen);

/*
 * tpl_render_file: render DIR/NAME.mustache over data into out, partials
 * {{>p}} read from DIR/p.mustache through the same cache (a missing partial
 * file renders empty).  Contracts as tpl_load and tpl_exec.
 */
enum err tpl_render_file(const char *dir, const char *name, const cJSON *data, struct sb *out,
			 char *err, size_t errlen);

/* tpl_cache_clear: free every cached template (at exit, and in tests). */
void tpl_cache_clear(void);

#endif
