/* common.c: shared helpers of the critique graph: state, steps, LLM prompts, times, ranges, SQL. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cjson/cJSON.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include "critique/critique.h"
#include "llm/llm.h"
#include "llm/prompt.h"
#include "sql/exec.h"
#include "sql/guard.h"
#include "store/access.h"
#include "store/run.h"
#include "util/conf.h"
#include "util/file.h"
#include "util/log.h"
#include "util/sb.h"

void crit_state_init(struct crit_state *st)
{
	memset(st, 0, sizeof *st);
	st->tool_budget = -1;
	st->nodes = cJSON_CreateArray();
	st->llm_log = cJSON_CreateArray();
}

void crit_state_free(struct crit_state *st)
{
	cJSON *secs[] = { st->ranges, st->structured_chart, st->evidence, st->similar_cases,
	                  st->diagnosis_analysis, st->treatment_analysis, st->evidence_2nd,
	                  st->intervention_coverage, st->selected_agents, st->risk_factor_analysis,
	                  st->process_contributor_analysis, st->critique, st->solutions,
	                  st->alternative_explanations, st->nodes, st->llm_log };

	for (size_t i = 0; i < sizeof secs / sizeof secs[0]; i++)
		cJSON_Delete(secs[i]);
	crit_kb_close(st->kb);
	free(st->text);
	free(st->case_ref);
	memset(st, 0, sizeof *st);
}

double crit_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

double crit_num(const cJSON *o, const char *key, double def)
{
	const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;

	if (cJSON_IsNumber(v))
		return v->valuedouble;
	if (cJSON_IsString(v) && v->valuestring[0]) {
		char *end;
		double d = strtod(v->valuestring, &end);
		if (end != v->valuestring)
			return d;
	}
	if (cJSON_IsBool(v))
		return cJSON_IsTrue(v) ? 1 : 0;
	return def;
}

const char *crit_str(const cJSON *o, const char *key)
{
	const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* crit_step: one row in askql.steps and one entry in the report's node list. */
void crit_step(struct crit_state *st, const char *kind, const char *name, const char *status,
               const char *reason, const cJSON *output, const char *prompt, const char *raw,
               double ms, int used_llm)
{
	cJSON *n = cJSON_CreateObject();
	char *out = NULL;

	cJSON_AddStringToObject(n, "name", name);
	cJSON_AddStringToObject(n, "kind", kind);
	cJSON_AddStringToObject(n, "status", status);
	if (reason)
		cJSON_AddStringToObject(n, "reason", reason);
	cJSON_AddNumberToObject(n, "ms", (double)(long long)(ms * 10) / 10.0);
	cJSON_AddBoolToObject(n, "llm", used_llm);
	cJSON_AddItemToArray(st->nodes, n);

	if (!st->app || st->run_id <= 0)
		return;
	if (output) {
		out = cJSON_PrintUnformatted(output);
	} else if (reason) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "reason", reason);
		out = cJSON_PrintUnformatted(o);
		cJSON_Delete(o);
	}
	struct step s = {
		.kind = kind, .name = name, .status = status, .output = out,
		.prompt = prompt, .raw = raw, .error = !strcmp(status, "error") ? reason : NULL,
		.ms = ms,
	};
	if (step_add(st->app, st->run_id, &s, NULL) != OK)
		log_warn("critique: step %s not recorded", name);
	free(out);
}

/* ---- prompts ---- */

static char *node_text(xmlNode *root, const char *tag)
{
	for (xmlNode *c = root ? root->children : NULL; c; c = c->next) {
		if (c->type == XML_ELEMENT_NODE && !strcmp((const char *)c->name, tag)) {
			xmlChar *t = xmlNodeGetContent(c);
			char *s = strdup(t ? (const char *)t : "");
			xmlFree(t);
			return s;
		}
	}
	return NULL;
}

/* substitute {{payload}} in tmpl (or append when absent). */
static char *fill(const char *tmpl, const char *payload)
{
	struct sb sb = SB_INIT;
	const char *p = strstr(tmpl, "{{payload}}");

	if (p) {
		sb_append(&sb, tmpl, (size_t)(p - tmpl));
		sb_puts(&sb, payload);
		sb_puts(&sb, p + strlen("{{payload}}"));
	} else {
		sb_puts(&sb, tmpl);
		sb_puts(&sb, "\n");
		sb_puts(&sb, payload);
	}
	return sb_steal(&sb);
}

enum err crit_llm_prepare(PGconn *app, const char *node, const cJSON *payload, char **sys, char **user)
{
	char name[96];
	xmlDoc *doc;
	char *body, *s = NULL, *u = NULL, *pj;
	enum err rc = ERR_NOTFOUND;

