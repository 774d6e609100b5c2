#!/usr/bin/env bash
# Set up and run every script in examples/ in a venv without test tools
# (scripts/run_examples.sh; DM_SKIP_EXAMPLES=1 leaves that out), then the whole test suite
# (core, evaluation, inspector, both adapters). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== setting up .venv (library, adapters, test tools) =="
bash scripts/setup.sh test
examples=0
if [ "${DM_SKIP_EXAMPLES:-}" != "1" ]; then
  echo "== running examples/ after their documented install, without test tools =="
  bash scripts/run_examples.sh || examples=$?
fi
echo "== running the test suite (one line per test file, with its progress) =="
set +e
.venv/bin/python -m pytest -p no:cacheprovider "$@"
code=$?
set -e
if [ "$code" -eq 5 ]; then
  echo "error: pytest collected no tests" >&2
  exit 1
fi
if [ "$examples" -ne 0 ]; then
  echo "error: an example failed (see '== running examples/' above)" >&2
  [ "$code" -ne 0 ] || code="$examples"
fi
exit "$code"
