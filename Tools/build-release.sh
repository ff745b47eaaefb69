#!/usr/bin/env bash
# Builds the four tools (tdf, packager, kas, player) in release into .build/release, with the
# Swift runtime and Foundation linked statically (--static-swift-stdlib): the binaries need only
# Debian's own libraries (OpenSSL, zlib, SQLite, libmicrohttpd, libcurl), never the Swift
# toolchain, so they can be installed on a machine without it (docs/operations.md). Used by
# `make demo` and `make install`. Logs go to $1 (a directory), one file per tool.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SCRATCH="$ROOT/.build"
LOGS="${1:?usage: build-release.sh LOG_DIR}"
export PATH="/opt/swift/usr/bin:$PATH"
mkdir -p "$LOGS"
for pair in MediaCrypto:tdf Packager:packager KAS:kas Client:player; do
    package=${pair%%:*} product=${pair##*:}
    # One scratch path for every package (MediaCrypto compiled once); the build plan is per
    # root package, so it is dropped before each (the objects are kept).
    rm -f "$SCRATCH/release.yaml" "$SCRATCH/release/description.json"
    # -z now: every symbol bound at start, so the whole GOT is read-only after relocation (full
    # RELRO with the linker's default relro), the hardening Debian's packages use (lintian's
    # hardening-no-bindnow otherwise).
    if ! swift build --package-path "$ROOT/Packages/$package" --scratch-path "$SCRATCH" -c release \
            --static-swift-stdlib -Xlinker -z -Xlinker now --product "$product" >"$LOGS/build-$product.log" 2>&1; then
        tail -30 "$LOGS/build-$product.log" >&2
        echo "build-release: swift build $product failed (log: $LOGS/build-$product.log)" >&2
        exit 1
    fi
    echo "   $product: $SCRATCH/release/$product"
done