	*sys = *user = NULL;
	snprintf(name, sizeof name, "critique_%s", node);
	body = prompt_get(app, name, NULL);
	if (!body)
		return ERR_NOTFOUND;
	doc = xmlReadMemory(body, (int)strlen(body), name, NULL,
	                    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	free(body);
	if (!doc)
		return ERR_PARSE;
	s = node_text(xmlDocGetRootElement(doc), "system");
	u = node_text(xmlDocGetRootElement(doc), "user");
	if (!s || !u)
		goto out;
	pj = cJSON_Print(payload);
	*sys = s;
	*user = fill(u, pj ? pj : "{}");
	free(pj);
	s = NULL;
	rc = OK;
out:
	free(s);
	free(u);
	xmlFreeDoc(doc);
	return rc;
}

cJSON *crit_parse_answer(const char *reply)
{
	const char *a = reply ? strchr(reply, '{') : NULL;
	const char *b = reply ? strrchr(reply, '}') : NULL;
	cJSON *j = NULL;

	if (a && b && b > a)
		j = cJSON_ParseWithLength(a, (size_t)(b - a + 1));
	if (cJSON_IsObject(j))
		return j;
	cJSON_Delete(j);
	j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "text", reply ? reply : "");
	return j;
}

enum err crit_llm_ask(struct crit_state *st, const char *node, const cJSON *payload,
                      cJSON **answer, char **prompt, char **raw)
{
	char *sys = NULL, *user = NULL;
	struct llm_reply r = {0};
	enum err rc;

	*answer = NULL;
	*prompt = *raw = NULL;
	if (!st->llm)
		return ERR_INPUT;
	rc = crit_llm_prepare(st->app, node, payload, &sys, &user);
	if (rc != OK)
		return rc;
	struct llm_msg m[2] = { {"system", sys}, {"user", user} };
	cJSON *lg = cJSON_CreateObject();
	cJSON_AddStringToObject(lg, "node", node);
	cJSON_AddItemToArray(st->llm_log, lg);
	rc = llm_chat(st->llm, m, 2, NULL, NULL, &r);
	{
		struct sb sb = SB_INIT;
		sb_printf(&sb, "[system]\n%s\n[user]\n%s", sys, user);
		*prompt = sb_steal(&sb);
	}
	if (rc == OK && r.text) {
		*raw = strdup(r.text);
		*answer = crit_parse_answer(r.text);
	} else {
		*raw = r.error ? strdup(r.error) : NULL;
		if (rc == OK)
			rc = ERR_NET;
	}
	llm_reply_free(&r);
	free(sys);
	free(user);
	return rc;
}

/* ---- times ---- */

long long crit_time_parse(const char *s)
{
	int Y, M, D, h, m, sec = 0, n = 0;

	if (!s)
		return -1;
	while (*s == ' ')
		s++;
	if (sscanf(s, "%4d-%2d-%2d%*[ T]%2d:%2d%n", &Y, &M, &D, &h, &m, &n) == 5 && n > 0) {
		struct tm tm = {0};
		if (s[n] == ':')
			sec = atoi(s + n + 1);
		tm.tm_year = Y - 1900;
		tm.tm_mon = M - 1;
		tm.tm_mday = D;
		tm.tm_hour = h;
		tm.tm_min = m;
		tm.tm_sec = sec;
		return (long long)timegm(&tm);
	}
	if (sscanf(s, "%2d:%2d%n", &h, &m, &n) == 2 && h >= 0 && h < 48 && m >= 0 && m < 60)
		return (long long)h * 3600 + m * 60;
	return -1;
}

const char *crit_time_hm(long long t, char *buf, size_t n)
{
	long long d = t % 86400;

	if (d < 0)
		d += 86400;
	snprintf(buf, n, "%02lld:%02lld", d / 3600, (d / 60) % 60);
	return buf;
}

/* ---- normal ranges ---- */

