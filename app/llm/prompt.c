/* prompt.c: prompt files loaded into askql.prompts as version 1, versions activated and read back. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/parser.h>
#include "llm/prompt.h"
#include "store/db.h"
#include "util/conf.h"
#include "util/file.h"
#include "util/log.h"
#include "util/sb.h"


static const char *dir_or_conf(const char *dir)
{
	return dir && *dir ? dir : conf_get("prompt_dir");
}

/* sync_one: p = {name, file body}.  A new name gets the file as version 1.  A file whose text is
 * not yet among the name's versions (askql shipped a new prompt) becomes the next version, and the
 * active one only while the active version came from a file: an admin's edit stays active until
 * they choose otherwise, and a rollback to an older file version sticks, because that text is
 * stored already (README, "LLM client").  One transaction under the name's lock (prompt_add's). */
static enum err sync_one(PGconn *app, const char *const p[2], char *err, size_t errlen)
{
	if (db_exec(app, "BEGIN", 0, NULL, err, errlen) != OK)
		return ERR_DB;
	if (db_exec(app, "SELECT pg_advisory_xact_lock(hashtext('askql.prompts:' || $1))", 1, p, err, errlen) != OK ||
	    db_exec(app, "INSERT INTO askql.prompts(name, version, body, author, note, active)"
	                 " SELECT $1, 1, $2, 'file', 'loaded from conf/prompts', true"
	                 " WHERE NOT EXISTS (SELECT 1 FROM askql.prompts WHERE name = $1)"
	                 " ON CONFLICT DO NOTHING", 2, p, err, errlen) != OK ||
	    db_exec(app, "WITH cur AS (SELECT author = 'file' AS from_file FROM askql.prompts"
	                 "             WHERE name = $1 AND active ORDER BY version DESC LIMIT 1),"
	                 " ins AS (INSERT INTO askql.prompts(name, version, body, author, note, active)"
	                 "         SELECT $1, max(version) + 1, $2, 'file', 'updated from conf/prompts',"
	                 "                coalesce((SELECT from_file FROM cur), true)"
	                 "         FROM askql.prompts WHERE name = $1"
	                 "         HAVING NOT bool_or(body = $2)"
	                 "         RETURNING version, active)"
	                 " UPDATE askql.prompts SET active = false"
	                 " WHERE name = $1 AND active AND (SELECT active FROM ins)", 2, p, err, errlen) != OK) {
		db_exec(app, "ROLLBACK", 0, NULL, NULL, 0);
		return ERR_DB;
	}
	return db_exec(app, "COMMIT", 0, NULL, err, errlen) == OK ? OK : ERR_DB;
}

enum err prompt_sync(PGconn *app, const char *dir)
{
	DIR *d;
	struct dirent *de;
	enum err rc = OK;

	dir = dir_or_conf(dir);
	if (!(d = opendir(dir))) {
		log_warn("prompt_sync: cannot open %s", dir);
		return ERR_IO;
	}
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		char path[1024], name[256], err[256];
		const char *p[2];
		char *body;

		if (l < 5 || l - 4 >= sizeof name || strcmp(de->d_name + l - 4, ".xml") || de->d_name[0] == '.')
			continue;
		snprintf(name, sizeof name, "%.*s", (int)(l - 4), de->d_name);
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		if (!(body = file_read(path, 0, NULL)))
			continue;
		p[0] = name;
		p[1] = body;
		if (sync_one(app, p, err, sizeof err) != OK) {
			log_warn("prompt_sync %s: %s", name, err);
			rc = ERR_DB;
		}
		free(body);
	}
	closedir(d);
	return rc;
}

char *prompt_get(PGconn *app, const char *name, int *version)
{
	const char *p[1] = {name};
	char path[1024], *body;
	PGresult *r;

	if (version)
		*version = 0;
	if (app && (r = db_query(app, "SELECT body, version FROM askql.prompts WHERE name = $1 AND active"
	                              " ORDER BY version DESC LIMIT 1", 1, p, NULL, 0))) {
		if (PQntuples(r) == 1) {
			char *b = strdup(PQgetvalue(r, 0, 0));

			if (version)
				*version = atoi(PQgetvalue(r, 0, 1));
			PQclear(r);
			return b;
		}
		PQclear(r);
	}
	if (strchr(name, '/') || strstr(name, ".."))
		return NULL;
	snprintf(path, sizeof path, "%s/%s.xml", dir_or_conf(NULL), name);
	body = file_read(path, 0, NULL);
	if (body && app) {
		/* first use of this prompt: its file becomes version 1 (as prompt_sync does) */
		const char *q[2] = {name, body};

		db_exec(app, "INSERT INTO askql.prompts(name, version, body, author, note, active)"
		             " SELECT $1, 1, $2, 'file', 'loaded from conf/prompts', true"
		             " WHERE NOT EXISTS (SELECT 1 FROM askql.prompts WHERE name = $1)"
		             " ON CONFLICT DO NOTHING", 2, q, NULL, 0);
	}
	return body;
}

