/* admin_catalog.c: the catalog of one target as a model: its tables, a table's columns, a column's values, synonyms, mappings and descriptions, edited by admins (PHI classes: admin_catalog_phi.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "agent/planner_int.h"
#include "catalog/catalog.h"
#include "pages/admin_catalog_phi.h"
#include "pages/pages.h"
#include "store/db.h"
#include "store/target.h"
#include "util/conf.h"
#include "util/log.h"
#include "util/sb.h"

#define SAMPLE_MAX 30        /* stored values shown on a column's page */
#define VALUE_SELECT_MAX 300 /* up to this many values the mapping form offers a list */

/* the target the page is about: ?target= when registered, else the default; written to out */
static void pick_target(struct req *r, char *out, size_t n)
{
	const char *want = req_param(r, "target");
	struct target t;

	if (target_resolve(db_app(), want && *want ? want : NULL, &t, NULL, 0) == OK) {
		snprintf(out, n, "%s", t.name);
		target_free(&t);
	} else {
		snprintf(out, n, "%s", conf_get("target_name"));
	}
}

/* "6388" -> "6,388" (row counts read at a glance) */
static void thousands(const char *digits, char *out, size_t n)
{
	size_t len = strlen(digits), k = 0;

	for (size_t i = 0; i < len && k + 2 < n; i++) {
		if (i && (len - i) % 3 == 0)
			out[k++] = ',';
		out[k++] = digits[i];
	}
	out[k] = '\0';
}

/* the description in the page's language: {desc, desc_lang_other} where the other language's
 * text stands in (marked) when the page's language has none */
static void add_desc(struct req *r, cJSON *o, const char *en, const char *ko)
{
	int want_ko = !strcmp(r->lang, "ko");
	const char *mine = want_ko ? ko : en, *other = want_ko ? en : ko;
	int use_other = !(mine && *mine) && other && *other;

	/* every key is set, empty when there is nothing: a template section must never find the
	 * enclosing table's description for a column that has none */
	cJSON_AddStringToObject(o, "desc", mine && *mine ? mine : use_other ? other : "");
	cJSON_AddStringToObject(o, "desc_other", use_other ? view_t(r, want_ko ? "catalog.in_english" : "catalog.in_korean") : "");
	cJSON_AddStringToObject(o, "desc_lang", use_other ? (want_ko ? "en" : "ko") : "");
	cJSON_AddStringToObject(o, "desc_en", en ? en : "");
	cJSON_AddStringToObject(o, "desc_ko", ko ? ko : "");
}

/* a string field, "" when NULL (see add_desc) */
static void add_str(cJSON *o, const char *k, const char *v)
{
	cJSON_AddStringToObject(o, k, v ? v : "");
}

static const char *val(PGresult *res, int i, int j)
{
	return PQgetisnull(res, i, j) ? NULL : PQgetvalue(res, i, j);
}

/* a text[] literal as a list [{phrase}] (cat_each_text parses the quoting) */
struct listctx { cJSON *arr; };
static void list_add(void *arg, const char *s)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "phrase", s);
	cJSON_AddItemToArray(((struct listctx *)arg)->arr, o);
}
void cat_each_text(const char *s, void (*fn)(void *, const char *), void *arg);

/* which entities (patient, case, encounter) a column identifies: the planner's keys (metadata
 * hierarchy, else names and comments, conf/lexicon/entities.tsv), and columns joined to them */
struct entkeys { char *col[ENT_NKINDS], *table[ENT_NKINDS]; };
static const char *const ent_keys[ENT_NKINDS] = {"catalog.ent_patient", "catalog.ent_case", "catalog.ent_encounter"};

static void entity_keys(const char *target, struct entkeys *k)
{
	char err[256];
	struct catalog *cat = catalog_get(db_app(), target, err, sizeof err);

	memset(k, 0, sizeof *k);
	for (int i = 0; cat && i < ENT_NKINDS; i++)
		k->col[i] = planner_entity_key(cat, NULL, i, &k->table[i]);
}

static void entity_free(struct entkeys *k)
{
	for (int i = 0; i < ENT_NKINDS; i++) {
		free(k->col[i]);
		free(k->table[i]);
	}
}

/* badges for the column table.col: the key itself, or a join edge to it (fks: from_table,
 * from_col, to_table, to_col rows of the target) */
