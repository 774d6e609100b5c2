#!/usr/bin/env bash
# Run every script in examples/ as a user would: in a separate venv (.venv-examples) holding
# exactly what the examples' docstrings say to install (their `pip install ...` lines) and no
# test tools. Fails if pytest is importable there, or if any example exits non-zero.
# The venv is reused; pip runs again only when the install lines or a pyproject.toml change.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
VENV=.venv-examples

# Every example's install line, from its docstring: `pip install <args>`.
installs=$("$PYTHON" - <<'EOF'
import ast, pathlib, re, shlex, sys
args = []
for path in sorted(pathlib.Path("examples").glob("*.py")):
    doc = ast.get_docstring(ast.parse(path.read_text())) or ""
    found = re.findall(r"`pip install ([^`]+)`", doc)
    if not found:
        sys.exit(f"{path}: its docstring gives no `pip install ...` line")
    for line in found:
        words = shlex.split(line)
        while words:  # one requirement at a time: `-e <path>` is one
            spec = [words.pop(0)]
            if spec[0] in ("-e", "--editable") and words:
                spec.append(words.pop(0))
            if spec not in args:
                args.append(spec)
print(shlex.join(word for spec in args for word in spec))
EOF
)
stamp="$(printf '%s\n' "$installs"; cat pyproject.toml integrations/*/pyproject.toml)"
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
if [ "$(cat "$VENV/.installed" 2>/dev/null)" != "$stamp" ]; then
  echo "examples: pip install $installs (in $VENV)"
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
  eval "\"$VENV/bin/python\" -m pip install --quiet $installs"
  printf '%s' "$stamp" > "$VENV/.installed"
fi
if "$VENV/bin/python" -c "import pytest" 2>/dev/null; then
  echo "examples: pytest is importable in $VENV; the examples must run without test tools" >&2
  exit 1
fi

failed=()
for example in examples/*.py; do
  start=$(date +%s)
  if "$VENV/bin/python" "$example" > "$VENV/last-output.txt" 2>&1; then
    echo "examples: $example ok ($(( $(date +%s) - start )) s)"
  else
    code=$?
    echo "examples: $example FAILED (exit $code); its output:" >&2
    tail -n 30 "$VENV/last-output.txt" >&2
    failed+=("$example")
  fi
done
if [ "${#failed[@]}" -gt 0 ]; then
  echo "examples: ${#failed[@]} failed: ${failed[*]}" >&2
  exit 1
fi
echo "examples: all $(ls examples/*.py | wc -l) ran without pytest installed"
