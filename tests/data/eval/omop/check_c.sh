#!/usr/bin/env bash
# check_c.sh DBNAME -- validate questions_c.jsonl and run its gold SQL: check_b.sh with SET c.
exec "$(cd "$(dirname "$0")" && pwd)/check_b.sh" "${1:?usage: check_c.sh DBNAME}" c
