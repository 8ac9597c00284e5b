/* conf.h: the one table of settings: defaults, config file, environment; read-only after start. */
#ifndef ASKQL_CONF_H
#define ASKQL_CONF_H

#include "err.h"

struct conf_item {
	const char *name;     /* key in the file; env var is ASKQL_<NAME upper-cased> */
	const char *def;      /* default value */
	int secret;           /* 1: masked on pages and in logs */
	const char *help;     /* one line for the admin configuration page */
	/* filled at load: */
	const char *value;
	const char *source;   /* "default", "file:PATH:LINE", "env:ASKQL_X" */
};

/*
 * conf_load: reset to defaults, then read path ("key = value" lines, '#' comments;
 * NULL: $ASKQL_CONF if set, else no file), then apply ASKQL_* environment overrides.
 * Unknown keys, lines over 4 KiB or without '=' are an error: *errmsg (static or
 * heap-allocated by conf, valid until the next conf_load) says which line.  So is a
 * setting with a range (conf.c, ranges[]) whose effective value is not a whole number
 * in it (ERR_INPUT; *errmsg names the key, the value, where it came from and the range):
 * a worker or the CLI refuses to start rather than run with a limit it cannot honour.
 */
enum err conf_load(const char *path, const char **errmsg);
/* conf_set: override one setting (CLI flags); source is recorded. */
enum err conf_set(const char *name, const char *value, const char *source);
/* conf_get: the effective value; "" for an unknown key (never NULL). */
const char *conf_get(const char *name);
long conf_get_int(const char *name);
/* conf_items: the table, for the review page; *n receives its length. */
const struct conf_item *conf_items(int *n);
/* conf_path: the file that was loaded, or NULL. */
const char *conf_path(void);

#endif
