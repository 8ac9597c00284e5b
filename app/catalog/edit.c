/* edit.c: an admin's edit of one target's catalog (synonym, value mapping, description): applied now, kept for re-indexing, audited, versioned. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "catalog/catalog.h"
#include "store/db.h"
#include "util/conf.h"
#include "util/sb.h"

#define PHRASE_MAX 200
#define DESC_MAX 2000

static const char *const kind_names[] = {"synonym", "mapping", "description"};

/* ---- the stored metadata JSON (what the offline planner reads: planner_snap.c) ---- */

static cJSON *obj_at(cJSON *o, const char *k)
{
	cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);

	if (!cJSON_IsObject(it)) {
		cJSON_DeleteItemFromObjectCaseSensitive(o, k);
		it = cJSON_AddObjectToObject(o, k);
	}
	return it;
}

static cJSON *arr_at(cJSON *o, const char *k)
{
	cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);

	if (!cJSON_IsArray(it)) {
		cJSON_DeleteItemFromObjectCaseSensitive(o, k);
		it = cJSON_AddArrayToObject(o, k);
	}
	return it;
}

/* add (once) or remove s in a list of strings */
static void list_put(cJSON *arr, const char *s, int add)
{
	int i = 0;

	for (cJSON *it = arr ? arr->child : NULL, *nx; it; it = nx, i++) {
		nx = it->next;
		if (cJSON_IsString(it) && !strcmp(it->valuestring, s)) {
			if (add)
				return;
			cJSON_DeleteItemFromArray(arr, i--);
		}
	}
	if (add && arr)
		cJSON_AddItemToArray(arr, cJSON_CreateString(s));
}

/* the entry of metadata "values" for column q = value, created when create is set */
static cJSON *value_entry(cJSON *meta, const char *q, const char *value, int create)
{
	cJSON *vals = arr_at(meta, "values"), *it, *e;

	cJSON_ArrayForEach(it, vals) {
		cJSON *c = cJSON_GetObjectItemCaseSensitive(it, "column"), *v = cJSON_GetObjectItemCaseSensitive(it, "value");

		if (cJSON_IsString(c) && cJSON_IsString(v) && !strcmp(c->valuestring, q) && !strcmp(v->valuestring, value))
			return it;
	}
	if (!create || !(e = cJSON_CreateObject()))
		return NULL;
	cJSON_AddStringToObject(e, "column", q);
	cJSON_AddStringToObject(e, "value", value);
	cJSON_AddArrayToObject(e, "synonyms");
	cJSON_AddItemToArray(vals, e);
	return e;
}

/* one add or remove of phrase in the metadata JSON; table is the display name, q "table.column" */
static void meta_phrase(cJSON *meta, enum cat_edit_kind k, const char *table, const char *q,
                        const char *value, const char *phrase, int add)
{
	if (k == CAT_EDIT_MAPPING) {
		cJSON *e = value_entry(meta, q, value, add);

		if (e)
			list_put(arr_at(e, "synonyms"), phrase, add);
	} else if (q)
		list_put(arr_at(obj_at(obj_at(meta, "columns"), q), "synonyms"), phrase, add);
	else
		list_put(arr_at(obj_at(obj_at(meta, "tables"), table), "synonyms"), phrase, add);
}

static void meta_description(cJSON *meta, const char *table, const char *q, const char *lang, const char *text)
{
	cJSON *o = q ? obj_at(obj_at(meta, "columns"), q) : obj_at(obj_at(meta, "tables"), table);
	const char *key = !strcmp(lang, "ko") ? "description_ko" : "description";

	cJSON_DeleteItemFromObjectCaseSensitive(o, key);
	if (*text)
		cJSON_AddStringToObject(o, key, text);
}

/* ---- the catalog rows ---------------------------------------------------------------- */

/* add or remove phrase in the synonyms of the table, column or value row; 1 when a row changed,
 * 0 when none did (not there to remove, or already there), -1 on a database error */
