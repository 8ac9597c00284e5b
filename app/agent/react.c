/* react.c: the ReAct loop: LLM (or the builtin driver) -> XML -> policy rewrite -> tool -> observation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/agent_int.h"
#include "agent/react_xml.h"
#include "llm/prompt.h"
#include "util/conf.h"
#include "util/log.h"
#include "util/sb.h"

static cJSON *rs(struct agent *a)
{
	return cJSON_GetObjectItemCaseSensitive(a->state.doc, "react");
}

static int rs_int(struct agent *a, const char *k)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(rs(a), k);

	return cJSON_IsNumber(v) ? v->valueint : 0;
}

static void rs_set_int(struct agent *a, const char *k, int v)
{
	cJSON_DeleteItemFromObjectCaseSensitive(rs(a), k);
	cJSON_AddNumberToObject(rs(a), k, v);
}

static cJSON *rs_arr(struct agent *a, const char *k)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(rs(a), k);

	return v ? v : cJSON_AddArrayToObject(rs(a), k);
}

static int arr_has(cJSON *arr, const char *s)
{
	cJSON *it;

	cJSON_ArrayForEach(it, arr)
		if (cJSON_IsString(it) && s && !strcmp(it->valuestring, s))
			return 1;
	return 0;
}

static void add_msg(struct agent *a, const char *role, const char *content)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "role", role);
	cJSON_AddStringToObject(m, "content", content);
	cJSON_AddItemToArray(rs_arr(a, "messages"), m);
}

/* Streaming: the caller's text callback and the section extractor, both fed each piece. */
struct stream_tap {
	struct agent *a;
	struct react_stream rs;
};

static void tap(void *ctx, const char *piece, size_t n)
{
	struct stream_tap *t = ctx;

	if (t->a->on_text)
		t->a->on_text(t->a->ctx, piece, n);
	if (t->a->on_section)
		react_stream_feed(&t->rs, piece, n, t->a->on_section, t->a->ctx);
}

/* The last SQL worth submitting: the last explained one. */
static const char *last_sql(struct agent *a)
{
	cJSON *e = rs_arr(a, "explained");
	cJSON *l = cJSON_GetArrayItem(e, cJSON_GetArraySize(e) - 1);

	return cJSON_IsString(l) ? l->valuestring : NULL;
}

/* The first user message: question, schema context, budget. */
static void build_messages(struct agent *a)
{
	char *system = prompt_get(a->app, "react", NULL), *ctx = plan_context_block(a);
	struct sb u = SB_INIT;

	add_msg(a, "system", system ? system : "Reply with <reasoning> and one <tool_call>.");
	sb_printf(&u, "[User Query]\n%s\n\n%s\nYou have %d tool calls. Reply with one <reasoning> and one "
	              "<tool_call> element.\n", a->state.question, ctx, rs_int(a, "max_calls"));
	add_msg(a, "user", sb_cstr(&u));
	sb_free(&u);
	free(system);
	free(ctx);
}

