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

/* add_msg: one message of the conversation (a failure to keep it is logged: the model then
 * misses it, the run goes on). */
static void add_msg(struct agent *a, enum run_role role, const char *content)
{
	if (run_react_add_msg(&a->state.react, role, content) != OK)
		log_warn("run %lld: no memory for a message of the conversation", a->run_id);
}

/* explained: sql passed explain in this run */
static int explained(struct agent *a, const char *sql)
{
	return run_strs_find(&a->state.react.explained, sql) >= 0;
}

/* note_explained: sql passed explain */
static void note_explained(struct agent *a, const char *sql)
{
	if (run_strs_add(&a->state.react.explained, sql) != OK)
		log_warn("run %lld: no memory to note an explained SQL", a->run_id);
	a->state.react.any_explain = 1;
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
	const struct run_strs *e = &a->state.react.explained;

	return e->n ? e->v[e->n - 1] : NULL;
}

/* The first user message: question, schema context, budget. */
static void build_messages(struct agent *a)
{
	char *system = prompt_get(a->app, "react", NULL), *ctx = plan_context_block(a);
	struct sb u = SB_INIT;

	add_msg(a, ROLE_SYSTEM, system ? system : "Reply with <reasoning> and one <tool_call>.");
	sb_printf(&u, "[User Query]\n%s\n\n%s\nYou have %d tool calls. Reply with one <reasoning> and one "
	              "<tool_call> element.\n", a->state.question, ctx, a->state.react.max_calls);
	add_msg(a, ROLE_USER, sb_cstr(&u));
	sb_free(&u);
	free(system);
	free(ctx);
}

/* builtin_plan: the offline planner's SQL for the builtin driver, planned again only when a
 * failure was added to the history since the last plan (a decline is planned again every time). */
static void builtin_plan(struct agent *a)
{
	struct run_react *r = &a->state.react;
	struct plan_out po;
	cJSON *scratch;

	if (r->builtin_sql && r->builtin_planned_at == a->state.nhistory)
		return;
	scratch = cJSON_CreateObject();
	plan_offline(a, &po, scratch);
	cJSON_Delete(scratch);
	if (run_state_opt(&r->builtin_sql, po.sql) ||
	    run_state_opt(&r->builtin_missing, po.sql ? NULL : po.missing ? po.missing : po.error ? po.error : "no SQL"))
		log_warn("run %lld: no memory for the builtin driver's plan", a->run_id);
	r->builtin_planned_at = a->state.nhistory;
	plan_out_free(&po);
}

