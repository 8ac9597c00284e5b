/* graph.c: the main critique graph driver (MedicalCritiqueGraph), the report object and its storage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "catalog/llm_policy.h"
#include "critique/critique.h"
#include "store/target.h"
#include "llm/llm.h"
#include "store/db.h"
#include "store/level.h"
#include "store/run.h"
#include "util/conf.h"
#include "util/log.h"
#include "util/sb.h"

/* ---- diagnosis and treatment, concurrently ---- */

static cJSON *dt_payload(const struct crit_state *st, const cJSON *analysis)
{
	cJSON *p = cJSON_CreateObject();
	static const char *keys[] = { "patient", "operation", "outcome", "findings", "procedures_performed" };

	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		cJSON_AddItemToObject(p, keys[i], cJSON_Duplicate(cJSON_GetObjectItem(st->structured_chart, keys[i]), 1));
	cJSON_AddItemToObject(p, "evidence", cJSON_Duplicate(cJSON_GetObjectItem(st->evidence, "items"), 1));
	cJSON_AddItemToObject(p, "deterministic_analysis", cJSON_Duplicate(analysis, 1));
	return p;
}

/* Both analyses: deterministic parts first, then (with an LLM) two requests in flight at once. */
enum err crit_diagnosis_treatment(struct crit_state *st)
{
	double t0 = crit_now_ms(), t1 = 0;
	const char *names[2] = { "diagnosis", "treatment" };
	char *sys[2] = {0}, *user[2] = {0};
	struct llm_msg msgs[2][2];
	struct llm_req reqs[2];
	struct llm_reply replies[2] = {{0}};
	enum err errs[2] = { ERR_INTERNAL, ERR_INTERNAL };
	int slot[2] = { -1, -1 }, n = 0;

	crit_diagnosis(st);
	crit_treatment(st);
	cJSON *an[2] = { st->diagnosis_analysis, st->treatment_analysis };
	if (st->llm) {
		for (int i = 0; i < 2; i++) {
			cJSON *payload = dt_payload(st, an[i]);
			if (crit_llm_prepare(st->app, names[i], payload, &sys[i], &user[i]) == OK) {
				msgs[i][0] = (struct llm_msg){"system", sys[i]};
				msgs[i][1] = (struct llm_msg){"user", user[i]};
				reqs[n] = (struct llm_req){ .msgs = msgs[i], .n = 2 };
				slot[i] = n++;
				cJSON *lg = cJSON_CreateObject();
				cJSON_AddStringToObject(lg, "node", names[i]);
				cJSON_AddItemToArray(st->llm_log, lg);
			}
			cJSON_Delete(payload);
		}
		/* both requests in flight at once (curl multi) */
		if (n > 0)
			llm_chat_many(st->llm, reqs, n, replies, errs);
		t1 = crit_now_ms();
	}
	for (int i = 0; i < 2; i++) {
		char *prompt = NULL;
		const char *status = "ok", *reason = NULL, *raw = NULL;
		int k = slot[i], used = 0;
		if (k >= 0) {
			struct sb sb = SB_INIT;
			sb_printf(&sb, "[system]\n%s\n[user]\n%s", sys[i], user[i]);
			prompt = sb_steal(&sb);
			raw = replies[k].text ? replies[k].text : replies[k].error;
			if (errs[k] == OK && replies[k].text) {
				cJSON_AddItemToObject(an[i], "llm", crit_parse_answer(replies[k].text));
				used = 1;
			} else {
				status = "degraded";
				reason = "LLM call failed; deterministic analysis kept";
			}
			cJSON_AddNumberToObject(an[i], "concurrent_requests", n);
		} else if (st->llm) {
			status = "degraded";
			reason = "prompt missing; deterministic analysis kept";
		}
		crit_step(st, "node", names[i], status, reason, an[i], prompt, raw,
		          k >= 0 ? t1 - t0 : crit_now_ms() - t0, used);
		free(prompt);
		free(sys[i]);
		free(user[i]);
	}
	for (int k = 0; k < n; k++)
		llm_reply_free(&replies[k]);
	return OK;
}

