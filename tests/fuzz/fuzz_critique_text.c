/* fuzz_critique_text.c: libFuzzer target for the critique's chart-text parsers (chart_structurer, timeline, evidence, record_gaps). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "critique/critique.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct crit_state st;
	char *text;

	if (size > 1 << 16)
		return 0;
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	crit_state_init(&st);
	st.text = text;
	st.metadata_file = "/nonexistent";
	if (text[0] && crit_chart_structurer(&st) == OK) {
		crit_diagnosis(&st);
		crit_treatment(&st);
		crit_intervention_checker(&st);
		cJSON *sel = crit_route_agents(&st);
		cJSON_Delete(sel);
	}
	cJSON *tl = crit_tool_timeline(text);
	cJSON *ev = crit_tool_evidence(text);
	cJSON *g = crit_tool_record_gaps(st.structured_chart, tl, 0);
	cJSON_Delete(tl);
	cJSON_Delete(ev);
	cJSON_Delete(g);
	crit_state_free(&st);   /* frees text */
	return 0;
}
