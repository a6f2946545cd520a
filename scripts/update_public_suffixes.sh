#!/usr/bin/env bash
# Refreshes cors-core/data/public_suffix_list.dat, the Public Suffix List that cors-axum-core
# reads once (feature `public-suffix`) to refuse origin patterns over a public suffix.
#
# The list is published at https://publicsuffix.org/list/; this machine reaches package
# registries only, so it is taken from PyPI's `publicsuffixlist`, which ships the list as
# published. Comments are dropped (the list's licence notice, version and section markers
# stay), which halves the file.
set -euo pipefail
cd "$(dirname "$0")/.."
version="${1:-}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m pip download --quiet --no-deps --dest "$work" "publicsuffixlist${version:+==$version}"
python3 - "$work"/publicsuffixlist-*.whl cors-core/data/public_suffix_list.dat <<'PY'
import sys, zipfile
wheel, out = sys.argv[1], sys.argv[2]
text = zipfile.ZipFile(wheel).read("publicsuffixlist/public_suffix_list.dat").decode("utf-8")
kept = []
for line in text.splitlines():
    line = line.strip()
    header = len(kept) < 3 and line.startswith("//")
    marker = line.startswith("// ===") or line.startswith("// VERSION:") or line.startswith("// COMMIT:")
    if header or marker or (line and not line.startswith("//")):
        kept.append(line)
open(out, "w", encoding="utf-8").write("\n".join(kept) + "\n")
PY
grep -E '^// (VERSION|COMMIT):' cors-core/data/public_suffix_list.dat
wc -l cors-core/data/public_suffix_list.dat
