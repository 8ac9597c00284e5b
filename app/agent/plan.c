/* plan.c: the planner node: one SQL per attempt from the LLM (extract prompt) or the offline planner. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/agent_int.h"
#include "store/level.h"
#include "agent/planner.h"
#include "llm/prompt.h"
#include "util/conf.h"
#include "util/json.h"
#include "util/log.h"
#include "util/sb.h"

void plan_out_free(struct plan_out *o)
{
	free(o->sql);
	free(o->missing);
	free(o->error);
	memset(o, 0, sizeof *o);
}

char *plan_retry_block(struct agent *a)
{
	struct sb b = SB_INIT;

	if (!a->state.nhistory)
		return strdup("");
	sb_puts(&b, "[PREVIOUS FAILED ATTEMPTS - LEARN FROM THESE ERRORS]\n");
	for (int i = 0; i < a->state.nhistory; i++) {
		const struct run_attempt *at = &a->state.history[i];

		sb_printf(&b, "--- Attempt %d ---\n", at->attempt);
		/* the error's text may carry a value read from a row, quoted (invalid input syntax ...:
		 * "Kim") or not (requested character too large for encoding: 10900101): under schema and
		 * values the model reads the SQLSTATE and the position only */
		char *e = llm_policy_db_error(a->policy, a->cat, at->sqlstate, at->position, at->error, at->sql);

		sb_printf(&b, "SQL: %s\n", at->sql);
		sb_printf(&b, "Error: %s\n", e ? e : "");
		free(e);
		if (at->missing_column && at->sql && strstr(at->sql, at->missing_column))
			sb_printf(&b, "Missing column: %s\n", at->missing_column);
		if (at->suggested)
			sb_printf(&b, "Hint: PostgreSQL suggests the column %s\n", at->suggested);
		sb_putc(&b, '\n');
	}
	return sb_steal(&b);
}

/* plan_lists_block: the plan's tables, value mappings, joins and examples as prompt sections,
 * as the run's llm_data_policy lets the model see them (mappings of allowed columns only,
 * examples' literals scrubbed). */
static void plan_lists_block(struct sb *b, const struct agent *a, const struct run_plan *p)
{
	int shown = 0;

	if (p->tables.n) {
		sb_puts(b, "\n[PLANNED TABLES]\n");
		for (int i = 0; i < p->tables.n; i++)
			sb_printf(b, "%s%s", i ? ", " : "", p->tables.v[i]);
		sb_putc(b, '\n');
	}
	for (int i = 0; i < p->nmappings; i++) {
		const struct plan_mapping *m = &p->mappings[i];

		if (!llm_policy_values_ok2(a->policy, a->cat, m->table, m->column))
			continue;
		if (!shown++)
			sb_puts(b, "\n[VALUE MAPPINGS]\n");
		sb_printf(b, "- \"%s\" -> %s.%s = '%s'\n", m->phrase, m->table, m->column, m->value);
	}
	if (p->joins.n) {
		sb_puts(b, "\n[TABLE RELATIONSHIPS]\n");
		for (int i = 0; i < p->joins.n; i++)
			sb_printf(b, "- %s\n", p->joins.v[i]);
	}
	if (p->nexamples) {
		sb_puts(b, "\n[VERIFIED EXAMPLES]\n");
		for (int i = 0; i < p->nexamples; i++) {
			char *sql = llm_policy_scrub_sql(a->policy, a->cat, p->examples[i].sql);
			char *q = llm_policy_scrub_text(a->policy, p->examples[i].question);

			sb_printf(b, "Q: %s\nSQL: %s\n", q ? q : "", sql ? sql : "");
			free(sql);
			free(q);
		}
	}
}

char *plan_context_block(struct agent *a)
{
	const struct run_plan *plan = &a->state.plan;
	const struct run_parent *p = &a->state.parent;
	struct sb b = SB_INIT;
	const char *block = plan->block;
	char *own = NULL;

	if (plan->note)
		sb_printf(&b, "[NOTE]\n%s\n\n", plan->note);
	sb_puts(&b, "[DB Schema - VERIFY TABLE/COLUMN NAMES HERE]\n");
	if (!block || !*block)
		block = own = inspector_schema_block(a);
	sb_puts(&b, block);
	if (b.len && b.buf[b.len - 1] != '\n')
		sb_putc(&b, '\n');
	free(own);
	plan_lists_block(&b, a, plan);
	if (p->id) {
		sb_puts(&b, "\n[FOLLOW-UP OF A PREVIOUS QUESTION - MODIFY ITS SQL]\n");
		sb_printf(&b, "Previous question: %s\n", p->question);
		{
			/* the parent's SQL may be a verified query's, with its literals */
			char *ps = p->sql ? llm_policy_scrub_sql(a->policy, a->cat, p->sql) : NULL;

			sb_printf(&b, "Previous SQL: %s\n", ps ? ps : "(none)");
			free(ps);
		}
		sb_puts(&b, "Previous result columns: ");
		for (int i = 0; i < p->ncolumns; i++)
			sb_printf(&b, "%s%s", i ? ", " : "", p->columns[i].name);
		/* %g as before: the prompt text stays what the LLM was given until now */
		sb_printf(&b, "\nPrevious row count: %g\n", (double)p->row_count);
	}
	if (*a->state.now)
		sb_printf(&b, "\n[REFERENCE TIME]\nnow = '%s' (use it instead of now() for relative dates)\n",
		          a->state.now);
	return sb_steal(&b);
}