static int row_phrase(PGconn *app, enum cat_edit_kind k, const char *const *key, const char *phrase,
                      int add, char *err, size_t errlen)
{
	/* key: target, schema, table (bare), column, value */
	const char *p[6] = {key[0], key[1], key[2], key[3], key[4], phrase};
	const char *sql;
	PGresult *r;
	int n;

	if (k == CAT_EDIT_MAPPING)
		sql = add ? "UPDATE askql.cat_values SET synonyms = array_append(synonyms, $6) WHERE target = $1 AND "
		            "schema_name = $2 AND table_name = $3 AND column_name = $4 AND value = $5 AND NOT $6 = ANY(synonyms) RETURNING 1"
		          : "UPDATE askql.cat_values SET synonyms = array_remove(synonyms, $6) WHERE target = $1 AND "
		            "schema_name = $2 AND table_name = $3 AND column_name = $4 AND value = $5 AND $6 = ANY(synonyms) RETURNING 1";
	else if (*key[3])
		sql = add ? "UPDATE askql.cat_columns SET synonyms = array_append(synonyms, $6) WHERE target = $1 AND "
		            "schema_name = $2 AND table_name = $3 AND name = $4 AND $5 = '' AND NOT $6 = ANY(synonyms) RETURNING 1"
		          : "UPDATE askql.cat_columns SET synonyms = array_remove(synonyms, $6) WHERE target = $1 AND "
		            "schema_name = $2 AND table_name = $3 AND name = $4 AND $5 = '' AND $6 = ANY(synonyms) RETURNING 1";
	else
		sql = add ? "UPDATE askql.cat_tables SET synonyms = array_append(synonyms, $6) WHERE target = $1 AND "
		            "schema_name = $2 AND name = $3 AND $4 = '' AND $5 = '' AND NOT $6 = ANY(synonyms) RETURNING 1"
		          : "UPDATE askql.cat_tables SET synonyms = array_remove(synonyms, $6) WHERE target = $1 AND "
		            "schema_name = $2 AND name = $3 AND $4 = '' AND $5 = '' AND $6 = ANY(synonyms) RETURNING 1";
	if (!(r = db_query(app, sql, 6, p, err, errlen)))
		return -1;
	n = PQntuples(r);
	PQclear(r);
	return n > 0;
}

/* keep the latest decision on (target, kind, table, column, value, phrase or language) only */
static enum err record(PGconn *app, const char *const *key, const char *dflt, enum cat_edit_kind k,
                       const char *op, const char *phrase, const char *lang, char *err, size_t errlen)
{
	const char *tbl = key[5];
	const char *p[9] = {key[0], dflt, kind_names[k], tbl, key[3], key[4], phrase, op, lang};
	enum err e;

	e = db_exec(app, k == CAT_EDIT_DESCRIPTION ?
	            "DELETE FROM askql.catalog_edits WHERE coalesce(target, $2) = $1 AND kind = $3 AND tbl = $4 "
	            "AND col = $5 AND value = $6 AND $7::text IS NOT NULL AND $8::text IS NOT NULL AND lang = $9" :
	            "DELETE FROM askql.catalog_edits WHERE coalesce(target, $2) = $1 AND kind = $3 AND tbl = $4 "
	            "AND col = $5 AND value = $6 AND phrase = $7 AND $8::text IS NOT NULL AND $9::text IS NOT NULL",
	            9, p, err, errlen);
	if (e != OK)
		return e;
	const char *q[8] = {key[0], kind_names[k], tbl, key[3], key[4], phrase, op, lang};

	return db_exec(app, "INSERT INTO askql.catalog_edits (target, kind, tbl, col, value, phrase, op, lang) "
	               "VALUES ($1, $2, $3, $4, $5, $6, $7, $8)", 8, q, err, errlen);
}

