/* conf.c: settings table with defaults, file and environment layers. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "conf.h"

static struct conf_item items[] = {
	/* databases */
	{"app_db", "dbname=askql", 0, "libpq conninfo of the app schema (users, runs, catalog)", 0, 0},
	{"target_db", "dbname=demo", 0, "libpq conninfo of the default target database (indexing: a role that may read its catalogs and tables)", 0, 0},
	{"target_ro_db", "", 0, "conninfo the executor uses: the least-privilege read-only role (empty: target_db)", 0, 0},
	{"pg_passfile", "", 0, "libpq password file (mode 0600) with the passwords of the roles the conninfos above name; PGPASSFILE in the environment wins; empty: libpq's own (~/.pgpass) (docs/pg-auth.md)", 0, 0},
	{"target_name", "demo", 0, "name of the default target in the catalog", 0, 0},
	{"target_secrets_file", "var/target-secrets", 0, "where registered targets' passwords (password, sslpassword) are kept, by target name, out of askql.targets; 0600, the service user's (docs/privacy.md)", 0, 0},
	{"audit_anchor_file", "var/audit.anchor", 0, "where `askql audit anchor` appends the heads of the audit chains and `askql audit verify` checks them; 0600 (docs/privacy.md)", 0, 0},
	{"allow_system_catalogs", "0", 0, "1: the guard lets SELECTs read pg_catalog / information_schema", 0, 0},
	/* executor */
	{"statement_timeout_ms", "30000", 0, "statement_timeout for analyst SQL", 0, 0},
	{"lock_timeout_ms", "2000", 0, "lock_timeout for analyst SQL", 0, 0},
	{"idle_tx_timeout_ms", "60000", 0, "idle_in_transaction_session_timeout for analyst SQL", 0, 0},
	{"preview_limit", "1000", 0, "LIMIT the guard adds to previews when the SQL has none", 0, 0},
	{"answer_llm_rows", "0", 0, "when an LLM is configured, the run page's answer sentence comes from it for aggregate results of at most this many rows (only those rows are sent; row-level results never are); 0: always the offline sentence", 0, 0},
	{"max_rows", "1000000", 0, "most rows an export may stream", 0, 0},
	{"max_page_bytes", "4194304", 0, "most result bytes kept for one page", 0, 0},
	{"exec_fetch_bytes", "8388608", 0, "most result bytes the executor holds in a worker at once: a FETCH is sized to fit, wide rows come one at a time, and a row wider than this ends the result as truncated (docs/executor-limits.md)", 0, 0},
	{"exec_work_mem_kb", "8192", 0, "work_mem (kB) set for every executor transaction: memory per sort or hash before it spills to temp files", 0, 0},
	{"exec_temp_file_limit_kb", "262144", 0, "temp_file_limit (kB) for analyst SQL: set per transaction when the executor's role may, else given to the reader role where it is created (scripts/lib.sh); 0: not set", 0, 0},
	{"exec_max_agg_rows", "10000000", 0, "most rows the planner may estimate to feed one accumulating aggregate (array_agg, string_agg, json_agg, jsonb_agg, xmlagg): their state grows in one database process whatever work_mem says, so a statement over more is refused before it runs (docs/executor-limits.md; 0: not checked)", 0, 0},
	{"exec_max_series_rows", "10000000", 0, "most rows the planner may estimate one generate_series to make; a statement over more is refused before it runs (docs/executor-limits.md; 0: not checked)", 0, 0},
	{"exec_max_cost", "1000000000", 0, "highest total cost of the planner's estimate for an analyst statement; one over it is refused before it runs (docs/executor-limits.md; 0: not checked)", 0, 0},
	{"csv_escape_formulas", "1", 0, "1: CSV downloads from the web start a text cell (or column name) that begins with = + - @, tab or carriage return with ' so a spreadsheet shows it instead of running it as a formula; numbers stay numbers (docs/csv-formulas.md). The CLI does so only with --escape-formulas", 0, 0},
	{"suppress_k", "11", 0, "aggregate access level and files for release: the statement itself (HAVING) leaves out every result group with fewer distinct patients than this, so no small group reaches the result, the chart or a download (store/level.h, sql/suppress.h)", 0, 0},
	{"suppress_patient_keys", "subject_id,subjectid,patient_id,person_id,ptnt_no,pt_no", 0, "aggregate access level and files for release: the column names, in order, that hold a patient's key; a query must read a table with one of them, and each group's patients are counted with it (for every table that has one)", 0, 0},
	{"release_round", "5", 0, "aggregate access level and files for release: every count and sum is rounded to a multiple of this, totals included, so a total less its parts tells no left-out group exactly; 1 or less: not rounded (sql/suppress.h)", 0, 0},
	{"release_noise_key", "0", 1, "aggregate access level and files for release: the secret seed (a number) of the cell keys that fix each group's noise on sums and averages; `make run` keeps one in var/noise.key. Known, it lets an analyst who also knows which patients are in a group take the noise off; changed, every group gets new noise (docs/privacy.md \"Differencing\")", 0, 0},
	{"explain_hypopg", "1", 0, "1: askql explain tries suggested indexes with hypopg on target_db (the extension installed there, or a role that may create it)", 0, 0},
	/* agent and LLM */
	{"max_retries", "3", 0, "planner attempts in the self-correction loop", 0, 0},
	{"react_max_calls", "8", 0, "tool calls a ReAct run may make", 0, 0},
	{"llm_provider", "builtin", 0, "builtin (offline planner) or openai (any OpenAI-compatible endpoint)", 0, 0},
	{"llm_base_url", "", 0, "base URL of the OpenAI-compatible API, e.g. http://127.0.0.1:8000/v1", 0, 0},
	{"llm_api_key", "", 1, "API key sent as a bearer token", 0, 0},
	{"llm_model", "gpt-4o-mini", 0, "model name", 0, 0},
	{"llm_temperature", "0", 0, "sampling temperature", 0, 0},
	{"llm_max_tokens", "1024", 0, "max tokens per completion", 0, 0},
	{"llm_timeout_ms", "60000", 0, "total timeout of one LLM request", 0, 0},
	{"llm_connect_timeout_ms", "5000", 0, "connect timeout of one LLM request", 0, 0},
	{"llm_retries", "3", 0, "retries on 429/5xx/timeouts (exponential backoff with jitter)", 0, 0},
	{"llm_backoff_ms", "500", 0, "first retry delay of the LLM client (doubles each retry, with jitter)", 0, 0},
	{"llm_backoff_max_ms", "8000", 0, "largest delay between LLM retries", 0, 0},
	{"llm_stream", "1", 0, "1: stream LLM answers (SSE) so pages show text as it arrives", 0, 0},
	{"query_cache_ttl_s", "86400", 0, "lifetime of a query cache entry in seconds (0: cache off)", 0, 0},
	{"query_cache_max", "1000", 0, "most entries kept in the query cache (least recently used dropped)", 0, 0},
	{"llm_hyde", "0", 0, "1: ask the LLM for a hypothetical answer first and search with it too (HyDE axis)", 0, 0},
	{"llm_data_policy", "auto", 0, "what text from a target's data the LLM may see, for targets without their own setting: schema (names and comments), values (plus values of columns that are not identifiers), rows (plus preview rows), auto (values when llm_base_url is not on this machine, else rows)", 0, 0},
	{"llm_fallback_builtin", "0", 0, "1: when the LLM fails, fall back to the offline planner", 0, 0},
	{"embed_provider", "builtin", 0, "builtin (hashed n-grams) or openai (/v1/embeddings)", 0, 0},
	{"embed_dim", "256", 0, "embedding dimension", 0, 0},
	{"embed_base_url", "", 0, "base URL for the openai embedding provider", 0, 0},
	{"embed_model", "text-embedding-3-small", 0, "embedding model name", 0, 0},
	{"embed_api_key", "", 1, "API key for the openai embedding provider (empty: llm_api_key)", 0, 0},
	{"planner_min_link_score", "0", 0, "the offline planner declines when a word of the question links with a lower score (0: off)", 0, 0},
	{"planner_min_confidence", "0", 0, "the offline planner declines a plan whose confidence (its shape's precision on the development halves times its weakest link) is lower (0: off; chosen by make eval)", 0, 0},
	{"context_whole_schema_tokens", "5000", 0, "the LLM's schema block is the whole schema when it fits this many tokens (0: never)", 0, 0},
	{"now", "", 0, "reference time for relative dates (empty: now())", 0, 0},
	/* files */
	{"template_dir", "templates", 0, "directory of page templates", 0, 0},
	{"i18n_dir", "conf/i18n", 0, "directory of interface strings (en.json, ko.json)", 0, 0},
	{"prompt_dir", "conf/prompts", 0, "directory of XML prompt files", 0, 0},
	{"docs_dir", "conf/docs", 0, "directory of Markdown table documents and knowledge base", 0, 0},
	{"lexicon_file", "conf/lexicon/clinical_ko_en.tsv", 0, "Korean-English clinical lexicon applied to every target at indexing", 0, 0},
	{"phi_rules_file", "conf/phi/rules.tsv", 0, "PHI classification rules (identifiers, quasi-identifiers, sensitive diagnoses) applied to every column at indexing", 0, 0},
	{"followup_file", "conf/lexicon/followup.txt", 0, "words that mark a follow-up question for the offline planner", 0, 0},
	{"function_words_file", "conf/lexicon/function_words.txt", 0, "words the offline planner reads as function words: how an answer is worded or laid out (decimal, 순서대로), casual speech (좀, 했어)", 0, 0},
	{"event_windows_file", "conf/lexicon/event_windows.tsv", 0, "before, after or during an event of care (수술 전, after surgery, intraoperative): the event's words, its time columns' names, the relation words", 0, 0},
	{"phrases_file", "conf/lexicon/phrases.tsv", 0, "small word lists the offline planner reads by role: plural words for people (how many women), how a question that changes the previous one starts (only, what about)", 0, 0},
	{"entities_file", "conf/lexicon/entities.tsv", 0, "how questions name patients, cases and encounters, and how their identifier columns are recognised", 0, 0},
	{"metadata_file", "conf/metadata/demo.json", 0, "column metadata / ontology for the default target", 0, 0},
	{"drug_classes_file", "conf/critique/drug_classes.tsv", 0, "critique: drug classes of medications (opioid, hypnotic, neuromuscular blocker, antibiotic, colloid, ...) with their Korean and English names and sources", 0, 0},
	{"export_dir", "var/exports", 0, "directory for exported files", 0, 0},
	{"export_tmp_dir", "var/tmp", 0, "where a web XLSX download is built before it is sent (its uncompressed rows, then the workbook); created 0700 when missing; never /tmp (docs/export-deadline.md)", 0, 0},
	{"export_tmp_max_bytes", "1073741824", 0, "the most bytes of uncompressed rows one XLSX may hold while it is built (web and CLI); past it the sheet ends there, marked truncated (1048576 to 68719476736)", 0, 0},
	{"log_path", "", 0, "log file (empty: stderr)", 0, 0},
	/* critique */
	{"critique_tool_budget", "4", 0, "critique: tools the critic's run_tools may run (preprocess's direct compare counts)", 0, 0},
	{"critique_similar_k", "5", 0, "critique: similar cases compared (same optype and dx, nearest age/ASA)", 0, 0},
	{"critique_gap_min", "20", 0, "critique: shortest interval without measurements reported as a record gap (minutes)", 0, 0},
	{"critique_pubmed_url", "", 0, "critique: optional PubMed-style search endpoint (esearch JSON); empty: off", 0, 0},
	{"critique_remote_timeout_ms", "3000", 0, "critique: timeout of the remote literature search", 0, 0},
	/* web */
	{"session_ttl_s", "43200", 0, "absolute session lifetime in seconds: a session ends this long after sign-in, however active", 0, 0},
	{"password_min_length", "10", 0, "fewest characters of a new password (change page, admin page, askql user add; 8 to 256)", 0, 0},
	{"common_passwords_file", "conf/passwords/common.txt", 0, "passwords too common to be chosen, one a line (its source in its header); a new password on it is refused, and none is accepted while it cannot be read (docs/auth.md)", 0, 0},
	{"session_idle_s", "3600", 0, "a session not used for this many seconds ends (idle expiry)", 0, 0},
	{"public_url", "", 0, "the address users open, e.g. https://askql.example.org; https:// here marks cookies Secure (TLS ending before nginx)", 0, 0},
	{"max_body_bytes", "1048576", 0, "largest request body accepted", 0, 0},
	{"signin_max_failures", "5", 0, "failed sign-ins an account name may have before each further attempt waits (docs/auth.md)", 0, 0},
	{"signin_addr_max_failures", "30", 0, "failed sign-ins one client address may have, whatever the names, before each further attempt from it waits", 0, 0},
	{"signin_delay_s", "2", 0, "the first wait in seconds once the failures above are used up; it doubles with each further failure", 0, 0},
	{"signin_delay_max_s", "900", 0, "the longest wait in seconds between sign-in attempts for one name or from one address", 0, 0},
	{"signin_forget_s", "86400", 0, "a name or address with no attempt for this many seconds starts again from zero failures", 0, 0},
	{"user_max_runs", "4", 0, "runs one user may have working at once, over all workers (starting, streaming, resuming a paused run, re-running; web and API); one more is answered 429 with Retry-After (0: no limit)", 0, 0},
	{"user_max_downloads", "2", 0, "downloads (CSV, JSON, XLSX; web and API) one user may have streaming at once; one more is answered 429 with Retry-After (0: no limit)", 0, 0},
	{"user_limit_retry_s", "5", 0, "seconds sent as Retry-After with a 429 for user_max_runs, user_max_downloads or target_max_statements", 0, 0},
	{"export_timeout_ms", "120000", 0, "the longest a download (CSV, JSON, XLSX; web and API) may take as a whole: at this deadline its statement is cancelled and its transaction rolled back; the client sees an error status, or an incomplete transfer when bytes were sent (docs/export-deadline.md; 1000 to 3600000)", 0, 0},
	{"target_max_statements", "8", 0, "analyst statements (previews, downloads, evaluations; all workers and the CLI) one target database runs at once; one more waits up to target_wait_ms, then is refused: a download with 429 and Retry-After, a preview with an error (docs/export-deadline.md; 0: no limit, at most 64)", 0, 0},
	{"target_wait_ms", "2000", 0, "how long an analyst statement waits for one of the target's target_max_statements slots before it is refused (0 to 60000)", 0, 0},
	{"target_connect_ms", "4000", 0, "the longest a connection test or a new data source's check may wait for its database to answer, every host of its connection string together; a host that accepts and never answers (a tarpit) is given up then (docs/privacy.md, \"Connection tests\"; 1000 to 10000)", 0, 0},
	{"history_undo_s", "600", 0, "seconds a deleted run can still be restored from the history page (its undo); after that it is removed for good with its steps (60 to 604800)", 0, 0},
};
#define NITEMS ((int)(sizeof items / sizeof items[0]))