static void add_entities(struct req *r, cJSON *o, const struct entkeys *k, PGresult *fks,
                         const char *table, const char *col)
{
	cJSON *arr = cJSON_AddArrayToObject(o, "entities");

	for (int i = 0; i < ENT_NKINDS; i++) {
		int yes = k->col[i] && !strcmp(k->col[i], col);

		/* a key that is unique nowhere (a patient of several cases) has no table of its own:
		 * then any column of that name is the key's other end */
		for (int e = 0; !yes && k->col[i] && fks && e < PQntuples(fks); e++)
			for (int side = 0; side < 2 && !yes; side++) {
				const char *t1 = PQgetvalue(fks, e, side ? 2 : 0), *c1 = PQgetvalue(fks, e, side ? 3 : 1);
				const char *t2 = PQgetvalue(fks, e, side ? 0 : 2), *c2 = PQgetvalue(fks, e, side ? 1 : 3);

				yes = !strcmp(t1, table) && !strcmp(c1, col) && !strcmp(c2, k->col[i]) &&
				      (!k->table[i] || !strcmp(t2, k->table[i]));
			}
		if (yes)
			cJSON_AddItemToArray(arr, cJSON_CreateString(view_t(r, ent_keys[i])));
	}
}

/* the table list of the target (every table, with what an admin wants to see first, its PHI
 * classes among them: phi holds the whole target's) */
static void tables_list(struct req *r, cJSON *d, const char *tname, const char *current, const struct catphi *phi)
{
	const char *p[1] = {tname};
	PGresult *res = db_query(db_app(),
		"SELECT CASE WHEN t.schema_name = 'public' THEN t.name ELSE t.schema_name || '.' || t.name END AS disp, "
		"t.row_estimate, t.comment, t.description_ko, t.full_name, "
		"(SELECT count(*) FROM askql.cat_columns c WHERE c.target = t.target AND c.schema_name = t.schema_name "
		" AND c.table_name = t.name), cardinality(t.synonyms) "
		"FROM askql.cat_tables t WHERE t.target = $1 ORDER BY 1", 1, p, NULL, 0);
	cJSON *ts = cJSON_AddArrayToObject(d, "tables");

	for (int i = 0; res && i < PQntuples(res); i++) {
		cJSON *o = cJSON_CreateObject();
		const char *rows = val(res, i, 1);
		char buf[40];

		cJSON_AddStringToObject(o, "name", PQgetvalue(res, i, 0));
		buf[0] = '\0';
		if (rows && atoll(rows) >= 0)
			thousands(rows, buf, sizeof buf);
		cJSON_AddStringToObject(o, "rows", buf);
		cJSON_AddStringToObject(o, "ncols", PQgetvalue(res, i, 5));
		cJSON_AddStringToObject(o, "nsyn", PQgetvalue(res, i, 6));
		add_str(o, "full_name", val(res, i, 4));
		add_desc(r, o, val(res, i, 2), val(res, i, 3));
		cJSON_AddBoolToObject(o, "current", current && !strcmp(current, PQgetvalue(res, i, 0)));
		catphi_counts(r, o, phi, PQgetvalue(res, i, 0));
		cJSON_AddItemToArray(ts, o);
	}
	cJSON_AddBoolToObject(d, "available", res && PQntuples(res) > 0);
	PQclear(res);
}

/* one table: its description, synonyms and columns, each with its PHI class (phi: the target's);
 * 0 when the target has no such table */
