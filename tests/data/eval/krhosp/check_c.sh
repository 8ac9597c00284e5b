#!/usr/bin/env bash
# Check the third krhosp question set (questions_c.jsonl): check_b.sh with SET c.
# Usage: PGHOST=... PGPORT=... PGUSER=... ./check_c.sh <database>
exec "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/check_b.sh" "${1:?usage: $0 <database>}" c
