/* slot.c: per-user concurrency slots held as session advisory locks on the app connection. */
#include <stdio.h>
#include "store/db.h"
#include "store/slot.h"
#include "util/log.h"

/*
 * Lock classes: 'asu' followed by the kind in the high bits of the low byte and the slot number
 * below, so a slot never collides with a run's liveness lock ('askq', store/run.c).
 */
#define SLOT_CLASS_BASE 0x61737500L      /* 'asu\0' */

static long slot_class(enum slot_kind kind, int slot)
{
	return SLOT_CLASS_BASE + (kind == SLOT_DOWNLOAD ? 0x80 : 0) + slot;
}

/* Two int4 keys: the class and the user id folded into int4 (ids beyond 2^31 share slots). */
static void keys(enum slot_kind kind, long long user_id, int slot, char *k1, char *k2)
{
	snprintf(k1, 16, "%ld", slot_class(kind, slot));
	snprintf(k2, 24, "%lld", user_id % 2147483647LL);
}

enum err slot_take(PGconn *c, enum slot_kind kind, long long user_id, int max, int *slot)
{
	char k1[16], k2[24];
	const char *p[2] = {k1, k2};

	*slot = -1;
	if (max <= 0)
		return OK;
	if (max > SLOT_MAX)
		max = SLOT_MAX;
	/* one try per slot: a failed try takes nothing, so there is nothing to undo */
	for (int i = 0; i < max; i++) {
		PGresult *r;
		int got;

		keys(kind, user_id, i, k1, k2);
		r = db_query(c, "SELECT pg_try_advisory_lock($1::int, $2::int)", 2, p, NULL, 0);
		if (!r)
			return ERR_DB;
		got = PQntuples(r) == 1 && PQgetvalue(r, 0, 0)[0] == 't';
		PQclear(r);
		if (got) {
			*slot = i;
			return OK;
		}
	}
	return ERR_LIMIT;
}

void slot_give(PGconn *c, enum slot_kind kind, long long user_id, int slot)
{
	char k1[16], k2[24];
	const char *p[2] = {k1, k2};

	if (slot < 0)
		return;
	keys(kind, user_id, slot, k1, k2);
	/* false only when the connection was reset meanwhile, which dropped the lock already */
	if (db_exec(c, "SELECT pg_advisory_unlock($1::int, $2::int)", 2, p, NULL, 0) != OK)
		log_warn("slot %d of user %lld: release failed", slot, user_id);
}
