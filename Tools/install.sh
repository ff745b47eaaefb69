#!/usr/bin/env bash
# `make install [PREFIX=/usr/local] [DESTDIR=] [SYSCONFDIR=/etc]`: the release tools (built by
# Tools/build-release.sh unless NO_BUILD=1), their man pages (help2man, from each tool's --help),
# the web player where `kas` looks for it (<prefix>/share/mediadrm/player), the systemd unit
# (in UNITDIR, default <prefix>/lib/systemd/system) and an example configuration
# (docs/operations.md). An existing <sysconfdir>/mediadrm/kas.json is never overwritten.
# Tools/build-deb.sh stages the Debian package with it.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PREFIX="${PREFIX:-/usr/local}"
DESTDIR="${DESTDIR:-}"
SYSCONFDIR="${SYSCONFDIR:-/etc}"
UNITDIR="${UNITDIR:-$PREFIX/lib/systemd/system}"
BIN="$ROOT/.build/release"
TOOLS=(tdf packager kas player)

case "$PREFIX" in /*) ;; *) echo "install: PREFIX must be an absolute path (got '$PREFIX')" >&2; exit 64 ;; esac
case "$SYSCONFDIR" in /*) ;; *) echo "install: SYSCONFDIR must be an absolute path (got '$SYSCONFDIR')" >&2; exit 64 ;; esac
case "$UNITDIR" in /*) ;; *) echo "install: UNITDIR must be an absolute path (got '$UNITDIR')" >&2; exit 64 ;; esac
command -v help2man >/dev/null || { echo "install: help2man is missing (make deps installs it)" >&2; exit 1; }

if [ "${NO_BUILD:-}" != 1 ]; then
    echo "install: building the release tools"
    "$ROOT/Tools/build-release.sh" "$ROOT/out/install-logs"
fi
for tool in "${TOOLS[@]}"; do
    [ -x "$BIN/$tool" ] || { echo "install: $BIN/$tool is missing; run without NO_BUILD=1" >&2; exit 1; }
done

version="$("$ROOT/Tools/version.sh")"
stage="$DESTDIR$PREFIX"
install -d -m 0755 "$stage/bin" "$stage/share/man/man1" "$stage/share/mediadrm" "$DESTDIR$UNITDIR"
for tool in "${TOOLS[@]}"; do
    install -m 0755 "$BIN/$tool" "$stage/bin/$tool"
    # The page is made from the installed binary's own --help, so it says what that binary does.
    help2man --no-info --no-discard-stderr --version-string="$version" --name="$(
        case $tool in
            tdf) echo "write and read Standard TDF (OpenTDF) files" ;;
            packager) echo "package video as protected HLS (fps-v2, tdf-hls)" ;;
            kas) echo "the key access server: keys, sessions, media policy, delivery" ;;
            player) echo "play protected HLS from a key service, online or offline" ;;
        esac)" "$stage/bin/$tool" | gzip -9n > "$stage/share/man/man1/$tool.1.gz"
done

# The web player: the files kas serves at /player/ (a plain copy; no build step).
rm -rf "$stage/share/mediadrm/player"
install -d -m 0755 "$stage/share/mediadrm/player"
find "$ROOT/Packages/WebPlayer/player" -maxdepth 1 -type f -exec install -m 0644 {} "$stage/share/mediadrm/player/" \;

sed -e "s#@bindir@#$PREFIX/bin#g" -e "s#@sysconfdir@#$SYSCONFDIR#g" "$ROOT/deploy/systemd/kas.service" \
    > "$DESTDIR$UNITDIR/kas.service"
chmod 0644 "$DESTDIR$UNITDIR/kas.service"
install -m 0644 "$ROOT/deploy/kas.example.json" "$stage/share/mediadrm/kas.example.json"
install -d -m 0755 "$DESTDIR$SYSCONFDIR/mediadrm"
if [ ! -e "$DESTDIR$SYSCONFDIR/mediadrm/kas.json" ]; then
    install -m 0640 "$ROOT/deploy/kas.example.json" "$DESTDIR$SYSCONFDIR/mediadrm/kas.json"
fi
echo "install: $version into ${DESTDIR:-}$PREFIX (configuration in $DESTDIR$SYSCONFDIR/mediadrm/kas.json)"
