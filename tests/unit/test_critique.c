/* test_critique.c: the critique graph's deterministic nodes on fixed input: times, ranges, gaps, out-of-range, routing, budget. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "critique/critique.h"
#include "pages/report.h"

/* A state for a pasted chart: offline, nothing stored, default ranges. */
static void text_state(struct crit_state *st, const char *text)
{
	crit_state_init(st);
	st->text = strdup(text);
	st->metadata_file = "/nonexistent/metadata.json";
	st->docs_dir = "/nonexistent/docs";
}

static const cJSON *finding(const struct crit_state *st, const char *param)
{
	const cJSON *f;
	cJSON_ArrayForEach(f, cJSON_GetObjectItem(st->structured_chart, "findings"))
		if (!strcmp(crit_str(f, "param"), param))
			return f;
	return NULL;
}

static int has(const cJSON *arr, const char *s)
{
	const cJSON *x;
	cJSON_ArrayForEach(x, arr)
		if (cJSON_IsString(x) && !strcmp(x->valuestring, s))
			return 1;
	return 0;
}

static const char *node_status(const struct crit_state *st, const char *kind, const char *name)
{
	const cJSON *n;
	const char *last = NULL;
	cJSON_ArrayForEach(n, st->nodes)
		if (!strcmp(crit_str(n, "name"), name) && !strcmp(crit_str(n, "kind"), kind))
			last = crit_str(n, "status");
	return last;
}

static void t_time(void **s)
{
	char hm[8];
	(void)s;
	assert_int_equal(crit_time_parse("09:30"), 9 * 3600 + 30 * 60);
	assert_int_equal(crit_time_parse("1970-01-01 01:00:00"), 3600);
	assert_int_equal(crit_time_parse("2025-12-31T10:05"), crit_time_parse("2025-12-31 10:05:00"));
	assert_int_equal(crit_time_parse("lactate"), -1);
	assert_string_equal(crit_time_hm(crit_time_parse("2025-12-31 10:05:00"), hm, sizeof hm), "10:05");
}

static void t_ranges(void **s)
{
	char path[] = "/tmp/test_critique_meta_XXXXXX";
	int fd = mkstemp(path);
	const char *meta = "{\"columns\": {\"vital_data_table.sbp\": {\"full_name\": \"Systolic BP\", \"unit\": \"mmHg\","
	                   " \"normal_range\": [100, 150]}},"
	                   " \"values\": [{\"column\": \"lab_data_table.name\", \"value\": \"lac\", \"normal_range\": [0.5, 1.8]}]}";
	double lo, hi;
	(void)s;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, meta, strlen(meta)), (int)strlen(meta));
	close(fd);
	cJSON *r = crit_ranges_load(path);
	unlink(path);
	assert_true(crit_range(r, "sbp", &lo, &hi, NULL));
	assert_true(lo == 100 && hi == 150);
	assert_true(crit_range(r, "lac", &lo, &hi, NULL));
	assert_true(hi == 1.8);
	assert_non_null(strstr(crit_str(cJSON_GetObjectItem(r, "sbp"), "source"), "metadata"));
	/* parameters the metadata does not name keep the built-in default, marked as such */
	assert_true(crit_range(r, "hr", &lo, &hi, NULL));
	assert_string_equal(crit_str(cJSON_GetObjectItem(r, "hr"), "source"), "builtin default");
	assert_false(crit_range(r, "nonesuch", &lo, &hi, NULL));
	cJSON_Delete(r);
}

/* sbp every 5 min from 08:00 to 09:00, nothing until 10:00, then every 5 min again;
 * bt only now and then (excluded: under 80% coverage). */
