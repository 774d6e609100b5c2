#!/usr/bin/env bash
# Set up and run the whole test suite (core, evaluation, inspector, both adapters), then every
# script in examples/ in a venv without test tools (scripts/run_examples.sh; DM_SKIP_EXAMPLES=1
# leaves that out).
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== setting up .venv (library, adapters, test tools) =="
bash scripts/setup.sh test
echo "== running the test suite (one line per test file, with its progress) =="
set +e
.venv/bin/python -m pytest -p no:cacheprovider "$@"
code=$?
set -e
if [ "$code" -eq 5 ]; then
  echo "error: pytest collected no tests" >&2
  exit 1
fi
examples=0
if [ "${DM_SKIP_EXAMPLES:-}" != "1" ]; then
  bash scripts/run_examples.sh || examples=$?
fi
if [ "$code" -ne 0 ]; then
  exit "$code"
fi
exit "$examples"