static const char *action_name(const struct catalog_edit *e)
{
	static char buf[48];

	snprintf(buf, sizeof buf, "catalog.%s.%s", kind_names[e->kind],
	         e->kind == CAT_EDIT_DESCRIPTION ? (*e->phrase ? "set" : "remove") :
	         e->remove ? "remove" : e->old_phrase ? "edit" : "add");
	return buf;
}

static void jfield(struct sb *sb, const char *k, const char *v)
{
	if (!v)
		return;
	sb_printf(sb, ",\"%s\":", k);
	sb_json_str(sb, v);
}

/* s without leading and trailing white space, into buf (n bytes); NULL stays NULL, a longer text
 * is cut at n - 1 bytes, which the length checks below then refuse */
static const char *trim(const char *s, char *buf, size_t n)
{
	size_t l;

	if (!s)
		return NULL;
	while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
		s++;
	l = strlen(s);
	while (l && (s[l - 1] == ' ' || s[l - 1] == '\t' || s[l - 1] == '\r' || s[l - 1] == '\n'))
		l--;
	if (l >= n)
		l = n - 1;
	memcpy(buf, s, l);
	buf[l] = '\0';
	return buf;
}

enum err catalog_edit(PGconn *app, const struct catalog_edit *in, long *version, char *err, size_t errlen)
{
	/* phrases and texts as meant: "  칼륨 " is 칼륨 */
	char ph[DESC_MAX + 2], oph[PHRASE_MAX + 2], vb[PHRASE_MAX + 2], ovb[PHRASE_MAX + 2];
	struct catalog_edit te = *in;
	const struct catalog_edit *e = &te;

	te.phrase = trim(in->phrase, ph, sizeof ph);
	te.old_phrase = trim(in->old_phrase, oph, sizeof oph);
	te.value = trim(in->value, vb, sizeof vb);
	te.old_value = trim(in->old_value, ovb, sizeof ovb);

	const char *dflt = conf_get("target_name");
	const char *col = e->column && *e->column ? e->column : NULL;
	const char *value = e->kind == CAT_EDIT_MAPPING && e->value ? e->value : "";
	const char *old_value = e->old_value && *e->old_value ? e->old_value : value;
	char schema[128] = "", bare[256] = "", disp[400], q[600];
	cJSON *meta = NULL;
	PGresult *r = NULL;
	struct sb det = SB_INIT;
	enum err rc = ERR_INPUT;
	char *mtext = NULL;
	int n;