/* The builtin provider's turn: explore, then the offline planner's SQL through explain and submit. */
static char *builtin_turn(struct agent *a)
{
	struct react_call c = {0};
	cJSON *used = rs_arr(a, "tools_used");
	const char *q = a->state.question;
	char *x;

	if (!arr_has(used, "search_tables")) {
		c.tool = strdup("search_tables");
		c.reasoning = strdup("builtin: find the tables the question is about");
		react_call_set(&c, "query", q);
	} else if (!arr_has(used, "search_columns")) {
		c.tool = strdup("search_columns");
		c.reasoning = strdup("builtin: find the columns and value mappings");
		react_call_set(&c, "query", q);
	} else if (!arr_has(used, "find_similar_query")) {
		c.tool = strdup("find_similar_query");
		c.reasoning = strdup("builtin: look for verified similar questions");
		react_call_set(&c, "question", q);
	} else {
		cJSON *h = cJSON_GetObjectItemCaseSensitive(a->state.doc, "history");
		cJSON *bs = cJSON_GetObjectItemCaseSensitive(rs(a), "builtin_sql");

		/* plan again only when a failure was added since the last plan */
		if (!cJSON_IsString(bs) || rs_int(a, "builtin_planned_at") != cJSON_GetArraySize(h)) {
			struct plan_out po;
			cJSON *scratch = cJSON_CreateObject();

			plan_offline(a, &po, scratch);
			cJSON_Delete(scratch);
			cJSON_DeleteItemFromObjectCaseSensitive(rs(a), "builtin_sql");
			cJSON_DeleteItemFromObjectCaseSensitive(rs(a), "builtin_missing");
			if (po.sql)
				cJSON_AddStringToObject(rs(a), "builtin_sql", po.sql);
			else
				cJSON_AddStringToObject(rs(a), "builtin_missing",
				                        po.missing ? po.missing : po.error ? po.error : "no SQL");
			rs_set_int(a, "builtin_planned_at", cJSON_GetArraySize(h));
			plan_out_free(&po);
			bs = cJSON_GetObjectItemCaseSensitive(rs(a), "builtin_sql");
		}
		if (!cJSON_IsString(bs)) {
			c.tool = strdup("cannot_answer");
			c.reasoning = strdup("builtin: the offline planner declined");
			react_call_set(&c, "missing", cJSON_GetObjectItemCaseSensitive(rs(a), "builtin_missing")->valuestring);
		} else if (arr_has(rs_arr(a, "explained"), bs->valuestring)) {
			c.tool = strdup("submit_sql");
			c.reasoning = strdup("builtin: explain passed, submit");
			react_call_set(&c, "sql", bs->valuestring);
		} else {
			c.tool = strdup("explain");
			c.reasoning = strdup("builtin: check the planned SQL");
			react_call_set(&c, "sql", bs->valuestring);
		}
	}
	x = react_call_xml(&c);
	react_call_free(&c);
	return x;
}

/* Is this call usable (a known tool with what it needs)? */
static int call_ok(const struct react_call *c)
{
	if (!c->tool || !tool_known(c->tool))
		return 0;
	if ((!strcmp(c->tool, "explain") || !strcmp(c->tool, "execute_sql_preview") ||
	     !strcmp(c->tool, "submit_sql")) && !react_call_param(c, "sql") && !react_call_param(c, "query"))
		return 0;
	return 1;
}

static void llm_step(struct agent *a, const char *name, const char *status, const char *raw,
                     const char *error, const char *out, double ms, const struct llm_reply *rep)
{
	struct step s = {.kind = "llm", .name = name, .status = status, .raw = raw, .error = error,
	                 .output = out, .ms = ms};

	if (rep) {
		s.tokens_in = rep->tokens_in;
		s.tokens_out = rep->tokens_out;
	}
	agent_step(a, &s);
}

/*
 * Parse raw with the recovery chain: strict; ask the LLM to reprint; libxml2 recover mode;
 * partial string extraction; else a clear error step.  0 with *c on success.
 */