static cJSON *gap_chart(void)
{
	cJSON *chart = cJSON_CreateObject(), *series = cJSON_AddArrayToObject(chart, "series");
	cJSON *sbp = cJSON_CreateObject(), *bt = cJSON_CreateObject();
	cJSON *sp = cJSON_AddArrayToObject(sbp, "points"), *bp = cJSON_AddArrayToObject(bt, "points");
	char ref[16];

	cJSON_AddStringToObject(sbp, "name", "sbp");
	cJSON_AddStringToObject(sbp, "table", "vital_data_table");
	cJSON_AddStringToObject(bt, "name", "bt");
	cJSON_AddStringToObject(bt, "table", "vital_data_table");
	for (int m = 0; m <= 150; m += 5) {
		if (m > 60 && m < 120)
			continue;
		cJSON *p = cJSON_CreateObject();
		cJSON_AddNumberToObject(p, "ts", 8 * 3600 + m * 60);
		snprintf(ref, sizeof ref, "vital-%d", m / 5);
		cJSON_AddStringToObject(p, "ref", ref);
		cJSON_AddItemToArray(sp, p);
		if (m % 45 == 0) {
			cJSON *q = cJSON_CreateObject();
			cJSON_AddNumberToObject(q, "ts", 8 * 3600 + m * 60);
			cJSON_AddItemToArray(bp, q);
		}
	}
	cJSON_AddItemToArray(series, sbp);
	cJSON_AddItemToArray(series, bt);
	return chart;
}

static void t_record_gaps(void **s)
{
	(void)s;
	cJSON *chart = gap_chart();
	cJSON *g = crit_tool_record_gaps(chart, NULL, 20);
	cJSON *gaps = cJSON_GetObjectItem(g, "gaps");

	assert_int_equal(cJSON_GetArraySize(gaps), 1);
	cJSON *g0 = cJSON_GetArrayItem(gaps, 0);
	assert_string_equal(crit_str(g0, "start"), "09:00");
	assert_string_equal(crit_str(g0, "end"), "10:00");
	assert_true(crit_num(g0, "minutes", 0) == 60);
	assert_true(has(cJSON_GetObjectItem(g0, "params"), "sbp"));
	assert_false(has(cJSON_GetObjectItem(g0, "params"), "bt"));
	assert_string_equal(crit_str(g0, "before_ref"), "vital-12");
	assert_true(crit_num(g, "median_interval_min", 0) == 5);
	cJSON_Delete(g);
	/* a threshold above the gap: nothing */
	g = crit_tool_record_gaps(chart, NULL, 90);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(g, "gaps")), 0);
	cJSON_Delete(g);
	cJSON_Delete(chart);
}

