#!/usr/bin/env bash
# rotate.sh: new PostgreSQL passwords for the superuser and the app's roles of a running instance
# (`make run`'s var/, or the VAR given), in the cluster and in its password files (docs/pg-auth.md).
# Workers keep running: their open connections stay, their next ones read the new file.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/scripts/lib.sh"
VAR=${1:-$TOP/var}
[ "$(id -u)" = 0 ] || { echo "rotate: run as root (the superuser's password file is root's)" >&2; exit 1; }
PGPORT=$(sed -n 's/.*PGPORT=\([0-9]*\).*/\1/p' "$VAR/env.sh" 2>/dev/null || true)
[ -n "$PGPORT" ] && [ -s "$VAR/pgpass.admin" ] || { echo "rotate: no askql instance with passwords in $VAR (make run first)" >&2; exit 1; }
pg_rotate "$VAR" "$PGPORT" || { echo "rotate: the cluster refused the change; the passwords are as they were" >&2; exit 1; }
echo "rotated the passwords of $PGSU $PGAPPROLES ($VAR/pgpass.admin, $VAR/pgpass)"
