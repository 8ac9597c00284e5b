/* test_verify.c: the verified mark's review (agent_verify_next): who may move it from which state to which (docs/shared-memory.md). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "agent/agent.h"

/* next FROM ACT ADMIN -> the state, or "!denied" / "!input" */
static const char *next(const char *from, enum agent_verify_action act, int admin)
{
	enum err why;
	const char *to = agent_verify_next(from, act, admin, &why);

	if (to) {
		assert_int_equal(why, OK);
		return to;
	}
	assert_true(why == ERR_DENIED || why == ERR_INPUT);
	return why == ERR_DENIED ? "!denied" : "!input";
}

static void test_analyst(void **state)
{
	/* an analyst proposes and may take a proposal back; nothing more */
	assert_string_equal(next("", VERIFY_PROPOSE, 0), "proposed");
	assert_string_equal(next("proposed", VERIFY_PROPOSE, 0), "proposed");
	assert_string_equal(next("proposed", VERIFY_RETRACT, 0), "");
	assert_string_equal(next("", VERIFY_RETRACT, 0), "");
	assert_string_equal(next("accepted", VERIFY_PROPOSE, 0), "accepted");   /* nothing to do */
	/* a rejected proposal cannot come back by the analyst's hand, nor be cleared */
	assert_string_equal(next("rejected", VERIFY_PROPOSE, 0), "!denied");
	assert_string_equal(next("rejected", VERIFY_RETRACT, 0), "!denied");
	/* what an admin accepted only an admin takes back */
	assert_string_equal(next("accepted", VERIFY_RETRACT, 0), "!denied");
	/* accepting and rejecting are an admin's, from every state */
	static const char *const all[] = {"", "proposed", "accepted", "rejected"};
	for (int i = 0; i < 4; i++) {
		assert_string_equal(next(all[i], VERIFY_ACCEPT, 0), "!denied");
		assert_string_equal(next(all[i], VERIFY_REJECT, 0), "!denied");
	}
}

static void test_admin(void **state)
{
	assert_string_equal(next("proposed", VERIFY_ACCEPT, 1), "accepted");
	assert_string_equal(next("proposed", VERIFY_REJECT, 1), "rejected");
	assert_string_equal(next("", VERIFY_ACCEPT, 1), "accepted");        /* an admin's own mark */
	assert_string_equal(next("rejected", VERIFY_ACCEPT, 1), "accepted");  /* a change of mind */
	assert_string_equal(next("accepted", VERIFY_ACCEPT, 1), "accepted");
	assert_string_equal(next("accepted", VERIFY_RETRACT, 1), "");         /* withdrawn */
	assert_string_equal(next("rejected", VERIFY_RETRACT, 1), "");
	/* rejecting applies to a proposal only: an accepted query is withdrawn instead */
	assert_string_equal(next("accepted", VERIFY_REJECT, 1), "!input");
	assert_string_equal(next("", VERIFY_REJECT, 1), "!input");
	assert_string_equal(next("rejected", VERIFY_REJECT, 1), "rejected");
}

static void test_bad_input(void **state)
{
	enum err why = OK;

	assert_null(agent_verify_next("nonsense", VERIFY_ACCEPT, 1, &why));
	assert_int_equal(why, ERR_INPUT);
	assert_null(agent_verify_next(NULL, VERIFY_ACCEPT, 1, &why));
	assert_null(agent_verify_next("", (enum agent_verify_action)42, 1, &why));
	assert_int_equal(why, ERR_INPUT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_analyst),
		cmocka_unit_test(test_admin),
		cmocka_unit_test(test_bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