static void t_text_out_of_range(void **s)
{
	struct crit_state st;
	(void)s;
	text_state(&st, "68-year-old man, ASA 3, history of hypertension and diabetes.\n"
	                "Diagnosis: gastric cancer\n"
	                "10:30 BP 75/40, HR 112.\n10:35 phenylephrine 100 mcg given.\n"
	                "10:50 lactate 4.2 mmol/L. 11:20 BP 118/66.");
	assert_int_equal(crit_chart_structurer(&st), OK);
	const cJSON *pt = cJSON_GetObjectItem(st.structured_chart, "patient");
	assert_true(crit_num(pt, "age", 0) == 68);
	assert_true(crit_num(pt, "asa", 0) == 3);
	assert_true(crit_num(pt, "preop_htn", 0) == 1);
	assert_true(crit_num(pt, "preop_dm", 0) == 1);
	const cJSON *f = finding(&st, "sbp");
	assert_non_null(f);
	assert_string_equal(crit_str(f, "direction"), "low");
	assert_true(crit_num(f, "extreme", 0) == 75);
	assert_string_equal(crit_str(f, "extreme_t"), "10:30");
	f = finding(&st, "lac");
	assert_non_null(f);
	assert_string_equal(crit_str(f, "direction"), "high");
	assert_string_equal(crit_str(f, "extreme_t"), "10:50");
	/* the evidence span of a finding points back into the text */
	const cJSON *sp, *span = NULL;
	cJSON_ArrayForEach(sp, cJSON_GetObjectItem(st.structured_chart, "evidence_spans"))
		if (!strcmp(crit_str(sp, "id"), crit_str(f, "span")))
			span = sp;
	assert_non_null(span);
	int a = (int)crit_num(span, "start", -1), b = (int)crit_num(span, "end", -1);
	assert_true(a >= 0 && b > a);
	assert_memory_equal(st.text + a, "lactate", 7);
	/* one hypotension finding: the normal 11:20 pressure ends the episode */
	assert_true(crit_num(finding(&st, "sbp"), "n", 0) == 1);
	const cJSON *m = cJSON_GetArrayItem(cJSON_GetObjectItem(st.structured_chart, "procedures_performed"), 0);
	assert_non_null(m);
	assert_string_equal(crit_str(m, "class"), "vasopressor");
	assert_string_equal(crit_str(m, "t"), "10:35");
	/* treatment: the vasopressor answers the hypotension 5 minutes after onset */
	crit_diagnosis(&st);
	crit_treatment(&st);
	const cJSON *r, *resp = NULL;
	cJSON_ArrayForEach(r, cJSON_GetObjectItem(st.treatment_analysis, "responses"))
		if (!strcmp(crit_str(r, "finding"), crit_str(finding(&st, "sbp"), "id")))
			resp = r;
	assert_non_null(resp);
	assert_string_equal(crit_str(resp, "status"), "treated");
	assert_true(crit_num(cJSON_GetArrayItem(cJSON_GetObjectItem(resp, "interventions"), 0), "delay_min", 0) == 5);
	/* routing: a high-risk patient selects risk_factor; a timely response and no gap do
	 * not select process_contributor */
	crit_intervention_checker(&st);
	cJSON *sel = crit_route_agents(&st);
	assert_true(has(sel, "risk_factor"));
	cJSON_Delete(sel);
	crit_state_free(&st);
}

static void t_korean(void **s)
{
	struct crit_state st;
	(void)s;
	text_state(&st, "72세 남자, ASA 3.\n10:30 혈압 80/45, 심박수 115.\n10:40 페닐에프린 투여.\n11:00 젖산 5.1 mmol/L.");
	assert_int_equal(crit_chart_structurer(&st), OK);
	assert_true(crit_num(cJSON_GetObjectItem(st.structured_chart, "patient"), "age", 0) == 72);
	assert_non_null(finding(&st, "sbp"));
	assert_non_null(finding(&st, "lac"));
	assert_true(crit_num(finding(&st, "lac"), "extreme", 0) == 5.1);
	const cJSON *m = cJSON_GetArrayItem(cJSON_GetObjectItem(st.structured_chart, "procedures_performed"), 0);
	assert_non_null(m);
	assert_string_equal(crit_str(m, "class"), "vasopressor");
	crit_state_free(&st);
}

/* An uneventful chart: no finding, no agent, no tool: nothing invented. */
static void t_uneventful(void **s)
{
	struct crit_state st;
	char err[256];
	(void)s;
	text_state(&st, "45-year-old woman, ASA 1. Laparoscopic cholecystectomy.\n09:00 BP 120/70, HR 72, SpO2 99.\n"
	                "09:30 BP 118/72, HR 70.\n10:00 BP 122/74, HR 68. Discharged on day 1.");
	assert_int_equal(crit_run_graph(&st, err, sizeof err), OK);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(st.structured_chart, "findings")), 0);
	assert_int_equal(cJSON_GetArraySize(st.selected_agents), 0);
	assert_string_equal(node_status(&st, "node", "risk_factor"), "skipped");
	assert_string_equal(node_status(&st, "node", "process_contributor"), "skipped");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(st.critique, "selected_tools")), 0);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(st.critique, "points")), 0);
	assert_string_equal(node_status(&st, "tool", "lens_severity_risk"), "skipped");
	assert_string_equal(node_status(&st, "node", "verifier"), "skipped");
	assert_string_equal(node_status(&st, "node", "run_alternative_explanation"), "ok");
	assert_non_null(strstr(crit_str(st.critique, "summary"), "No critique points"));
	crit_state_free(&st);
}

