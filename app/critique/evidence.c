/* evidence.c: node 2: first evidence pass: knowledge base, optional remote literature, similar cases. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "critique/critique.h"
#include "util/conf.h"
#include "util/sb.h"

/* Clinical words for a finding, so that queries meet the guideline vocabulary. */
static const char *finding_term(const char *param, const char *dir)
{
	int low = dir && !strcmp(dir, "low");
	static const struct { const char *p, *lo, *hi; } t[] = {
		{"sbp", "hypotension", "hypertension"}, {"mbp", "hypotension", "hypertension"},
		{"dbp", "hypotension", "hypertension"}, {"hr", "bradycardia", "tachycardia"},
		{"lac", "lactate", "hyperlactatemia lactate"}, {"k", "hypokalemia potassium", "hyperkalemia potassium"},
		{"na", "hyponatremia sodium", "hypernatremia sodium"}, {"spo2", "hypoxemia desaturation", "oxygen"},
		{"hb", "anemia hemoglobin transfusion", "hemoglobin"}, {"gluc", "hypoglycemia", "hyperglycemia glucose"},
		{"bt", "hypothermia", "fever hyperthermia"}, {"cr", "creatinine", "acute kidney injury creatinine"},
		{"rr", "bradypnea", "tachypnea"},
	};
	for (size_t i = 0; param && i < sizeof t / sizeof t[0]; i++)
		if (!strcmp(t[i].p, param))
			return low ? t[i].lo : t[i].hi;
	return param ? param : "";
}

/* The topic of a finding, as the words a knowledge document about it has in its file name or
 * heading ('|' between words). */
static const struct { const char *p, *lo, *hi; } topics[] = {
	{"sbp", "hypotension", "hypertension"}, {"mbp", "hypotension", "hypertension"},
	{"dbp", "hypotension", "hypertension"}, {"hr", "bradycardia", "tachycardia"},
	{"lac", "lactate|lactic", "lactate|lactic"}, {"k", "potassium|hypokal|hyperkal", "potassium|hyperkal|hypokal"},
	{"na", "sodium|hyponat", "sodium|hypernat"}, {"spo2", "hypox|desaturation|oxygen", "oxygen"},
	{"hb", "haemoglobin|hemoglobin|anaemia|anemia|transfusion", "haemoglobin|hemoglobin"},
	{"gluc", "glucose|hypoglyc", "glucose|hyperglyc"}, {"bt", "hypotherm|temperature", "fever|hypertherm|temperature"},
	{"cr", "creatinine|kidney", "creatinine|kidney"}, {"rr", "respirat", "respirat"},
};

const char *crit_finding_topic(const char *param, const char *dir)
{
	int low = dir && !strcmp(dir, "low");

	for (size_t i = 0; param && i < sizeof topics / sizeof topics[0]; i++)
		if (!strcmp(topics[i].p, param))
			return low ? topics[i].lo : topics[i].hi;
	return NULL;
}

int crit_kb_on_topic(const cJSON *item, const char *topic)
{
	char words[160], *save = NULL;
	const char *file = crit_str(item, "file"), *heading = crit_str(item, "heading");
	const char *base = file ? strrchr(file, '/') : NULL;

	if (!topic || !item)
		return 0;
	base = base ? base + 1 : file;
	snprintf(words, sizeof words, "%s", topic);
	for (char *w = strtok_r(words, "|", &save); w; w = strtok_r(NULL, "|", &save))
		if ((base && strcasestr(base, w)) || (heading && strcasestr(heading, w)))
			return 1;
	return 0;
}