static int table_view(struct req *r, cJSON *d, const char *tname, const char *table, const char *column,
                      const struct catphi *phi)
{
	const char *p[2] = {tname, table};
	PGresult *t = db_query(db_app(),
		"SELECT schema_name, name, row_estimate, comment, description_ko, full_name, synonyms FROM askql.cat_tables "
		"WHERE target = $1 AND (CASE WHEN schema_name = 'public' THEN name ELSE schema_name || '.' || name END) = $2",
		2, p, NULL, 0);
	PGresult *cs = NULL, *fks = NULL;
	struct entkeys k;
	cJSON *to, *cols;

	if (!t || PQntuples(t) != 1) {
		PQclear(t);
		return 0;
	}
	to = cJSON_AddObjectToObject(d, "table");
	cJSON_AddStringToObject(to, "name", table);
	cJSON_AddStringToObject(to, "form_table", table);
	cJSON_AddStringToObject(to, "form_column", "");
	add_str(to, "full_name", val(t, 0, 5));
	catphi_counts(r, to, phi, table);
	add_desc(r, to, val(t, 0, 3), val(t, 0, 4));
	{
		struct listctx lc = {cJSON_AddArrayToObject(to, "synonyms")};

		cat_each_text(val(t, 0, 6), list_add, &lc);
	}
	{
		const char *q[3] = {tname, PQgetvalue(t, 0, 0), PQgetvalue(t, 0, 1)};

		cs = db_query(db_app(),
			"SELECT c.name, c.type, c.comment, c.description, c.description_ko, c.full_name, c.synonyms, c.is_pk, c.unit, "
			"(SELECT count(*) FROM askql.cat_values v WHERE v.target = c.target AND v.schema_name = c.schema_name "
			" AND v.table_name = c.table_name AND v.column_name = c.name), "
			"(SELECT string_agg(s.value, ', ') FROM (SELECT value FROM askql.cat_values v WHERE v.target = c.target "
			" AND v.schema_name = c.schema_name AND v.table_name = c.table_name AND v.column_name = c.name "
			" ORDER BY value LIMIT 3) s), "
			"(SELECT coalesce(sum(cardinality(v.synonyms)), 0) FROM askql.cat_values v WHERE v.target = c.target "
			" AND v.schema_name = c.schema_name AND v.table_name = c.table_name AND v.column_name = c.name), "
			"c.range_lo, c.range_hi "
			"FROM askql.cat_columns c WHERE c.target = $1 AND c.schema_name = $2 AND c.table_name = $3 ORDER BY c.ordinal",
			3, q, NULL, 0);
		fks = db_query(db_app(),
			"SELECT CASE WHEN from_schema = 'public' THEN from_table ELSE from_schema || '.' || from_table END, from_col, "
			"CASE WHEN to_schema = 'public' THEN to_table ELSE to_schema || '.' || to_table END, to_col "
			"FROM askql.cat_fks WHERE target = $1", 1, q, NULL, 0);
	}
	entity_keys(tname, &k);
	cols = cJSON_AddArrayToObject(to, "columns");
	for (int i = 0; cs && i < PQntuples(cs); i++) {
		cJSON *o = cJSON_CreateObject();
		const char *cn = PQgetvalue(cs, i, 0);
		const char *en = val(cs, i, 3) ? val(cs, i, 3) : val(cs, i, 2);
		long nvals = atol(PQgetvalue(cs, i, 9));
		const struct catphi_col *pc = catphi_find(phi, table, cn);
		/* a direct identifier's values are not in the value index; none is shown, whatever is stored */
		int hide = catphi_hides_values(pc);

		cJSON_AddStringToObject(o, "name", cn);
		cJSON_AddStringToObject(o, "type", PQgetvalue(cs, i, 1));
		cJSON_AddStringToObject(o, "form_table", table);
		cJSON_AddStringToObject(o, "form_column", cn);
		add_str(o, "full_name", val(cs, i, 5));
		add_str(o, "unit", val(cs, i, 8));
		{
			char range[80] = "";

			if (val(cs, i, 12) && val(cs, i, 13))
				snprintf(range, sizeof range, "%g–%g", atof(val(cs, i, 12)), atof(val(cs, i, 13)));
			cJSON_AddStringToObject(o, "range", range);
		}
		add_desc(r, o, en, val(cs, i, 4));
		cJSON_AddBoolToObject(o, "pk", *PQgetvalue(cs, i, 7) == 't');
		{
			struct sb s = SB_INIT;

			sb_puts(&s, val(cs, i, 10) && !hide ? val(cs, i, 10) : "");
			if (nvals > 3 && !hide)
				sb_printf(&s, " … (%ld)", nvals);
			cJSON_AddStringToObject(o, "samples", sb_cstr(&s));
			sb_free(&s);
		}
		{
			struct listctx lc = {cJSON_AddArrayToObject(o, "synonyms")};

			cat_each_text(val(cs, i, 6), list_add, &lc);
			cJSON_AddNumberToObject(o, "nsyn", cJSON_GetArraySize(lc.arr));
		}
		cJSON_AddNumberToObject(o, "nmap", atol(PQgetvalue(cs, i, 11)));
		add_entities(r, o, &k, fks, table, cn);
		catphi_add(r, o, pc);
		cJSON_AddBoolToObject(o, "current", column && !strcmp(column, cn));
		if (column && !strcmp(column, cn)) {
			/* the chosen column in full: its stored values with their mappings */
			const char *q[4] = {tname, PQgetvalue(t, 0, 0), PQgetvalue(t, 0, 1), cn};
			PGresult *vs = hide ? NULL : db_query(db_app(),
				"SELECT value, full_name, synonyms, cardinality(synonyms) > 0 AS mapped FROM askql.cat_values "
				"WHERE target = $1 AND schema_name = $2 AND table_name = $3 AND column_name = $4 "
				"ORDER BY mapped DESC, value LIMIT 1000", 4, q, NULL, 0);
			cJSON *co = cJSON_Duplicate(o, 1), *sv, *maps, *opts;

			sv = cJSON_AddArrayToObject(co, "values");
			maps = cJSON_AddArrayToObject(co, "mappings");
			opts = cJSON_AddArrayToObject(co, "value_options");
			for (int v = 0; vs && v < PQntuples(vs); v++) {
				const char *value = PQgetvalue(vs, v, 0);
				struct listctx lc = {cJSON_CreateArray()};
				cJSON *m;

				if (v < SAMPLE_MAX) {
					cJSON *so = cJSON_CreateObject();

					cJSON_AddStringToObject(so, "value", value);
					add_str(so, "full_name", val(vs, v, 1) && strcmp(val(vs, v, 1), value) ? val(vs, v, 1) : NULL);
					cJSON_AddItemToArray(sv, so);
				}
				if (v < VALUE_SELECT_MAX)
					cJSON_AddItemToArray(opts, cJSON_CreateString(value));
				cat_each_text(val(vs, v, 2), list_add, &lc);
				cJSON_ArrayForEach(m, lc.arr)
					cJSON_AddStringToObject(m, "value", value);
				while (cJSON_GetArraySize(lc.arr) > 0)
					cJSON_AddItemToArray(maps, cJSON_DetachItemFromArray(lc.arr, 0));
				cJSON_Delete(lc.arr);
			}
			cJSON_AddNumberToObject(co, "nvalues", hide ? 0 : nvals);
			cJSON_AddBoolToObject(co, "more_values", !hide && nvals > SAMPLE_MAX);
			cJSON_AddBoolToObject(co, "has_values", !hide && nvals > 0);
			cJSON_AddBoolToObject(co, "values_hidden", hide);
			catphi_options(r, co, pc);
			PQclear(vs);
			cJSON_AddItemToObject(d, "column", co);
		}
		cJSON_AddItemToArray(cols, o);
	}
	entity_free(&k);
	PQclear(fks);
	PQclear(cs);
	PQclear(t);
	return 1;
}

