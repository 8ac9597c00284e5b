-- 010_catalog.sql: the indexed catalog of target databases (askql index) and verified question-SQL pairs.
CREATE SCHEMA IF NOT EXISTS askql;

-- One row per indexed target.  version changes only when the indexed content changed;
-- workers compare it (and verified_version) to refresh their in-memory copy.
CREATE TABLE IF NOT EXISTS askql.cat_targets (
	name             text PRIMARY KEY,
	conninfo         text NOT NULL,            -- without password
	version          bigint NOT NULL DEFAULT 0,
	verified_version bigint NOT NULL DEFAULT 0,
	embed_provider   text NOT NULL,
	embed_dim        integer NOT NULL,
	now_ref          text,                     -- reference "now" of a snapshot data set
	global_hash      text,                     -- FKs, concepts, docs, metadata
	hierarchy        text,                     -- prompt-ready concept levels
	metadata         jsonb,
	stats            jsonb,
	indexed_at       timestamptz,
	changed_at       timestamptz
);

CREATE TABLE IF NOT EXISTS askql.cat_tables (
	target      text NOT NULL REFERENCES askql.cat_targets(name) ON DELETE CASCADE,
	schema_name text NOT NULL,
	name        text NOT NULL,
	kind        text NOT NULL DEFAULT 'r',
	row_estimate bigint,
	comment     text,
	full_name   text,
	concept     text,
	synonyms    text[] NOT NULL DEFAULT '{}',
	doc         text,                          -- the table's Markdown document
	hash        text NOT NULL,
	embedding   real[],
	PRIMARY KEY (target, schema_name, name)
);

CREATE TABLE IF NOT EXISTS askql.cat_columns (
	target      text NOT NULL,
	schema_name text NOT NULL,
	table_name  text NOT NULL,
	name        text NOT NULL,
	ordinal     integer NOT NULL,
	type        text NOT NULL,
	nullable    boolean NOT NULL DEFAULT true,
	is_pk       boolean NOT NULL DEFAULT false,
	indexed     boolean NOT NULL DEFAULT false,
	n_distinct  real,
	comment     text,
	full_name   text,
	description text,
	unit        text,
	range_lo    double precision,
	range_hi    double precision,
	synonyms    text[] NOT NULL DEFAULT '{}',
	embedding   real[],
	PRIMARY KEY (target, schema_name, table_name, name),
	FOREIGN KEY (target, schema_name, table_name)
		REFERENCES askql.cat_tables(target, schema_name, name) ON DELETE CASCADE
);

-- Join edges: declared foreign keys, metadata relationships (confirmed) and inferred ones.
CREATE TABLE IF NOT EXISTS askql.cat_fks (
	target      text NOT NULL REFERENCES askql.cat_targets(name) ON DELETE CASCADE,
	from_schema text NOT NULL,
	from_table  text NOT NULL,
	from_col    text NOT NULL,
	to_schema   text NOT NULL,
	to_table    text NOT NULL,
	to_col      text NOT NULL,
	inferred    boolean NOT NULL DEFAULT false,
	confirmed   boolean NOT NULL DEFAULT false,
	score       real,                          -- value overlap of an inferred edge
	PRIMARY KEY (target, from_schema, from_table, from_col, to_schema, to_table, to_col)
);

-- Admin decisions on inferred edges survive re-indexing.
CREATE TABLE IF NOT EXISTS askql.cat_fk_decisions (
	target      text NOT NULL,
	from_schema text NOT NULL,
	from_table  text NOT NULL,
	from_col    text NOT NULL,
	to_schema   text NOT NULL,
	to_table    text NOT NULL,
	to_col      text NOT NULL,
	decision    text NOT NULL CHECK (decision IN ('confirmed', 'removed')),
	decided_at  timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (target, from_schema, from_table, from_col, to_schema, to_table, to_col)
);

-- The value index: sampled distinct values of low-cardinality text columns and
-- metadata value dictionaries (verified to exist in the target at index time).
CREATE TABLE IF NOT EXISTS askql.cat_values (
	target      text NOT NULL,
	schema_name text NOT NULL,
	table_name  text NOT NULL,
	column_name text NOT NULL,
	value       text NOT NULL,
	full_name   text,
	unit        text,
	range_lo    double precision,
	range_hi    double precision,
	synonyms    text[] NOT NULL DEFAULT '{}',
	PRIMARY KEY (target, schema_name, table_name, column_name, value),
	FOREIGN KEY (target, schema_name, table_name)
		REFERENCES askql.cat_tables(target, schema_name, name) ON DELETE CASCADE
);

CREATE TABLE IF NOT EXISTS askql.cat_docs (
	target      text NOT NULL REFERENCES askql.cat_targets(name) ON DELETE CASCADE,
	path        text NOT NULL,                 -- relative to the docs directory
	kind        text NOT NULL CHECK (kind IN ('table', 'knowledge')),
	table_name  text,
	title       text NOT NULL,
	body        text NOT NULL,
	hash        text NOT NULL,
	embedding   real[],
	PRIMARY KEY (target, path)
);

-- Ontology: term -> definition -> SQL predicate, with the columns it uses.
CREATE TABLE IF NOT EXISTS askql.cat_concepts (
	target      text NOT NULL REFERENCES askql.cat_targets(name) ON DELETE CASCADE,
	name        text NOT NULL,
	ko          text,
	synonyms    text[] NOT NULL DEFAULT '{}',
	definition  text,
	sql         text,
	alt_sql     text,
	columns     text[] NOT NULL DEFAULT '{}',  -- "table.column"
	embedding   real[],
	PRIMARY KEY (target, name)
);

-- Verified question-SQL pairs (find_similar); not part of the catalog version.
CREATE TABLE IF NOT EXISTS askql.cat_verified (
	id            bigserial PRIMARY KEY,
	target        text NOT NULL,
	question      text NOT NULL,
	sql           text NOT NULL,
	success_count integer NOT NULL DEFAULT 0,
	use_count     integer NOT NULL DEFAULT 0,
	embed_provider text NOT NULL,
	embed_dim     integer NOT NULL,
	embedding     real[],
	created_at    timestamptz NOT NULL DEFAULT now(),
	updated_at    timestamptz NOT NULL DEFAULT now(),
	UNIQUE (target, question, sql)
);
CREATE INDEX IF NOT EXISTS cat_verified_target ON askql.cat_verified(target);