	if (version)
		*version = -1;
	/* what the caller must get right before anything is touched */
	if (!e->target || !*e->target || !e->table || !*e->table || !e->phrase) {
		err_set(err, errlen, "empty");
		return ERR_INPUT;
	}
	if (e->kind == CAT_EDIT_DESCRIPTION) {
		if (!e->lang || (strcmp(e->lang, "en") && strcmp(e->lang, "ko"))) {
			err_set(err, errlen, "bad_lang");
			return ERR_INPUT;
		}
		if (strlen(e->phrase) > DESC_MAX) {
			err_set(err, errlen, "too_long");
			return ERR_INPUT;
		}
	} else {
		if (!*e->phrase || (e->old_phrase && !*e->old_phrase)) {
			err_set(err, errlen, "empty");
			return ERR_INPUT;
		}
		if (strlen(e->phrase) > PHRASE_MAX) {
			err_set(err, errlen, "too_long");
			return ERR_INPUT;
		}
		if (e->kind == CAT_EDIT_MAPPING && (!col || !*value)) {
			err_set(err, errlen, "no_value");
			return ERR_INPUT;
		}
	}
	if ((rc = db_exec(app, "BEGIN", 0, NULL, err, errlen)) != OK)
		return rc;
	/* the target's row, locked: edits of one target are applied one at a time */
	{
		const char *p[1] = {e->target};

		if (!(r = db_query(app, "SELECT metadata FROM askql.cat_targets WHERE name = $1 FOR UPDATE", 1, p, err, errlen)))
			goto dberr;
		if (PQntuples(r) != 1) {
			err_set(err, errlen, "not_indexed");
			rc = ERR_NOTFOUND;
			goto fail;
		}
		meta = PQgetisnull(r, 0, 0) ? cJSON_CreateObject() : cJSON_Parse(PQgetvalue(r, 0, 0));
		if (!cJSON_IsObject(meta)) {
			cJSON_Delete(meta);
			meta = cJSON_CreateObject();
		}
		PQclear(r);
		r = NULL;
	}
	/* the table by its display name ("t" in public, "schema.t" elsewhere) and the column */
	{
		const char *p[3] = {e->target, e->table, col ? col : ""};

		if (!(r = db_query(app, "SELECT t.schema_name, t.name FROM askql.cat_tables t WHERE t.target = $1 AND "
		                   "(CASE WHEN t.schema_name = 'public' THEN t.name ELSE t.schema_name || '.' || t.name END) = $2 "
		                   "AND ($3 = '' OR EXISTS (SELECT 1 FROM askql.cat_columns c WHERE c.target = t.target AND "
		                   "c.schema_name = t.schema_name AND c.table_name = t.name AND c.name = $3))", 3, p, err, errlen)))
			goto dberr;
		if (PQntuples(r) != 1) {
			err_set(err, errlen, "not_found");
			rc = ERR_NOTFOUND;
			goto fail;
		}
		snprintf(schema, sizeof schema, "%s", PQgetvalue(r, 0, 0));
		snprintf(bare, sizeof bare, "%s", PQgetvalue(r, 0, 1));
		PQclear(r);
		r = NULL;
		snprintf(disp, sizeof disp, "%s", e->table);
		snprintf(q, sizeof q, "%s.%s", disp, col ? col : "");
	}
	{
		const char *key[6] = {e->target, schema, bare, col ? col : "", "", disp};

		if (e->kind == CAT_EDIT_DESCRIPTION) {
			const char *p[5] = {e->target, schema, bare, col ? col : "", e->phrase};
			int ko = !strcmp(e->lang, "ko");
			const char *sql = col ? (ko ? "UPDATE askql.cat_columns SET description_ko = NULLIF($5, '') WHERE target = $1 "
			                              "AND schema_name = $2 AND table_name = $3 AND name = $4 RETURNING 1"
			                            : "UPDATE askql.cat_columns SET description = NULLIF($5, '') WHERE target = $1 "
			                              "AND schema_name = $2 AND table_name = $3 AND name = $4 RETURNING 1")
			                      : (ko ? "UPDATE askql.cat_tables SET description_ko = NULLIF($5, '') WHERE target = $1 "
			                              "AND schema_name = $2 AND name = $3 AND $4 = '' RETURNING 1"
			                            : "UPDATE askql.cat_tables SET comment = NULLIF($5, '') WHERE target = $1 "
			                              "AND schema_name = $2 AND name = $3 AND $4 = '' RETURNING 1");

			if (!(r = db_query(app, sql, 5, p, err, errlen)))
				goto dberr;
			PQclear(r);
			r = NULL;
			if ((rc = record(app, key, dflt, e->kind, "set", e->phrase, e->lang, err, errlen)) != OK)
				goto fail;
			meta_description(meta, disp, col ? q : NULL, e->lang, e->phrase);
		} else {
			/* an edit is the old phrase (or mapping) removed and the new one added */
			if (e->remove || e->old_phrase) {
				const char *rm = e->old_phrase ? e->old_phrase : e->phrase;

				key[4] = e->kind == CAT_EDIT_MAPPING ? old_value : "";
				if ((n = row_phrase(app, e->kind, key, rm, 0, err, errlen)) < 0)
					goto dberr;
				if (n == 0) {
					err_set(err, errlen, "not_found");
					rc = ERR_NOTFOUND;
					goto fail;
				}
				if ((rc = record(app, key, dflt, e->kind, "remove", rm, "", err, errlen)) != OK)
					goto fail;
				meta_phrase(meta, e->kind, disp, col ? q : NULL, key[4], rm, 0);
			}
			if (!e->remove) {
				key[4] = value;
				if ((n = row_phrase(app, e->kind, key, e->phrase, 1, err, errlen)) < 0)
					goto dberr;
				if (n == 0) {
					/* a mapping needs a stored value of the column; otherwise the phrase is there */
					const char *p[5] = {e->target, schema, bare, col ? col : "", value};

					if (e->kind == CAT_EDIT_MAPPING &&
					    (r = db_query(app, "SELECT 1 FROM askql.cat_values WHERE target = $1 AND schema_name = $2 "
					                  "AND table_name = $3 AND column_name = $4 AND value = $5", 5, p, err, errlen)) &&
					    PQntuples(r) == 0)
						err_set(err, errlen, "no_value");
					else
						err_set(err, errlen, "exists");
					rc = ERR_INPUT;
					goto fail;
				}
				if ((rc = record(app, key, dflt, e->kind, "add", e->phrase, "", err, errlen)) != OK)
					goto fail;
				meta_phrase(meta, e->kind, disp, col ? q : NULL, value, e->phrase, 1);
			}
		}
	}
	/* the stored metadata and a new version: every worker reloads the catalog (cache.c) and the
	 * planner's view of it (planner_snap.c) before its next question */
	if (!(mtext = cJSON_PrintUnformatted(meta))) {
		rc = ERR_NOMEM;
		goto fail;
	}
	{
		const char *p[2] = {e->target, mtext};

		if (!(r = db_query(app, "UPDATE askql.cat_targets SET metadata = $2::jsonb, version = version + 1, "
		                   "changed_at = now() WHERE name = $1 RETURNING version", 2, p, err, errlen)))
			goto dberr;
		if (version)
			*version = atol(PQgetvalue(r, 0, 0));
	}
	/* the audit entry, in the same transaction: no edit without its record */
	sb_puts(&det, "{\"target\":");
	sb_json_str(&det, e->target);
	jfield(&det, "table", disp);
	jfield(&det, "column", col);
	jfield(&det, e->kind == CAT_EDIT_DESCRIPTION ? "text" : "phrase", e->remove && e->kind != CAT_EDIT_DESCRIPTION ? NULL : e->phrase);
	jfield(&det, e->remove ? "phrase" : "old_phrase", e->remove ? e->phrase : e->old_phrase);
	jfield(&det, "value", e->kind == CAT_EDIT_MAPPING ? value : NULL);
	jfield(&det, "old_value", e->kind == CAT_EDIT_MAPPING && e->old_phrase && strcmp(old_value, value) ? old_value : NULL);
	jfield(&det, "lang", e->kind == CAT_EDIT_DESCRIPTION ? e->lang : NULL);
	sb_printf(&det, ",\"version\":%s}", PQgetvalue(r, 0, 0));
	PQclear(r);
	r = NULL;
	{
		char uid[24];
		const char *p[3] = {uid, action_name(e), sb_cstr(&det)};

		snprintf(uid, sizeof uid, "%lld", e->user_id);
		if (!sb_ok(&det)) {
			rc = ERR_NOMEM;
			goto fail;
		}
		if ((rc = db_exec(app, "INSERT INTO askql.audit (user_id, action, detail) VALUES (NULLIF($1, '0')::bigint, $2, $3::jsonb)",
		                  3, p, err, errlen)) != OK)
			goto fail;
	}
	if ((rc = db_exec(app, "COMMIT", 0, NULL, err, errlen)) != OK)
		goto fail;
	goto out;
dberr:
	rc = ERR_DB;
fail:
	PQclear(r);
	db_exec(app, "ROLLBACK", 0, NULL, NULL, 0);
	if (version)
		*version = -1;
out:
	free(mtext);
	cJSON_Delete(meta);
	sb_free(&det);
	return rc;
}
