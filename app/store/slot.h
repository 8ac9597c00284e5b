/* slot.h: per-user limits on concurrent work (runs, downloads) as PostgreSQL advisory-lock slots. */
#ifndef ASKQL_SLOT_H
#define ASKQL_SLOT_H

#include <libpq-fe.h>
#include "util/err.h"

/* What a slot is for; each kind has its own slots per user. */
enum slot_kind { SLOT_RUN, SLOT_DOWNLOAD };

#define SLOT_MAX 64          /* a configured limit above this is treated as this */

/*
 * A user's slot k is the session advisory lock (class of kind + k, user id) on connection c.
 * Whichever worker process holds it, every other one sees it taken; PostgreSQL drops it when
 * the connection ends, so a killed worker never keeps a slot.
 *
 * slot_take: take a free slot of kind for user_id among the first max ones.  OK with its number
 * in *slot; OK with *slot = -1 when max <= 0 (no limit: nothing taken); ERR_LIMIT when all max
 * are held; ERR_DB when the database did not answer (nothing held then).
 */
enum err slot_take(PGconn *c, enum slot_kind kind, long long user_id, int max, int *slot);
/* slot_give: release a slot taken by slot_take on the same connection; slot -1 is a no-op. */
void slot_give(PGconn *c, enum slot_kind kind, long long user_id, int slot);

#endif
