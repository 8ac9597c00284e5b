-- 071_phi.sql: PHI classification of every indexed column (app/catalog/phi.c, conf/phi/rules.tsv) and admins' corrections.
-- The indexer writes the classifier's class, the rule that decided it and its evidence beside each
-- column.  NULL: not classified yet (a catalog indexed before this migration): code that enforces
-- a policy treats it as a direct identifier.  Table hashes are reset so the next `askql index`
-- classifies every table.
ALTER TABLE askql.cat_columns ADD COLUMN IF NOT EXISTS phi_class text
	CHECK (phi_class IN ('direct', 'quasi', 'sensitive', 'none'));
ALTER TABLE askql.cat_columns ADD COLUMN IF NOT EXISTS phi_rule text;
ALTER TABLE askql.cat_columns ADD COLUMN IF NOT EXISTS phi_evidence text;
UPDATE askql.cat_tables SET hash = 'before-071';

-- An admin's correction wins over the classifier and survives re-indexing (kept apart from the
-- catalog rows, which indexing replaces).  Every change is also an askql.audit row (phi.set, phi.clear).
CREATE TABLE IF NOT EXISTS askql.phi_corrections (
	target      text NOT NULL,
	schema_name text NOT NULL,
	table_name  text NOT NULL,
	column_name text NOT NULL,
	class       text NOT NULL CHECK (class IN ('direct', 'quasi', 'sensitive', 'none')),
	reason      text NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
	set_by      text,                                   -- "cli:$USER" or the admin's name
	user_id     bigint REFERENCES askql.users(id) ON DELETE SET NULL,
	set_at      timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (target, schema_name, table_name, column_name)
);

-- The effective class of every column: the correction when there is one, else the classifier's.
CREATE OR REPLACE VIEW askql.phi_columns AS
SELECT c.target, c.schema_name, c.table_name, c.name AS column_name, c.type,
       coalesce(k.class, c.phi_class) AS class, c.phi_class AS classified, c.phi_rule AS rule,
       c.phi_evidence AS evidence, k.class IS NOT NULL AS corrected, k.reason, k.set_by, k.set_at
FROM askql.cat_columns c
LEFT JOIN askql.phi_corrections k ON k.target = c.target AND k.schema_name = c.schema_name
	AND k.table_name = c.table_name AND k.column_name = c.name;