/* notices the page shows after a POST: ?notice=<word>, each an i18n key catalog.notice_<word> */
static const char *const notices[] = {"reindexed", "reindex_failed", "saved", "removed", "empty", "too_long",
                                      "no_value", "exists", "not_found", "not_indexed", "failed", NULL};
static const char *const bad_notices[] = {"reindex_failed", "empty", "too_long", "no_value", "exists",
                                          "not_found", "not_indexed", "failed", NULL};

static int in_list(const char *const *l, const char *s)
{
	for (; s && *l; l++)
		if (!strcmp(*l, s))
			return 1;
	return 0;
}

enum err page_admin_catalog(struct req *r)
{
	const char *table = req_param(r, "table"), *column = req_param(r, "column"), *n = req_param(r, "notice");
	const char *view = req_param(r, "phi"), *key;
	cJSON *d = view_data(r, "admin.catalog");
	char tname[TARGET_NAME_MAX];
	struct catphi phi;
	int review, bad = 0;

	pick_target(r, tname, sizeof tname);
	/* one target at a time: a selector of the registered ones */
	view_targets(d, tname);
	if (!cJSON_GetObjectItemCaseSensitive(d, "target"))
		cJSON_AddStringToObject(d, "target", tname);
	if (table && !*table)
		table = NULL;
	if (column && (!*column || !table))
		column = NULL;
	if (in_list(notices, n)) {
		char key[48];

		snprintf(key, sizeof key, !strcmp(n, "reindexed") || !strcmp(n, "reindex_failed") ? "web.%s" : "catalog.notice_%s", n);
		cJSON_AddStringToObject(d, "notice", view_t(r, key));
		cJSON_AddBoolToObject(d, "notice_bad", in_list(bad_notices, n));
	} else if ((key = catphi_notice(n, &bad))) {
		cJSON_AddStringToObject(d, "notice", view_t(r, key));
		cJSON_AddBoolToObject(d, "notice_bad", bad);
	}
	{
		const char *p[1] = {tname};
		PGresult *v = db_query(db_app(), "SELECT version, to_char(indexed_at, 'YYYY-MM-DD HH24:MI:SS') "
		                                 "FROM askql.cat_targets WHERE name = $1", 1, p, NULL, 0);

		if (v && PQntuples(v) == 1) {
			cJSON_AddStringToObject(d, "cat_version", PQgetvalue(v, 0, 0));
			cJSON_AddStringToObject(d, "indexed_at", PQgetvalue(v, 0, 1));
		}
		PQclear(v);
	}
	/* the classes of every column, read once: the table list counts them, the table and column
	 * views show them, the review lists those that are not none */
	catphi_load(r, tname, NULL, &phi);
	tables_list(r, d, tname, table, &phi);
	if (table && !table_view(r, d, tname, table, column, &phi)) {
		/* an unknown name is said plainly; the target's tables are still listed */
		cJSON_AddStringToObject(d, "missing", table);
		table = NULL;
	}
	if (column && !cJSON_GetObjectItemCaseSensitive(d, "column"))
		cJSON_AddStringToObject(d, "missing", column);
	review = !table && view && !strcmp(view, "review");
	{
		cJSON *sum = cJSON_AddObjectToObject(d, "phi_summary");

		catphi_counts(r, sum, &phi, NULL);
		cJSON_AddBoolToObject(sum, "classified", phi.n > 0);
	}
	if (review)
		catphi_review(r, d, &phi);
	cJSON_AddBoolToObject(d, "show_review", review);
	cJSON_AddBoolToObject(d, "show_tables", !table && !review);
	cJSON_AddBoolToObject(d, "show_table", table && !cJSON_GetObjectItemCaseSensitive(d, "column"));
	cJSON_AddBoolToObject(d, "can_index", 1);
	return view_render(r, 200, "admin_catalog", d);
}