/* The whole graph on an eventful chart: every node in order, budget honoured. */
static void t_graph_budget(void **s)
{
	struct crit_state st;
	char err[256];
	static const char *order[] = { "chart_structurer", "evidence", "diagnosis", "treatment", "evidence_2nd",
	                               "intervention_checker", "agent_router", "risk_factor", "process_contributor",
	                               "run_conditional_agents", "preprocess", "router", "run_tools",
	                               "critique_builder", "verifier", "critic", "run_alternative_explanation" };
	(void)s;
	text_state(&st, "80-year-old man, ASA 4.\n10:00 BP 70/40.\n10:05 BP 72/38.\n10:10 BP 74/40.\n"
	                "11:30 BP 110/60. 11:40 lactate 3.5.");
	st.tool_budget = 1;
	assert_int_equal(crit_run_graph(&st, err, sizeof err), OK);
	/* main nodes appear in the seed's order */
	int k = 0;
	const cJSON *n;
	cJSON_ArrayForEach(n, st.nodes)
		if (k < (int)(sizeof order / sizeof order[0]) && !strcmp(crit_str(n, "name"), order[k]) &&
		    strcmp(crit_str(n, "kind"), "tool"))
			k++;
	assert_int_equal(k, (int)(sizeof order / sizeof order[0]));
	/* no LLM and no database: the conditional agents follow the rule */
	assert_true(has(st.selected_agents, "risk_factor"));
	assert_non_null(st.risk_factor_analysis);
	/* the structured chart is converted, so the text tools do not run */
	assert_string_equal(node_status(&st, "tool", "timeline"), "skipped");
	assert_string_equal(node_status(&st, "tool", "record_gaps"), "ok");
	/* budget 1: the first selected tool runs, the others are skipped for the budget */
	const cJSON *sel = cJSON_GetObjectItem(st.critique, "selected_tools");
	assert_true(cJSON_GetArraySize(sel) >= 2);
	assert_string_equal(node_status(&st, "tool", cJSON_GetArrayItem(sel, 0)->valuestring), "ok");
	assert_string_equal(node_status(&st, "tool", cJSON_GetArrayItem(sel, 1)->valuestring), "skipped");
	int budget_skips = 0;
	cJSON_ArrayForEach(n, st.nodes)
		budget_skips += crit_str(n, "reason") && strstr(crit_str(n, "reason"), "budget") != NULL;
	assert_true(budget_skips >= 1);
	/* the hypotension episode is one finding of three readings */
	assert_true(crit_num(finding(&st, "sbp"), "n", 0) == 3);
	/* the report carries every section */
	cJSON *rep = crit_report_json(&st);
	static const char *keys[] = { "summary", "structured_chart", "evidence", "diagnosis_analysis",
	                              "treatment_analysis", "intervention_coverage", "critique",
	                              "alternative_explanations", "nodes" };
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		assert_non_null(cJSON_GetObjectItem(rep, keys[i]));
	cJSON_Delete(rep);
	crit_state_free(&st);
}

/* Without a structured chart the critic runs the text tools itself (seed 2.2). */
static void t_critic_text_tools(void **s)
{
	struct crit_state st;
	(void)s;
	text_state(&st, "10:00 BP 80/40. 10:10 phenylephrine given. 13:00 BP 120/70.");
	st.similar_cases = cJSON_CreateArray();
	assert_int_equal(crit_critic(&st), OK);
	assert_string_equal(node_status(&st, "tool", "timeline"), "ok");
	assert_string_equal(node_status(&st, "tool", "evidence"), "ok");
	const cJSON *pre = cJSON_GetObjectItem(st.critique, "preprocessing");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(pre, "timeline"), "events")), 3);
	assert_non_null(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(pre, "evidence"), "evidence_spans"), "E1"));
	/* the timeline's own times give the gap 10:10 -> 13:00 */
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(pre, "record_gaps"), "gaps")), 1);
	crit_state_free(&st);
}