/* Search the knowledge base for each query; merge by source keeping the best score. */
void crit_evidence_collect(struct crit_state *st, cJSON *queries, cJSON *items, const char *pass)
{
	cJSON *q;

	if (!st->kb)
		st->kb = crit_kb_open(st->kb_app, st->target ? st->target : conf_get("target_name"), st->docs_dir);
	cJSON_ArrayForEach(q, queries) {
		cJSON *hits = crit_kb_query(st->kb, q->valuestring, 3), *h;
		cJSON_ArrayForEach(h, hits) {
			cJSON *it, *dup = NULL;
			cJSON_ArrayForEach(it, items)
				if (!strcmp(crit_str(it, "source"), crit_str(h, "source")))
					dup = it;
			if (dup) {
				if (crit_num(h, "score", 0) > crit_num(dup, "score", 0))
					cJSON_SetNumberValue(cJSON_GetObjectItem(dup, "score"), crit_num(h, "score", 0));
				cJSON_AddItemToArray(cJSON_GetObjectItem(dup, "queries"), cJSON_CreateString(q->valuestring));
				continue;
			}
			cJSON *o = cJSON_Duplicate(h, 1);
			char id[16];
			snprintf(id, sizeof id, "%s%d", !strcmp(pass, "2nd") ? "K2-" : "K", cJSON_GetArraySize(items) + 1);
			cJSON_AddStringToObject(o, "id", id);
			cJSON_AddStringToObject(o, "query", q->valuestring);
			cJSON_AddItemToArray(cJSON_AddArrayToObject(o, "queries"), cJSON_CreateString(q->valuestring));
			cJSON_AddStringToObject(o, "pass", pass);
			cJSON_AddItemToArray(items, o);
		}
		cJSON_Delete(hits);
	}
}

/* Similar cases: same optype and dx (then optype only), nearest in age and ASA, with outcomes. */
static cJSON *similar_cases(struct crit_state *st, char *err, size_t errlen)
{
	const cJSON *chart = st->structured_chart;
	const cJSON *op = cJSON_GetObjectItem(chart, "operation"), *pt = cJSON_GetObjectItem(chart, "patient");
	const char *optype = crit_str(op, "optype"), *dx = crit_str(op, "dx");
	int k = conf_get_int("critique_similar_k") > 0 ? (int)conf_get_int("critique_similar_k") : 5;
	cJSON *rows = NULL;

	if (st->caseid <= 0 || !optype)
		return NULL;
	char *qo = crit_sql_quote(optype), *qd = crit_sql_quote(dx ? dx : "");
	for (int pass = dx ? 0 : 1; pass < 2 && (!rows || cJSON_GetArraySize(rows) == 0); pass++) {
		struct sb sql = SB_INIT;
		cJSON_Delete(rows);
		sb_printf(&sql,
		          "SELECT c.caseid, c.age, c.sex, c.asa, c.optype, c.dx, c.death_inhosp, c.icu_days, "
		          "(SELECT min(v.sbp) FROM vital_data_table v WHERE v.caseid = c.caseid) AS min_sbp, "
		          "(SELECT max(l.result) FROM lab_data_table l WHERE l.caseid = c.caseid AND l.name = 'lac') AS max_lac, "
		          "(SELECT count(*) FROM medication_data_table m WHERE m.caseid = c.caseid AND "
		          "(m.drug ILIKE '%%phenylephrine%%' OR m.drug ILIKE '%%ephedrine%%' OR m.drug ILIKE '%%epinephrine%%' "
		          "OR m.drug ILIKE '%%vasopressin%%' OR m.drug ILIKE '%%norepinephrine%%')) AS vasopressor_doses "
		          "FROM clinical_data_table c WHERE c.caseid <> %lld AND c.optype = %s%s%s "
		          "ORDER BY abs(coalesce(c.age, 0) - %g) + 10 * abs(coalesce(c.asa, 0) - %g), c.caseid LIMIT %d",
		          st->caseid, qo, pass == 0 ? " AND c.dx = " : "", pass == 0 ? qd : "",
		          crit_num(pt, "age", 0), crit_num(pt, "asa", 0), k);
		rows = crit_sql_fetch(st, sb_cstr(&sql), err, errlen);
		sb_free(&sql);
		if (rows) {
			cJSON *r;
			cJSON_ArrayForEach(r, rows)
				cJSON_AddStringToObject(r, "match", pass == 0 ? "same optype and dx" : "same optype");
		}
	}
	free(qo);
	free(qd);
	return rows;
}

