/* test_target.c: a target's connection string: the keyword allow-list, masking every secret, one identity per database, secrets kept apart (issue 27). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "store/target.h"
#include "store/target_secret.h"

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

/* a password (key=value or URI) leaves the conninfo, comes back only for the same place */
static void test_secret_split_merge(void **state)
{
	struct tsecret sec[TSECRET_MAX];
	char *clean, *back, err[256];
	int n;

	(void)state;
	assert_int_equal(tsecret_split("host=db.example port=5433 dbname=clinic user=reader password='s3 cr\\'et'", "conn",
	                               &clean, sec, &n, TSECRET_MAX, err, sizeof err), OK);
	assert_int_equal(n, 1);
	assert_null(strstr(clean, "s3"));
	assert_null(strstr(clean, "password"));
	assert_non_null(strstr(clean, "dbname='clinic'"));
	assert_string_equal(sec[0].kw, "password");
	assert_string_equal(sec[0].value, "s3 cr'et");
	back = tsecret_merge(clean, "conn", sec, n);
	assert_non_null(strstr(back, "password='s3 cr\\'et'"));
	free(back);
	/* the ro connection's secret is not the indexing one's */
	back = tsecret_merge(clean, "ro", sec, n);
	assert_string_equal(back, clean);
	free(back);
	/* the row pointed at another server gets no password */
	back = tsecret_merge("host=evil.example port=5433 dbname=clinic user=reader", "conn", sec, n);
	assert_null(strstr(back, "password"));
	free(back);
	/* a secret the row itself holds stays beside the one the file gives back */
	back = tsecret_merge("host=db.example port=5433 dbname=clinic sslpassword=kp", "conn", sec, n);
	assert_non_null(strstr(back, "sslpassword='kp'"));
	assert_non_null(strstr(back, "password='s3 cr\\'et'"));
	free(back);
	/* a stored conninfo with its own password keeps it */
	back = tsecret_merge("host=db.example port=5433 dbname=clinic password=own", "conn", sec, n);
	assert_string_equal(back, "host=db.example port=5433 dbname=clinic password=own");
	free(back);
	free(clean);
	/* a URI's user:password@ */
	assert_int_equal(tsecret_split("postgresql://reader:pw9@db:5432/clinic?sslpassword=kp", "ro", &clean, sec, &n,
	                               TSECRET_MAX, err, sizeof err), OK);
	assert_int_equal(n, 2);
	assert_null(strstr(clean, "pw9"));
	assert_null(strstr(clean, "kp"));
	free(clean);
	/* none: unchanged */
	assert_int_equal(tsecret_split("postgresql://reader@db/clinic", "conn", &clean, sec, &n, TSECRET_MAX, err,
	                               sizeof err), OK);
	assert_int_equal(n, 0);
	assert_string_equal(clean, "postgresql://reader@db/clinic");
	free(clean);
	/* too long a secret */
	{
		char big[TSECRET_VALUE_MAX + 40];

		snprintf(big, sizeof big, "dbname=x password=%0*d", TSECRET_VALUE_MAX + 1, 0);
		assert_int_equal(tsecret_split(big, "conn", &clean, sec, &n, TSECRET_MAX, err, sizeof err), ERR_LIMIT);
		assert_int_equal(n, 0);
		assert_null(strstr(err, "000000"));
	}
}

/* the file: 0600, one name replaced without touching another, a tab or newline in a secret kept */
static void test_secret_file(void **state)
{
	char dir[] = "/tmp/askql-secret-XXXXXX", path[128], err[256];
	struct tsecret a[2], got[TSECRET_MAX];
	struct stat st;
	int n;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/secrets", dir);
	assert_int_equal(tsecret_load(path, "x", got, &n, TSECRET_MAX, err, sizeof err), OK);
	assert_int_equal(n, 0);
	memset(a, 0, sizeof a);
	strcpy(a[0].which, "conn");
	strcpy(a[0].kw, "password");
	strcpy(a[0].where, "host=h hostaddr= port=1");
	strcpy(a[0].value, "tab\there\nnl\\x");
	a[1] = a[0];
	strcpy(a[1].which, "ro");
	strcpy(a[1].value, "second");
	assert_int_equal(tsecret_store(path, "one", a, 2, err, sizeof err), OK);
	assert_int_equal(tsecret_store(path, "two", a + 1, 1, err, sizeof err), OK);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(tsecret_load(path, "one", got, &n, TSECRET_MAX, err, sizeof err), OK);
	assert_int_equal(n, 2);
	assert_string_equal(got[0].value, "tab\there\nnl\\x");
	assert_string_equal(got[0].where, "host=h hostaddr= port=1");
	assert_int_equal(tsecret_store(path, "one", NULL, 0, err, sizeof err), OK);
	assert_int_equal(tsecret_load(path, "one", got, &n, TSECRET_MAX, err, sizeof err), OK);
	assert_int_equal(n, 0);
	assert_int_equal(tsecret_load(path, "two", got, &n, TSECRET_MAX, err, sizeof err), OK);
	assert_int_equal(n, 1);
	assert_string_equal(got[0].value, "second");
	/* a bad line is an error naming the line, never its content; nothing is written over it */
	assert_non_null(f = fopen(path, "a"));
	fputs("three\tconn\tpassword\tnowhere-secretvalue\n", f);
	fclose(f);
	assert_int_equal(tsecret_load(path, "two", got, &n, TSECRET_MAX, err, sizeof err), ERR_PARSE);
	assert_non_null(strstr(err, "line 3"));
	assert_null(strstr(err, "secretvalue"));
	assert_int_equal(tsecret_store(path, "two", NULL, 0, err, sizeof err), ERR_PARSE);
	unlink(path);
	snprintf(path, sizeof path, "%s/secrets.lock", dir);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allow_list),
		cmocka_unit_test(test_mask),
		cmocka_unit_test(test_ident),
		cmocka_unit_test(test_conn_error),
		cmocka_unit_test(test_secret_split_merge),
		cmocka_unit_test(test_secret_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