static int parse_recover(struct agent *a, const char *raw, struct react_call *c, char *why, size_t whylen)
{
	char err[300], err2[300];
	struct llm *l;
	long long t0;

	if (react_xml_parse(raw, 0, c, err, sizeof err) == OK && call_ok(c)) {
		c->how = REACT_STRICT;
		return 0;
	}
	if (c->tool && !tool_known(c->tool)) {
		/* well-formed, but a tool we do not have: that is the model's mistake, not XML's */
		snprintf(why, whylen, "unknown tool '%.60s'", c->tool);
		react_call_free(c);
		return -2;
	}
	if (!c->tool && !strstr(err, "malformed"))
		snprintf(err, sizeof err, "reply has no usable tool_call");
	react_call_free(c);
	/* 1. reprint by the LLM */
	t0 = agent_now_us();
	if ((l = agent_llm(a, err2, sizeof err2)) && !llm_is_builtin(l)) {
		char *rp = prompt_get(a->app, "reprint", NULL);
		struct sb u = SB_INIT;
		struct llm_msg m[2];
		struct llm_reply rep = {0};

		sb_printf(&u, "Malformed reply:\n```\n%s\n```\nParse error: %s\n", raw, err);
		m[0].role = "system";
		m[0].content = rp ? rp : "Reprint the malformed XML as valid XML. Return only the XML.";
		m[1].role = "user";
		m[1].content = sb_cstr(&u);
		enum err lrc = llm_chat(l, m, 2, NULL, NULL, &rep);

		a->res->llm_ms += rep.ms;
		if (lrc != OK) {
			/* a helper step: its failure degrades, the chain goes on */
			llm_step(a, "xml_reprint", "degraded", NULL, rep.error, NULL, agent_ms_since(t0), &rep);
		} else if (react_xml_parse(rep.text, 0, c, err2, sizeof err2) == OK && call_ok(c)) {
			c->how = REACT_REPRINT;
			llm_step(a, "xml_reprint", "ok", rep.text, err, NULL, agent_ms_since(t0), &rep);
			llm_reply_free(&rep);
			free(rp);
			sb_free(&u);
			return 0;
		} else {
			react_call_free(c);
			llm_step(a, "xml_reprint", "error", rep.text, err2, NULL, agent_ms_since(t0), &rep);
		}
		llm_reply_free(&rep);
		free(rp);
		sb_free(&u);
	}
	/* 2. libxml2 recover mode on the original */
	t0 = agent_now_us();
	if (react_xml_parse(raw, 1, c, err2, sizeof err2) == OK && call_ok(c)) {
		char *j = react_call_params_json(c);

		c->how = REACT_RECOVER;
		llm_step(a, "xml_recover", "ok", NULL, err, j, agent_ms_since(t0), NULL);
		free(j);
		return 0;
	}
	react_call_free(c);
	llm_step(a, "xml_recover", "error", NULL, err2, NULL, agent_ms_since(t0), NULL);
	/* 3. partial extraction */
	t0 = agent_now_us();
	if (react_xml_partial(raw, c) == OK && call_ok(c)) {
		char *j = react_call_params_json(c);

		llm_step(a, "xml_partial", "ok", NULL, err, j, agent_ms_since(t0), NULL);
		free(j);
		return 0;
	}
	react_call_free(c);
	llm_step(a, "xml_partial", "error", NULL, "no tool name could be extracted", NULL, agent_ms_since(t0), NULL);
	snprintf(why, whylen, "the reply could not be parsed as a tool call (%.150s); reprint, recover mode and "
	                      "partial extraction all failed", err);
	return -1;
}

static void pending_to_call(cJSON *p, struct react_call *c)
{
	cJSON *x, *it;

	memset(c, 0, sizeof *c);
	if (cJSON_IsString(x = cJSON_GetObjectItemCaseSensitive(p, "tool")))
		c->tool = strdup(x->valuestring);
	if (cJSON_IsString(x = cJSON_GetObjectItemCaseSensitive(p, "reasoning")))
		c->reasoning = strdup(x->valuestring);
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(p, "params"))
		if (cJSON_IsString(it))
			react_call_set(c, it->string, it->valuestring);
}

static cJSON *call_to_json(const struct react_call *c)
{
	cJSON *p = cJSON_CreateObject(), *ps = cJSON_AddObjectToObject(p, "params");

	cJSON_AddStringToObject(p, "tool", c->tool);
	if (c->reasoning)
		cJSON_AddStringToObject(p, "reasoning", c->reasoning);
	for (int i = 0; i < c->nparams; i++)
		cJSON_AddStringToObject(ps, c->params[i].name, c->params[i].value);
	return p;
}

static void add_failure(struct agent *a, const char *sql, const char *error)
{
	cJSON *h = cJSON_GetObjectItemCaseSensitive(a->state.doc, "history"), *o = cJSON_CreateObject();

	if (!h)
		h = cJSON_AddArrayToObject(a->state.doc, "history");
	cJSON_AddNumberToObject(o, "attempt", cJSON_GetArraySize(h) + 1);
	cJSON_AddStringToObject(o, "sql", sql ? sql : "");
	cJSON_AddStringToObject(o, "error", error ? error : "");
	cJSON_AddItemToArray(h, o);
}

/* refuse_submit: the explain before a submit failed (eo, freed here): a failure in the history,
 * one call spent, and the model reads the explain error as the submit's result and tries again.
 * 1 when that used up the budget and the run ended, else 0. */