/* Built-in adult perioperative reference ranges, used only where the metadata is silent. */
static const struct { const char *name, *label, *unit; double lo, hi; const char *syn; } defaults[] = {
	{"sbp", "systolic blood pressure", "mmHg", 90, 140, "systolic,수축기"},
	{"dbp", "diastolic blood pressure", "mmHg", 60, 90, "diastolic,이완기"},
	{"mbp", "mean blood pressure", "mmHg", 65, 110, "map,mean arterial,평균동맥압"},
	{"hr", "heart rate", "bpm", 60, 100, "heart rate,pulse,심박수,맥박"},
	{"spo2", "oxygen saturation", "%", 94, 100, "saturation,산소포화도"},
	{"bt", "body temperature", "C", 36.0, 37.8, "temperature,체온"},
	{"rr", "respiratory rate", "/min", 12, 20, "respiratory rate,호흡수"},
	{"lac", "lactate", "mmol/L", 0.5, 2.0, "lactate,lactic,젖산"},
	{"k", "potassium", "mmol/L", 3.5, 5.1, "potassium,칼륨"},
	{"na", "sodium", "mmol/L", 135, 145, "sodium,나트륨"},
	{"hb", "hemoglobin", "g/dL", 12, 17, "hemoglobin,haemoglobin,혈색소"},
	{"gluc", "glucose", "mg/dL", 70, 180, "glucose,혈당"},
	{"cr", "creatinine", "mg/dL", 0.6, 1.3, "creatinine,크레아티닌"},
};

static int num_of(const cJSON *v, double *d)
{
	if (cJSON_IsNumber(v)) {
		*d = v->valuedouble;
		return 1;
	}
	if (cJSON_IsString(v)) {
		char *end;
		*d = strtod(v->valuestring, &end);
		return end != v->valuestring;
	}
	return 0;
}

/* A range inside object o under one of the usual spellings; 1 when found. */
static int range_of(const cJSON *o, double *lo, double *hi)
{
	static const char *pairs[][2] = { {"normal_low", "normal_high"}, {"normal_min", "normal_max"},
	                                  {"low", "high"}, {"lo", "hi"}, {"min", "max"},
	                                  {"range_lo", "range_hi"}, {"ref_low", "ref_high"} };
	static const char *keys[] = { "normal_range", "normal", "range", "reference_range", "ref_range" };

	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		const cJSON *r = cJSON_GetObjectItemCaseSensitive(o, keys[i]);
		if (cJSON_IsArray(r) && cJSON_GetArraySize(r) == 2 &&
		    num_of(cJSON_GetArrayItem(r, 0), lo) && num_of(cJSON_GetArrayItem(r, 1), hi))
			return 1;
		if (cJSON_IsObject(r) && range_of(r, lo, hi))
			return 1;
		if (cJSON_IsString(r) && sscanf(r->valuestring, "%lf%*[ -~]%lf", lo, hi) == 2)
			return 1;
	}
	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		if (num_of(cJSON_GetObjectItemCaseSensitive(o, pairs[i][0]), lo) &&
		    num_of(cJSON_GetObjectItemCaseSensitive(o, pairs[i][1]), hi))
			return 1;
	}
	return 0;
}

static void put_range(cJSON *ranges, const char *name, double lo, double hi, const char *unit,
                      const char *label, const char *source)
{
	char key[64];
	size_t i;

	for (i = 0; name[i] && i < sizeof key - 1; i++)
		key[i] = (char)tolower((unsigned char)name[i]);
	key[i] = 0;
	cJSON_DeleteItemFromObjectCaseSensitive(ranges, key);
	cJSON *r = cJSON_AddObjectToObject(ranges, key);
	cJSON_AddNumberToObject(r, "lo", lo);
	cJSON_AddNumberToObject(r, "hi", hi);
	cJSON_AddStringToObject(r, "unit", unit ? unit : "");
	cJSON_AddStringToObject(r, "label", label ? label : name);
	cJSON_AddStringToObject(r, "source", source);
}

/* Walk any metadata shape: an object with a range is named by its "value"/"code"/"name"/
 * "column" field or, failing that, by its key in the parent. */
static void walk(cJSON *ranges, const cJSON *o, const char *key, const char *src)
{
	double lo, hi;

	if (cJSON_IsObject(o) && range_of(o, &lo, &hi)) {
		static const char *namek[] = { "value", "code", "lab", "column", "name" };
		const char *nm = NULL, *label = NULL, *unit = crit_str(o, "unit");
		for (size_t i = 0; i < sizeof namek / sizeof namek[0] && !nm; i++)
			nm = crit_str(o, namek[i]);
		if (!nm || strchr(nm, ' '))
			nm = key;
		label = crit_str(o, "full_name");
		if (!label)
			label = crit_str(o, "label");
		if (!label)
			label = crit_str(o, "en");
		if (nm && nm[0]) {
			const char *dot = strrchr(nm, '.');
			put_range(ranges, dot ? dot + 1 : nm, lo, hi, unit, label, src);
		}
	}
	for (const cJSON *c = o ? o->child : NULL; c; c = c->next)
		if (cJSON_IsObject(c) || cJSON_IsArray(c))
			walk(ranges, c, c->string ? c->string : key, src);
}

