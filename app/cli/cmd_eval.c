/* cmd_eval.c: askql eval: execution accuracy, abstention and EHRSQL reliability scores of the builtin pipeline. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cjson/cJSON.h>
#include "agent/agent.h"
#include "agent/eval.h"
#include "agent/planner.h"
#include "llm/prompt.h"
#include "catalog/catalog.h"
#include "agent/coverage.h"
#include "cli/cli.h"
#include "sql/exec.h"
#include "store/db.h"
#include "store/target.h"
#include "util/conf.h"
#include "util/sb.h"

/* plan_direct: the catalog's retrieval (when the target is indexed) then the planner, outside
 * the pipeline.  po is filled as planner_plan fills it; the caller frees it. */
static enum err plan_direct(struct catalog *cat, const char *question, const struct planner_ctx *ctx,
                            struct planner_out *po)
{
	struct retrieval r;
	int have_r = 0;
	enum err rc;

	memset(&r, 0, sizeof r);
	if (cat && catalog_retrieve(cat, question, NULL, &r) == OK)
		have_r = 1;
	rc = planner_plan(cat, have_r ? &r : NULL, question, ctx, po);
	if (have_r)
		retrieval_free(&r);
	return rc;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* run sql on the target through the read-only executor into rows */
static enum err run_sql(const char *conninfo, const char *sql, struct eval_rows *out, char **errtext)
{
	struct exec_opts eo = {.conninfo = conninfo, .max_rows = 200000};
	struct exec_result res;
	struct exec_error e;
	enum err rc;