static int refuse_submit(struct agent *a, struct react_call *c, const char *sql, struct tool_out *eo, int calls,
                         int maxc)
{
	cJSON *e = cJSON_GetObjectItemCaseSensitive(eo->result, "error");
	struct sb m = SB_INIT;

	sb_printf(&m, "the SQL to submit did not pass explain: %s",
	          cJSON_IsString(e) ? e->valuestring : "error");
	add_failure(a, sql, sb_cstr(&m));
	tool_out_free(eo);
	rs_set_int(a, "calls", ++calls);
	if (calls >= maxc) {
		agent_end(a, "error", sb_cstr(&m));
		sb_free(&m);
		return 1;
	}
	/* the submit does not run: the model reads the explain error and tries again */
	{
		char *xml = react_call_xml(c);
		struct sb o = SB_INIT;

		add_msg(a, "assistant", xml);
		free(xml);
		sb_printf(&o, "<tool_result name=\"submit_sql\" status=\"error\">\n");
		sb_json_str(&o, sb_cstr(&m));
		sb_printf(&o, "\n</tool_result>\n<remaining_tool_calls>%d</remaining_tool_calls>\n", maxc - calls);
		add_msg(a, "user", sb_cstr(&o));
		sb_free(&o);
	}
	sb_free(&m);
	return 0;
}

/* explain_before_submit: the submit call c has SQL that was never explained: explain it first
 * (a policy step).  0 when it passed and the submit may run; 1 when it failed and the submit
 * is dropped; 2 when it failed and that ended the run. */
static int explain_before_submit(struct agent *a, struct react_call *c, const char *sql, int calls, int maxc)
{
	struct react_call ec = {0};
	struct tool_out eo;
	struct step es = {.kind = "policy", .name = "explain", .rewrite = "explain inserted before submit_sql (no successful explain yet)"};
	long long e0 = agent_now_us();
	char *ein, *eout;

	ec.tool = strdup("explain");
	react_call_set(&ec, "sql", sql);
	tool_exec(a, &ec, &eo);
	ein = react_call_params_json(&ec);
	eout = json_text(eo.result);
	es.status = eo.ok ? "ok" : "error";
	es.input = ein;
	es.output = eout;
	es.ms = agent_ms_since(e0);
	agent_step(a, &es);
	if (eo.ok) {
		cJSON_AddItemToArray(rs_arr(a, "explained"), cJSON_CreateString(sql));
		rs_set_int(a, "any_explain", 1);
	}
	free(ein);
	free(eout);
	react_call_free(&ec);
	if (!eo.ok)
		return refuse_submit(a, c, sql, &eo, calls, maxc) ? 2 : 1;
	tool_out_free(&eo);
	return 0;
}

/* end_terminal: a terminal tool ends the run: submit_sql packages its result; cannot_answer
 * ends it unanswerable (an error when the builtin driver gives up after failures). */
static void end_terminal(struct agent *a, const struct react_call *c, struct tool_out *to, int calls, int maxc)
{
	if (!strcmp(c->tool, "submit_sql")) {
		packager_run(a, &to->eo, calls, maxc);
	} else {
		struct sb m = SB_INIT;
		int gave_up = a->llm && llm_is_builtin(a->llm) &&
		              cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(a->state.doc, "history")) > 0;

		/* the offline planner declining after failures has no better SQL: an error */
		if (gave_up)
			sb_printf(&m, "no working SQL; the planner has no other SQL: %s", to->missing);
		else
			sb_printf(&m, "cannot answer from this database: %s", to->missing);
		agent_end(a, gave_up ? "error" : "unanswerable", sb_cstr(&m));
		sb_free(&m);
	}
}

/* add_observation: the call c as the assistant's message, then its result out (with the
 * policy rewrite, if any, and the calls left) as the next user message. */
static void add_observation(struct agent *a, const struct react_call *c, int ok, const char *out,
                            const char *rewrite, int left)
{
	char *xml = react_call_xml(c);
	struct sb obs = SB_INIT;

	add_msg(a, "assistant", xml);
	free(xml);
	sb_printf(&obs, "<tool_result name=\"%s\" status=\"%s\">\n", c->tool, ok ? "ok" : "error");
	sb_puts(&obs, out);
	sb_puts(&obs, "\n</tool_result>\n");
	if (rewrite)
		sb_printf(&obs, "<policy_rewrite>%s</policy_rewrite>\n", rewrite);
	sb_printf(&obs, "<remaining_tool_calls>%d</remaining_tool_calls>\n", left);
	add_msg(a, "user", sb_cstr(&obs));
	sb_free(&obs);
}

