#!/usr/bin/env bash
# Set up and run the whole test suite (core, evaluation, inspector, both adapters).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
set +e
.venv/bin/python -m pytest -q "$@"
code=$?
set -e
if [ "$code" -eq 5 ]; then
  echo "error: pytest collected no tests" >&2
  exit 1
fi
exit "$code"
