/* timeline.c: critic tool: time-ordered events from chart text (used when no structured chart came). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "critique/critique.h"

/* Split text into sentences: newline, ';' or a '.' that is not a decimal point. */
int crit_sentences(const char *t, size_t *starts, size_t *ends, int max)
{
	size_t i = 0;
	int n = 0;

	while (t && t[i] && n < max) {
		size_t s = i;
		while (t[i] && t[i] != '\n' && t[i] != ';' &&
		       !(t[i] == '.' && !(i > 0 && isdigit((unsigned char)t[i - 1]) && isdigit((unsigned char)t[i + 1]))))
			i++;
		size_t e = i;
		while (s < e && isspace((unsigned char)t[s]))
			s++;
		if (e > s) {
			starts[n] = s;
			ends[n] = e;
			n++;
		}
		if (t[i])
			i++;
	}
	return n;
}

static const char *event_type(const char *s)
{
	static const struct { const char *w, *type; } k[] = {
		{"bp", "vital"}, {"hr", "vital"}, {"spo2", "vital"}, {"혈압", "vital"}, {"심박", "vital"},
		{"lactate", "lab"}, {"potassium", "lab"}, {"hb", "lab"}, {"glucose", "lab"}, {"젖산", "lab"}, {"칼륨", "lab"},
		{"given", "medication"}, {"mg", "medication"}, {"mcg", "medication"}, {"투여", "medication"},
		{"operation", "procedure"}, {"surgery", "procedure"}, {"induction", "procedure"}, {"수술", "procedure"},
		{"died", "outcome"}, {"discharged", "outcome"}, {"icu", "outcome"}, {"사망", "outcome"}, {"퇴원", "outcome"},
	};
	for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
		if (strcasestr(s, k[i].w))
			return k[i].type;
	return "note";
}

cJSON *crit_tool_timeline(const char *text)
{
	size_t st[512], en[512];
	int n = crit_sentences(text, st, en, 512);
	cJSON *out = cJSON_CreateObject(), *ev = cJSON_AddArrayToObject(out, "events");
	long long cur = -1;

	for (int i = 0; i < n; i++) {
		char *s = strndup(text + st[i], en[i] - st[i]), id[16], hm[8];
		for (size_t k = 0; s[k]; k++) {
			if (isdigit((unsigned char)s[k]) && (k == 0 || !isdigit((unsigned char)s[k - 1])) &&
			    (s[k + 1] == ':' || (s[k + 1] && s[k + 2] == ':'))) {
				long long t = crit_time_parse(s + k);
				if (t >= 0) {
					cur = t;
					break;
				}
			}
		}
		cJSON *e = cJSON_CreateObject();
		snprintf(id, sizeof id, "T%d", i + 1);
		cJSON_AddStringToObject(e, "event_id", id);
		cJSON_AddStringToObject(e, "type", event_type(s));
		cJSON_AddStringToObject(e, "time_hint", cur >= 0 ? crit_time_hm(cur, hm, sizeof hm) : "");
		cJSON_AddNumberToObject(e, "ts", (double)cur);
		cJSON_AddStringToObject(e, "text", s);
		cJSON_AddNumberToObject(e, "start", (double)st[i]);
		cJSON_AddNumberToObject(e, "end", (double)en[i]);
		cJSON_AddItemToArray(ev, e);
		free(s);
	}
	return out;
}
