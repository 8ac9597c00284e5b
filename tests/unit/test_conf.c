/* test_conf.c: the settings table: file and environment layers, and the ranges that stop a start. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/conf.h"

static char path[64];

/* write_conf: text as the config file at path */
static void write_conf(const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	int fd;

	snprintf(path, sizeof path, "/tmp/askql_test_conf.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	unsetenv("ASKQL_EXPORT_TIMEOUT_MS");
	unsetenv("ASKQL_TARGET_MAX_STATEMENTS");
	unsetenv("ASKQL_TARGET_WAIT_MS");
	return 0;
}

static int teardown(void **state)
{
	unlink(path);
	return 0;
}

static void test_defaults_and_layers(void **state)
{
	const char *msg;

	write_conf("# nothing\n");
	assert_int_equal(conf_load(path, &msg), OK);
	assert_int_equal(conf_get_int("export_timeout_ms"), 120000);
	assert_int_equal(conf_get_int("target_max_statements"), 8);
	assert_int_equal(conf_get_int("target_wait_ms"), 2000);
	write_conf("export_timeout_ms = 3000\ntarget_max_statements = 0\n");
	assert_int_equal(conf_load(path, &msg), OK);
	assert_int_equal(conf_get_int("export_timeout_ms"), 3000);
	assert_int_equal(conf_get_int("target_max_statements"), 0);
	/* the environment wins over the file */
	setenv("ASKQL_EXPORT_TIMEOUT_MS", "4500", 1);
	assert_int_equal(conf_load(path, &msg), OK);
	assert_int_equal(conf_get_int("export_timeout_ms"), 4500);
	unsetenv("ASKQL_EXPORT_TIMEOUT_MS");
}

static void test_ranges(void **state)
{
	static const char *const bad[] = {
		"export_timeout_ms = 0\n", "export_timeout_ms = 999\n", "export_timeout_ms = 3600001\n",
		"export_timeout_ms = abc\n", "export_timeout_ms = 12s\n", "export_timeout_ms =\n",
		"export_timeout_ms = 99999999999999999999\n", "target_max_statements = -1\n",
		"target_max_statements = 65\n", "target_wait_ms = 60001\n",
	};
	const char *msg;

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char key[32];

		write_conf(bad[i]);
		assert_int_equal(conf_load(path, &msg), ERR_INPUT);
		/* the message names the key, where the value came from and the range */
		sscanf(bad[i], "%31s", key);
		assert_non_null(strstr(msg, key));
		assert_non_null(strstr(msg, path));
		assert_non_null(strstr(msg, "must be a whole number from"));
	}
	/* the ends of each range are fine */
	write_conf("export_timeout_ms = 1000\ntarget_max_statements = 64\ntarget_wait_ms = 0\n");
	assert_int_equal(conf_load(path, &msg), OK);
	write_conf("export_timeout_ms = 3600000\n");
	assert_int_equal(conf_load(path, &msg), OK);
	/* a bad value from the environment is refused the same way, naming the variable */
	write_conf("\n");
	setenv("ASKQL_TARGET_MAX_STATEMENTS", "many", 1);
	assert_int_equal(conf_load(path, &msg), ERR_INPUT);
	assert_non_null(strstr(msg, "env:ASKQL_TARGET_MAX_STATEMENTS"));
	unsetenv("ASKQL_TARGET_MAX_STATEMENTS");
	assert_int_equal(conf_load(path, &msg), OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_and_layers),
		cmocka_unit_test(test_ranges),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
