/* test_pwpolicy.c: the rules of a new password (issue 27): length in characters, repetition, the list of common passwords, the list's limits. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "http/pwpolicy.h"

static struct pw_list list;

static int setup(void **state)
{
	char err[256];

	(void)state;
	/* the shipped list, as the workers load it (the tests run from the top of the tree) */
	return pw_list_load("conf/passwords/common.txt", &list, err, sizeof err) == OK ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	pw_list_free(&list);
	return 0;
}

static void test_rules(void **state)
{
	(void)state;
	assert_true(list.n > 10000);
	/* the review's "aaaaaaaa", and the same made long enough */
	assert_int_equal(pw_judge("aaaaaaaa", 10, &list), PW_SHORT);
	assert_int_equal(pw_judge("aaaaaaaaaa", 10, &list), PW_REPETITIVE);
	assert_int_equal(pw_judge("ababababab", 10, &list), PW_REPETITIVE);
	assert_int_equal(pw_judge("abcabcabca", 10, &list), PW_REPETITIVE);
	assert_int_equal(pw_judge("", 10, &list), PW_SHORT);
	assert_int_equal(pw_judge(NULL, 10, &list), PW_SHORT);
	/* 9 characters that are 27 bytes: short, counted in characters */
	assert_int_equal(pw_judge("가나다라마바사아자", 10, &list), PW_SHORT);
	assert_int_equal(pw_judge("가나다라마바사아자차", 10, &list), PW_OK);
	/* common ones, whatever their ASCII case */
	assert_int_equal(pw_judge("1234567890", 10, &list), PW_COMMON);
	assert_int_equal(pw_judge("password123", 10, &list), PW_COMMON);
	assert_int_equal(pw_judge("QwertyUIOP", 10, &list), PW_COMMON);
	assert_int_equal(pw_judge("iloveyou12", 10, &list), PW_COMMON);
	/* 8 is the floor of password_min_length: an 8-character common one is still caught */
	assert_int_equal(pw_judge("baseball", 8, &list), PW_COMMON);
	assert_int_equal(pw_judge("correct horse battery", 10, &list), PW_OK);
	assert_int_equal(pw_judge("pw-ann123-secret", 10, &list), PW_OK);
	/* without the list nothing passes that would otherwise (fail closed) */
	assert_int_equal(pw_judge("correct horse battery", 10, NULL), PW_NO_LIST);
	assert_int_equal(pw_judge("short", 10, NULL), PW_SHORT);
	for (int v = PW_OK + 1; v < PW__MAX; v++)
		assert_non_null(pw_verdict_key((enum pw_verdict)v));
	assert_null(pw_verdict_key(PW_OK));
	/* over the longest password a form takes: never on the list, and no overflow */
	{
		char big[PW_MAX_BYTES + 50];

		memset(big, 'x', sizeof big - 1);
		big[sizeof big - 1] = '\0';
		assert_int_equal(pw_list_has(&list, big), 0);
	}
}

static void test_list_limits(void **state)
{
	char path[] = "/tmp/askql-pwlist.XXXXXX", err[256];
	struct pw_list l;
	FILE *f;
	int fd;

	(void)state;
	assert_int_equal(pw_list_load("/nonexistent/common.txt", &l, err, sizeof err), ERR_IO);
	assert_int_equal((int)l.n, 0);
	assert_non_null(strstr(err, "/nonexistent/common.txt"));
	/* comments, blank lines, CRLF, upper case in the file */
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs("# header\n\nHunter2Hunter2\r\nzebra-crossing\nlast-line-no-newline", f);
	fclose(f);
	assert_int_equal(pw_list_load(path, &l, err, sizeof err), OK);
	assert_int_equal((int)l.n, 3);
	assert_true(pw_list_has(&l, "hunter2hunter2"));
	assert_true(pw_list_has(&l, "ZEBRA-crossing"));
	assert_true(pw_list_has(&l, "last-line-no-newline"));
	assert_false(pw_list_has(&l, "# header"));
	pw_list_free(&l);
	/* a line longer than any password is a broken file, not a list */
	f = fopen(path, "w");
	for (int i = 0; i < PW_MAX_BYTES + 10; i++)
		fputc('y', f);
	fputs("\nok-entry\n", f);
	fclose(f);
	assert_int_equal(pw_list_load(path, &l, err, sizeof err), ERR_LIMIT);
	assert_int_equal((int)l.n, 0);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_list_limits),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