/* run_conditional_agents: risk_factor and process_contributor, each only when selected. */
enum err crit_run_conditional_agents(struct crit_state *st)
{
	double t0 = crit_now_ms();
	static const char *names[] = { "risk_factor", "process_contributor" };
	cJSON *ran = cJSON_CreateArray();

	for (int i = 0; i < 2; i++) {
		int sel = 0;
		const cJSON *x;
		cJSON_ArrayForEach(x, st->selected_agents)
			sel |= cJSON_IsString(x) && !strcmp(x->valuestring, names[i]);
		if (!sel) {
			crit_step(st, "node", names[i], "skipped", "not selected by agent_router", NULL, NULL, NULL, 0, 0);
			continue;
		}
		if (i == 0)
			crit_risk_factor(st);
		else
			crit_process_contributor(st);
		cJSON_AddItemToArray(ran, cJSON_CreateString(names[i]));
	}
	crit_step(st, "node", "run_conditional_agents", "ok", NULL, ran, NULL, NULL, crit_now_ms() - t0, 0);
	cJSON_Delete(ran);
	return OK;
}

enum err crit_run_graph(struct crit_state *st, char *err, size_t errlen)
{
	enum err rc = crit_chart_structurer(st);

	if (rc != OK) {
		const cJSON *last = cJSON_GetArrayItem(st->nodes, cJSON_GetArraySize(st->nodes) - 1);
		snprintf(err, errlen, "%s", crit_str(last, "reason") ? crit_str(last, "reason") : err_str(rc));
		return rc;
	}
	crit_evidence(st);
	crit_diagnosis_treatment(st);
	crit_evidence_2nd(st);
	crit_intervention_checker(st);
	crit_agent_router(st);
	crit_run_conditional_agents(st);
	crit_critic(st);
	crit_alternative_explanation(st);
	return OK;
}

/* ---- the report ---- */

static void dup_into(cJSON *r, const char *key, const cJSON *v)
{
	if (v)
		cJSON_AddItemToObject(r, key, cJSON_Duplicate(v, 1));
	else
		cJSON_AddNullToObject(r, key);
}

/* The report's summary in English (ko 0) or Korean (ko 1). */
static char *summary_text(const struct crit_state *st, int ko)
{
	const cJSON *chart = st->structured_chart, *f;
	const cJSON *pt = cJSON_GetObjectItem(chart, "patient"), *op = cJSON_GetObjectItem(chart, "operation");
	struct sb sb = SB_INIT;
	int nf = cJSON_GetArraySize(cJSON_GetObjectItem(chart, "findings")), i = 0;
	int ni = cJSON_GetArraySize(cJSON_GetObjectItem(chart, "procedures_performed"));
	int ns = cJSON_GetArraySize(st->similar_cases);

	if (st->caseid > 0)
		sb_printf(&sb, ko ? "케이스 %lld" : "Case %lld", st->caseid);
	else
		sb_puts(&sb, ko ? "붙여 넣은 차트" : "Pasted chart");
	if (crit_str(op, "opname") || crit_str(op, "dx"))
		sb_printf(&sb, " (%s%s%s)", crit_str(op, "opname") ? crit_str(op, "opname") : "",
		          crit_str(op, "opname") && crit_str(op, "dx") ? "; " : "", crit_str(op, "dx") ? crit_str(op, "dx") : "");
	if (cJSON_GetObjectItem(pt, "age"))
		sb_printf(&sb, ko ? ", %g세" : ", age %g", crit_num(pt, "age", 0));
	if (cJSON_GetObjectItem(pt, "asa"))
		sb_printf(&sb, ", ASA %g", crit_num(pt, "asa", 0));
	sb_puts(&sb, ". ");
	if (nf == 0 && crit_chart_values(chart) == 0)
		sb_puts(&sb, ko ? "차트에 확인할 측정값이 없습니다. " : "The chart holds no measured values to check. ");
	else if (nf == 0)
		sb_puts(&sb, ko ? "정상 범위를 벗어난 값이 없습니다. " : "No value outside its normal range. ");
	else {
		sb_printf(&sb, ko ? "이상 소견 %d건: " : "%d abnormal finding(s): ", nf);
		cJSON_ArrayForEach(f, cJSON_GetObjectItem(chart, "findings"))
			if (i++ < 4)
				sb_printf(&sb, "%s%s", i > 1 ? "; " : "", ko ? crit_ko(f, "text") : crit_str(f, "text"));
		sb_puts(&sb, nf > 4 ? "; ... " : ". ");
	}
	sb_printf(&sb, ko ? "처치 %d건이 기록되어 있습니다. " : "%d intervention(s) recorded. ", ni);
	const char *cs = ko ? crit_ko(st->critique, "summary") : crit_str(st->critique, "summary");
	sb_printf(&sb, "%s", cs ? cs : "");
	if (ns)
		sb_printf(&sb, ko ? " 유사 케이스 %d건과 비교했습니다." : " %d similar case(s) compared.", ns);
	return sb_steal(&sb);
}