cJSON *crit_ranges_load(const char *metadata_file)
{
	cJSON *ranges = cJSON_CreateObject();
	char src[300];

	for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
		put_range(ranges, defaults[i].name, defaults[i].lo, defaults[i].hi, defaults[i].unit,
		          defaults[i].label, "builtin default");
	if (!metadata_file)
		metadata_file = conf_get("metadata_file");
	char *text = metadata_file && metadata_file[0] ? file_read(metadata_file, 0, NULL) : NULL;
	if (!text)
		return ranges;
	cJSON *meta = cJSON_Parse(text);
	free(text);
	if (meta) {
		const char *base = strrchr(metadata_file, '/');
		snprintf(src, sizeof src, "metadata %s", base ? base + 1 : metadata_file);
		walk(ranges, meta, NULL, src);
		cJSON_Delete(meta);
	}
	return ranges;
}

int crit_range(const cJSON *ranges, const char *name, double *lo, double *hi, const char **unit)
{
	const cJSON *r = ranges && name ? cJSON_GetObjectItem(ranges, name) : NULL;

	if (!cJSON_IsObject(r))
		return 0;
	*lo = crit_num(r, "lo", 0);
	*hi = crit_num(r, "hi", 0);
	if (unit)
		*unit = crit_str(r, "unit");
	return 1;
}

/* Korean names of the built-in parameters (Korean Society for Laboratory Medicine usage). */
static const struct { const char *p, *ko; } param_ko[] = {
	{"sbp", "수축기 혈압"}, {"dbp", "이완기 혈압"}, {"mbp", "평균 동맥압"}, {"hr", "심박수"},
	{"spo2", "산소포화도"}, {"bt", "체온"}, {"rr", "호흡수"}, {"lac", "젖산"}, {"k", "칼륨"},
	{"na", "나트륨"}, {"hb", "혈색소"}, {"gluc", "혈당"}, {"cr", "크레아티닌"}, {"alb", "알부민"},
};

const char *crit_param_ko(const cJSON *ranges, const char *param)
{
	for (size_t i = 0; param && i < sizeof param_ko / sizeof param_ko[0]; i++)
		if (!strcasecmp(param_ko[i].p, param))
			return param_ko[i].ko;
	return crit_param_label(ranges, param);
}

const char *crit_dir_ko(const char *dir)
{
	return dir && !strcmp(dir, "low") ? "낮음" : "높음";
}

