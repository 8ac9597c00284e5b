/* fuzz_guard.c: libFuzzer target for the SQL guard: no crash, no leak, and allowed output is stable. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sql/guard.h"

static int rel_ok(void *ctx, const char *schema, const char *name)
{
	(void)ctx;
	if (schema && strcmp(schema, "public"))
		return 0;
	return !strcmp(name, "clinical_data_table") || !strcmp(name, "lab_data_table") ||
	       !strcmp(name, "vital_data_table") || !strcmp(name, "t");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct guard_opts o = {.limit = 100, .relation_ok = rel_ok};
	struct guard_result r, r2;
	char *sql, *js;

	if (size > 64 * 1024)
		return 0;
	/* the first byte picks options so both policies get exercised */
	if (size > 0) {
		o.allow_system_catalogs = data[0] & 1;
		if (data[0] & 2)
			o.relation_ok = NULL;
		if (data[0] & 4)
			o.limit = 0;
	}
	sql = malloc(size + 1);
	if (!sql)
		return 0;
	memcpy(sql, data, size);
	sql[size] = '\0';
	if (guard_check(sql, &o, &r) == OK) {
		js = guard_result_json(&r);
		free(js);
		if (r.allowed) {
			/* what the guard lets run must pass the guard again, unchanged */
			if (!r.sql || guard_check(r.sql, &o, &r2) != OK)
				abort();
			if (!r2.allowed || strcmp(r2.sql, r.sql)) {
				fprintf(stderr, "unstable: [%s] -> [%s] (%s)\n", r.sql, r2.sql ? r2.sql : "", r2.reason ? r2.reason : "");
				abort();
			}
			guard_free(&r2);
		} else if (!r.reason) {
			abort();
		}
		guard_free(&r);
	}
	free(sql);
	return 0;
}