	memset(&res, 0, sizeof res);
	memset(&e, 0, sizeof e);
	rc = exec_fetch(sql, &eo, &res, &e);
	if (rc != OK) {
		*errtext = exec_error_text(&e);
		exec_error_free(&e);
		exec_result_free(&res);
		return rc;
	}
	rc = eval_rows_from_result(&res, out);
	exec_result_free(&res);
	exec_error_free(&e);
	return rc;
}

/* one question through the pipeline: SQL or a decline */
struct answer {
	char *sql, *reason;
	int declined;
	const char *path;    /* "pipeline" or "planner" */
	const char *shape;   /* static: the planner's question shape, NULL when none framed a plan */
	double confidence;   /* the planner's confidence in that plan */
};

static void answer_free(struct answer *a)
{
	free(a->sql);
	free(a->reason);
	memset(a, 0, sizeof *a);
}

/* plan_shape: the shape and confidence of the planner's plan for question, for the calibration
 * report (the pipeline's answer is the first plan unless an attempt failed) */
static void plan_shape(struct catalog *cat, const char *question, const char *now, const char *conninfo,
                       struct answer *ans)
{
	struct planner_ctx ctx = {.now = now, .conninfo = conninfo};
	struct planner_out po;
	if (plan_direct(cat, question, &ctx, &po) == OK && !po.unanswerable) {
		ans->shape = po.shape;
		ans->confidence = po.confidence;
	}
	planner_out_free(&po);
}

/* ask_parent: a follow-up's parent question asked through the pipeline first (not scored): its
 * run id, 0 when it did not run */
static long long ask_parent(PGconn *app, const char *target_name, const char *conninfo, const char *question,
                            const char *now, const char *provider)
{
	struct agent_opts o = {.target = target_name, .conninfo = conninfo, .mode = "extract",
	                       .provider = provider, .no_cache = 1, .now = now};
	struct agent_result res;
	long long id = 0;
	memset(&res, 0, sizeof res);
	if (app && agent_start(app, &o, question, &res) == OK)
		id = res.run_id;
	agent_result_free(&res);
	return id;
}

static enum err ask(PGconn *app, struct catalog *cat, const char *target_name, const char *conninfo,
                    const char *question, const char *now, int use_agent, const char *provider, long long parent,
                    struct answer *ans)
{
	memset(ans, 0, sizeof *ans);
	if (use_agent && app) {
		struct agent_opts o = {.target = target_name, .conninfo = conninfo, .mode = "extract",
		                       .provider = provider, .no_cache = 1, .now = now, .parent_id = parent};
		struct agent_result res;
		memset(&res, 0, sizeof res);
		enum err rc = agent_start(app, &o, question, &res);
		ans->path = "pipeline";
		if (rc == OK) {
			if (!strcmp(res.status, "ok") && res.sql) {
				ans->sql = strdup(res.sql);
				if (!strcmp(provider, "builtin"))
					plan_shape(cat, question, now, conninfo, ans);
			} else {
				ans->declined = 1;
				ans->reason = strdup(res.error ? res.error : res.status);
			}
			agent_result_free(&res);
			return OK;
		}
		agent_result_free(&res);
		/* the pipeline refused to start: fall through to the planner */
	}
	struct planner_ctx ctx = {.now = now, .conninfo = conninfo};
	struct planner_out po;
	enum err rc = plan_direct(cat, question, &ctx, &po);
	ans->path = "planner";
	if (rc == OK) {
		if (po.unanswerable) {
			ans->declined = 1;
			ans->reason = po.reason ? strdup(po.reason) : strdup("declined");
		} else {
			ans->sql = po.sql ? strdup(po.sql) : NULL;
			ans->shape = po.shape;
			ans->confidence = po.confidence;
		}
	} else {
		ans->declined = 1;
		ans->reason = strdup(po.reason ? po.reason : "planner error");
	}
	planner_out_free(&po);
	return OK;
}

/* One answered question, for the calibration report. */
struct calib { const char *shape; double conf; enum eval_outcome oc; };

/* calibration_report: per question shape, how many answers were right and wrong; then what
 * declining every answer below a confidence threshold (planner_min_confidence) would have scored
 * on this half, and the threshold that maximises RS(10) */
static void calibration_report(const struct calib *c, int n, const struct eval_stats *st)
{
	const char *names[16];
	int ns = 0;
	if (!n)
		return;
	printf("   by question shape (answered: right / wrong or error / answered an unanswerable one):\n");
	for (int i = 0; i < n; i++) {
		const char *s = c[i].shape ? c[i].shape : "(none)";
		int k;
		for (k = 0; k < ns && strcmp(names[k], s); k++)
			;
		if (k < ns || ns == 16)
			continue;
		names[ns++] = s;
		int r = 0, w = 0, u = 0;
		for (int j = i; j < n; j++) {
			if (strcmp(c[j].shape ? c[j].shape : "(none)", s))
				continue;
			r += c[j].oc == EV_CORRECT;
			w += c[j].oc == EV_WRONG || c[j].oc == EV_ERROR;
			u += c[j].oc == EV_ANSWERED_UNANSWERABLE;
		}
		printf("     %-16s %4d  %4d  %4d\n", s, r, w, u);
	}
	double best_t = 0, best = eval_rs(st, 10);
	int last_right = -1, last_wrong = -1;
	printf("   threshold sweep (decline answers with confidence below t; rows where the outcome changes):\n");
	for (int step = 0; step <= 10; step++) {
		double th = 0.45 + 0.05 * step;
		struct eval_stats s2 = *st;
		for (int i = 0; i < n; i++) {
			if (c[i].conf >= th)
				continue;
			s2.n[c[i].oc]--;
			s2.n[c[i].oc == EV_ANSWERED_UNANSWERABLE ? EV_DECLINED_OK : EV_DECLINED]++;
		}
		int wrong = s2.n[EV_WRONG] + s2.n[EV_ERROR] + s2.n[EV_ANSWERED_UNANSWERABLE];
		if (s2.n[EV_CORRECT] != last_right || wrong != last_wrong)
			printf("     t %.2f   right %4d  wrong %3d  RS(0) %.3f  RS(5) %.3f  RS(10) %.3f\n", th, s2.n[EV_CORRECT],
			       wrong, eval_rs(&s2, 0), eval_rs(&s2, 5), eval_rs(&s2, 10));
		last_right = s2.n[EV_CORRECT];
		last_wrong = wrong;
		if (eval_rs(&s2, 10) > best + 1e-9) {
			best = eval_rs(&s2, 10);
			best_t = th;
		}
	}
	printf("   best RS(10) on this half at t %.2f (%.3f)\n", best_t, best);
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/*
 * context_report: for each question of path with gold SQL (gold_sql, else gold_sql_sqlite),
 * does the prompt block the LLM would get (the inspector's retrieval options) name every table
 * and column the gold SQL uses?  Prints question-level and micro recall and prompt tokens.
 */
static int context_report(struct catalog *cat, const char *path, const char *half, int verbose)
{
	struct retrieval_opts ro = {.k = 10, .token_budget = 1500,
	                            .whole_schema_tokens = conf_get_int("context_whole_schema_tokens") > 0
	                                                   ? conf_get_int("context_whole_schema_tokens") : -1};
	FILE *in = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, nq = 0, q_tab = 0, q_col = 0, t_all = 0, t_hit = 0, c_all = 0, c_hit = 0, unparsed = 0;
	int *tok = NULL, ntok = 0, captok = 0;
	double tok_sum = 0;

	if (!in) {
		fprintf(stderr, "askql eval: cannot open %s\n", path);
		return 1;
	}
	if (!cat) {
		fprintf(stderr, "askql eval --context: the target is not indexed\n");
		fclose(in);
		return 1;
	}
	while (getline(&line, &cap, in) > 0) {
		cJSON *j;
		const cJSON *g, *q;
		struct cat_ref refs[128];
		struct retrieval r;
		int n, parsed, miss_t = 0, miss_c = 0;

		lineno++;
		if (half && ((lineno % 2 == 1) != (atoi(half) == 1)))
			continue;
		if (!(j = cJSON_Parse(line)))
			continue;
		q = cJSON_GetObjectItem(j, "question");
		g = cJSON_GetObjectItem(j, "gold_sql");
		if (!cJSON_IsString(g))
			g = cJSON_GetObjectItem(j, "gold_sql_sqlite");
		if (!cJSON_IsString(q) || !cJSON_IsString(g) || cJSON_IsFalse(cJSON_GetObjectItem(j, "answerable"))) {
			cJSON_Delete(j);
			continue;
		}
		n = catalog_sql_refs(cat, g->valuestring, refs, 128, &parsed);
		unparsed += !parsed;
		if (catalog_retrieve(cat, q->valuestring, &ro, &r) != OK) {
			cJSON_Delete(j);
			continue;
		}
		nq++;
		for (int i = 0; i < n; i++) {
			int hit = catalog_block_names(r.prompt_block, refs[i].table, refs[i].column);

			if (refs[i].column) {
				c_all++;
				c_hit += hit;
				miss_c += !hit;
			} else {
				t_all++;
				t_hit += hit;
				miss_t += !hit;
			}
			if (!hit && verbose)
				fprintf(stderr, "missing %s%s%s  <- line %d: %s\n", refs[i].table, refs[i].column ? "." : "",
				        refs[i].column ? refs[i].column : "", lineno, q->valuestring);
		}
		q_tab += !miss_t;
		q_col += !miss_c && !miss_t;
		if (ntok == captok) {
			int *nt = realloc(tok, (size_t)(captok = captok ? captok * 2 : 256) * sizeof *tok);

			if (!nt)
				break;
			tok = nt;
		}
		tok[ntok++] = r.prompt_tokens;
		tok_sum += r.prompt_tokens;
		retrieval_free(&r);
		cJSON_Delete(j);
	}
	free(line);
	fclose(in);
	qsort(tok, (size_t)ntok, sizeof *tok, cmp_int);
	printf("context recall: %s%s\n", path,
	       half ? (atoi(half) == 1 ? ", half 1 (odd lines, development)" : ", half 2 (even lines, held out)") : "");
	printf("  questions with gold SQL:        %d (%d gold SQL not parsed by libpg_query: identifiers matched)\n", nq, unparsed);
	printf("  block has every gold table:     %.1f%% of questions   (tables: %d/%d = %.1f%%)\n",
	       nq ? 100.0 * q_tab / nq : 0, t_hit, t_all, t_all ? 100.0 * t_hit / t_all : 0);
	printf("  block has every gold column:    %.1f%% of questions   (columns: %d/%d = %.1f%%)\n",
	       nq ? 100.0 * q_col / nq : 0, c_hit, c_all, c_all ? 100.0 * c_hit / c_all : 0);
	printf("  prompt tokens:                  mean %.0f, p95 %d, max %d\n", ntok ? tok_sum / ntok : 0,
	       ntok ? tok[(int)(0.95 * (ntok - 1))] : 0, ntok ? tok[ntok - 1] : 0);
	free(tok);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: askql eval [--target NAME|CONNINFO] [--now TS] [--out FILE] [--half 1|2]\n"
	                "                  [--direct | --provider builtin|openai] [--verbose] FILE.jsonl\n"
	                "       askql eval [--target NAME|CONNINFO] [--now TS] --plan \"question\" [--sql \"SQL to check\"] [--aggregate-form]\n"
	                "       askql eval [--target NAME|CONNINFO] [--half 1|2] [--verbose] --context FILE.jsonl\n");
	return 2;
}

int cmd_eval(int argc, char **argv)
{
	const char *target = cli_opt(&argc, argv, "--target");
	const char *name = cli_opt(&argc, argv, "--name");
	const char *now = cli_opt(&argc, argv, "--now");
	const char *outpath = cli_opt(&argc, argv, "--out");
	const char *half = cli_opt(&argc, argv, "--half");
	const char *plan = cli_opt(&argc, argv, "--plan");
	const char *check_sql = cli_opt(&argc, argv, "--sql");
	int direct = cli_flag(&argc, argv, "--direct");
	/* --provider: whose answers the pipeline runs (default builtin, the offline planner); any other
	 * is the configured LLM (docs/eval.md, "Measuring a model through the relay") */
	const char *provider = cli_opt(&argc, argv, "--provider");
	if (!provider || !*provider)
		provider = "builtin";
	int builtin = !strcmp(provider, "builtin");
	int verbose = cli_flag(&argc, argv, "--verbose");
	int aggregate_form = cli_flag(&argc, argv, "--aggregate-form");
	const char *context = cli_opt(&argc, argv, "--context");
	char err[512];
	int rc = 1;
	FILE *in = NULL, *out = NULL;
	PGconn *app = NULL;
	struct catalog *cat = NULL;
	struct eval_stats st;

	struct target tg;

	/* the registered target (--target NAME|URL or --name NAME; the default without either):
	 * its catalog and its read-only connection, never one database's catalog with another */
	if (cli_target("eval", target, name, &tg))
		return 1;
	name = tg.name;
	target = target_exec_conninfo(&tg);
	if (!now || !*now)
		now = *conf_get("now") ? conf_get("now") : NULL;
	app = db_app();
	if (app && !builtin)
		prompt_sync(app, NULL);   /* the model gets the prompts this build ships (as `ask` does) */
	if (app)
		cat = catalog_get(app, name, err, sizeof err);

	if (context)
		return argc == 1 ? context_report(cat, context, half, verbose) : usage();
	if (plan) {
		/* one question: what the planner decided and why */
		struct planner_ctx ctx = {.now = now, .conninfo = target, .aggregate_form = aggregate_form};
		struct planner_out po;
		enum err e = plan_direct(cat, plan, &ctx, &po);
		printf("status: %s\n", e != OK ? err_str(e) : po.unanswerable ? "unanswerable" : "ok");
		printf("sql: %s\nreason: %s\nintent: %s\nexplanation: %s\ndecisions: %s\n", po.sql ? po.sql : "",
		       po.reason ? po.reason : "", po.intent ? po.intent : "", po.explanation ? po.explanation : "",
		       po.decisions_json ? po.decisions_json : "");
		if (check_sql && po.reading) {
			/* what the coverage check says of another SQL for this question (docs/coverage.md) */
			struct cov_finding f[8];
			int nf = 0;
			enum err ce = coverage_check(po.reading, check_sql, f, 8, &nf);
			char *say = ce == OK && nf ? coverage_say(po.reading, f, nf) : NULL;
			printf("coverage: %s\n", ce != OK ? err_str(ce) : say ? say : "every word used");
			free(say);
		}
		planner_out_free(&po);
		return e == OK ? 0 : 1;
	}
	if (argc != 2)
		return usage();
	in = fopen(argv[1], "r");
	if (!in) {
		fprintf(stderr, "askql eval: cannot open %s\n", argv[1]);
		return 1;
	}
	if (outpath && !(out = fopen(outpath, "w"))) {
		fprintf(stderr, "askql eval: cannot write %s\n", outpath);
		fclose(in);
		return 1;
	}
	int use_agent = !direct && cat;
	struct wrong_kind { const char *name; int n; } kinds[8];
	int nkinds = 0;
	struct calib *cal = NULL;
	int ncal = 0;
	memset(&st, 0, sizeof st);
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, nunavailable = 0;
	double t0 = now_ms();
	while (getline(&line, &cap, in) > 0) {
		lineno++;
		if (half && ((lineno % 2 == 1) != (atoi(half) == 1)))
			continue;
		cJSON *j = cJSON_Parse(line);
		if (!j) {
			if (strspn(line, " \t\r\n") != strlen(line))
				fprintf(stderr, "askql eval: %s:%d: not JSON, skipped\n", argv[1], lineno);
			continue;
		}
		const cJSON *q = cJSON_GetObjectItem(j, "question");
		const cJSON *gs = cJSON_GetObjectItem(j, "gold_sql");
		const cJSON *ga = cJSON_GetObjectItem(j, "gold_answer");
		const cJSON *an = cJSON_GetObjectItem(j, "answerable");
		const cJSON *id = cJSON_GetObjectItem(j, "id");
		const cJSON *qnow = cJSON_GetObjectItem(j, "now");
		if (!cJSON_IsString(q)) {
			cJSON_Delete(j);
			continue;
		}
		int answerable = !cJSON_IsFalse(an);
		const cJSON *gu = cJSON_GetObjectItem(j, "gold_unavailable");
		if (answerable && cJSON_IsString(gu)) {
			/* the set says its gold cannot be reproduced on this database (a column it lacks) */
			fprintf(stderr, "askql eval: %s:%d: gold answer unavailable (%s), skipped\n", argv[1], lineno, gu->valuestring);
			nunavailable++;
			cJSON_Delete(j);
			continue;
		}
		struct eval_rows gold, pred;
		char *gerr = NULL, *perr = NULL;
		int have_gold = 0;
		memset(&gold, 0, sizeof gold);
		memset(&pred, 0, sizeof pred);
		if (answerable) {
			if (cJSON_IsString(gs)) {
				if (run_sql(target, gs->valuestring, &gold, &gerr) == OK)
					have_gold = 1;
			} else if (cJSON_IsArray(ga)) {
				have_gold = eval_rows_from_json(ga, &gold) == OK;
			}
			if (!have_gold) {
				fprintf(stderr, "askql eval: %s:%d: gold answer unavailable (%s), skipped\n", argv[1], lineno,
				        gerr ? gerr : "no gold_sql/gold_answer");
				free(gerr);
				cJSON_Delete(j);
				continue;
			}
		}
		struct answer ans;
		double ms0 = now_ms();
		/* a follow-up: its parent asked first, then the follow-up continues that run */
		const cJSON *pq = cJSON_GetObjectItem(j, "parent_question");
		long long parent = cJSON_IsString(pq) && use_agent
		                   ? ask_parent(app, name, target, pq->valuestring, cJSON_IsString(qnow) ? qnow->valuestring : now, provider)
		                   : 0;
		ask(app, cat, name, target, q->valuestring, cJSON_IsString(qnow) ? qnow->valuestring : now, use_agent, provider,
		    parent, &ans);
		int ran = 0;
		if (!ans.declined && ans.sql)
			ran = run_sql(target, ans.sql, &pred, &perr) == OK;
		double ms = now_ms() - ms0;
		enum eval_outcome oc = eval_judge(answerable, ans.declined || !ans.sql, ran,
		                                  have_gold ? &gold : NULL, &pred, q->valuestring);
		eval_count(&st, oc);
		if ((oc == EV_WRONG || oc == EV_ERROR) && ans.sql) {
			/* why it is wrong, by kind (never the question: halves are held out) */
			const char *wk = cJSON_IsString(gs) ? eval_wrong_kind(gs->valuestring, ans.sql) : "no_gold_sql";
			int k = 0;
			while (k < nkinds && strcmp(kinds[k].name, wk))
				k++;
			if (k == nkinds && nkinds < 8)
				kinds[nkinds++] = (struct wrong_kind){wk, 0};
			if (k < nkinds)
				kinds[k].n++;
		}
		if (!ans.declined && ans.sql) {
			struct calib *nc = realloc(cal, (size_t)(ncal + 1) * sizeof *cal);
			if (nc) {
				cal = nc;
				cal[ncal++] = (struct calib){.shape = ans.shape, .conf = ans.confidence, .oc = oc};
			}
		}
		if (out) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "id", cJSON_IsString(id) ? id->valuestring : "");
			cJSON_AddNumberToObject(o, "line", lineno);
			cJSON_AddStringToObject(o, "question", q->valuestring);
			cJSON_AddBoolToObject(o, "answerable", answerable);
			cJSON_AddStringToObject(o, "outcome", eval_outcome_name(oc));
			cJSON_AddStringToObject(o, "path", ans.path ? ans.path : "");
			if (ans.sql)
				cJSON_AddStringToObject(o, "sql", ans.sql);
			if (ans.reason)
				cJSON_AddStringToObject(o, "reason", ans.reason);
			if (perr)
				cJSON_AddStringToObject(o, "error", perr);
			if (ran)
				cJSON_AddNumberToObject(o, "rows", (double)pred.nrows);
			if ((oc == EV_WRONG || oc == EV_ERROR) && cJSON_IsString(gs) && ans.sql)
				cJSON_AddStringToObject(o, "wrong_kind", eval_wrong_kind(gs->valuestring, ans.sql));
			const cJSON *kind = cJSON_GetObjectItem(j, "kind");
			if (cJSON_IsString(kind))
				cJSON_AddStringToObject(o, "kind", kind->valuestring);
			if (ans.shape) {
				cJSON_AddStringToObject(o, "shape", ans.shape);
				cJSON_AddNumberToObject(o, "confidence", round(ans.confidence * 1000) / 1000);
			}
			cJSON_AddNumberToObject(o, "ms", round(ms * 10) / 10);
			char *s = cJSON_PrintUnformatted(o);
			if (s)
				fprintf(out, "%s\n", s);
			free(s);
			cJSON_Delete(o);
		}
		if (verbose)
			fprintf(stderr, "%-22s %s\n", eval_outcome_name(oc), q->valuestring);
		answer_free(&ans);
		free(gerr);
		free(perr);
		eval_rows_free(&gold);
		eval_rows_free(&pred);
		cJSON_Delete(j);
	}
	free(line);
	char *rep = eval_report(&st, argv[1], name, use_agent ? (builtin ? "pipeline (agent, builtin provider)" :
	                                                                  "pipeline (agent, configured LLM provider)") :
	                        cat ? "planner (catalog retrieval + planner + executor)" :
	                              "planner (schema snapshot only: no indexed catalog for this target)",
	                        now_ms() - t0);
	fputs(rep ? rep : "out of memory\n", stdout);
	free(rep);
	printf("   wrong answers by kind (a diff of what the gold and the answer's SQL compute):");
	for (int k = 0; k < nkinds; k++)
		printf("%s %s %d", k ? "," : "", kinds[k].name, kinds[k].n);
	printf("%s\n", nkinds ? "" : " none");
	if (nunavailable)
		printf("   skipped: %d answerable question%s whose gold the set marks unavailable on this database\n",
		       nunavailable, nunavailable == 1 ? "" : "s");
	calibration_report(cal, ncal, &st);
	free(cal);
	rc = 0;
	if (out)
		fclose(out);
	fclose(in);
	return rc;
}