/* Run one (possibly rewritten) call and record its step; 1 when the run ended. */
static int run_call(struct agent *a, struct react_call *c, const char *raw, const char *rewrite,
                    const char *prompt, long long t0, const struct llm_reply *rep)
{
	struct tool_out to;
	struct step s = {.kind = "tool", .status = "ok"};
	const char *sql = react_call_param(c, "sql") ? react_call_param(c, "sql") : react_call_param(c, "query");
	char *in, *out, *err = NULL;
	int calls = rs_int(a, "calls"), maxc = rs_int(a, "max_calls"), ended = 0;

	/* no submit without an explain, even on a forced last call: explain it first */
	if (!strcmp(c->tool, "submit_sql") && !rs_int(a, "any_explain") && !arr_has(rs_arr(a, "explained"), sql)) {
		int r = explain_before_submit(a, c, sql, calls, maxc);

		if (r)
			return r == 2;
	}
	tool_exec(a, c, &to);
	calls++;
	rs_set_int(a, "calls", calls);
	cJSON_AddItemToArray(rs_arr(a, "tools_used"), cJSON_CreateString(c->tool));
	if (!strcmp(c->tool, "explain") && to.ok && sql) {
		cJSON_AddItemToArray(rs_arr(a, "explained"), cJSON_CreateString(sql));
		rs_set_int(a, "any_explain", 1);
	}
	if (!to.ok) {
		cJSON *e = cJSON_GetObjectItemCaseSensitive(to.result, "error");

		err = cJSON_IsString(e) ? strdup(e->valuestring) : strdup("tool failed");
		if (sql)
			add_failure(a, sql, err);
		s.status = "error";
		s.error = err;
	}
	in = react_call_params_json(c);
	out = json_text(to.result);
	s.name = c->tool;
	s.input = in;
	s.output = out;
	s.raw = raw;
	s.prompt = prompt;
	s.rewrite = rewrite;
	s.ms = agent_ms_since(t0);
	if (rep) {
		s.tokens_in = rep->tokens_in;
		s.tokens_out = rep->tokens_out;
	}
	agent_step(a, &s);
	if (to.terminal) {
		end_terminal(a, c, &to, calls, maxc);
		ended = 1;
	} else {
		add_observation(a, c, to.ok, out, rewrite, maxc - calls);
	}
	a->res->attempts = calls;
	a->res->max_attempts = maxc;
	tool_out_free(&to);
	free(in);
	free(out);
	free(err);
	return ended;
}

/* Inspector, cache and the first messages (once per run). */
static int react_init(struct agent *a)
{
	cJSON *r;
	char *cached;

	if (!rs(a)) {
		long mc = conf_get_int("react_max_calls");

		r = cJSON_AddObjectToObject(a->state.doc, "react");
		cJSON_AddNumberToObject(r, "max_calls", mc > 1 ? (double)mc : 8);
		cJSON_AddNumberToObject(r, "calls", 0);
		cJSON_AddNumberToObject(r, "iteration", 0);
		cJSON_AddNumberToObject(r, "any_explain", 0);
		cJSON_AddArrayToObject(r, "explained");
		cJSON_AddArrayToObject(r, "tools_used");
		inspector_run(a);
		/* a cached SQL for this very question still goes through explain and submit */
		if (!a->state.no_cache && (cached = cache_lookup(a))) {
			struct react_call c = {0};
			struct step s = {.kind = "info", .name = "cache", .status = "ok"};

			a->state.from_cache = 1;
			agent_step(a, &s);
			c.tool = strdup("explain");
			c.reasoning = strdup("query cache hit");
			react_call_set(&c, "sql", cached);
			cJSON_AddItemToObject(rs(a), "pending", call_to_json(&c));
			react_call_free(&c);
			free(cached);
		}
		if (a->state.step_mode) {
			cJSON *p = cJSON_CreateObject(), *plan = cJSON_GetObjectItemCaseSensitive(a->state.doc, "plan");

			cJSON_AddItemToObject(p, "plan", plan ? cJSON_Duplicate(plan, 1) : cJSON_CreateObject());
			cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(p, "plan"), "block");
			agent_pause(a, "plan", p);
			return 1;
		}
	}
	if (!cJSON_GetObjectItemCaseSensitive(rs(a), "messages"))
		build_messages(a);
	return 0;
}

