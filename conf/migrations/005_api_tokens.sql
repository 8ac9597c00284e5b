-- 005_api_tokens.sql: issue 27 (docs/auth.md, "API tokens"): a user's API bearer tokens, any number up to a
-- cap, each listed and revocable on Admin -> Users.  They replace the single users.token_hash.  A token
-- dies with the password it was issued under: any change of the password hash (the user's own change, an
-- admin's reset, `askql user add` over an existing user, or SQL by hand) and any deactivation deletes
-- every token of the user, in the trigger below, so no path can forget to.
CREATE TABLE IF NOT EXISTS askql.api_tokens (
	id            bigserial PRIMARY KEY,
	user_id       bigint NOT NULL REFERENCES askql.users(id) ON DELETE CASCADE,
	hash          text NOT NULL UNIQUE CHECK (hash ~ '^[0-9a-f]{64}$'),  -- sha256 hex of the token
	label         text NOT NULL DEFAULT '' CHECK (length(label) <= 64),   -- what it is for, as given
	created_at    timestamptz NOT NULL DEFAULT now(),
	last_used_at  timestamptz                                              -- written at most once a minute
);
CREATE INDEX IF NOT EXISTS api_tokens_user ON askql.api_tokens(user_id);

-- the one token a user had before (it keeps working until one of the events below)
DO $$
BEGIN
	IF EXISTS (SELECT 1 FROM information_schema.columns
	           WHERE table_schema = 'askql' AND table_name = 'users' AND column_name = 'token_hash') THEN
		INSERT INTO askql.api_tokens(user_id, hash, label)
			SELECT id, token_hash, 'before issue 27' FROM askql.users WHERE token_hash IS NOT NULL
			ON CONFLICT DO NOTHING;
		ALTER TABLE askql.users DROP COLUMN token_hash;
	END IF;
END $$;

CREATE OR REPLACE FUNCTION askql.api_tokens_revoke() RETURNS trigger
	LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM askql.api_tokens WHERE user_id = NEW.id;
	RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS users_revoke_tokens ON askql.users;
CREATE TRIGGER users_revoke_tokens AFTER UPDATE OF pwhash, disabled ON askql.users
	FOR EACH ROW WHEN (NEW.pwhash IS DISTINCT FROM OLD.pwhash OR (NEW.disabled AND NOT OLD.disabled))
	EXECUTE FUNCTION askql.api_tokens_revoke();
