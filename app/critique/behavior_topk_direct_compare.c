/* behavior_topk_direct_compare.c: critic tool: this case beside its top-k similar cases (care and outcome). */
#include <stdio.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "critique/critique.h"

/* The same measures for this case as the similar-case query gives for the others. */
static void own_measures(const struct crit_state *st, double *min_sbp, double *max_lac, int *vaso)
{
	const cJSON *s, *p, *m;

	*min_sbp = -1;
	*max_lac = -1;
	*vaso = 0;
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(st->structured_chart, "series")) {
		int sbp = !strcmp(crit_str(s, "name"), "sbp"), lac = !strcmp(crit_str(s, "name"), "lac");
		cJSON_ArrayForEach(p, cJSON_GetObjectItem(s, "points")) {
			double v = crit_num(p, "v", 0);
			if (sbp && (*min_sbp < 0 || v < *min_sbp))
				*min_sbp = v;
			if (lac && v > *max_lac)
				*max_lac = v;
		}
	}
	cJSON_ArrayForEach(m, cJSON_GetObjectItem(st->structured_chart, "procedures_performed"))
		*vaso += !strcmp(crit_str(m, "class"), "vasopressor");
}

cJSON *crit_tool_behavior_topk_direct_compare(const struct crit_state *st, const cJSON *pre)
{
	cJSON *out = cJSON_CreateObject(), *rows = cJSON_AddArrayToObject(out, "cases");
	const cJSON *c, *out0 = cJSON_GetObjectItem(st->structured_chart, "outcome");
	int k = 0, hypo = 0, vaso = 0, death = 0, hilac = 0, myvaso;
	double icu = 0, my_sbp, my_lac;
	char t[400];

	own_measures(st, &my_sbp, &my_lac, &myvaso);
	cJSON_ArrayForEach(c, st->similar_cases) {
		double s = crit_num(c, "min_sbp", -1), l = crit_num(c, "max_lac", -1);
		k++;
		hypo += s >= 0 && s < 90;
		hilac += l > 2;
		vaso += crit_num(c, "vasopressor_doses", 0) > 0;
		death += crit_num(c, "death_inhosp", 0) == 1;
		icu += crit_num(c, "icu_days", 0);
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "caseid", crit_num(c, "caseid", 0));
		cJSON_AddNumberToObject(o, "min_sbp", s);
		cJSON_AddNumberToObject(o, "max_lac", l);
		cJSON_AddNumberToObject(o, "vasopressor_doses", crit_num(c, "vasopressor_doses", 0));
		cJSON_AddNumberToObject(o, "death_inhosp", crit_num(c, "death_inhosp", 0));
		cJSON_AddNumberToObject(o, "icu_days", crit_num(c, "icu_days", 0));
		cJSON_AddItemToArray(rows, o);
	}
	cJSON *me = cJSON_AddObjectToObject(out, "this_case");
	cJSON_AddNumberToObject(me, "min_sbp", my_sbp);
	cJSON_AddNumberToObject(me, "max_lac", my_lac);
	cJSON_AddNumberToObject(me, "vasopressor_doses", myvaso);
	cJSON_AddNumberToObject(me, "death_inhosp", crit_num(out0, "death_inhosp", 0));
	cJSON_AddNumberToObject(me, "icu_days", crit_num(out0, "icu_days", 0));
	cJSON_AddNumberToObject(out, "k", k);
	cJSON_AddNumberToObject(out, "with_hypotension", hypo);
	cJSON_AddNumberToObject(out, "with_high_lactate", hilac);
	cJSON_AddNumberToObject(out, "with_vasopressor", vaso);
	cJSON_AddNumberToObject(out, "deaths", death);
	cJSON_AddNumberToObject(out, "mean_icu_days", k ? icu / k : 0);
	snprintf(t, sizeof t, "Of %d similar cases: %d had SBP < 90, %d lactate > 2, %d received a vasopressor, "
	         "%d died in hospital, mean ICU stay %.1f days. This case: min SBP %g, max lactate %g, %d vasopressor dose(s).",
	         k, hypo, hilac, vaso, death, k ? icu / k : 0, my_sbp, my_lac, myvaso);
	char tk[600];
	snprintf(tk, sizeof tk, "유사 케이스 %d건 중 SBP < 90 %d건, 젖산 > 2 %d건, 승압제 투여 %d건, 원내 사망 %d건, "
	         "평균 중환자실 재원 %.1f일. 이 케이스: 최저 SBP %g, 최고 젖산 %g, 승압제 투여 %d회.",
	         k, hypo, hilac, vaso, death, k ? icu / k : 0, my_sbp, my_lac, myvaso);
	crit_say(out, "text", t, tk);
	/* reference only (seed table 2.1): prior analyses are counted, not relied on */
	cJSON_AddNumberToObject(out, "reference_only_prior_diagnosis_observations",
	                        cJSON_GetArraySize(cJSON_GetObjectItem(st->diagnosis_analysis, "observations")));
	cJSON_AddNumberToObject(out, "reference_only_prior_treatment_responses",
	                        cJSON_GetArraySize(cJSON_GetObjectItem(st->treatment_analysis, "responses")));
	cJSON_AddNumberToObject(out, "reference_only_prior_evidence",
	                        cJSON_GetArraySize(cJSON_GetObjectItem(st->evidence, "items")));
	(void)pre;
	return out;
}
