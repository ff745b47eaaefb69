#!/usr/bin/env bash
# Prints the version of this checkout, a valid Debian version (Debian Policy §5.6.12) used by
# the Debian package and the man pages (docs/operations.md, "Versions"):
#   0.1.0                      HEAD is the commit tagged v0.1.0 (the number in VERSION), clean
#   0.1.0~git1234.a140c23      any other commit: the coming release VERSION, "~" so that it sorts
#                              before 0.1.0 itself, then the count of commits behind HEAD (it only
#                              grows along main) and the abbreviated commit
#   0.1.0~git1234.a140c23.dirty  the same with uncommitted changes
#   0.1.0~nogit                no git history (an exported tree)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
release="$(tr -d '[:space:]' < "$ROOT/VERSION")"
[[ "$release" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "version: VERSION must hold MAJOR.MINOR.PATCH (got '$release')" >&2; exit 1; }
if ! git -C "$ROOT" rev-parse --verify -q HEAD >/dev/null 2>&1; then
    echo "$release~nogit"
    exit 0
fi
dirty=""
git -C "$ROOT" diff-index --quiet HEAD -- 2>/dev/null || dirty=".dirty"
if [ -z "$dirty" ] && [ "$(git -C "$ROOT" rev-parse -q --verify "refs/tags/v$release^{commit}" 2>/dev/null)" = "$(git -C "$ROOT" rev-parse HEAD)" ]; then
    echo "$release"
else
    echo "$release~git$(git -C "$ROOT" rev-list --count HEAD).$(git -C "$ROOT" rev-parse --short=7 HEAD)$dirty"
fi
