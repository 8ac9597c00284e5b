/* fuzz_planner_tok.c: libFuzzer target for the offline planner's tokenizer, stemmer and time-window reader. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "agent/planner_int.h"
#include "agent/planner_time.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena a = {0};
	struct ptoks t;
	struct ptime w;
	struct tm now;
	char desc[256], st[64];
	char *q;

	if (size > 4096)
		return 0;
	q = malloc(size + 1);
	if (!q)
		return 0;
	memcpy(q, data, size);
	q[size] = 0;
	if (planner_tokenize(&a, q, &t) == OK) {
		planner_time_now("2100-12-31 23:59:00", &now);
		planner_time(&t, &now, &w, desc, sizeof desc);
		for (int i = 0; i < t.n; i++) {
			planner_stem(t.v[i].text, st, sizeof st);
			(void)planner_norm(&a, t.v[i].text);
		}
	}
	planner_time_now(q, &now);   /* a reference time given by the user */
	arena_free(&a);
	free(q);
	return 0;
}
