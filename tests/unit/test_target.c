/* test_target.c: a target's connection string: the keyword allow-list, masking every secret, one identity per database (issue 27). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "store/target.h"

static void test_allow_list(void **state)
{
	static const char *ok[] = {
		"host=db.example port=5432 dbname=clinic user=reader password=s3cret sslmode=verify-full "
		"sslrootcert=/etc/ssl/root.crt application_name=askql connect_timeout=5",
		"hostaddr=10.0.0.5 dbname=x",
		"postgresql://reader:pw@db.example:5432/clinic?sslmode=require&connect_timeout=10",
		"",
	};
	static const char *bad[][2] = {
		{"host=db dbname=x options='-c statement_timeout=0'", "'options'"},
		{"host=db dbname=x sslpassword=hunter2", "'sslpassword'"},
		{"host=db dbname=x passfile=/etc/shadow", "'passfile'"},
		{"service=prod", "'service'"},
		{"host=db dbname=x sslkey=/home/askql/.ssh/id_rsa", "'sslkey'"},
		{"host=db dbname=x target_session_attrs=any", "'target_session_attrs'"},
		{"postgresql://db/x?options=-csearch_path%3Devil", "'options'"},
		{"host=db dbname=x connect_timeout=60", "connect_timeout must be 1 to 10"},
		{"host=db dbname=x connect_timeout=0", "connect_timeout must be"},
		{"host=db dbname=x connect_timeout=5s", "connect_timeout must be"},
	};
	char err[512];

	(void)state;
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		if (target_check_conninfo(ok[i], err, sizeof err) != OK)
			fail_msg("refused %s: %s", ok[i], err);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = 0;
		assert_int_equal(target_check_conninfo(bad[i][0], err, sizeof err), ERR_INPUT);
		if (!strstr(err, bad[i][1]))
			fail_msg("%s: %s", bad[i][0], err);
	}
	assert_int_equal(target_check_conninfo("host='unterminated", err, sizeof err), ERR_PARSE);
}

static void test_mask(void **state)
{
	static const char *cases[][2] = {
		{"host=h password=s3cret dbname=x", "host=h password=**** dbname=x"},
		{"host=h sslpassword='a b' password = 'c\\'d' dbname=x", "host=h sslpassword=**** password=**** dbname=x"},
		{"postgresql://u:pw@h/x?sslpassword=k&password=p&sslmode=require",
		 "postgresql://u:****@h/x?sslpassword=****&password=****&sslmode=require"},
		{"password=a password=b password=c password=d password=e password=f", "password=**** password=**** "
		 "password=**** password=**** password=**** password=****"},
		/* an empty value takes the next word as libpq does: one secret */
		{"password= user=x", "password=****"},
		{"postgresql://h/x", "postgresql://h/x"},
		{"host=h mypassword=x", "host=h mypassword=x"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *m = target_mask(cases[i][0]);

		assert_string_equal(m, cases[i][1]);
		free(m);
	}
}

static void test_ident(void **state)
{
	char a[512], b[512], err[256];

	(void)state;
	assert_int_equal(target_ident("host=DB.Example port=054391 dbname=clinic", a, sizeof a, err, sizeof err), OK);
	assert_string_equal(a, "db.example:54391/clinic");
	assert_int_equal(target_ident("postgresql://db.example:54391/clinic", b, sizeof b, err, sizeof err), OK);
	assert_string_equal(a, b);
	assert_int_equal(target_ident("host=db.example port=00005432 dbname=c", a, sizeof a, err, sizeof err), OK);
	assert_string_equal(a, "db.example:5432/c");
}

static void test_conn_error(void **state)
{
	char a[] = "connection to server at \"127.0.0.1\", port 8080 failed: received invalid response to SSL negotiation: H\n";
	char b[] = "connection to server at \"127.0.0.1\", port 22 failed: expected authentication request from server, but received S\n";
	char c[] = "connection to server on socket \"/tmp/.s.PGSQL.5432\" failed: No such file or directory\n";

	(void)state;
	target_conn_error_scrub(a);
	assert_string_equal(a, "connection to server at \"127.0.0.1\", port 8080 failed: received invalid response to SSL negotiation");
	target_conn_error_scrub(b);
	assert_string_equal(b, "connection to server at \"127.0.0.1\", port 22 failed: expected authentication request from "
	                       "server, but got other");
	target_conn_error_scrub(c);
	assert_non_null(strstr(c, "No such file or directory"));
	target_conn_error_scrub(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allow_list),
		cmocka_unit_test(test_mask),
		cmocka_unit_test(test_ident),
		cmocka_unit_test(test_conn_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