cJSON *crit_report_json(const struct crit_state *st)
{
	cJSON *r = cJSON_CreateObject();
	char *sum = summary_text(st, 0), *sum_ko = summary_text(st, 1);

	cJSON_AddNumberToObject(r, "version", 1);
	cJSON_AddNumberToObject(r, "run_id", (double)st->run_id);
	cJSON_AddStringToObject(r, "case_ref", st->case_ref ? st->case_ref : "");
	if (st->caseid > 0)
		cJSON_AddNumberToObject(r, "caseid", (double)st->caseid);
	cJSON_AddStringToObject(r, "mode", st->llm ? "llm" : "offline");
	crit_say(r, "summary", sum, sum_ko);
	free(sum);
	free(sum_ko);
	dup_into(r, "structured_chart", st->structured_chart);
	dup_into(r, "evidence", st->evidence);
	dup_into(r, "similar_cases", st->similar_cases);
	dup_into(r, "diagnosis_analysis", st->diagnosis_analysis);
	dup_into(r, "treatment_analysis", st->treatment_analysis);
	dup_into(r, "evidence_2nd", st->evidence_2nd);
	dup_into(r, "intervention_coverage", st->intervention_coverage);
	dup_into(r, "selected_agents", st->selected_agents);
	dup_into(r, "risk_factor_analysis", st->risk_factor_analysis);
	dup_into(r, "process_contributor_analysis", st->process_contributor_analysis);
	dup_into(r, "critique", st->critique);
	dup_into(r, "solutions", st->solutions);
	dup_into(r, "alternative_explanations", st->alternative_explanations);
	dup_into(r, "nodes", st->nodes);
	dup_into(r, "llm_calls", st->llm_log);
	return r;
}

/* ---- the whole job ---- */

/* level_for: the connection rq's user reads the target with (*ci heap); ERR_DENIED with the reason
 * when a case id is asked at a level below identified, or the level cannot be set up */
static enum err level_for(PGconn *app, const struct crit_request *rq, char **ci, enum level *lv_out,
                          char *err, size_t errlen)
{
	struct target t;
	enum level lv = LEVEL_IDENTIFIED;
	enum err rc;

	if ((rc = target_resolve(app, rq->target, &t, err, errlen)) != OK)
		return rc;
	rc = level_conninfo(app, &t, rq->user_id, ci, &lv, err, errlen);
	if (rc == OK && rq->caseid > 0 && lv != LEVEL_IDENTIFIED) {
		snprintf(err, errlen, "a case review reads one patient's whole chart, so it needs the identified "
		         "access level on %s; yours is %s", t.name, level_name(lv));
		free(*ci);
		*ci = NULL;
		rc = ERR_DENIED;
	}
	*lv_out = lv;
	target_free(&t);
	return rc;
}

