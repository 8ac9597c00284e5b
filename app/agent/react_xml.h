/* react_xml.h: the ReAct reply format (<reasoning>, <tool_call>) parsed with libxml2, with recovery. */
#ifndef ASKQL_REACT_XML_H
#define ASKQL_REACT_XML_H

#include "util/err.h"

enum react_parse_how { REACT_STRICT = 0, REACT_REPRINT, REACT_RECOVER, REACT_PARTIAL };

struct react_param { char *name, *value; };
struct react_call {
	char *reasoning;                 /* heap, may be NULL */
	char *tool;                      /* heap; NULL when no tool_call was found */
	struct react_param *params;
	int nparams;
	enum react_parse_how how;        /* how it was obtained (set by the caller for REPRINT) */
};

/*
 * react_xml_parse: parse an LLM reply.  Text around the elements (prose, ```xml fences,
 * an XML declaration) is ignored; the elements are read inside a synthetic root.
 * recover=0: strict well-formedness; recover=1: libxml2's XML_PARSE_RECOVER.
 * Parameters are the child elements of <parameters> (text content, CDATA included), or a
 * JSON object written inside <parameters>.  Returns OK when a tool name was found,
 * ERR_PARSE otherwise with the reason in err.  out is zeroed first; free with react_call_free.
 */
enum err react_xml_parse(const char *text, int recover, struct react_call *out, char *err, size_t errlen);

/*
 * react_xml_partial: last-resort extraction by string search: the text of <name> (up to
 * its end tag or the next '<'), of <reasoning>, and of each known parameter element
 * (sql, query, table, column, keyword, question, missing) up to its end tag, the end of
 * parameters/tool_call or the end of text; CDATA markers removed.  OK when a name was found.
 */
enum err react_xml_partial(const char *text, struct react_call *out);

/* react_call_param: value of parameter name or NULL. */
const char *react_call_param(const struct react_call *c, const char *name);
/* react_call_set: set (or add) parameter name to value (copied).  ERR_NOMEM. */
enum err react_call_set(struct react_call *c, const char *name, const char *value);
/* react_call_rename: change the tool name (policy rewrite). */
enum err react_call_rename(struct react_call *c, const char *tool);
void react_call_free(struct react_call *c);
/* react_call_xml: canonical XML of the call (SQL in CDATA), heap. */
char *react_call_xml(const struct react_call *c);
/* react_call_params_json: the parameters as a JSON object text, heap. */
char *react_call_params_json(const struct react_call *c);

/*
 * Streaming extraction (react-framework 9.1): fed the reply as it streams, reports each
 * section once it is complete: "reasoning" (its text) and "tool_call" (the tool name), so a
 * page shows the model's reasoning before the reply ends.  react_stream_reset for a
 * restarted stream; react_stream_free releases the buffer.
 */
typedef void (*react_section_fn)(void *ctx, const char *section, const char *text);
struct react_stream {
	char *buf;
	size_t len, cap;
	int done_reasoning, done_call;
};
void react_stream_feed(struct react_stream *s, const char *piece, size_t n, react_section_fn fn, void *ctx);
void react_stream_reset(struct react_stream *s);
void react_stream_free(struct react_stream *s);

/*
 * react_policy: the code-enforced rewrite of react-framework.md 4.3.  Given the tool the
 * model asked for, the calls remaining (this one included), whether any explain succeeded
 * in the session, whether this call's SQL was explained and whether a SQL to submit is
 * known: returns the tool to run instead (with *reason) or NULL to run it as asked.
 *   remaining <= 1, tool is not submit_sql/cannot_answer, a SQL is known -> submit_sql
 *       ("last_call_force_submit")
 *   otherwise execute_sql_preview / submit_sql before any successful explain -> explain
 *       ("require_explain_first")
 */
const char *react_policy(const char *tool, int remaining, int any_explain, int sql_explained,
                         int have_sql, const char **reason);

#endif
