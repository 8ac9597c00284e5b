-- 061_catalog_planner.sql: what the offline planner needs from the catalog (docs/schema-model.md).
-- The planner used to read its own snapshot of each target; it now reads the catalog only, so the
-- catalog records which columns are unique (a join's "one" side) and which integer columns are
-- yes/no flags (only 0 and 1).  Catalogs indexed before this migration lack both: their table
-- hashes are reset so the next `askql index` re-reads every table.
ALTER TABLE askql.cat_columns ADD COLUMN IF NOT EXISTS is_unique boolean NOT NULL DEFAULT false;
ALTER TABLE askql.cat_columns ADD COLUMN IF NOT EXISTS is_flag boolean NOT NULL DEFAULT false;
UPDATE askql.cat_tables SET hash = 'before-061';