enum err prompt_add(PGconn *app, const char *name, const char *body, const char *author,
                    const char *note, int *version)
{
	const char *p[4] = {name, body, author, note};
	char err[256];
	xmlDocPtr doc;
	PGresult *r;
	enum err rc = OK;

	if (!body || !*body || !name || !*name)
		return ERR_INPUT;
	/* A prompt that does not parse would break every run: refuse it here. */
	if (!(doc = xmlReadMemory(body, (int)strlen(body), "prompt.xml", NULL,
	                          XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING)))
		return ERR_INPUT;
	xmlFreeDoc(doc);
	if (db_exec(app, "BEGIN", 0, NULL, err, sizeof err) != OK)
		return ERR_DB;
	db_exec(app, "SELECT pg_advisory_xact_lock(hashtext('askql.prompts:' || $1))", 1, p, NULL, 0);
	if (db_exec(app, "UPDATE askql.prompts SET active = false WHERE name = $1 AND active", 1, p,
	            err, sizeof err) != OK ||
	    !(r = db_query(app, "INSERT INTO askql.prompts(name, version, body, author, note, active)"
	                        " SELECT $1, coalesce(max(version), 0) + 1, $2, $3, $4, true"
	                        " FROM askql.prompts WHERE name = $1 RETURNING version",
	                   4, p, err, sizeof err))) {
		log_error("prompt_add %s: %s", name, err);
		rc = ERR_DB;
		goto rollback;
	}
	if (version)
		*version = atoi(PQgetvalue(r, 0, 0));
	PQclear(r);
	if (db_exec(app, "COMMIT", 0, NULL, err, sizeof err) != OK)
		return ERR_DB;
	return OK;
rollback:
	db_exec(app, "ROLLBACK", 0, NULL, NULL, 0);
	return rc;
}

enum err prompt_set_version(PGconn *app, const char *name, int version)
{
	char v[16], err[256];
	const char *p[2] = {name, v};
	PGresult *r;
	int found;

	snprintf(v, sizeof v, "%d", version);
	if (db_exec(app, "BEGIN", 0, NULL, err, sizeof err) != OK)
		return ERR_DB;
	r = db_query(app, "SELECT 1 FROM askql.prompts WHERE name = $1 AND version = $2::int", 2, p,
	             err, sizeof err);
	found = r && PQntuples(r) == 1;
	PQclear(r);
	if (!found) {
		db_exec(app, "ROLLBACK", 0, NULL, NULL, 0);
		return r ? ERR_NOTFOUND : ERR_DB;
	}
	if (db_exec(app, "UPDATE askql.prompts SET active = (version = $2::int) WHERE name = $1", 2, p,
	            err, sizeof err) != OK ||
	    db_exec(app, "COMMIT", 0, NULL, err, sizeof err) != OK) {
		db_exec(app, "ROLLBACK", 0, NULL, NULL, 0);
		return ERR_DB;
	}
	return OK;
}

char *prompt_render(const char *tmpl, const char *const *keys, const char *const *vals, int n)
{
	struct sb out = SB_INIT;
	const char *s = tmpl, *o;

	while ((o = strstr(s, "{{"))) {
		const char *c = strstr(o + 2, "}}");
		int i;

		if (!c)
			break;
		sb_append(&out, s, (size_t)(o - s));
		for (i = 0; i < n; i++)
			if (strlen(keys[i]) == (size_t)(c - o - 2) && !strncmp(keys[i], o + 2, (size_t)(c - o - 2)))
				break;
		if (i < n)
			sb_puts(&out, vals[i]);
		else
			sb_append(&out, o, (size_t)(c + 2 - o));
		s = c + 2;
	}
	sb_puts(&out, s);
	if (!sb_ok(&out)) {
		sb_free(&out);
		return NULL;
	}
	if (!out.buf)
		return strdup("");
	return sb_steal(&out);
}