/* Critic router: gaps alone select only the monitoring lens; similar cases add the direct
 * comparison unless preprocess already ran it. */
static void t_route_tools(void **s)
{
	struct crit_state st;
	(void)s;
	crit_state_init(&st);
	st.structured_chart = gap_chart();
	cJSON_AddArrayToObject(st.structured_chart, "findings");
	st.similar_cases = cJSON_CreateArray();
	cJSON *pre = cJSON_CreateObject();
	cJSON_AddItemToObject(pre, "record_gaps", crit_tool_record_gaps(st.structured_chart, NULL, 20));
	cJSON *sel = crit_route_tools(&st, pre);
	assert_int_equal(cJSON_GetArraySize(sel), 1);
	assert_true(has(sel, "lens_monitoring_response"));
	cJSON_Delete(sel);
	cJSON_AddItemToArray(st.similar_cases, cJSON_CreateObject());
	sel = crit_route_tools(&st, pre);
	assert_true(has(sel, "behavior_topk_direct_compare"));
	cJSON_Delete(sel);
	cJSON_AddItemToObject(pre, "behavior_topk_direct_compare", cJSON_CreateObject());
	sel = crit_route_tools(&st, pre);
	assert_false(has(sel, "behavior_topk_direct_compare"));
	cJSON_Delete(sel);
	cJSON_Delete(pre);
	crit_state_free(&st);
}

/* A chart without any value is not called normal. */
static void t_no_values(void **s)
{
	struct crit_state st;
	char err[256];
	(void)s;
	text_state(&st, "Patient recovered well and went home.");
	assert_int_equal(crit_run_graph(&st, err, sizeof err), OK);
	assert_int_equal(crit_chart_values(st.structured_chart), 0);
	assert_non_null(strstr(crit_str(st.critique, "summary"), "no measured values"));
	cJSON *rep = crit_report_json(&st);
	assert_null(strstr(crit_str(rep, "summary"), "normal range"));
	cJSON_Delete(rep);
	crit_state_free(&st);
}

static void t_drugs(void **s)
{
	(void)s;
	assert_string_equal(crit_drug_class("Norepinephrine"), "vasopressor");
	assert_string_equal(crit_drug_class("plasma solution A"), "crystalloid");
	/* the anaesthesia drugs of the demo record (issue 15: all were "other") */
	assert_string_equal(crit_drug_class("fentanyl"), "opioid");
	assert_string_equal(crit_drug_class("propofol"), "hypnotic");
	assert_string_equal(crit_drug_class("rocuronium"), "neuromuscular_blocker");
	assert_string_equal(crit_drug_class("cefazolin"), "antibiotic");
	assert_string_equal(crit_drug_class("hydroxyethyl starch"), "colloid");
	assert_string_equal(crit_drug_class("ondansetron"), "antiemetic");
	assert_string_equal(crit_drug_class("sugammadex"), "reversal");
	assert_string_equal(crit_drug_class("Ropivacaine 0.2%"), "local_anaesthetic");
	assert_string_equal(crit_drug_class("펜타닐"), "opioid");
	assert_string_equal(crit_drug_class("unknownium"), "other");
	assert_string_equal(crit_drug_class_label("neuromuscular_blocker", "ko"), "신경근 차단제");
	assert_string_equal(crit_drug_class_label("opioid", "en"), "opioid analgesic");
	assert_string_equal(crit_drug_class_label("other", "ko"), "기타");
	assert_non_null(strstr(crit_drugs_atc(crit_drugs_get(), "colloid"), "B05AA"));
	assert_non_null(strstr(crit_responsive_classes("sbp", "low"), "vasopressor"));
	assert_non_null(strstr(crit_responsive_classes("sbp", "low"), "colloid"));
	assert_string_equal(crit_responsive_classes("hr", "high"), "");
	assert_string_equal(crit_comorbidity("I10"), "hypertension");
	assert_string_equal(crit_comorbidity("E11.9"), "diabetes");
	assert_string_equal(crit_comorbidity("C16.9"), "malignancy");
	assert_null(crit_comorbidity("K80.2"));
	char *q = crit_sql_quote("O'Brien");
	assert_string_equal(q, "'O''Brien'");
	free(q);
}

