/* json.c: small readers of cJSON objects (json.h). */
#include "util/json.h"

const char *json_str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}
