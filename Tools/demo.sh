#!/usr/bin/env bash
# `make demo`: shows what the system does today, step by step, with timings.
# Grows with each capability: today the Standard TDF round trip through the `tdf` tool.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SCRATCH="$ROOT/.build"
WORK="$(mktemp -d /tmp/mediadrm-demo.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

step() { printf '\n== %s\n' "$*"; }
now_ms() { date +%s%3N; }
timed() { local t0; t0=$(now_ms); "$@"; echo "   ($(( $(now_ms) - t0 )) ms)"; }

step "build the tools (release)"
rm -f "$SCRATCH/release.yaml" "$SCRATCH/release/description.json"
timed swift build --package-path "$ROOT/Packages/MediaCrypto" --scratch-path "$SCRATCH" -c release --product tdf
TDF="$SCRATCH/release/tdf"

step "make a KAS key pair (RSA-2048) with the openssl CLI"
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$WORK/kas-private.pem" 2>/dev/null
openssl pkey -in "$WORK/kas-private.pem" -pubout -out "$WORK/kas-public.pem"
echo "   $WORK/kas-public.pem"

step "make a 32 MiB sample file"
head -c $((32 << 20)) /dev/urandom > "$WORK/sample.bin"

step "encrypt it to a Standard TDF (AES-256-GCM segments, key wrapped to the KAS)"
timed "$TDF" encrypt "$WORK/sample.bin" -o "$WORK/sample.tdf" --kas-url https://kas.example.com \
    --kas-public-key "$WORK/kas-public.pem" --attribute https://example.com/attr/tier/value/premium

step "inspect it"
"$TDF" inspect "$WORK/sample.tdf"

step "decrypt it offline with the KAS private key (integrity verified first)"
timed "$TDF" decrypt "$WORK/sample.tdf" -o "$WORK/sample.out" --kas-private-key "$WORK/kas-private.pem"

step "compare"
if cmp -s "$WORK/sample.bin" "$WORK/sample.out"; then
    echo "   the decrypted file matches the original ($(stat -c %s "$WORK/sample.out") bytes)"
else
    echo "demo: the decrypted file differs from the original" >&2
    exit 1
fi
echo
echo "demo: done. Try it yourself: $TDF --help"