/* The loader on its own text: longest name wins, short names only as words, errors name the line. */
static void t_drug_loader(void **s)
{
	char err[200] = "";
	(void)s;
	struct crit_drugs *t = crit_drugs_parse(
	    "# comment\n\nclass\tcolloid\tcolloid\t교질액\tB05AA\n"
	    "class\tblood\tblood product\t혈액제제\tB05A\n"
	    "class\tcrystalloid\tcrystalloid\t정질액\tB05BB\n"
	    "drug\tcrystalloid\tplasma|saline\tB05BB01\n"
	    "drug\tblood\tfresh frozen plasma|ffp\tB05A\n"
	    "drug\tcolloid\thes|Voluven\tB05AA07\r\n", err, sizeof err);
	assert_non_null(t);
	assert_string_equal(crit_drugs_class(t, "Fresh frozen plasma 2 units"), "blood");
	assert_string_equal(crit_drugs_class(t, "plasma solution"), "crystalloid");
	assert_string_equal(crit_drugs_class(t, "FFP"), "blood");
	assert_string_equal(crit_drugs_class(t, "HES 130/0.4"), "colloid");
	assert_string_equal(crit_drugs_class(t, "ashes"), "other");          /* "hes" only as a word */
	assert_string_equal(crit_drugs_class(t, "voluven"), "colloid");      /* case-insensitive */
	assert_string_equal(crit_drugs_label(t, "colloid", "ko"), "교질액");
	assert_string_equal(crit_drugs_label(t, "colloid", "en"), "colloid");
	assert_string_equal(crit_drugs_atc(t, "blood"), "B05A");
	assert_string_equal(crit_drugs_class(NULL, "propofol"), "other");
	crit_drugs_free(t);

	assert_null(crit_drugs_parse("drug\tnope\tx\tA\n", err, sizeof err));
	assert_non_null(strstr(err, "line 1"));
	assert_non_null(strstr(err, "unknown class"));
	assert_null(crit_drugs_parse("class\ta\tA\tㄱ\tX\nclass\ta\tA\tㄱ\tX\n", err, sizeof err));
	assert_non_null(strstr(err, "line 2"));
	assert_null(crit_drugs_parse("class\ta\tA\n", err, sizeof err));
	assert_null(crit_drugs_parse("klass\ta\tb\tc\td\n", err, sizeof err));
	assert_null(crit_drugs_load("/nonexistent/drugs.tsv", err, sizeof err));
	assert_non_null(strstr(err, "/nonexistent/drugs.tsv"));

	/* the shipped file loads, names its sources and classes every drug it lists */
	t = crit_drugs_load("conf/critique/drug_classes.tsv", err, sizeof err);
	assert_non_null(t);
	crit_drugs_free(t);
}

