-- 006_signin_pair.sql: issue 27 (docs/auth.md, "The sign-in throttle"): a third kind of throttle row, the pair
-- of client address and name ("ADDR NAME"), counting the name's failures that came from that address.  It gates
-- nothing; the right password takes back only those failures from the name's counter, so a user who signs in from
-- one address no longer resets what an attacker tried from another (app/http/auth.c, throttle_settle).
ALTER TABLE askql.signin_throttle DROP CONSTRAINT IF EXISTS signin_throttle_scope_check;
ALTER TABLE askql.signin_throttle ADD CONSTRAINT signin_throttle_scope_check
	CHECK (scope IN ('account', 'addr', 'pair'));