/* The SQL of an LLM reply: the JSON object's "sql", else a ```sql block, else from SELECT/WITH. */
static void parse_reply(const char *text, struct plan_out *o)
{
	const char *lb = strchr(text, '{'), *rb = strrchr(text, '}'), *s;
	cJSON *j = NULL;

	if (lb && rb && rb > lb)
		j = cJSON_ParseWithLength(lb, (size_t)(rb - lb + 1));
	if (cJSON_IsObject(j)) {
		cJSON *u = cJSON_GetObjectItemCaseSensitive(j, "unanswerable");

		if (cJSON_IsTrue(u) || (cJSON_IsString(u) && *u->valuestring)) {
			const char *m = json_str(j, "missing");

			o->unanswerable = 1;
			o->missing = strdup(m ? m : cJSON_IsString(u) ? u->valuestring : "not stated");
		} else if (json_str(j, "sql") && *json_str(j, "sql")) {
			o->sql = strdup(json_str(j, "sql"));
		}
		cJSON_Delete(j);
		if (o->sql || o->unanswerable)
			return;
	} else {
		cJSON_Delete(j);
	}
	if ((s = strstr(text, "```sql"))) {
		const char *e = strstr(s + 6, "```");

		o->sql = e ? strndup(s + 6, (size_t)(e - s - 6)) : strdup(s + 6);
		return;
	}
	for (s = text; *s; s++)
		if ((s == text || !isalnum((unsigned char)s[-1])) &&
		    (!strncasecmp(s, "SELECT ", 7) || !strncasecmp(s, "WITH ", 5))) {
			const char *e = strchr(s, ';');

			o->sql = e ? strndup(s, (size_t)(e - s)) : strdup(s);
			return;
		}
}

/* planner_ctx attempts and edits from the state (strings point into the state). */
/* the follow-up's parent run, when there is one */
static void builtin_ctx_parent(struct agent *a, struct planner_ctx *ctx)
{
	if (a->state.parent.id) {
		ctx->prev_question = a->state.parent.question;
		ctx->prev_sql = a->state.parent.sql;
	}
}

static void builtin_ctx(struct agent *a, struct planner_ctx *ctx, struct planner_attempt **atts,
                        struct planner_edit **eds)
{
	const struct run_state *st = &a->state;

	memset(ctx, 0, sizeof *ctx);
	ctx->now = *st->now ? st->now : NULL;
	ctx->conninfo = a->conninfo;
	ctx->aggregate_form = level_conninfo_is_aggregate(a->conninfo);
	*atts = calloc((size_t)st->nhistory + 1, sizeof **atts);
	*eds = calloc((size_t)st->nedits + 1, sizeof **eds);
	if (*atts) {
		for (int i = 0; i < st->nhistory; i++) {
			const struct run_attempt *h = &st->history[i];

			(*atts)[i] = (struct planner_attempt){.sql = h->sql, .error = h->error,
			                                      .missing_column = h->missing_column,
			                                      .missing_relation = h->missing_relation,
			                                      .suggested = h->suggested, .empty_result = h->empty};
		}
		ctx->attempts = *atts;
		ctx->nattempts = st->nhistory;
	}
	if (*eds) {
		for (int i = 0; i < st->nedits; i++) {
			const struct run_edit *e = &st->edits[i];

			(*eds)[i] = (struct planner_edit){.op = e->op, .table = e->table, .column = e->column,
			                                  .value = e->value, .phrase = e->phrase};
		}
		ctx->edits = *eds;
		ctx->nedits = st->nedits;
	}
	builtin_ctx_parent(a, ctx);
}

