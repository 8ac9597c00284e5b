-- 072_llm_policy.sql: a target's own llm_data_policy (what text from its data an LLM request may
-- carry: schema, values or rows; app/catalog/llm_policy.h).  NULL: the global default, conf
-- llm_data_policy (auto: values for a hosted endpoint, rows for builtin or a model on this machine).
ALTER TABLE askql.targets ADD COLUMN IF NOT EXISTS llm_data_policy text
	CHECK (llm_data_policy IN ('schema', 'values', 'rows'));