/* One turn of the loop: the call to run and the reply it came from. */
struct turn {
	struct react_call c;
	struct llm_reply rep;
	char *raw;              /* the model's reply (owned), or NULL */
	char *rewrite;          /* the policy rewrite (owned), or NULL */
	const char *prompt;     /* the last message sent (owned by the state), or NULL */
	long long t0;           /* when the turn began */
	int resumed;            /* a pending call the analyst decided on */
};

/* turn_free: free what the turn owns (call, reply, raw text, rewrite); tn is not used afterwards. */
static void turn_free(struct turn *tn)
{
	react_call_free(&tn->c);
	free(tn->raw);
	free(tn->rewrite);
	llm_reply_free(&tn->rep);
}

/* budget_spent: end the run when the tool calls or the replies are used up; 1 when it ended. */
static int budget_spent(struct agent *a, int calls, int maxc, int it)
{
	if (calls >= maxc) {
		struct sb m = SB_INIT;

		sb_printf(&m, "the tool budget of %d calls was used up without a submitted SQL", maxc);
		agent_end(a, "error", sb_cstr(&m));
		sb_free(&m);
		return 1;
	}
	if (it >= maxc + 4) {
		agent_end(a, "error", "too many replies without a usable tool call");
		return 1;
	}
	return 0;
}

/* take_pending: the pending call pend (with its reply, rewrite and decision) into tn, and
 * removed from the state. */
static void take_pending(struct agent *a, cJSON *pend, struct turn *tn)
{
	cJSON *x;

	pending_to_call(pend, &tn->c);
	if (cJSON_IsString(x = cJSON_GetObjectItemCaseSensitive(pend, "raw")))
		tn->raw = strdup(x->valuestring);
	if (cJSON_IsString(x = cJSON_GetObjectItemCaseSensitive(pend, "rewrite")))
		tn->rewrite = strdup(x->valuestring);
	tn->resumed = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pend, "decided"));
	cJSON_DeleteItemFromObjectCaseSensitive(rs(a), "pending");
}

/* chat_reply: the LLM l's reply to the conversation msgs (streamed to the caller when it
 * listens) into tn->raw.  0 on success; -1 when the call failed: an error step, and the run
 * ended. */
static int chat_reply(struct agent *a, struct llm *l, cJSON *msgs, struct turn *tn)
{
	int n = cJSON_GetArraySize(msgs), i = 0, rc;
	struct llm_msg *m = calloc((size_t)n, sizeof *m);
	cJSON *mm;

	cJSON_ArrayForEach(mm, msgs) {
		m[i].role = cJSON_GetObjectItemCaseSensitive(mm, "role")->valuestring;
		m[i].content = cJSON_GetObjectItemCaseSensitive(mm, "content")->valuestring;
		i++;
	}
	{
		struct stream_tap st = {.a = a};
		int streaming = a->on_text || a->on_section;

		rc = llm_chat(l, m, n, streaming ? tap : NULL, &st, &tn->rep);
		react_stream_free(&st.rs);
	}
	a->res->llm_ms += tn->rep.ms;
	if (rc != OK) {
		char *out = NULL;
		struct sb e = SB_INIT;

		if (tn->rep.attempt_log) {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, "attempts_log", tn->rep.attempt_log);
			cJSON_AddNumberToObject(o, "attempts", tn->rep.attempts);
			out = json_text(o);
			cJSON_Delete(o);
		}
		llm_step(a, "llm", "error", NULL, tn->rep.error, out, agent_ms_since(tn->t0), &tn->rep);
		sb_printf(&e, "LLM call failed: %s", tn->rep.error ? tn->rep.error : "unknown");
		agent_end(a, "error", sb_cstr(&e));
		sb_free(&e);
		free(out);
		free(m);
		llm_reply_free(&tn->rep);
		return -1;
	}
	free(m);
	tn->raw = tn->rep.text;
	tn->rep.text = NULL;
	return 0;
}

/* ask_model: count the iteration and get the next reply into tn->raw, from the builtin driver
 * or the LLM.  0 with a reply; -1 when the run ended (no LLM, or its call failed). */