/* where a POST returns: the page it came from, with the outcome */
static enum err back(struct req *r, const char *target, const char *table, const char *column, const char *notice)
{
	struct sb u = SB_INIT;
	enum err e;

	sb_puts(&u, "/admin/catalog?target=");
	sb_url(&u, target);
	if (table && *table) {
		sb_puts(&u, "&table=");
		sb_url(&u, table);
	}
	if (table && *table && column && *column) {
		sb_puts(&u, "&column=");
		sb_url(&u, column);
	}
	sb_printf(&u, "&notice=%s", notice);
	/* a form's own place on the page: the outcome is read where the change was made */
	if (table && *table)
		sb_puts(&u, column && *column ? "#column" : "#table");
	e = resp_redirect(r, sb_cstr(&u));
	sb_free(&u);
	return e;
}

static enum err reindex(struct req *r)
{
	struct index_opts o = {0};
	char err[512] = "", tname[TARGET_NAME_MAX];
	struct target t;
	enum err e;
	PGconn *c;

	pick_target(r, tname, sizeof tname);
	if (target_get(db_app(), tname, &t, err, sizeof err) != OK)
		return ERR_NOTFOUND;
	o.target_name = t.name;
	o.conninfo = t.conninfo;
	o.docs_dir = t.docs_dir && (!t.from_conf || access(t.docs_dir, R_OK) == 0) ? t.docs_dir : NULL;
	o.metadata_file = t.metadata_file && (!t.from_conf || access(t.metadata_file, R_OK) == 0) ? t.metadata_file : NULL;
	/* its own connection: indexing commits in steps and must not share the request's */
	if (!(c = db_connect(conf_get("app_db"), err, sizeof err))) {
		target_free(&t);
		return ERR_DB;
	}
	e = catalog_index(c, &o, err, sizeof err);
	PQfinish(c);
	target_free(&t);
	if (e != OK)
		log_error("re-index: %s", err);
	view_audit(r, "catalog.reindex", e == OK ? "{\"ok\":true}" : "{\"ok\":false}");
	/* the outcome is shown on the catalog page; a failure leaves the previous catalog */
	return back(r, tname, NULL, NULL, e == OK ? "reindexed" : "reindex_failed");
}

