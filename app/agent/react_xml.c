/* react_xml.c: parse <reasoning>/<tool_call> replies (strict, recover mode, partial string search). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <cjson/cJSON.h>
#include "agent/react_xml.h"
#include "util/sb.h"

static const char *known_params[] = {"sql", "query", "table", "column", "keyword", "question", "missing", NULL};

void react_call_free(struct react_call *c)
{
	if (!c)
		return;
	free(c->reasoning);
	free(c->tool);
	for (int i = 0; i < c->nparams; i++) {
		free(c->params[i].name);
		free(c->params[i].value);
	}
	free(c->params);
	memset(c, 0, sizeof *c);
}

const char *react_call_param(const struct react_call *c, const char *name)
{
	for (int i = 0; i < c->nparams; i++)
		if (!strcmp(c->params[i].name, name))
			return c->params[i].value;
	return NULL;
}

enum err react_call_set(struct react_call *c, const char *name, const char *value)
{
	struct react_param *np;
	char *v = strdup(value ? value : "");

	if (!v)
		return ERR_NOMEM;
	for (int i = 0; i < c->nparams; i++)
		if (!strcmp(c->params[i].name, name)) {
			free(c->params[i].value);
			c->params[i].value = v;
			return OK;
		}
	if (!(np = realloc(c->params, (size_t)(c->nparams + 1) * sizeof *np))) {
		free(v);
		return ERR_NOMEM;
	}
	c->params = np;
	if (!(np[c->nparams].name = strdup(name))) {
		free(v);
		return ERR_NOMEM;
	}
	np[c->nparams++].value = v;
	return OK;
}

enum err react_call_rename(struct react_call *c, const char *tool)
{
	char *t = strdup(tool);

	if (!t)
		return ERR_NOMEM;
	free(c->tool);
	c->tool = t;
	return OK;
}

/* Copy s[0..n) without leading/trailing white space. */
static char *trimdup(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return strndup(s, n);
}

/* Where the elements start: skip prose, code fences and an XML declaration. */
static const char *body_start(const char *text)
{
	const char *r = strstr(text, "<reasoning"), *t = strstr(text, "<tool_call");

	if (r && (!t || r < t))
		return r;
	if (t)
		return t;
	return NULL;
}

static xmlNodePtr find_elem(xmlNodePtr n, const char *name)
{
	for (; n; n = n->next) {
		xmlNodePtr f;

		if (n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name))
			return n;
		if (n->type == XML_ELEMENT_NODE && (f = find_elem(n->children, name)))
			return f;
	}
	return NULL;
}

static char *node_text(xmlNodePtr n)
{
	xmlChar *c = xmlNodeGetContent(n);
	char *r;

	if (!c)
		return strdup("");
	r = trimdup((const char *)c, strlen((const char *)c));
	xmlFree(c);
	return r;
}

static void params_from_json(struct react_call *c, const char *text)
{
	cJSON *o = cJSON_Parse(text), *it;

	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		return;
	}
	cJSON_ArrayForEach(it, o) {
		int name_ok = it->string && *it->string && strlen(it->string) < 64;

		/* the name becomes an element name in the canonical XML: letters, digits, '_' only */
		for (const char *q = it->string; name_ok && *q; q++)
			name_ok = isalnum((unsigned char)*q) || *q == '_';
		if (!name_ok || isdigit((unsigned char)it->string[0]))
			continue;
		if (cJSON_IsString(it))
			react_call_set(c, it->string, it->valuestring);
		else if (cJSON_IsNumber(it)) {
			char b[64];

			snprintf(b, sizeof b, "%g", it->valuedouble);
			react_call_set(c, it->string, b);
		}
	}
	cJSON_Delete(o);
}

enum err react_xml_parse(const char *text, int recover, struct react_call *out, char *err, size_t errlen)
{
	struct sb buf = SB_INIT;
	const char *start, *end;
	xmlDocPtr doc = NULL;
	xmlNodePtr root, r, tc, nm, ps;
	enum err rc = ERR_PARSE;