/* Report tables in time order whatever the order of the series; sentences in the reader's language. */
static void t_report_time_order(void **s)
{
	(void)s;
	/* sbp has no value at 10:55:21 (its first record), hr has: walking series one by one put
	 * 10:55:21 after 11:30:49 */
	cJSON *rep = cJSON_Parse(
	    "{\"summary\":\"Case 9.\",\"summary_ko\":\"케이스 9.\",\"structured_chart\":{\"series\":["
	    "{\"name\":\"sbp\",\"table\":\"vital_data_table\",\"points\":["
	    "{\"ts\":1700045449,\"dt\":\"2023-11-15 11:30:49\",\"v\":120,\"ref\":\"vital-2\"}]},"
	    "{\"name\":\"hr\",\"table\":\"vital_data_table\",\"points\":["
	    "{\"ts\":1700043321,\"dt\":\"2023-11-15 10:55:21\",\"v\":70,\"ref\":\"vital-0\"},"
	    "{\"ts\":1700045449,\"dt\":\"2023-11-15 11:30:49\",\"v\":72,\"ref\":\"vital-2\"}]},"
	    "{\"name\":\"lac\",\"table\":\"lab_data_table\",\"points\":["
	    "{\"ts\":1700050000,\"dt\":\"2023-11-15 12:46:40\",\"v\":3,\"ref\":\"lab-1\"}]},"
	    "{\"name\":\"k\",\"table\":\"lab_data_table\",\"points\":["
	    "{\"ts\":1700040000,\"dt\":\"2023-11-15 10:00:00\",\"v\":4,\"ref\":\"lab-0\"}]}],"
	    "\"procedures_performed\":["
	    "{\"drug\":\"cefazolin\",\"class\":\"antibiotic\",\"ts\":1700045000,\"t\":\"11:23\",\"ref\":\"med-1\",\"text\":\"cefazolin\"},"
	    "{\"drug\":\"fentanyl\",\"class\":\"opioid\",\"ts\":1700043000,\"t\":\"10:50\",\"ref\":\"med-0\",\"text\":\"fentanyl\"}],"
	    "\"findings\":[{\"id\":\"F1\",\"text\":\"lactate high\",\"text_ko\":\"젖산 높음\"}]}}");
	assert_non_null(rep);
	for (int ko = 0; ko < 2; ko++) {
		cJSON *v = report_view(rep, ko ? "ko" : "en");
		const cJSON *c = cJSON_GetObjectItem(v, "chart");
		const cJSON *vit = cJSON_GetObjectItem(c, "vital_rows"), *labs = cJSON_GetObjectItem(c, "lab_rows");
		const cJSON *meds = cJSON_GetObjectItem(c, "med_rows");
		assert_int_equal(cJSON_GetArraySize(vit), 2);
		assert_string_equal(crit_str(cJSON_GetArrayItem(vit, 0), "t"), "2023-11-15 10:55:21");
		assert_string_equal(crit_str(cJSON_GetArrayItem(vit, 1), "t"), "2023-11-15 11:30:49");
		assert_string_equal(crit_str(cJSON_GetArrayItem(labs, 0), "name"), "k");
		assert_string_equal(crit_str(cJSON_GetArrayItem(labs, 1), "name"), "lac");
		assert_string_equal(crit_str(cJSON_GetArrayItem(meds, 0), "text"), "fentanyl");
		assert_string_equal(crit_str(cJSON_GetArrayItem(meds, 1), "text"), "cefazolin");
		assert_string_equal(crit_str(cJSON_GetArrayItem(meds, 0), "class_label"), ko ? "아편유사 진통제" : "opioid analgesic");
		assert_string_equal(crit_str(v, "summary"), ko ? "케이스 9." : "Case 9.");
		assert_string_equal(crit_str(cJSON_GetArrayItem(cJSON_GetObjectItem(v, "findings"), 0), "text"),
		                    ko ? "젖산 높음" : "lactate high");
		cJSON_Delete(v);
	}
	cJSON *arr = cJSON_Parse("[{\"ts\":5,\"i\":0},{\"i\":1},{\"ts\":5,\"i\":2},{\"ts\":1,\"i\":3}]");
	report_sort_by_time(arr);
	int want[] = { 1, 3, 0, 2 };   /* no time first, then by time, ties in order */
	for (int i = 0; i < 4; i++)
		assert_int_equal((int)crit_num(cJSON_GetArrayItem(arr, i), "i", -1), want[i]);
	cJSON_Delete(arr);
	cJSON_Delete(rep);
}