static int ask_model(struct agent *a, cJSON *msgs, int it, struct turn *tn)
{
	char err[256];
	struct llm *l = agent_llm(a, err, sizeof err);
	cJSON *last = cJSON_GetArrayItem(msgs, cJSON_GetArraySize(msgs) - 1);

	rs_set_int(a, "iteration", it + 1);
	tn->prompt = cJSON_GetObjectItemCaseSensitive(last, "content")->valuestring;
	if (!l) {
		agent_end(a, "error", err);
		return -1;
	}
	if (llm_is_builtin(l)) {
		tn->raw = builtin_turn(a);
		return 0;
	}
	return chat_reply(a, l, msgs, tn);
}

/* read_call: the reply tn->raw as a tool call in tn->c (through the recovery chain).  0 with
 * a usable call; 1 without: an error step, and the model is told what to send (two such
 * replies in a row end the run). */
static int read_call(struct agent *a, struct turn *tn)
{
	char why[600];
	int rc = parse_recover(a, tn->raw, &tn->c, why, sizeof why);
	struct sb o = SB_INIT;

	if (!rc) {
		rs_set_int(a, "xml_streak", 0);
		return 0;
	}
	rs_set_int(a, "xml_streak", rs_int(a, "xml_streak") + 1);
	{
		struct step s = {.kind = rc == -2 ? "tool" : "llm", .name = rc == -2 ? "unknown_tool" : "xml_error",
		                 .status = "error", .raw = tn->raw, .prompt = tn->prompt, .error = why,
		                 .ms = agent_ms_since(tn->t0), .tokens_in = tn->rep.tokens_in,
		                 .tokens_out = tn->rep.tokens_out};

		agent_step(a, &s);
	}
	if (rs_int(a, "xml_streak") >= 2) {
		agent_end(a, "error", why);
	} else {
		int nt;
		const char *const *names = tool_names(&nt);

		add_msg(a, "assistant", tn->raw);
		sb_printf(&o, "<error>%s. Reply with exactly one <reasoning> and one <tool_call> "
		              "(<name>, <parameters>); tools:", why);
		for (int i = 0; i < nt; i++)
			sb_printf(&o, " %s", names[i]);
		sb_puts(&o, "</error>");
		add_msg(a, "user", sb_cstr(&o));
	}
	sb_free(&o);
	return 1;
}

/* apply_policy: the policy rewrite, enforced here whatever the model asked for: tn->c may
 * become another tool (on the SQL worth checking), and tn->rewrite then says why. */
static void apply_policy(struct agent *a, struct turn *tn, int calls, int maxc)
{
	struct react_call *c = &tn->c;
	const char *sql = react_call_param(c, "sql") ? react_call_param(c, "sql")
	                                             : react_call_param(c, "query");
	int explained = sql && arr_has(rs_arr(a, "explained"), sql);
	const char *cand = sql && (!strcmp(c->tool, "execute_sql_preview") || !strcmp(c->tool, "submit_sql") ||
	                           !strcmp(c->tool, "explain")) ? sql : last_sql(a);
	const char *to, *reason;

	if ((to = react_policy(c->tool, maxc - calls, rs_int(a, "any_explain"), explained,
	                       cand != NULL, &reason))) {
		struct sb rw = SB_INIT;
		char *keep = cand ? strdup(cand) : NULL;

		sb_printf(&rw, "%s -> %s (%s)", c->tool, to, reason);
		tn->rewrite = sb_steal(&rw);
		react_call_rename(c, to);
		if (keep)
			react_call_set(c, "sql", keep);
		free(keep);
	}
}

/* pause_for_decision: step mode: the SQL run or submit in tn becomes the pending call, and the
 * run pauses for the analyst. */
static void pause_for_decision(struct agent *a, struct turn *tn, int calls, int maxc)
{
	cJSON *p = call_to_json(&tn->c), *pause = cJSON_CreateObject();

	if (tn->raw)
		cJSON_AddStringToObject(p, "raw", tn->raw);
	if (tn->rewrite)
		cJSON_AddStringToObject(p, "rewrite", tn->rewrite);
	cJSON_AddItemToObject(rs(a), "pending", p);
	cJSON_AddStringToObject(pause, "tool", tn->c.tool);
	cJSON_AddStringToObject(pause, "sql", react_call_param(&tn->c, "sql") ? react_call_param(&tn->c, "sql") : "");
	if (tn->rewrite)
		cJSON_AddStringToObject(pause, "rewrite", tn->rewrite);
	cJSON_AddNumberToObject(pause, "calls", calls);
	cJSON_AddNumberToObject(pause, "max_calls", maxc);
	agent_pause(a, !strcmp(tn->c.tool, "submit_sql") ? "submit" : "sql", pause);
}