/* The builtin provider's turn: explore, then the offline planner's SQL through explain and submit. */
static char *builtin_turn(struct agent *a)
{
	struct react_call c = {0};
	const struct run_react *r = &a->state.react;
	const char *q = a->state.question;
	char *x;

	if (run_strs_find(&r->tools_used, "search_tables") < 0) {
		c.tool = strdup("search_tables");
		c.reasoning = strdup("builtin: find the tables the question is about");
		react_call_set(&c, "query", q);
	} else if (run_strs_find(&r->tools_used, "search_columns") < 0) {
		c.tool = strdup("search_columns");
		c.reasoning = strdup("builtin: find the columns and value mappings");
		react_call_set(&c, "query", q);
	} else if (run_strs_find(&r->tools_used, "find_similar_query") < 0) {
		c.tool = strdup("find_similar_query");
		c.reasoning = strdup("builtin: look for verified similar questions");
		react_call_set(&c, "question", q);
	} else {
		builtin_plan(a);
		if (!r->builtin_sql) {
			c.tool = strdup("cannot_answer");
			c.reasoning = strdup("builtin: the offline planner declined");
			react_call_set(&c, "missing", r->builtin_missing ? r->builtin_missing : "no SQL");
		} else if (explained(a, r->builtin_sql)) {
			c.tool = strdup("submit_sql");
			c.reasoning = strdup("builtin: explain passed, submit");
			react_call_set(&c, "sql", r->builtin_sql);
		} else {
			c.tool = strdup("explain");
			c.reasoning = strdup("builtin: check the planned SQL");
			react_call_set(&c, "sql", r->builtin_sql);
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

/* set_pending: c (moved: *c is empty afterwards) becomes the call to run next without asking
 * the model, with the reply it came from and its rewrite (moved too; may be NULL). */
static void set_pending(struct agent *a, struct react_call *c, char **raw, char **rewrite)
{
	struct run_pending *p = &a->state.react.pending;

	run_pending_free(p);
	p->set = 1;
	p->call = *c;
	memset(c, 0, sizeof *c);
	if (raw) {
		p->raw = *raw;
		*raw = NULL;
	}
	if (rewrite) {
		p->rewrite = *rewrite;
		*rewrite = NULL;
	}
}

static void add_failure(struct agent *a, const char *sql, const char *error)
{
	if (run_history_add(&a->state, a->state.nhistory + 1, sql, error, NULL) != OK)
		log_warn("run %lld: no memory to record a failure", a->run_id);
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
	a->state.react.calls = ++calls;
	if (calls >= maxc) {
		agent_end(a, "error", sb_cstr(&m));
		sb_free(&m);
		return 1;
	}
	/* the submit does not run: the model reads the explain error and tries again */
	{
		char *xml = react_call_xml(c);
		struct sb o = SB_INIT;

		add_msg(a, ROLE_ASSISTANT, xml);
		free(xml);
		sb_printf(&o, "<tool_result name=\"submit_sql\" status=\"error\">\n");
		sb_json_str(&o, sb_cstr(&m));
		sb_printf(&o, "\n</tool_result>\n<remaining_tool_calls>%d</remaining_tool_calls>\n", maxc - calls);
		add_msg(a, ROLE_USER, sb_cstr(&o));
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
	if (eo.ok)
		note_explained(a, sql);
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
		int gave_up = a->llm && llm_is_builtin(a->llm) && a->state.nhistory > 0;

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

	add_msg(a, ROLE_ASSISTANT, xml);
	free(xml);
	sb_printf(&obs, "<tool_result name=\"%s\" status=\"%s\">\n", c->tool, ok ? "ok" : "error");
	sb_puts(&obs, out);
	sb_puts(&obs, "\n</tool_result>\n");
	if (rewrite)
		sb_printf(&obs, "<policy_rewrite>%s</policy_rewrite>\n", rewrite);
	sb_printf(&obs, "<remaining_tool_calls>%d</remaining_tool_calls>\n", left);
	add_msg(a, ROLE_USER, sb_cstr(&obs));
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
	int calls = a->state.react.calls, maxc = a->state.react.max_calls, ended = 0;

	/* no submit without an explain, even on a forced last call: explain it first */
	if (!strcmp(c->tool, "submit_sql") && !a->state.react.any_explain && !explained(a, sql)) {
		int r = explain_before_submit(a, c, sql, calls, maxc);

		if (r)
			return r == 2;
	}
	tool_exec(a, c, &to);
	a->state.react.calls = ++calls;
	if (run_strs_add(&a->state.react.tools_used, c->tool) != OK)
		log_warn("run %lld: no memory to note a tool call", a->run_id);
	if (!strcmp(c->tool, "explain") && to.ok && sql)
		note_explained(a, sql);
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

/* Inspector, cache and the first messages (once per run).  1 when the run paused on the plan. */
static int react_init(struct agent *a)
{
	struct run_react *r = &a->state.react;
	char *cached;

	if (!r->set) {
		long mc = conf_get_int("react_max_calls");

		r->set = 1;
		r->max_calls = mc > 1 ? (int)mc : 8;
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
			set_pending(a, &c, NULL, NULL);
			free(cached);
		}
		if (a->state.step_mode) {
			struct run_pause_spec p = {.plan = PLAN_VIEW_SHOWN};

			agent_pause(a, RUN_STAGE_PLAN, &p);
			return 1;
		}
	}
	if (!r->nmessages)
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

/* take_pending: the pending call (with its reply, rewrite and decision) moved into tn; the
 * state has none afterwards. */
static void take_pending(struct agent *a, struct turn *tn)
{
	struct run_pending *p = &a->state.react.pending;

	tn->c = p->call;
	tn->raw = p->raw;
	tn->rewrite = p->rewrite;
	tn->resumed = p->decided;
	memset(p, 0, sizeof *p);
}

/* chat_reply: the LLM l's reply to the conversation (streamed to the caller when it listens)
 * into tn->raw.  0 on success; -1 when the call failed: an error step, and the run ended. */
static int chat_reply(struct agent *a, struct llm *l, struct turn *tn)
{
	const struct run_react *r = &a->state.react;
	int n = r->nmessages, rc;
	struct llm_msg *m = calloc((size_t)n + 1, sizeof *m);

	if (!m) {
		agent_end(a, "error", "out of memory for the conversation");
		return -1;
	}
	for (int i = 0; i < n; i++) {
		m[i].role = run_role_name(r->messages[i].role);
		m[i].content = r->messages[i].content;
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
static int ask_model(struct agent *a, int it, struct turn *tn)
{
	char err[256];
	struct llm *l = agent_llm(a, err, sizeof err);
	const struct run_react *r = &a->state.react;

	a->state.react.iteration = it + 1;
	/* the messages' texts never move: the pointer stays good while messages are added */
	tn->prompt = r->nmessages ? r->messages[r->nmessages - 1].content : NULL;
	if (!l) {
		agent_end(a, "error", err);
		return -1;
	}
	if (llm_is_builtin(l)) {
		tn->raw = builtin_turn(a);
		return 0;
	}
	return chat_reply(a, l, tn);
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
		a->state.react.xml_streak = 0;
		return 0;
	}
	a->state.react.xml_streak++;
	{
		struct step s = {.kind = rc == -2 ? "tool" : "llm", .name = rc == -2 ? "unknown_tool" : "xml_error",
		                 .status = "error", .raw = tn->raw, .prompt = tn->prompt, .error = why,
		                 .ms = agent_ms_since(tn->t0), .tokens_in = tn->rep.tokens_in,
		                 .tokens_out = tn->rep.tokens_out};

		agent_step(a, &s);
	}
	if (a->state.react.xml_streak >= 2) {
		agent_end(a, "error", why);
	} else {
		int nt;
		const char *const *names = tool_names(&nt);

		add_msg(a, ROLE_ASSISTANT, tn->raw);
		sb_printf(&o, "<error>%s. Reply with exactly one <reasoning> and one <tool_call> "
		              "(<name>, <parameters>); tools:", why);
		for (int i = 0; i < nt; i++)
			sb_printf(&o, " %s", names[i]);
		sb_puts(&o, "</error>");
		add_msg(a, ROLE_USER, sb_cstr(&o));
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
	int sql_explained = sql && explained(a, sql);
	const char *cand = sql && (!strcmp(c->tool, "execute_sql_preview") || !strcmp(c->tool, "submit_sql") ||
	                           !strcmp(c->tool, "explain")) ? sql : last_sql(a);
	const char *to, *reason;

	if ((to = react_policy(c->tool, maxc - calls, a->state.react.any_explain, sql_explained,
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

/* pause_for_decision: step mode: the SQL run or submit in tn becomes the pending call (moved
 * out of tn, with its reply and rewrite), and the run pauses for the analyst. */
static void pause_for_decision(struct agent *a, struct turn *tn, int calls, int maxc)
{
	const struct run_pending *p = &a->state.react.pending;
	struct run_pause_spec ps = {.calls = calls, .max_calls = maxc};

	set_pending(a, &tn->c, &tn->raw, &tn->rewrite);
	ps.tool = p->call.tool;
	ps.sql = react_call_param(&p->call, "sql") ? react_call_param(&p->call, "sql") : "";
	ps.rewrite = p->rewrite;
	agent_pause(a, !strcmp(p->call.tool, "submit_sql") ? RUN_STAGE_SUBMIT : RUN_STAGE_SQL, &ps);
}

void react_continue(struct agent *a)
{
	int step_mode = a->state.step_mode;

	if (react_init(a))
		return;
	while (!a->done) {
		const struct run_react *r = &a->state.react;
		int calls = r->calls, maxc = r->max_calls, it = r->iteration;
		struct turn tn = {.t0 = agent_now_us()};

		if (budget_spent(a, calls, maxc, it))
			break;
		if (r->pending.set) {
			/* resumed after a decision, or a cache hit: run the pending call as it is */
			take_pending(a, &tn);
		} else {
			if (ask_model(a, it, &tn))
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
	struct run_react *r = &a->state.react;
	struct run_pending *p = &r->pending;
	enum run_stage stage = a->state.stage;

	if (stage == RUN_STAGE_PLAN) {
		if (d->kind == AGENT_EDIT) {
			struct react_call c = {0};

			/* the analyst's SQL: explained, then submitted, by the same tools */
			c.tool = strdup("explain");
			c.reasoning = strdup("SQL written by the analyst");
			react_call_set(&c, "sql", d->sql);
			set_pending(a, &c, NULL, NULL);
		} else if (!agent_plan_decide(a, d)) {
			return ERR_INPUT;
		}
	} else if (stage == RUN_STAGE_SQL || stage == RUN_STAGE_SUBMIT) {
		if (!p->set)
			return ERR_INPUT;
		switch (d->kind) {
		case AGENT_APPROVE:
			p->decided = 1;
			break;
		case AGENT_EDIT:
			if (react_call_set(&p->call, "sql", d->sql) != OK)
				return ERR_NOMEM;
			p->decided = 1;
			break;
		case AGENT_REJECT: {
			struct sb o = SB_INIT;

			/* the comment is the tool's result: the model reads it and tries again */
			sb_printf(&o, "<tool_result name=\"%s\" status=\"error\">\n{\"error\": \"rejected by the analyst: %s\"}\n"
			              "</tool_result>\n<remaining_tool_calls>%d</remaining_tool_calls>\n",
			          p->call.tool ? p->call.tool : "", d->comment ? d->comment : "",
			          r->max_calls - r->calls - 1);
			r->calls++;
			add_msg(a, ROLE_ASSISTANT, "(tool call rejected by the analyst)");
			add_msg(a, ROLE_USER, sb_cstr(&o));
			sb_free(&o);
			run_pending_free(p);
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