/* action -> the edit it asks for */
static const struct { const char *action; enum cat_edit_kind kind; int remove, edit; } actions[] = {
	{"syn_add", CAT_EDIT_SYNONYM, 0, 0}, {"syn_edit", CAT_EDIT_SYNONYM, 0, 1}, {"syn_remove", CAT_EDIT_SYNONYM, 1, 0},
	{"map_add", CAT_EDIT_MAPPING, 0, 0}, {"map_edit", CAT_EDIT_MAPPING, 0, 1}, {"map_remove", CAT_EDIT_MAPPING, 1, 0},
	{"desc_set", CAT_EDIT_DESCRIPTION, 0, 0}, {"desc_remove", CAT_EDIT_DESCRIPTION, 1, 0},
	/* the forms of before issue 15 (and scripts written against them) */
	{"synonym", CAT_EDIT_SYNONYM, 0, 0}, {"mapping", CAT_EDIT_MAPPING, 0, 0},
};

/* Every edit goes through catalog_edit: applied now, kept for re-indexing, audited, versioned. */
enum err page_admin_catalog_save(struct req *r)
{
	const char *action = req_param(r, "action");
	const char *table = req_param(r, "table"), *column = req_param(r, "column");
	struct catalog_edit ce = {0};
	char tname[TARGET_NAME_MAX], err[512] = "";
	size_t i;
	enum err e;

	if (!action)
		return ERR_INPUT;
	if (!strcmp(action, "reindex"))
		return reindex(r);
	if (!strcmp(action, "phi_set") || !strcmp(action, "phi_clear")) {
		pick_target(r, tname, sizeof tname);
		if (req_param(r, "target") && *req_param(r, "target") && strcmp(req_param(r, "target"), tname))
			return back(r, tname, NULL, NULL, "not_indexed");
		/* back to the column's page, with the outcome (an unknown column: to its table, or the list) */
		return back(r, tname, table, column, catphi_correct(r, tname, table, column, !strcmp(action, "phi_clear")));
	}
	for (i = 0; i < sizeof actions / sizeof actions[0] && strcmp(actions[i].action, action); i++)
		;
	if (i == sizeof actions / sizeof actions[0])
		return ERR_INPUT;
	pick_target(r, tname, sizeof tname);
	/* an edit names its target: one that is not registered is refused, never the default edited */
	if (req_param(r, "target") && *req_param(r, "target") && strcmp(req_param(r, "target"), tname))
		return back(r, tname, NULL, NULL, "not_indexed");
	ce.target = tname;
	ce.table = table;
	ce.column = column;
	ce.kind = actions[i].kind;
	ce.remove = actions[i].remove;
	ce.user_id = r->user.id;
	if (ce.kind == CAT_EDIT_DESCRIPTION) {
		ce.phrase = ce.remove ? "" : req_param(r, "text") ? req_param(r, "text") : "";
		ce.lang = req_param(r, "lang");
	} else {
		ce.phrase = req_param(r, "phrase");
		ce.value = req_param(r, "value");
		if (actions[i].edit) {
			ce.old_phrase = req_param(r, "old_phrase") ? req_param(r, "old_phrase") : "";
			ce.old_value = req_param(r, "old_value");
		}
	}
	if (!table || !*table)
		return back(r, tname, NULL, NULL, "not_found");
	e = catalog_edit(db_app(), &ce, NULL, err, sizeof err);
	if (e == ERR_DB || e == ERR_NOMEM) {
		log_error("catalog edit: %s", err);
		return back(r, tname, table, column, "failed");
	}
	if (e != OK)
		return back(r, tname, table, column, in_list(notices, err) ? err : "failed");
	return back(r, tname, table, column, ce.remove ? "removed" : "saved");
}
