/* test_target_conn.c: connecting to a target by askql's deadline, and a failure as a code that carries nothing the peer sent (issue 27). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "store/target_conn.h"
#include "util/conf.h"
#include "util/i18n.h"

/* libpq's messages as PG 15 writes them (PQERRORS_SQLSTATE), each with the code it must get */
static void test_classify(void **state)
{
	static const struct {
		const char *msg;
		enum target_conn_fail want;
		const char *sqlstate;
	} cases[] = {
		{"connection to server at \"127.0.0.1\", port 1 failed: Connection refused\n\tIs the server running on that "
		 "host and accepting TCP/IP connections?\n", TCONN_NO_SERVER, ""},
		{"connection to server at \"127.0.0.1\", port 9 failed: received invalid response to SSL negotiation: ~\n",
		 TCONN_NO_SERVER, ""},
		{"connection to server at \"127.0.0.1\", port 9 failed: expected authentication request from server, but "
		 "received S\n", TCONN_NO_SERVER, ""},
		{"could not translate host name \"nosuch.invalid\" to address: Name or service not known\n", TCONN_NO_SERVER, ""},
		{"connection to server at \"10.0.0.1\", port 5432 failed: timeout expired\n", TCONN_NO_SERVER, ""},
		{"connection to server on socket \"/run/.s.PGSQL.5432\" failed: FATAL:  28P01\n", TCONN_LOGIN, "28P01"},
		{"connection to server at \"db\" (10.0.0.1), port 5432 failed: FATAL:  28000\n", TCONN_LOGIN, "28000"},
		{"connection to server at \"db\" (10.0.0.1), port 5432 failed: fe_sendauth: no password supplied\n", TCONN_LOGIN, ""},
		{"connection to server at \"db\" (10.0.0.1), port 5432 failed: FATAL:  3D000\n", TCONN_NO_DATABASE, "3D000"},
		{"connection to server at \"db\" (10.0.0.1), port 5432 failed: FATAL:  53300\n", TCONN_BUSY, "53300"},
		{"connection to server at \"db\" (10.0.0.1), port 5432 failed: FATAL:  57P03\n", TCONN_BUSY, "57P03"},
		{"connection to server at \"db\" (10.0.0.1), port 5432 failed: FATAL:  XX000\n", TCONN_SERVER, "XX000"},
		/* the first host refused, the second was a server: the server's code wins */
		{"connection to server at \"a\" (10.0.0.1), port 5432 failed: Connection refused\nconnection to server at "
		 "\"b\" (10.0.0.2), port 5432 failed: FATAL:  3D000\n", TCONN_NO_DATABASE, "3D000"},
		{"connection to server at \"db\" (10.0.0.1), port 5432 failed: server does not support SSL, but SSL was "
		 "required\n", TCONN_TLS, ""},
		{"connection to server at \"db\" (10.0.0.1), port 5432 failed: SSL error: certificate verify failed\n", TCONN_TLS, ""},
		/* a peer that sent something error-shaped: its words are no state */
		{"connection to server at \"db\" (10.0.0.1), port 5432 failed: FATAL:  password authentication failed\n",
		 TCONN_NO_SERVER, ""},
		{"connection to server at \"db\" (10.0.0.1), port 5432 failed: FATAL:  abcde\n", TCONN_NO_SERVER, ""},
		{"connection to server at \"db\" (10.0.0.1), port 5432 failed: SSL error: wrong version number\n",
		 TCONN_NO_SERVER, ""},
		{"invalid sslmode value: \"bogus\"\n", TCONN_INPUT, ""},
		{"invalid port number: \"x\"\n", TCONN_INPUT, ""},
		{NULL, TCONN_NO_SERVER, ""},
	};
	char st[6];

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		enum target_conn_fail got = target_conn_classify(cases[i].msg, st);

		if (got != cases[i].want || strcmp(st, cases[i].sqlstate))
			fail_msg("case %zu (%s): code %d state '%s', want %d '%s'", i, cases[i].msg ? cases[i].msg : "NULL",
			         got, st, cases[i].want, cases[i].sqlstate);
	}
}