	memset(out, 0, sizeof *out);
	if (!text || !(start = body_start(text))) {
		snprintf(err, errlen, "no <reasoning> or <tool_call> element in the reply");
		return ERR_PARSE;
	}
	/* Trailing prose or a closing code fence after the last element is not XML. */
	end = strstr(start, "```");
	if (!end)
		end = start + strlen(start);
	sb_puts(&buf, "<response>");
	sb_append(&buf, start, (size_t)(end - start));
	sb_puts(&buf, "</response>");
	if (!sb_ok(&buf)) {
		rc = ERR_NOMEM;
		goto out;
	}
	doc = xmlReadMemory(buf.buf, (int)buf.len, "reply.xml", "UTF-8",
	                    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOCDATA |
	                    (recover ? XML_PARSE_RECOVER : 0));
	if (!doc) {
		const xmlError *e = xmlGetLastError();

		snprintf(err, errlen, "malformed XML%s%.200s", e && e->message ? ": " : "",
		         e && e->message ? e->message : "");
		for (char *p = err; *p; p++)
			if (*p == '\n')
				*p = ' ';
		goto out;
	}
	root = xmlDocGetRootElement(doc);
	if (!root) {
		snprintf(err, errlen, "empty reply");
		goto out;
	}
	if ((r = find_elem(root->children, "reasoning")))
		out->reasoning = node_text(r);
	if (!(tc = find_elem(root->children, "tool_call"))) {
		snprintf(err, errlen, "no <tool_call> element in the reply");
		goto out;
	}
	if (!(nm = find_elem(tc->children, "name")) || !(out->tool = node_text(nm)) || !*out->tool) {
		snprintf(err, errlen, "<tool_call> has no <name>");
		goto out;
	}
	if ((ps = find_elem(tc->children, "parameters"))) {
		int nelem = 0;

		for (xmlNodePtr p = ps->children; p; p = p->next) {
			char *v;

			if (p->type != XML_ELEMENT_NODE)
				continue;
			nelem++;
			v = node_text(p);
			react_call_set(out, (const char *)p->name, v);
			free(v);
		}
		if (!nelem) {
			char *t = node_text(ps);

			if (*t == '{')
				params_from_json(out, t);
			free(t);
		}
	}
	rc = OK;
out:
	if (rc != OK) {
		char *keep = out->reasoning;

		out->reasoning = NULL;
		react_call_free(out);
		out->reasoning = keep;
	}
	if (doc)
		xmlFreeDoc(doc);
	sb_free(&buf);
	return rc;
}

/* Text after <tag ...> in s up to </tag>, or else to the first of the stop strings or the end. */
static char *grab(const char *s, const char *tag, const char *const *stops)
{
	char open[48], close[48];
	const char *p, *e = NULL;
	struct sb v = SB_INIT;
	char *r;

	snprintf(open, sizeof open, "<%s", tag);
	snprintf(close, sizeof close, "</%s>", tag);
	for (p = strstr(s, open); p; p = strstr(p + 1, open))
		if (p[strlen(open)] == '>' || isspace((unsigned char)p[strlen(open)]))
			break;
	if (!p || !(p = strchr(p, '>')))
		return NULL;
	p++;
	if (!(e = strstr(p, close)))
		for (int i = 0; stops && stops[i]; i++) {
			const char *x = strstr(p, stops[i]);

			if (x && (!e || x < e))
				e = x;
		}
	if (!e)
		e = p + strlen(p);
	/* drop CDATA markers */
	for (const char *q = p; q < e;) {
		if (!strncmp(q, "<![CDATA[", 9)) {
			q += 9;
			continue;
		}
		if (!strncmp(q, "]]>", 3)) {
			q += 3;
			continue;
		}
		sb_putc(&v, *q++);
	}
	r = trimdup(sb_cstr(&v), v.len);
	sb_free(&v);
	return r;
}

enum err react_xml_partial(const char *text, struct react_call *out)
{
	static const char *const name_stops[] = {"<", "\n", NULL};
	static const char *const param_stops[] = {"</parameters>", "</tool_call>", NULL};
	static const char *const reason_stops[] = {"<tool_call", NULL};
	const char *tc;

	memset(out, 0, sizeof *out);
	if (!text)
		return ERR_PARSE;
	out->reasoning = grab(text, "reasoning", reason_stops);
	tc = strstr(text, "<tool_call");
	out->tool = grab(tc ? tc : text, "name", name_stops);
	/* a tool name is an identifier: cut at the first character that cannot be one */
	if (out->tool) {
		char *q = out->tool;

		while (*q && (isalnum((unsigned char)*q) || *q == '_'))
			q++;
		*q = '\0';
	}
	if (!out->tool || !*out->tool) {
		free(out->tool);
		out->tool = NULL;
		return ERR_PARSE;
	}
	for (int i = 0; known_params[i]; i++) {
		char *v = grab(tc ? tc : text, known_params[i], param_stops);

		if (v && *v)
			react_call_set(out, known_params[i], v);
		free(v);
	}
	out->how = REACT_PARTIAL;
	return OK;
}

