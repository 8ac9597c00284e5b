/* test_sha256.c: SHA-256 against the FIPS 180-4 example vectors. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "util/sha256.h"

static void test_vectors(void **state)
{
	char hex[65];
	char million[1000];
	struct sha256 s;
	unsigned char d[32];

	(void)state;
	sha256_hex("abc", 3, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	sha256_hex("", 0, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, hex);
	assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	/* one million 'a', fed in pieces to exercise buffering */
	memset(million, 'a', sizeof million);
	sha256_init(&s);
	for (int i = 0; i < 1000; i++)
		sha256_update(&s, million, sizeof million);
	sha256_final(&s, d);
	assert_int_equal(d[0], 0xcd);
	assert_int_equal(d[1], 0xc7);
	assert_int_equal(d[31], 0xd0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_vectors)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