/* Knowledge is cited for a finding when the document is about its topic. */
static void t_topic(void **s)
{
	(void)s;
	cJSON *hypo = cJSON_Parse("{\"file\":\"knowledge/hypotension.md\",\"heading\":\"Intraoperative hypotension\"}");
	cJSON *lac = cJSON_Parse("{\"file\":\"knowledge/lactate.md\",\"heading\":\"Lactate\"}");
	cJSON *k = cJSON_Parse("{\"file\":\"knowledge/potassium.md\",\"heading\":\"Potassium disorders\"}");
	cJSON *ranges = cJSON_Parse("{\"file\":\"knowledge/normal_ranges.md\",\"heading\":\"Adult reference ranges\"}");
	const char *t_sbp = crit_finding_topic("sbp", "low"), *t_lac = crit_finding_topic("lac", "high");
	assert_true(crit_kb_on_topic(hypo, t_sbp));
	assert_false(crit_kb_on_topic(lac, t_sbp));
	assert_false(crit_kb_on_topic(k, t_sbp));
	assert_true(crit_kb_on_topic(lac, t_lac));
	assert_false(crit_kb_on_topic(k, t_lac));
	assert_false(crit_kb_on_topic(ranges, t_lac));
	assert_true(crit_kb_on_topic(k, crit_finding_topic("k", "high")));
	assert_null(crit_finding_topic("xyz", "low"));
	assert_false(crit_kb_on_topic(hypo, NULL));
	cJSON_Delete(hypo);
	cJSON_Delete(lac);
	cJSON_Delete(k);
	cJSON_Delete(ranges);
}

/* Offline sentences carry Korean beside English. */
static void t_korean_sentences(void **s)
{
	struct crit_state st;
	(void)s;
	text_state(&st, "70-year-old man, ASA 3.\n09:00 BP 118/70.\n09:10 BP 76/40.\n09:15 phenylephrine 100 mcg given.\n"
	                "09:20 BP 84/45.");
	assert_int_equal(crit_run_graph(&st, NULL, 0), OK);
	const cJSON *f = finding(&st, "sbp");
	assert_non_null(f);
	assert_non_null(strstr(crit_str(f, "text_ko"), "수축기 혈압 낮음"));
	const cJSON *r = cJSON_GetArrayItem(cJSON_GetObjectItem(st.treatment_analysis, "responses"), 0);
	assert_non_null(strstr(crit_str(r, "text_ko"), "투여"));
	assert_non_null(strstr(crit_str(st.critique, "summary_ko"), "검토 의견"));
	assert_non_null(strstr(crit_str(st.diagnosis_analysis, "offline_note_ko"), "LLM 없이는"));
	cJSON *rep = crit_report_json(&st);
	assert_non_null(strstr(crit_str(rep, "summary_ko"), "이상 소견"));
	cJSON *v = report_view(rep, "ko");
	assert_non_null(strstr(crit_str(v, "summary"), "붙여 넣은 차트"));
	assert_null(cJSON_GetObjectItem(v, "summary_ko"));
	cJSON_Delete(v);
	cJSON_Delete(rep);
	crit_state_free(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_time), cmocka_unit_test(t_ranges), cmocka_unit_test(t_record_gaps),
		cmocka_unit_test(t_text_out_of_range), cmocka_unit_test(t_korean), cmocka_unit_test(t_uneventful),
		cmocka_unit_test(t_graph_budget), cmocka_unit_test(t_critic_text_tools), cmocka_unit_test(t_route_tools),
		cmocka_unit_test(t_no_values), cmocka_unit_test(t_drugs), cmocka_unit_test(t_drug_loader),
		cmocka_unit_test(t_report_time_order), cmocka_unit_test(t_topic), cmocka_unit_test(t_korean_sentences),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