/* Settings that must be a whole number within a range: a value outside it stops conf_load, so
 * a worker never runs with a limit it cannot honour (a typo must not lift a safety limit). */
static const struct {
	const char *name;
	long min, max;
} ranges[] = {
	{"export_timeout_ms", 1000, 3600000},
	{"target_max_statements", 0, 64},
	{"target_wait_ms", 0, 60000},
	{"history_undo_s", 60, 604800},
	{"target_connect_ms", 1000, 10000},
	{"password_min_length", 8, 256},
	{"export_tmp_max_bytes", 1048576, 68719476736L},
	{"exec_max_agg_rows", 0, 1000000000000L},
	{"exec_max_series_rows", 0, 1000000000000L},
	{"exec_max_cost", 0, 1000000000000000L},
};

/* Settings that must be one of a few words ('|'-separated): a typo in a privacy setting must
 * stop the program, not fall back to something that sends more than the admin meant. */
static const struct {
	const char *name;
	const char *allowed;
} words[] = {
	{"llm_data_policy", "auto|schema|values|rows"},
};

/* one_of: 1 when v is one of the '|'-separated words of allowed */
static int one_of(const char *v, const char *allowed)
{
	size_t n = strlen(v);

	for (const char *p = allowed; n && *p;) {
		const char *e = strchr(p, '|');
		size_t k = e ? (size_t)(e - p) : strlen(p);

		if (k == n && !strncmp(p, v, n))
			return 1;
		p += k + (e ? 1 : 0);
	}
	return 0;
}

