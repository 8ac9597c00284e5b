-- 011_catalog_model.sql: the admin catalog page as a model per target (issue 15): edits of
-- synonyms, value mappings and descriptions belong to one target, can remove what the indexer
-- derived or read from a metadata file, and descriptions exist in Korean as well as English.
--
-- askql.catalog_edits is the set of admin overrides the indexer applies again on every run
-- (app/catalog/index.c, read_edits): one row per (target, kind, table, column, value, phrase or
-- language); an add and a remove of the same thing never both exist (app/catalog/edit.c keeps
-- only the latest).  Rows from before this migration have no target: they belong to the
-- configured default target, as they always did.
ALTER TABLE askql.catalog_edits ADD COLUMN IF NOT EXISTS target text;
ALTER TABLE askql.catalog_edits ADD COLUMN IF NOT EXISTS op text NOT NULL DEFAULT 'add';
ALTER TABLE askql.catalog_edits ADD COLUMN IF NOT EXISTS lang text NOT NULL DEFAULT '';
ALTER TABLE askql.catalog_edits DROP CONSTRAINT IF EXISTS catalog_edits_kind_check;
ALTER TABLE askql.catalog_edits DROP CONSTRAINT IF EXISTS catalog_edits_op_check;
ALTER TABLE askql.catalog_edits DROP CONSTRAINT IF EXISTS catalog_edits_lang_check;
ALTER TABLE askql.catalog_edits ADD CONSTRAINT catalog_edits_kind_check
	CHECK (kind IN ('synonym', 'mapping', 'description'));
-- add/remove: a synonym or mapping phrase; set: a description (phrase = the text, '' = none)
ALTER TABLE askql.catalog_edits ADD CONSTRAINT catalog_edits_op_check
	CHECK (op IN ('add', 'remove', 'set') AND (op = 'set') = (kind = 'description'));
ALTER TABLE askql.catalog_edits ADD CONSTRAINT catalog_edits_lang_check
	CHECK (lang IN ('', 'en', 'ko') AND (lang <> '') = (kind = 'description'));
CREATE INDEX IF NOT EXISTS catalog_edits_target ON askql.catalog_edits(target, tbl);

-- Descriptions in the interface languages.  A table's English description is its comment (as the
-- indexer already fills it from the metadata); Korean ones have their own columns.
ALTER TABLE askql.cat_tables ADD COLUMN IF NOT EXISTS description_ko text;
ALTER TABLE askql.cat_columns ADD COLUMN IF NOT EXISTS description_ko text;
