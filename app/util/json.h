/* json.h: small readers of cJSON objects shared by the modules that parse JSON. */
#ifndef ASKQL_JSON_H
#define ASKQL_JSON_H

#include <cjson/cJSON.h>

/* json_str: the string member k of object o (case-sensitive key), or NULL when o is not an
 * object, k is absent or its value is not a string.  The pointer lives as long as o. */
const char *json_str(const cJSON *o, const char *k);

#endif