static char *loaded_path;
static char errbuf[256];

static struct conf_item *find(const char *name)
{
	for (int i = 0; i < NITEMS; i++)
		if (!strcmp(items[i].name, name))
			return &items[i];
	return NULL;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* in_range: v is a whole number (spaces around allowed) within [min, max]. */
static int in_range(const char *v, long min, long max)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	return end != v && !*end && errno == 0 && n >= min && n <= max;
}

/* Values and sources loaded from files/env are strdup'd and live for the process. */
enum err conf_set(const char *name, const char *value, const char *source)
{
	struct conf_item *it = find(name);

	if (!it)
		return ERR_NOTFOUND;
	char *v = strdup(value), *src = strdup(source);

	if (!v || !src) {
		free(v);
		free(src);
		return ERR_NOMEM;
	}
	/* Defaults are static strings; anything set before came from strdup. */
	if (it->value != it->def)
		free((char *)it->value);
	if (it->source && strcmp(it->source, "default"))
		free((char *)it->source);
	it->value = v;
	it->source = src;
	return OK;
}

enum err conf_load(const char *path, const char **errmsg)
{
	FILE *f = NULL;
	char line[4100];
	int lineno = 0;
	enum err rc = OK;

	*errmsg = NULL;
	for (int i = 0; i < NITEMS; i++) {
		if (items[i].value && items[i].value != items[i].def)
			free((char *)items[i].value);
		if (items[i].source && strcmp(items[i].source, "default"))
			free((char *)items[i].source);
		items[i].value = items[i].def;
		items[i].source = "default";
	}
	if (!path)
		path = getenv("ASKQL_CONF");
	free(loaded_path);
	loaded_path = NULL;
	if (path && *path) {
		if (!(f = fopen(path, "r"))) {
			snprintf(errbuf, sizeof errbuf, "cannot open config %s: %s", path, strerror(errno));
			*errmsg = errbuf;
			return ERR_IO;
		}
		loaded_path = strdup(path);
		while (fgets(line, sizeof line, f)) {
			char *eq, *k, *v, src[600];
			size_t n = strlen(line);

			lineno++;
			if (n == sizeof line - 1 && line[n - 1] != '\n') {
				snprintf(errbuf, sizeof errbuf, "%s:%d: line longer than 4096 bytes", path, lineno);
				rc = ERR_LIMIT;
				goto out;
			}
			k = trim(line);
			if (!*k || *k == '#')
				continue;
			if (!(eq = strchr(k, '='))) {
				snprintf(errbuf, sizeof errbuf, "%s:%d: expected key = value", path, lineno);
				rc = ERR_PARSE;
				goto out;
			}
			*eq = '\0';
			k = trim(k);
			v = trim(eq + 1);
			snprintf(src, sizeof src, "file:%s:%d", path, lineno);
			if (conf_set(k, v, src) != OK) {
				snprintf(errbuf, sizeof errbuf, "%s:%d: unknown setting '%.64s'", path, lineno, k);
				rc = ERR_INPUT;
				goto out;
			}
		}
	}
	for (int i = 0; i < NITEMS; i++) {
		char env[80], src[96];
		const char *v;
		int j;

		snprintf(env, sizeof env, "ASKQL_%s", items[i].name);
		for (j = 6; env[j]; j++)
			env[j] = (char)toupper((unsigned char)env[j]);
		if ((v = getenv(env))) {
			snprintf(src, sizeof src, "env:%s", env);
			conf_set(items[i].name, v, src);
		}
	}
	/* the effective values, whichever layer set them */
	for (size_t i = 0; rc == OK && i < sizeof words / sizeof words[0]; i++) {
		const struct conf_item *it = find(words[i].name);

		if (!it || one_of(it->value, words[i].allowed))
			continue;
		snprintf(errbuf, sizeof errbuf, "%s = '%.32s' (%s): must be one of %s",
		         it->name, it->value, it->source, words[i].allowed);
		rc = ERR_INPUT;
	}
	for (size_t i = 0; rc == OK && i < sizeof ranges / sizeof ranges[0]; i++) {
		const struct conf_item *it = find(ranges[i].name);

		if (!it || in_range(it->value, ranges[i].min, ranges[i].max))
			continue;
		snprintf(errbuf, sizeof errbuf, "%s = '%.32s' (%s): must be a whole number from %ld to %ld",
		         it->name, it->value, it->source, ranges[i].min, ranges[i].max);
		rc = ERR_INPUT;
		break;
	}
out:
	if (f)
		fclose(f);
	if (rc != OK)
		*errmsg = errbuf;
	return rc;
}

const char *conf_get(const char *name)
{
	struct conf_item *it = find(name);

	if (!it)
		return "";
	return it->value ? it->value : it->def;
}

long conf_get_int(const char *name)
{
	return strtol(conf_get(name), NULL, 10);
}

const struct conf_item *conf_items(int *n)
{
	*n = NITEMS;
	return items;
}

const char *conf_path(void)
{
	return loaded_path;
}
