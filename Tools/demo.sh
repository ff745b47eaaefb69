#!/usr/bin/env bash
# `make demo`: the whole system on this machine, step by step, with timings.
#   act 1  a Standard TDF round trip with the `tdf` tool (the shared format layer on its own)
#   act 2  package a 30 s clip -> KAS over TLS with SQLite -> catalogued, served by nginx with
#          signed URLs -> `player play --asset` -> the clear stream checked against the source
#          with ffmpeg; then the clip as a tdf-hls bitrate ladder (--ladder), catalogued, and one
#          of its variants played
# Before the acts: the release tools installed into a staging root (make install), then as the
# Debian package on this machine, installed, run, upgraded and purged (Tools/test-deb.sh).
# Everything listens on 127.0.0.1 only. What the demo made stays in out/demo/ so you can watch it
# afterwards (the last lines say how). Any failing step stops the demo with its message.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SCRATCH="$ROOT/.build"
BIN="$SCRATCH/release"
DEMO="$ROOT/out/demo"
export PATH="/opt/swift/usr/bin:$PATH"
DEMO_NAME=demo
source "$ROOT/Tools/lib/processes.sh"

KAS_PID="" NGINX_PID=""
cleanup() {
    local status=$?
    stop_gracefully "$KAS_PID" TERM
    stop_gracefully "$NGINX_PID" QUIT
    rm -rf "$DEMO/tmp"
    if [ "$status" -ne 0 ]; then echo "demo: FAILED (exit $status); logs in $DEMO/logs" >&2; fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Runs a command, prints its duration; on failure prints its output and stops.
timed() {
    local t0 log="$DEMO/logs/step-$(date +%s%N).log"
    t0=$(now_ms)
    if ! "$@" >"$log" 2>&1; then cat "$log" >&2; fail "$(basename "$1") exited non-zero"; fi
    LAST_MS=$(( $(now_ms) - t0 ))
    echo "   (${LAST_MS} ms)"
}

rm -rf "$DEMO"
mkdir -p "$DEMO/logs" "$DEMO/tmp" "$DEMO/www" "$DEMO/tls"

step "build the tools (release, Swift runtime linked statically: tdf, packager, kas, player)"
t_build=$(now_ms)
"$ROOT/Tools/build-release.sh" "$DEMO/logs" || fail "the release build"
echo "   ($(( $(now_ms) - t_build )) ms)"
# Test hooks are compiled into debug builds only (docs/offline.md): the release player must not
# carry the offline clock override.
! grep -qa MEDIADRM_PLAYER_TEST_NOW "$BIN/player" || fail "the release player carries the test clock hook"

step "install them into a staging root (make install) and run the installed tools with the Swift toolchain hidden"
STAGE="$DEMO/stage"
NO_BUILD=1 DESTDIR="$STAGE" PREFIX=/usr/local SYSCONFDIR=/etc "$ROOT/Tools/install.sh" >"$DEMO/logs/install.log" 2>&1 \
    || { cat "$DEMO/logs/install.log" >&2; fail "Tools/install.sh"; }
INSTALLED="$STAGE/usr/local"
for tool in tdf packager kas player; do
    ! ldd "$INSTALLED/bin/$tool" | grep -Eq 'libswift|libFoundation|/opt/swift' || fail "$tool links the Swift toolchain's libraries"
    zcat "$INSTALLED/share/man/man1/$tool.1.gz" | grep -q '^\.SH' || fail "the man page of $tool is empty"
done
[ -f "$INSTALLED/share/mediadrm/player/mediadrm-player.js" ] || fail "the web player is not installed"
grep -q "^ExecStart=/usr/local/bin/kas serve" "$INSTALLED/lib/systemd/system/kas.service" || fail "the unit's ExecStart"
# /opt/swift hidden under an empty tmpfs in a private mount namespace: what a machine without
# the toolchain sees. Where the sandbox forbids namespaces, the ldd check above stands alone.
hidden() { unshare -m bash -c 'mount -t tmpfs none /opt/swift && exec "$@"' hidden "$@"; }
if unshare -m true 2>/dev/null; then
    for tool in tdf packager kas player; do
        hidden "$INSTALLED/bin/$tool" --help >/dev/null || fail "the installed $tool does not run without the toolchain"
    done
    # The unit's command from another directory: the installed configuration, the installed web
    # player (found beside the binary in share/mediadrm/player), /healthz and /player/.
    port=$(free_port)
    (cd /tmp && KAS_CONFIG="$STAGE/etc/mediadrm/kas.json" KAS_LISTEN="127.0.0.1:$port" KAS_PUBLIC_URL="http://127.0.0.1:$port" \
        exec unshare -m bash -c 'mount -t tmpfs none /opt/swift && exec "$@"' hidden \
        "$INSTALLED/bin/kas" serve --data-dir "$DEMO/tmp/installed-kas") >"$DEMO/logs/installed-kas.log" 2>&1 &
    KAS_PID=$!
    for _ in $(seq 300); do curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
    curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null || { cat "$DEMO/logs/installed-kas.log" >&2; fail "the installed kas answers /healthz"; }
    curl -fsS "http://127.0.0.1:$port/player/mediadrm-player.js" | cmp -s - "$INSTALLED/share/mediadrm/player/mediadrm-player.js" \
        || fail "the installed kas serves the installed web player"
    stop_gracefully "$KAS_PID" TERM
    KAS_PID=""
    echo "   the four tools ran with /opt/swift hidden; the installed kas served /healthz and /player/"
else
    echo "   (no mount namespace here: checked with ldd only)"
fi
if command -v systemd-analyze >/dev/null; then
    # verify resolves ExecStart on this machine: check a copy that names the staged binary.
    sed "s#^ExecStart=/usr/local/bin/kas#ExecStart=$INSTALLED/bin/kas#" "$INSTALLED/lib/systemd/system/kas.service" > "$DEMO/tmp/kas.service"
    # MANPATH: its Documentation= page must be the installed one.
    MANPATH="$INSTALLED/share/man" systemd-analyze verify "$DEMO/tmp/kas.service" >"$DEMO/logs/systemd-analyze.log" 2>&1 \
        || { cat "$DEMO/logs/systemd-analyze.log" >&2; fail "systemd-analyze verify kas.service"; }
    echo "   systemd-analyze verify accepts kas.service"
fi

step "the Debian package (make deb, from the same release tools): lintian, then installed, run as its unit runs kas, upgraded, removed and purged"
t0=$(now_ms)
NO_BUILD=1 "$ROOT/Tools/build-deb.sh" "$DEMO/deb" >"$DEMO/logs/build-deb.log" 2>&1 \
    || { cat "$DEMO/logs/build-deb.log" >&2; fail "Tools/build-deb.sh"; }
DEB=$(tail -1 "$DEMO/logs/build-deb.log")
tail -2 "$DEMO/logs/build-deb.log" | head -1 | sed 's/^/   /'
"$ROOT/Tools/test-deb.sh" "$DEB" "$DEMO/logs" || fail "Tools/test-deb.sh"
echo "   ($(( $(now_ms) - t0 )) ms)"

# ---------------------------------------------------------------------------------------------
printf '\n#### act 1: a Standard TDF round trip, offline\n'
step "make an RSA-2048 key pair with the openssl CLI and an 8 MiB file"
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$DEMO/tmp/rsa.pem" 2>/dev/null || fail "openssl genpkey"
openssl pkey -in "$DEMO/tmp/rsa.pem" -pubout -out "$DEMO/tmp/rsa.pub.pem" || fail "openssl pkey"
head -c $((8 << 20)) /dev/urandom >"$DEMO/tmp/sample.bin"
step "tdf encrypt (AES-256-GCM segments, key wrapped to the public key) and decrypt (integrity first)"
echo "   tdf encrypt"
timed "$BIN/tdf" encrypt "$DEMO/tmp/sample.bin" -o "$DEMO/tmp/sample.tdf" --kas-url https://kas.example.com \
    --kas-public-key "$DEMO/tmp/rsa.pub.pem" --attribute https://example.com/attr/tier/value/premium
echo "   tdf decrypt"
timed "$BIN/tdf" decrypt "$DEMO/tmp/sample.tdf" -o "$DEMO/tmp/sample.out" --kas-private-key "$DEMO/tmp/rsa.pem"
cmp -s "$DEMO/tmp/sample.bin" "$DEMO/tmp/sample.out" || fail "the decrypted file differs from the original"
echo "   the decrypted file matches the original"

# ---------------------------------------------------------------------------------------------
printf '\n#### act 2: package, serve, play\n'
step "make a 30 s sample clip with ffmpeg (640x360 H.264, AAC stereo)"
timed ffmpeg -nostdin -loglevel error -y -f lavfi -i testsrc2=size=640x360:rate=30 \
    -f lavfi -i "aevalsrc=0.4*sin(440*2*PI*t)|0.4*sin(660*2*PI*t):s=48000" -t 30 \
    -c:v libx264 -preset veryfast -g 60 -pix_fmt yuv420p -c:a aac -ac 2 -b:a 128k "$DEMO/sample.mp4"
echo "   $DEMO/sample.mp4 ($(stat -c %s "$DEMO/sample.mp4") bytes)"

step "generate the KAS key ring (RSA-2048, P-256, dev token issuer)"
timed "$BIN/kas" keys generate --data-dir "$DEMO/kas-data"
"$BIN/kas" keys list --data-dir "$DEMO/kas-data" | sed 's/^/   /'

step "make a TLS certificate for 127.0.0.1 with the openssl CLI"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 -subj "/CN=127.0.0.1" \
    -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
    -keyout "$DEMO/tls/key.pem" -out "$DEMO/tls/cert.pem" 2>"$DEMO/logs/openssl.log" || fail "openssl req"
chmod 600 "$DEMO/tls/key.pem"
echo "   $DEMO/tls/cert.pem"

step "the origin: Debian's nginx with signed URLs (kas origin-config: secure_link, Range), on 127.0.0.1"
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$NGINX" ] || fail "nginx is not installed: run 'make deps'"
NGINX_PORT=$(free_port)
ORIGIN_URL="http://127.0.0.1:$NGINX_PORT"
mkdir -p "$DEMO/nginx/logs" "$DEMO/nginx/tmp"
"$BIN/kas" origin-config --root "$DEMO/www" --secret-file "$DEMO/nginx/origin-secret.conf" \
    --listen "127.0.0.1:$NGINX_PORT" --access-log "$DEMO/nginx/logs/access.log" >"$DEMO/nginx/server.conf" 2>"$DEMO/logs/origin-config.log" \
    || { cat "$DEMO/logs/origin-config.log" >&2; fail "kas origin-config"; }
{
    echo "daemon off;"
    echo "pid $DEMO/nginx/nginx.pid;"
    echo "error_log $DEMO/nginx/logs/error.log warn;"
    echo "events { worker_connections 64; }"
    echo "http {"
    echo "    access_log $DEMO/nginx/logs/access.log;"
    for temp in client_body proxy fastcgi uwsgi scgi; do echo "    ${temp}_temp_path $DEMO/nginx/tmp/$temp;"; done
    echo "    include $DEMO/nginx/server.conf;"
    echo "}"
} >"$DEMO/nginx/nginx.conf"
"$NGINX" -p "$DEMO/nginx" -c "$DEMO/nginx/nginx.conf" </dev/null 2>"$DEMO/logs/nginx.log" &
NGINX_PID=$!
t0=$(now_ms)
until curl -s -o /dev/null "$ORIGIN_URL/"; do
    kill -0 "$NGINX_PID" 2>/dev/null || { cat "$DEMO/logs/nginx.log" "$DEMO/nginx/logs/error.log" >&2; fail "nginx exited"; }
    [ $(( $(now_ms) - t0 )) -lt 10000 ] || fail "nginx did not answer within 10 s"
    sleep 0.05
done
echo "   $ORIGIN_URL serves $DEMO/www; the secret is in $DEMO/nginx/origin-secret.conf (0600, never printed)"

step "start the KAS: kas serve on 127.0.0.1 over TLS, SQLite store in its data directory, signing media URLs for nginx"
PORT=$(free_port)
KAS_URL="https://127.0.0.1:$PORT"
t0=$(now_ms)
"$BIN/kas" serve --listen "127.0.0.1:$PORT" --data-dir "$DEMO/kas-data" \
    --tls-cert "$DEMO/tls/cert.pem" --tls-key "$DEMO/tls/key.pem" \
    --origin-url "$ORIGIN_URL" --origin-secret-file "$DEMO/nginx/origin-secret.conf" </dev/null 2>"$DEMO/logs/kas.log" &
KAS_PID=$!
until grep -q '"event":"listening"' "$DEMO/logs/kas.log" 2>/dev/null; do
    kill -0 "$KAS_PID" 2>/dev/null || { cat "$DEMO/logs/kas.log" >&2; fail "kas serve exited"; }
    [ $(( $(now_ms) - t0 )) -lt 20000 ] || fail "kas serve did not report listening within 20 s"
    sleep 0.05
done
curl -sf --cacert "$DEMO/tls/cert.pem" "$KAS_URL/healthz" >/dev/null || fail "GET $KAS_URL/healthz"
echo "   $KAS_URL (pid $KAS_PID, listening after $(( $(now_ms) - t0 )) ms; store $DEMO/kas-data/media.sqlite)"
curl -sf --cacert "$DEMO/tls/cert.pem" -o /dev/null "$KAS_URL/player/mediadrm-player.js" || fail "GET $KAS_URL/player/mediadrm-player.js"
echo "   the web player is at $KAS_URL/player/"

step "package the clip as fps-v2 for this KAS (policy: premium tier, at most 2 concurrent streams)"
"$BIN/kas" keys export-public --data-dir "$DEMO/kas-data" >"$DEMO/kas-public.pem" || fail "kas keys export-public"
cat >"$DEMO/policy.json" <<'EOF'
{"body":{"dataAttributes":[{"attribute":"https://example.com/attr/tier/value/premium"}],"dissem":[]}}
EOF
timed "$BIN/packager" package "$DEMO/sample.mp4" -o "$DEMO/www/sample.tdf" --kas-url "$KAS_URL" \
    --kas-public-key "$DEMO/kas-public.pem" --policy "$DEMO/policy.json" \
    --classification '{"filter":"passed","flagged":[],"v":1}' --max-streams 2
PACKAGING_MS=$LAST_MS
echo "   packaging time: $PACKAGING_MS ms for 30 s of media ($(stat -c %s "$DEMO/www/sample.tdf") bytes)"
"$BIN/packager" inspect "$DEMO/www/sample.tdf" --kas-url "$KAS_URL" >"$DEMO/logs/inspect.log" 2>&1 \
    || { cat "$DEMO/logs/inspect.log" >&2; fail "packager inspect"; }
PASSED=$(grep -c '^\[pass\]' "$DEMO/logs/inspect.log" || true)
FAILED=$(grep -c '^\[FAIL\]' "$DEMO/logs/inspect.log" || true)
[ "$FAILED" -eq 0 ] && grep -q '^admitted: yes' "$DEMO/logs/inspect.log" || fail "packager inspect: $FAILED reader checks fail"
echo "   packager inspect: $PASSED reader checks pass, none fail"

step "catalogue it (kas assets add: read with the fps-v2 reader, served at /sample.tdf)"
ASSET=$("$BIN/kas" assets add "$DEMO/www/sample.tdf" --path /sample.tdf --title "Demo sample" \
    --data-dir "$DEMO/kas-data" --public-url "$KAS_URL" 2>"$DEMO/logs/assets.log") \
    || { cat "$DEMO/logs/assets.log" >&2; fail "kas assets add"; }
sed 's/^/   /' "$DEMO/logs/assets.log"
echo "   asset $ASSET"
UNSIGNED=$(curl -s -o /dev/null -w '%{http_code}' -H 'Range: bytes=0-99' "$ORIGIN_URL/sample.tdf")
[ "$UNSIGNED" = 403 ] || fail "nginx answered $UNSIGNED to an unsigned request"
echo "   nginx refuses the unsigned $ORIGIN_URL/sample.tdf: $UNSIGNED"

step "a viewer's token (kas token: the dev issuer, entitled to the premium tier)"
TOKEN=$("$BIN/kas" token --sub demo-viewer --ttl 3600 --data-dir "$DEMO/kas-data" \
    --claims '{"entitlements":["https://example.com/attr/tier/value/premium"]}') || fail "kas token"
echo "   issued for sub demo-viewer, valid 1 h (not shown)"

step "play it: player play --asset (a playback: signed URL, Range reads from nginx, admission, a key per component, decrypt, release)"
t0=$(now_ms)
"$BIN/player" play --asset "$ASSET" --kas "$KAS_URL" --ca "$DEMO/tls/cert.pem" --token "$TOKEN" \
    --output "$DEMO/clear.mp4" 2> >(while IFS= read -r line; do
        printf '   +%5d ms  %s\n' $(( $(now_ms) - t0 )) "$line"; done | tee "$DEMO/logs/player.log") \
    || { sleep 0.2; fail "player play exited non-zero (see above)"; }
PLAY_MS=$(( $(now_ms) - t0 ))
sleep 0.2   # the stderr reader finishes its last line
grep -q "first clear byte" "$DEMO/logs/player.log" || fail "the player reported no first clear byte"

step "verify: every track of the playback is the source's, bit for bit (ffmpeg streamhash)"
verify() {
    local map=$1 a b
    a=$(ffmpeg -nostdin -loglevel error -i "$DEMO/sample.mp4" -map "$map" -c copy -f streamhash -hash md5 - | cut -d, -f2-)
    b=$(ffmpeg -nostdin -loglevel error -i "$DEMO/clear.mp4" -map "$map" -c copy -f streamhash -hash md5 - | cut -d, -f2-)
    [ -n "$a" ] && [ "$a" = "$b" ] || fail "$map: playback $b, source $a"
    echo "   $map  $a"
}
verify 0:v
verify 0:a

# The origin logs paths only (a signed URL is a credential until it expires); nginx answers a
# Range read with 206 only when secure_link accepted its signature (the unsigned read got 403).
SIGNED=$(grep -c '"GET /sample.tdf HTTP/1.1" 206 ' "$DEMO/nginx/logs/access.log" || true)
[ "$SIGNED" -gt 0 ] || fail "nginx logged no signed Range read of /sample.tdf"
! grep -q 'md5=' "$DEMO/nginx/logs/access.log" || fail "nginx logged a URL signature"
echo "   nginx served $SIGNED signed Range reads of /sample.tdf (logged without their signature)"


step "a bitrate ladder: packager --ladder 360p,240p,144p --profile tdf-hls (rungs made with ffmpeg, every segment a TDF)"
t0=$(now_ms)
"$BIN/packager" package "$DEMO/sample.mp4" --ladder 360p,240p,144p --profile tdf-hls -o "$DEMO/www/ladder/" \
    --kas-url "$KAS_URL" --kas-public-key "$DEMO/kas-public.pem" --policy "$DEMO/policy.json" --json --quiet \
    >"$DEMO/logs/ladder.json" 2>"$DEMO/logs/ladder.log" || { cat "$DEMO/logs/ladder.log" >&2; fail "packager --ladder"; }
echo "   ($(( $(now_ms) - t0 )) ms)"
LADDER_FFMPEG=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print("%.1f s (ffmpeg, 3 rungs) + %.2f s (packaging)" % (s["ladderEncodeSeconds"], s["packagingSeconds"]))' "$DEMO/logs/ladder.json")
echo "   $LADDER_FFMPEG"
grep -E '^#EXT-X-(STREAM-INF|MEDIA)' "$DEMO/www/ladder/master.m3u8" | sed 's/^/   /'
LADDER_ASSET=$("$BIN/kas" assets add "$DEMO/www/ladder/" --path /ladder/ --title "Demo ladder" \
    --data-dir "$DEMO/kas-data" --public-url "$KAS_URL" 2>"$DEMO/logs/assets-ladder.log") \
    || { cat "$DEMO/logs/assets-ladder.log" >&2; fail "kas assets add (ladder)"; }
echo "   catalogued as $LADDER_ASSET, served by nginx under one signature for /ladder/"
echo "   play the variant at most 240 lines tall (player play --asset --max-height 240)"
"$BIN/player" play --asset "$LADDER_ASSET" --kas "$KAS_URL" --ca "$DEMO/tls/cert.pem" \
    --token "$TOKEN" --max-height 240 --output "$DEMO/ladder-240.mp4" 2>"$DEMO/logs/player-ladder.log" \
    || { cat "$DEMO/logs/player-ladder.log" >&2; fail "player play of the ladder"; }
grep -o 'components .*' "$DEMO/logs/player-ladder.log" | sed 's/^/   /'
HEIGHT=$(ffprobe -v error -select_streams v:0 -show_entries stream=height -of csv=p=0 "$DEMO/ladder-240.mp4")
[ "$HEIGHT" = 240 ] || fail "the 240-line variant played at $HEIGHT lines"
a=$(ffmpeg -nostdin -loglevel error -i "$DEMO/sample.mp4" -map 0:a -c copy -f streamhash -hash md5 - | cut -d, -f2-)
b=$(ffmpeg -nostdin -loglevel error -i "$DEMO/ladder-240.mp4" -map 0:a -c copy -f streamhash -hash md5 - | cut -d, -f2-)
[ -n "$a" ] && [ "$a" = "$b" ] || fail "the ladder's audio differs from the source's"
echo "   played 426x240; its audio is the source's, bit for bit ($a)"

step "stop the KAS and nginx"
kill -TERM "$KAS_PID"
wait "$KAS_PID" 2>/dev/null || true
KAS_PID=""
kill -QUIT "$NGINX_PID"
wait "$NGINX_PID" 2>/dev/null || true
NGINX_PID=""
echo "   stopped ($(grep -c '"event":"request"' "$DEMO/logs/kas.log" || true) KAS requests logged; audit log $DEMO/kas-data/audit.log)"

printf '\n== summary\n'
printf '   packaging      %6d ms  (30 s clip -> fps-v2, video and audio keys wrapped to the KAS)\n' "$PACKAGING_MS"
# From the player's own progress lines (times measured inside the player).
sed -n 's/^ *+ *\([0-9]*\) ms  player: session started: \(.*\)/   session start  \2 at +\1 ms after launch/p
        s/^ *+ *[0-9]* ms  player: key delivered: \([a-z]*\) in \([0-9]*\) ms/   key delivery   \1 in \2 ms/p
        s/^ *+ *[0-9]* ms  player: first clear byte after \([0-9]*\) ms/   first clear byte after \1 ms (counted by the player from its start: Range reads, admission, sessions, keys)/p
        s/^ *+ *[0-9]* ms  player: finished: \([0-9]*\) bytes in \([0-9]*\) ms/   finished       \1 clear bytes in \2 ms/p' "$DEMO/logs/player.log"
printf '   player process %6d ms  launch to exit, Range reads and TLS included\n' "$PLAY_MS"
printf '   ladder         %s\n' "$LADDER_FFMPEG"
echo
echo "demo: the playback matched the source: every video and audio packet identical (md5 streamhash)."
cat <<EOF

Watch it yourself (a player window needs ffplay or mpv and a display):
  $BIN/kas serve --listen 127.0.0.1:$PORT --data-dir $DEMO/kas-data --tls-cert $DEMO/tls/cert.pem --tls-key $DEMO/tls/key.pem &
  $BIN/player play $DEMO/www/sample.tdf --kas $KAS_URL --ca $DEMO/tls/cert.pem \\
      --token "\$($BIN/kas token --sub demo-viewer --data-dir $DEMO/kas-data --claims '{"entitlements":["https://example.com/attr/tier/value/premium"]}')" --play

Watch it in a browser (docs/web.md): start the KAS as above and the package origin with CORS,
  python3 $ROOT/Tools/python/range_server.py --root $DEMO/www --port 8081 --cors &
then open this URL (accept the demo's self-signed certificate, $DEMO/tls/cert.pem) and paste
the token that 'kas token' above prints into the page (never into the URL):
  $KAS_URL/player/test-form.html?src=http://127.0.0.1:8081/sample.tdf
EOF
