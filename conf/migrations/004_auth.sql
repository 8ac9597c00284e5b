-- 004_auth.sql: issue 14 (docs/auth.md): the sign-in throttle's counters, one row per account name and one
-- per client address; a password an admin reset must be changed at the next sign-in.  An attempt is let through, and counted, by a single statement over both rows
-- (app/http/auth.c, throttle_admit); the right password sets the account's row back to zero.
CREATE TABLE IF NOT EXISTS askql.signin_throttle (
	scope       text NOT NULL CHECK (scope IN ('account', 'addr')),
	key         text NOT NULL,             -- the name as typed (an account or not), or REMOTE_ADDR
	failures    integer NOT NULL DEFAULT 0 CHECK (failures >= 0),  -- attempts let through since the last reset
	next_at     timestamptz NOT NULL DEFAULT '-infinity',          -- no attempt is let through before this
	updated_at  timestamptz NOT NULL DEFAULT now(),                -- the last attempt let through
	PRIMARY KEY (scope, key)
);
CREATE INDEX IF NOT EXISTS signin_throttle_updated ON askql.signin_throttle(updated_at);

-- Set by an admin's reset (a temporary password); until the user picks a new one, only the password
-- page and sign-out are open to their sessions (app/http/routes.c).
ALTER TABLE askql.users ADD COLUMN IF NOT EXISTS must_change_password boolean NOT NULL DEFAULT false;
ALTER TABLE askql.users ADD COLUMN IF NOT EXISTS password_changed_at timestamptz;