enum err crit_evidence(struct crit_state *st)
{
	double t0 = crit_now_ms();
	cJSON *ev = cJSON_CreateObject();
	cJSON *queries = cJSON_AddArrayToObject(ev, "queries");
	cJSON *items = cJSON_AddArrayToObject(ev, "items");
	const cJSON *chart = st->structured_chart, *f;
	const cJSON *op = cJSON_GetObjectItem(chart, "operation");
	char q[256], err[512] = "";

	cJSON_ArrayForEach(f, cJSON_GetObjectItem(chart, "findings")) {
		snprintf(q, sizeof q, "%s %s %s", finding_term(crit_str(f, "param"), crit_str(f, "direction")),
		         crit_str(f, "label"), crit_str(f, "param"));
		int dup = 0;
		cJSON *x;
		cJSON_ArrayForEach(x, queries)
			dup |= !strcmp(x->valuestring, q);
		if (!dup)
			cJSON_AddItemToArray(queries, cJSON_CreateString(q));
	}
	if (crit_str(op, "optype") || crit_str(op, "dx")) {
		snprintf(q, sizeof q, "%s %s perioperative monitoring", crit_str(op, "optype") ? crit_str(op, "optype") : "",
		         crit_str(op, "dx") ? crit_str(op, "dx") : "");
		cJSON_AddItemToArray(queries, cJSON_CreateString(q));
	}
	if (cJSON_GetArraySize(queries) == 0)
		cJSON_AddItemToArray(queries, cJSON_CreateString("normal ranges intraoperative monitoring"));
	crit_evidence_collect(st, queries, items, "1st");
	cJSON_AddStringToObject(ev, "knowledge_base", crit_kb_origin(st->kb));

	/* remote literature: optional, its failure only degrades this node */
	cJSON *remote = crit_remote_search(cJSON_GetArrayItem(queries, 0)->valuestring);
	const char *rstatus = crit_str(remote, "status");
	cJSON_AddItemToObject(ev, "remote", remote);

	cJSON *sim = similar_cases(st, err, sizeof err);
	st->similar_cases = sim ? sim : cJSON_CreateArray();
	if (!sim && st->caseid > 0)
		cJSON_AddStringToObject(ev, "similar_error", err[0] ? err : "no optype to match on");
	if (st->caseid <= 0)
		cJSON_AddStringToObject(ev, "similar_note", "pasted text: similar cases need a database case");

	char *prompt = NULL, *raw = NULL;
	int used = 0;
	if (st->llm) {
		cJSON *payload = cJSON_CreateObject(), *ans = NULL;
		cJSON_AddItemToObject(payload, "findings", cJSON_Duplicate(cJSON_GetObjectItem(chart, "findings"), 1));
		cJSON_AddItemToObject(payload, "evidence", cJSON_Duplicate(items, 1));
		cJSON_AddItemToObject(payload, "similar_cases", cJSON_Duplicate(st->similar_cases, 1));
		if (crit_llm_ask(st, "evidence", payload, &ans, &prompt, &raw) == OK) {
			cJSON_AddItemToObject(ev, "llm", ans);
			used = 1;
		}
		cJSON_Delete(payload);
	}
	st->evidence = ev;
	cJSON *out = cJSON_Duplicate(ev, 1);
	cJSON_AddItemToObject(out, "similar_cases", cJSON_Duplicate(st->similar_cases, 1));
	const char *status = "ok", *reason = NULL;
	if (rstatus && !strcmp(rstatus, "error")) {
		status = "degraded";
		reason = "remote literature endpoint failed; local knowledge base used";
	}
	crit_step(st, "node", "evidence", status, reason, out, prompt, raw, crit_now_ms() - t0, used);
	cJSON_Delete(out);
	free(prompt);
	free(raw);
	return OK;
}
