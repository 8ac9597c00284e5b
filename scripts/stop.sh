#!/usr/bin/env bash
# stop.sh: `make stop`: stop nginx, the worker pool and PostgreSQL started by `make run`, by pid.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/scripts/lib.sh"
stack_down "$TOP/var"
echo "stopped"