/* the page's English (en.conn.json) is the CLI's; Korean has its own words for every code */
static void test_words(void **state)
{
	char err[256];

	(void)state;
	assert_int_equal(i18n_load("conf/i18n", err, sizeof err), OK);
	for (int f = TCONN_OK; f <= TCONN_NOMEM; f++) {
		const char *key = target_conn_key((enum target_conn_fail)f);

		if (strcmp(i18n_get("en", key), target_conn_english((enum target_conn_fail)f)))
			fail_msg("%s: en.conn.json says '%s', the C table '%s'", key, i18n_get("en", key),
			         target_conn_english((enum target_conn_fail)f));
		if (!strcmp(i18n_get("ko", key), i18n_get("en", key)))
			fail_msg("%s has no Korean words", key);
	}
	{
		struct target_conn_out o = {TCONN_NO_DATABASE, "3D000", 0};
		char buf[300];

		target_conn_text(&o, buf, sizeof buf);
		assert_string_equal(buf, "the PostgreSQL server has no database of that name (SQLSTATE 3D000)");
		o.fail = TCONN_NO_SERVER;
		target_conn_text(&o, buf, 40);
		assert_int_equal(strlen(buf), 39);
	}
	i18n_free();
}

/* a port on 127.0.0.1: listening (the kernel completes the handshake, nobody ever answers) or closed */
static int listener(int *port, int listening)
{
	struct sockaddr_in a = {0};
	socklen_t l = sizeof a;
	int s = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof a), 0);
	assert_int_equal(getsockname(s, (struct sockaddr *)&a, &l), 0);
	*port = ntohs(a.sin_port);
	if (listening)
		assert_int_equal(listen(s, 16), 0);
	else {
		close(s);
		s = -1;
	}
	return s;
}

static void test_deadline(void **state)
{
	struct target_conn_out o;
	char ci[512], path[] = "/tmp/askql-test-conn-XXXXXX";
	const char *msg;
	int port, s, fd = mkstemp(path);
	double t0, ms;

	(void)state;
	close(fd);
	setenv("ASKQL_TARGET_CONNECT_MS", "1000", 1);
	assert_int_equal(conf_load(path, &msg), OK);
	assert_int_equal(target_conn_seconds(), 1);

	/* a tarpit: five hosts of it with connect_timeout=10 were 50 s by libpq's own timer */
	s = listener(&port, 1);
	snprintf(ci, sizeof ci, "host=127.0.0.1,127.0.0.1,127.0.0.1,127.0.0.1,127.0.0.1 port=%d dbname=x user=x "
	         "connect_timeout=10", port);
	t0 = target_conn_now_ms();
	assert_null(target_conn_open(ci, target_conn_deadline(), &o));
	ms = target_conn_now_ms() - t0;
	if (ms < 900 || ms > 3000)
		fail_msg("the tarpit took %.0f ms, the deadline is 1000", ms);
	assert_int_equal(o.fail, TCONN_NO_SERVER);
	assert_true(o.timed_out);
	close(s);

	/* a closed port: at once, and the same code */
	listener(&port, 0);
	snprintf(ci, sizeof ci, "host=127.0.0.1 port=%d dbname=x user=x", port);
	t0 = target_conn_now_ms();
	assert_null(target_conn_open(ci, target_conn_deadline(), &o));
	assert_true(target_conn_now_ms() - t0 < 900);
	assert_int_equal(o.fail, TCONN_NO_SERVER);
	assert_false(o.timed_out);

	/* a value libpq refuses before any attempt */
	assert_null(target_conn_open("host=127.0.0.1 sslmode=bogus", target_conn_deadline(), &o));
	assert_int_equal(o.fail, TCONN_INPUT);
	unsetenv("ASKQL_TARGET_CONNECT_MS");
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_deadline),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