const char *crit_classes_ko(const char *list, char *buf, size_t n)
{
	char tmp[256], *save = NULL;
	size_t l = 0;

	buf[0] = 0;
	snprintf(tmp, sizeof tmp, "%s", list ? list : "");
	for (char *c = strtok_r(tmp, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
		int w = snprintf(buf + l, n - l, "%s%s", l ? ", " : "", crit_drug_class_label(c, "ko"));
		if (w < 0 || (size_t)w >= n - l)
			break;
		l += (size_t)w;
	}
	return buf;
}

void crit_say(cJSON *o, const char *key, const char *en, const char *ko)
{
	char k[64];

	snprintf(k, sizeof k, "%s_ko", key);
	cJSON_DeleteItemFromObjectCaseSensitive(o, key);
	cJSON_DeleteItemFromObjectCaseSensitive(o, k);
	cJSON_AddStringToObject(o, key, en ? en : "");
	cJSON_AddStringToObject(o, k, ko ? ko : en ? en : "");
}

const char *crit_ko(const cJSON *o, const char *key)
{
	char k[64];

	snprintf(k, sizeof k, "%s_ko", key);
	return crit_str(o, k) ? crit_str(o, k) : crit_str(o, key);
}

const char *crit_param_label(const cJSON *ranges, const char *param)
{
	const cJSON *r = ranges && param ? cJSON_GetObjectItem(ranges, param) : NULL;
	const char *l = crit_str(r, "label");

	return l && l[0] ? l : param;
}

/* ---- SQL through the guard and the read-only executor ---- */

char *crit_sql_quote(const char *s)
{
	struct sb sb = SB_INIT;

	sb_putc(&sb, '\'');
	for (; s && *s; s++) {
		if (*s == '\'')
			sb_putc(&sb, '\'');
		sb_putc(&sb, *s);
	}
	sb_putc(&sb, '\'');
	return sb_steal(&sb);
}

cJSON *crit_sql_fetch(const struct crit_state *st, const char *sql, char *err, size_t errlen)
{
	struct guard_opts go = { .limit = 0 };
	struct guard_result gr = {0};
	struct exec_opts eo = { .conninfo = st->conninfo, .max_rows = 20000 };
	struct exec_result res = {0};
	struct exec_error de = {0};
	cJSON *rows = NULL;
	enum err rc;

	if (guard_check(sql, &go, &gr) != OK || !gr.allowed) {
		snprintf(err, errlen, "guard refused: %s", gr.reason ? gr.reason : "check failed");
		goto out;
	}
	rc = exec_fetch(gr.sql, &eo, &res, &de);
	if (st->app) {
		/* a case's chart is data access like any run's statement (store/access.h): the run's
		 * owner, its target, the SQL and the rows read */
		struct access_rec ar = {.kind = ACCESS_RUN, .channel = ACCESS_WEB, .user_from_run = 1,
		                        .target = st->target ? st->target : conf_get("target_name"),
		                        .run_id = st->run_id, .sql = gr.sql, .rows = rc == OK ? res.nrows : -1,
		                        .failed = rc != OK};
		char ae[256];

		access_record(st->app, &ar, ae, sizeof ae);
	}
	if (rc != OK) {
		char *t = exec_error_text(&de);
		snprintf(err, errlen, "%s", t ? t : (de.message ? de.message : "query failed"));
		free(t);
		goto out;
	}
	rows = cJSON_CreateArray();
	for (long long i = 0; i < res.nrows; i++) {
		cJSON *r = cJSON_CreateObject();
		for (int j = 0; j < res.ncols; j++) {
			const char *v = res.rows[i][j];
			if (v)
				cJSON_AddStringToObject(r, res.cols[j].name, v);
			else
				cJSON_AddNullToObject(r, res.cols[j].name);
		}
		cJSON_AddItemToArray(rows, r);
	}
out:
	exec_result_free(&res);
	exec_error_free(&de);
	guard_free(&gr);
	return rows;
}

/* ---- drug classes that answer a finding (the classes themselves: drugs.c) ---- */

const char *crit_responsive_classes(const char *param, const char *dir)
{
	int low = dir && !strcmp(dir, "low");

	if (!param)
		return "";
	if (!strcmp(param, "sbp") || !strcmp(param, "mbp") || !strcmp(param, "dbp"))
		return low ? "vasopressor,crystalloid,colloid,blood" : "antihypertensive";
	/* a fast heart rate during surgery is mostly compensatory: no drug is expected for it */
	if (!strcmp(param, "hr"))
		return low ? "anticholinergic,vasopressor" : "";
	if (!strcmp(param, "lac"))
		return low ? "" : "crystalloid,colloid,blood,vasopressor,bicarbonate";
	if (!strcmp(param, "hb"))
		return low ? "blood" : "";
	if (!strcmp(param, "gluc"))
		return low ? "glucose" : "insulin";
	if (!strcmp(param, "k"))
		return low ? "electrolyte" : "insulin,electrolyte,diuretic";
	return "";
}

/* ---- comorbidities from ICD-10 codes ---- */

static const struct { const char *prefix, *what; } comorbid[] = {
	{"I10", "hypertension"}, {"I11", "hypertension"}, {"I12", "hypertension"}, {"I13", "hypertension"},
	{"I15", "hypertension"}, {"E10", "diabetes"}, {"E11", "diabetes"}, {"E13", "diabetes"}, {"E14", "diabetes"},
	{"I20", "ischaemic heart disease"}, {"I21", "ischaemic heart disease"}, {"I25", "ischaemic heart disease"},
	{"I48", "atrial fibrillation"}, {"I50", "heart failure"}, {"I63", "stroke"}, {"I69", "stroke"},
	{"J44", "COPD"}, {"J45", "asthma"}, {"N18", "chronic kidney disease"}, {"K70", "liver disease"},
	{"K72", "liver failure"}, {"K74", "liver cirrhosis"}, {"C", "malignancy"}, {"D6", "coagulation disorder"},
	{"E66", "obesity"},
};

const char *crit_comorbidity(const char *code)
{
	size_t best = 0;
	const char *what = NULL;

	for (size_t i = 0; code && i < sizeof comorbid / sizeof comorbid[0]; i++) {
		size_t l = strlen(comorbid[i].prefix);
		if (!strncmp(code, comorbid[i].prefix, l) && l > best) {
			best = l;
			what = comorbid[i].what;
		}
	}
	return what;
}

int crit_chart_values(const cJSON *chart)
{
	const cJSON *s;
	int n = 0;

	cJSON_ArrayForEach(s, cJSON_GetObjectItem(chart, "series"))
		n += cJSON_GetArraySize(cJSON_GetObjectItem(s, "points"));
	return n;
}
