#!/usr/bin/env bash
# Set up and run the demo on the built-in sample conversation.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/discourse-memory demo "$@"
