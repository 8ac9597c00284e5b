/* lens_diagnostic_consistency.c: critic tool: do the findings hang together in time and with the diagnosis. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "critique/critique.h"
#include "util/sb.h"

/* Findings are grouped when their episodes lie within 30 minutes of each other (transitively):
 * one group is one clinical event seen through several parameters. */
cJSON *crit_tool_lens_diagnostic_consistency(const struct crit_state *st, const cJSON *pre)
{
	cJSON *out = cJSON_CreateObject(), *groups = cJSON_AddArrayToObject(out, "co_occurring");
	const cJSON *fs = cJSON_GetObjectItem(st->structured_chart, "findings");
	const char *dx = crit_str(cJSON_GetObjectItem(st->structured_chart, "operation"), "dx");
	int n = cJSON_GetArraySize(fs);
	int *grp = calloc((size_t)(n ? n : 1), sizeof *grp);

	for (int i = 0; i < n; i++)
		grp[i] = i;
	/* union of overlapping episodes (n is small: quadratic is fine) */
	for (int changed = 1; changed;) {
		changed = 0;
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++) {
				const cJSON *a = cJSON_GetArrayItem(fs, i), *b = cJSON_GetArrayItem(fs, j);
				if (grp[i] == grp[j])
					continue;
				if (crit_num(b, "start_ts", 0) > crit_num(a, "end_ts", 0) + 1800 ||
				    crit_num(a, "start_ts", 0) > crit_num(b, "end_ts", 0) + 1800)
					continue;
				int g = grp[i] < grp[j] ? grp[i] : grp[j];
				grp[i] = grp[j] = g;
				changed = 1;
			}
	}
	for (int g = 0; g < n; g++) {
		struct sb ids = SB_INIT, labels = SB_INIT, labels_ko = SB_INIT;
		int cnt = 0, distinct = 0;
		double s = 0, e = 0;
		char hs[8], he[8];
		cJSON *members = cJSON_CreateArray();
		for (int i = 0; i < n; i++) {
			if (grp[i] != g)
				continue;
			const cJSON *f = cJSON_GetArrayItem(fs, i);
			int seen = 0;
			for (int q = 0; q < i; q++)
				seen |= grp[q] == g && !strcmp(crit_str(cJSON_GetArrayItem(fs, q), "param"), crit_str(f, "param"));
			distinct += !seen;
			if (!cnt || crit_num(f, "start_ts", 0) < s)
				s = crit_num(f, "start_ts", 0);
			if (!cnt || crit_num(f, "end_ts", 0) > e)
				e = crit_num(f, "end_ts", 0);
			sb_printf(&ids, "%s%s", cnt ? ", " : "", crit_str(f, "id"));
			sb_printf(&labels, "%s%s %s", cnt ? ", " : "", crit_str(f, "label"), crit_str(f, "direction"));
			sb_printf(&labels_ko, "%s%s %s", cnt ? ", " : "", crit_param_ko(NULL, crit_str(f, "param")),
			          crit_dir_ko(crit_str(f, "direction")));
			cJSON_AddItemToArray(members, cJSON_CreateString(crit_str(f, "id")));
			cnt++;
		}
		if (distinct >= 2) {
			struct sb t = SB_INIT;
			sb_printf(&t, "%s occur together between %s and %s (%s): one event seen in %d parameters",
			          sb_cstr(&ids), crit_time_hm((long long)s, hs, sizeof hs), crit_time_hm((long long)e, he, sizeof he),
			          sb_cstr(&labels), distinct);
			struct sb tk = SB_INIT;
			sb_printf(&tk, "%s가 %s-%s에 함께 나타남 (%s): 항목 %d개에서 보인 하나의 사건",
			          sb_cstr(&ids), hs, he, sb_cstr(&labels_ko), distinct);
			cJSON *o = cJSON_CreateObject();
			cJSON_AddItemToObject(o, "findings", members);
			crit_say(o, "text", sb_cstr(&t), sb_cstr(&tk));
			sb_free(&tk);
			cJSON_AddItemToArray(groups, o);
			sb_free(&t);
		} else
			cJSON_Delete(members);
		sb_free(&ids);
		sb_free(&labels);
		sb_free(&labels_ko);
	}
	free(grp);
	cJSON_AddStringToObject(out, "documented_dx", dx ? dx : "");
	/* reference only: the diagnosis agent's observations count */
	cJSON_AddNumberToObject(out, "reference_diagnosis_observations",
	                        cJSON_GetArraySize(cJSON_GetObjectItem(st->diagnosis_analysis, "observations")));
	cJSON_AddStringToObject(out, "offline_note",
	                        "Whether the diagnosis explains the findings is not judged without an LLM.");
	(void)pre;
	return out;
}