void react_continue(struct agent *a)
{
	int step_mode = a->state.step_mode;

	if (react_init(a))
		return;
	while (!a->done) {
		int calls = rs_int(a, "calls"), maxc = rs_int(a, "max_calls"), it = rs_int(a, "iteration");
		struct turn tn = {.t0 = agent_now_us()};
		cJSON *pend = cJSON_GetObjectItemCaseSensitive(rs(a), "pending"), *msgs;

		if (budget_spent(a, calls, maxc, it))
			break;
		msgs = rs_arr(a, "messages");
		if (pend) {
			/* resumed after a decision, or a cache hit: run the pending call as it is */
			take_pending(a, pend, &tn);
		} else {
			if (ask_model(a, msgs, it, &tn))
				break;
			if (read_call(a, &tn)) {
				turn_free(&tn);
				continue;
			}
			apply_policy(a, &tn, calls, maxc);
		}
		/* step mode: a human confirms each SQL run and the final submit */
		if (step_mode && !tn.resumed && (!strcmp(tn.c.tool, "execute_sql_preview") || !strcmp(tn.c.tool, "submit_sql"))) {
			pause_for_decision(a, &tn, calls, maxc);
		} else {
			/* the state is saved when the run pauses or ends; steps show the progress */
			run_call(a, &tn.c, tn.raw, tn.rewrite, tn.prompt, tn.t0, &tn.rep);
		}
		turn_free(&tn);
	}
}

enum err react_decide(struct agent *a, const struct agent_decision *d)
{
	enum run_stage stage = a->state.stage;
	cJSON *p = cJSON_GetObjectItemCaseSensitive(rs(a), "pending");

	if (stage == RUN_STAGE_PLAN) {
		if (d->kind == AGENT_EDIT) {
			struct react_call c = {0};

			/* the analyst's SQL: explained, then submitted, by the same tools */
			c.tool = strdup("explain");
			c.reasoning = strdup("SQL written by the analyst");
			react_call_set(&c, "sql", d->sql);
			cJSON_DeleteItemFromObjectCaseSensitive(rs(a), "pending");
			cJSON_AddItemToObject(rs(a), "pending", call_to_json(&c));
			react_call_free(&c);
		} else if (!agent_plan_decide(a, d)) {
			return ERR_INPUT;
		}
	} else if (stage == RUN_STAGE_SQL || stage == RUN_STAGE_SUBMIT) {
		if (!p)
			return ERR_INPUT;
		switch (d->kind) {
		case AGENT_APPROVE:
			cJSON_AddTrueToObject(p, "decided");
			break;
		case AGENT_EDIT: {
			cJSON *ps = cJSON_GetObjectItemCaseSensitive(p, "params");

			cJSON_DeleteItemFromObjectCaseSensitive(ps, "sql");
			cJSON_AddStringToObject(ps, "sql", d->sql);
			cJSON_AddTrueToObject(p, "decided");
			break;
		}
		case AGENT_REJECT: {
			struct sb o = SB_INIT;
			cJSON *tool = cJSON_GetObjectItemCaseSensitive(p, "tool");

			/* the comment is the tool's result: the model reads it and tries again */
			sb_printf(&o, "<tool_result name=\"%s\" status=\"error\">\n{\"error\": \"rejected by the analyst: %s\"}\n"
			              "</tool_result>\n<remaining_tool_calls>%d</remaining_tool_calls>\n",
			          cJSON_IsString(tool) ? tool->valuestring : "", d->comment ? d->comment : "",
			          rs_int(a, "max_calls") - rs_int(a, "calls") - 1);
			rs_set_int(a, "calls", rs_int(a, "calls") + 1);
			add_msg(a, "assistant", "(tool call rejected by the analyst)");
			add_msg(a, "user", sb_cstr(&o));
			sb_free(&o);
			cJSON_DeleteItemFromObjectCaseSensitive(rs(a), "pending");
			break;
		}
		default:
			return ERR_INPUT;
		}
	} else {
		return ERR_INPUT;
	}
	a->state.stage = RUN_STAGE_NONE;
	return OK;
}