/* Append s inside CDATA, splitting any "]]>" it contains. */
static void put_cdata(struct sb *b, const char *s)
{
	const char *p;

	sb_puts(b, "<![CDATA[");
	while ((p = strstr(s, "]]>"))) {
		sb_append(b, s, (size_t)(p - s) + 2);
		sb_puts(b, "]]><![CDATA[");
		s = p + 2;
	}
	sb_puts(b, s);
	sb_puts(b, "]]>");
}

char *react_call_xml(const struct react_call *c)
{
	struct sb b = SB_INIT;

	sb_puts(&b, "<reasoning>");
	put_cdata(&b, c->reasoning ? c->reasoning : "");
	sb_puts(&b, "</reasoning>\n<tool_call>\n  <name>");
	sb_html(&b, c->tool ? c->tool : "");
	sb_puts(&b, "</name>\n  <parameters>\n");
	for (int i = 0; i < c->nparams; i++) {
		sb_printf(&b, "    <%s>", c->params[i].name);
		put_cdata(&b, c->params[i].value);
		sb_printf(&b, "</%s>\n", c->params[i].name);
	}
	sb_puts(&b, "  </parameters>\n</tool_call>");
	return sb_steal(&b);
}

char *react_call_params_json(const struct react_call *c)
{
	cJSON *o = cJSON_CreateObject();
	char *s;

	for (int i = 0; i < c->nparams; i++)
		cJSON_AddStringToObject(o, c->params[i].name, c->params[i].value);
	s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return s;
}

/* The policy is pure so that it is tested alone (tests/unit/test_react_xml.c). */
const char *react_policy(const char *tool, int remaining, int any_explain, int sql_explained,
                         int have_sql, const char **reason)
{
	*reason = NULL;
	if (!tool)
		return NULL;
	/* rule 1: the last call is always a submit (the model may not end on exploring) */
	if (remaining <= 1 && strcmp(tool, "submit_sql") && strcmp(tool, "cannot_answer") && have_sql) {
		*reason = "last_call_force_submit";
		return "submit_sql";
	}
	/* rule 2: nothing runs or is submitted before a successful explain */
	if (remaining > 1 && (!strcmp(tool, "execute_sql_preview") || !strcmp(tool, "submit_sql")) &&
	    !any_explain && !sql_explained) {
		*reason = "require_explain_first";
		return "explain";
	}
	return NULL;
}

void react_stream_reset(struct react_stream *s)
{
	s->len = 0;
	if (s->buf)
		s->buf[0] = '\0';
	s->done_reasoning = s->done_call = 0;
}

void react_stream_free(struct react_stream *s)
{
	free(s->buf);
	memset(s, 0, sizeof *s);
}

void react_stream_feed(struct react_stream *s, const char *piece, size_t n, react_section_fn fn, void *ctx)
{
	const char *o, *e;

	if (!piece) {
		react_stream_reset(s);
		return;
	}
	if (s->len + n + 1 > s->cap) {
		size_t cap = s->cap ? s->cap : 1024;
		char *nb;

		while (cap < s->len + n + 1)
			cap *= 2;
		if (!(nb = realloc(s->buf, cap)))
			return;
		s->buf = nb;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, piece, n);
	s->len += n;
	s->buf[s->len] = '\0';
	if (!s->done_reasoning && (o = strstr(s->buf, "<reasoning>")) && (e = strstr(o, "</reasoning>"))) {
		char *t = trimdup(o + 11, (size_t)(e - o - 11));

		s->done_reasoning = 1;
		if (t && fn)
			fn(ctx, "reasoning", t);
		free(t);
	}
	if (!s->done_call && (o = strstr(s->buf, "<tool_call")) && (o = strstr(o, "<name>")) &&
	    (e = strstr(o, "</name>"))) {
		char *t = trimdup(o + 6, (size_t)(e - o - 6));

		s->done_call = 1;
		if (t && fn)
			fn(ctx, "tool_call", t);
		free(t);
	}
}