/* The offline planner behind the builtin provider; also the fallback when the LLM fails. */
void plan_offline(struct agent *a, struct plan_out *o, cJSON *outj)
{
	struct planner_ctx ctx;
	struct planner_attempt *atts = NULL;
	struct planner_edit *eds = NULL;
	struct planner_out po;
	enum err rc;

	if (!a->have_ret)
		inspector_reload(a);
	builtin_ctx(a, &ctx, &atts, &eds);
	/* the SQL was rejected with a comment (성별로, 칼륨만, only in 2024): the comment is a change to
	 * the question, planned as a follow-up of it */
	const char *question = a->state.question;
	const struct run_attempt *last = run_history_last(&a->state);

	if (last && last->comment && *last->comment) {
		ctx.prev_question = question;
		ctx.prev_sql = last->sql;
		ctx.amend = 1;
		question = last->comment;
	}
	rc = planner_plan(a->cat, a->have_ret ? &a->ret : NULL, question, &ctx, &po);
	if (rc == OK && po.unanswerable && question != a->state.question) {
		/* a comment it cannot apply: the next alternative for the question itself */
		planner_out_free(&po);
		ctx.prev_question = NULL;
		ctx.prev_sql = NULL;
		ctx.amend = 0;
		builtin_ctx_parent(a, &ctx);
		rc = planner_plan(a->cat, a->have_ret ? &a->ret : NULL, a->state.question, &ctx, &po);
	}
	if (rc != OK) {
		char b[128];

		snprintf(b, sizeof b, "offline planner failed: %s", err_str(rc));
		o->failed = 1;
		o->error = strdup(b);
	} else if (po.unanswerable) {
		o->unanswerable = 1;
		o->missing = strdup(po.reason ? po.reason : "not stated");
	} else if (po.sql) {
		o->sql = strdup(po.sql);
	}
	if (po.explanation)
		cJSON_AddStringToObject(outj, "explanation", po.explanation);
	if (po.intent)
		cJSON_AddStringToObject(outj, "intent", po.intent);
	if (po.decisions_json)
		cJSON_AddItemToObject(outj, "decisions", cJSON_Parse(po.decisions_json));
	cJSON_AddNumberToObject(outj, "confidence", po.confidence);
	if (po.shape)
		cJSON_AddStringToObject(outj, "shape", po.shape);
	planner_out_free(&po);
	free(atts);
	free(eds);
}

void plan_run(struct agent *a, struct plan_out *o)
{
	long long t0 = agent_now_us();
	struct step s = {.kind = "node", .name = "planner", .status = "ok"};
	cJSON *inj = cJSON_CreateObject(), *outj = cJSON_CreateObject();
	char *in, *out, *user = NULL, *system = NULL, err[256];
	struct llm_reply rep = {0};
	struct llm *l;
	int pv = 0;

	memset(o, 0, sizeof *o);
	cJSON_AddNumberToObject(inj, "attempt", a->state.attempt);
	cJSON_AddNumberToObject(inj, "max_retries", a->state.max_retries);
	cJSON_AddStringToObject(inj, "provider", a->state.provider);
	cJSON_AddNumberToObject(inj, "previous_failures", a->state.nhistory);
	if (!(l = agent_llm(a, err, sizeof err))) {
		o->failed = 1;
		o->error = strdup(err);
	} else if (llm_is_builtin(l)) {
		char *rb = plan_retry_block(a);

		/* the same retry context the LLM would get, recorded for the reader */
		if (*rb)
			user = rb;
		else
			free(rb);
		plan_offline(a, o, outj);
	} else {
		char *ctxb = plan_context_block(a), *rb = plan_retry_block(a);
		struct sb u = SB_INIT;
		struct llm_msg m[2];

		sb_printf(&u, "%s\n%s[User Query]\n%s\n", ctxb, rb, a->state.question);
		free(ctxb);
		free(rb);
		user = sb_steal(&u);
		system = prompt_get(a->app, "extract", &pv);
		cJSON_AddNumberToObject(inj, "prompt_version", pv);
		cJSON_AddStringToObject(inj, "model", llm_model(l));
		m[0].role = "system";
		m[0].content = system ? system : "You write one PostgreSQL SELECT as JSON {\"sql\": ...}.";
		m[1].role = "user";
		m[1].content = user;
		if (llm_chat(l, m, 2, a->on_text, a->ctx, &rep) != OK) {
			if (conf_get_int("llm_fallback_builtin")) {
				/* degrade: the offline planner answers instead */
				s.status = "degraded";
				cJSON_AddStringToObject(outj, "fallback", "builtin");
				plan_offline(a, o, outj);
			} else {
				o->failed = 1;
				o->error = strdup(rep.error ? rep.error : "LLM call failed");
			}
			s.error = rep.error;
		} else {
			parse_reply(rep.text, o);
		}
		a->res->llm_ms += rep.ms;
		cJSON_AddNumberToObject(outj, "llm_attempts", rep.attempts);
		if (rep.attempt_log)
			cJSON_AddStringToObject(outj, "llm_log", rep.attempt_log);
		s.raw = rep.text;
		s.tokens_in = rep.tokens_in;
		s.tokens_out = rep.tokens_out;
	}
	if (o->sql) {
		/* one statement: a trailing semicolon is not an error of the model's */
		size_t n = strlen(o->sql);

		while (n && (isspace((unsigned char)o->sql[n - 1]) || o->sql[n - 1] == ';'))
			o->sql[--n] = '\0';
		cJSON_AddStringToObject(outj, "sql", o->sql);
	}
	if (o->unanswerable)
		cJSON_AddStringToObject(outj, "missing", o->missing);
	if (o->failed) {
		s.status = "error";
		if (!s.error)
			s.error = o->error;
	} else if (!o->sql && !o->unanswerable) {
		s.status = "error";
		s.error = "the planner's reply contains no SQL";
	}
	in = json_text(inj);
	out = json_text(outj);
	s.input = in;
	s.output = out;
	s.prompt = user;
	s.ms = agent_ms_since(t0);
	agent_step(a, &s);
	cJSON_Delete(inj);
	cJSON_Delete(outj);
	free(in);
	free(out);
	free(user);
	free(system);
	llm_reply_free(&rep);
}