enum err crit_critique(PGconn *app, const struct crit_request *rq, char **report_json,
                       long long *run_id, long long *report_id, char *err, size_t errlen)
{
	struct crit_state st;
	enum err rc;
	char q[200], lerr[256] = "", *level_ci = NULL;
	cJSON *rep = NULL;
	enum level lv = LEVEL_IDENTIFIED;

	*report_json = NULL;
	*run_id = *report_id = 0;
	crit_state_init(&st);
	if (rq->caseid > 0) {
		st.caseid = rq->caseid;
		snprintf(q, sizeof q, "case %lld", rq->caseid);
	} else if (rq->text && rq->text[0]) {
		if (strlen(rq->text) > 200000) {
			snprintf(err, errlen, "chart text over 200 KB");
			crit_state_free(&st);
			return ERR_LIMIT;
		}
		st.text = strdup(rq->text);
		snprintf(q, sizeof q, "text: %.60s", rq->text);
		for (char *p = q; *p; p++)
			if (*p == '\n' || *p == '\r')
				*p = ' ';
	} else {
		snprintf(err, errlen, "give a case id or chart text");
		crit_state_free(&st);
		return ERR_INPUT;
	}
	st.case_ref = strdup(rq->caseid > 0 ? q : "text");
	st.kb_app = app;
	st.target = rq->target;
	/* the chart is read at the requester's access level (store/level.h); a case's chart is one
	 * patient's rows with their dates, so it needs the identified level */
	if (app && (rc = level_for(app, rq, &level_ci, &lv, err, errlen)) != OK) {
		crit_state_free(&st);
		return rc;
	}
	st.conninfo = level_ci;
	const char *prov = conf_get("llm_provider");
	/* A case's chart is rows of the target: it goes to a model only under llm_data_policy rows
	 * (a pasted chart text is the analyst's own and may).  Otherwise the graph runs offline. */
	int rows_ok = 1;

	if (rq->caseid > 0) {
		struct target tg;
		char terr[256];
		int have = app && target_resolve(app, rq->target, &tg, terr, sizeof terr) == OK;

		rows_ok = llm_policy_resolve(have ? tg.llm_data_policy : NULL, NULL) == LLM_POLICY_ROWS;
		if (have)
			target_free(&tg);
		if (!rows_ok && rq->use_llm)
			log_info("critique: case %lld runs without the LLM (llm_data_policy is not rows)", rq->caseid);
	}
	if (rq->use_llm && rows_ok && prov[0] && strcmp(prov, "builtin")) {
		st.llm = llm_open(NULL, lerr, sizeof lerr);
		if (!st.llm)
			log_warn("critique: LLM unavailable (%s); running offline", lerr);
	}
	if (app) {
		char question[256];
		snprintf(question, sizeof question, "critique %s", q);
		struct run_new rn = {
			.user_id = rq->user_id, .target = rq->target ? rq->target : conf_get("target_name"),
			.kind = "critique", .provider = st.llm ? llm_name(st.llm) : "builtin", .question = question,
		};
		if (run_create(app, &rn, &st.run_id) == OK) {
			st.app = app;
			/* the report's rows were read at lv: shown by it (pages/report.c) */
			if (level_run_record(app, st.run_id, lv, lerr, sizeof lerr) != OK)
				log_warn("critique run %lld: level not recorded: %s", st.run_id, lerr);
		} else
			log_warn("critique: run not recorded");
	}
	rc = crit_run_graph(&st, err, errlen);
	if (rc != OK) {
		if (st.app) {
			struct run_update u = RUN_UPDATE_INIT;
			u.status = "error";
			u.error = err;
			run_set(app, st.run_id, &u);
		}
		goto out;
	}
	rep = crit_report_json(&st);
	if (st.app) {
		char rid[32], *body = cJSON_PrintUnformatted(rep), dberr[256];
		snprintf(rid, sizeof rid, "%lld", st.run_id);
		const char *params[3] = { rid, st.case_ref, body };
		PGresult *res = db_query(app, "INSERT INTO askql.reports (run_id, case_ref, body) VALUES ($1, $2, $3::jsonb) "
		                         "RETURNING id", 3, params, dberr, sizeof dberr);
		if (res && PQntuples(res) == 1)
			*report_id = atoll(PQgetvalue(res, 0, 0));
		else
			log_warn("critique: report not stored: %s", dberr);
		if (res)
			PQclear(res);
		free(body);
		struct run_update u = RUN_UPDATE_INIT;
		u.status = "ok";
		u.answer = crit_str(rep, "summary");
		run_set(app, st.run_id, &u);
		*run_id = st.run_id;
	}
	cJSON_AddNumberToObject(rep, "report_id", (double)*report_id);
	*report_json = cJSON_PrintUnformatted(rep);
out:
	cJSON_Delete(rep);
	if (st.llm)
		llm_close(st.llm);
	crit_state_free(&st);
	free(level_ci);
	return rc;
}
