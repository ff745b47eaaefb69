# Sourced by Tools/bench.sh for BENCH_PART=live: live tdf-hls latency (issue 34, docs/live.md). An
# encoder in real time (ffmpeg -re, the 1080p clip copied as fragmented MP4) feeds `packager live`
# (2 s segments) into a directory served by a loopback origin (Tools/python/range_server.py);
# once four segments are listed, `player play` of its master playlist follows the stream from
# near the edge to EXT-X-ENDLIST through the built `kas serve`. Recorded: the player's events
# (`live-segment` latencyMs per segment, `live-ended`) and the packager's CPU time (/usr/bin/time)
# per second of input. Needs from bench.sh: CLIP, WORK, ROOT, PACKAGER, PLAYER, KASURL, PY, step,
# record, record_command, die, and kas serve running with viewer tokens in $WORK/tokens.txt.

LIVE_SECONDS=60
LIVE_SEGMENT=2
LIVE_ORIGIN="$WORK/live-origin"
LIVE_DIR="$LIVE_ORIGIN/live"
mkdir -p "$LIVE_ORIGIN"

step "live: the loopback origin (range_server.py) for $LIVE_ORIGIN"
# The server exits when its standard input closes, so it never outlives this run.
coproc LIVE_ORIGIN_SERVER { exec "$PY" "$ROOT/Tools/python/range_server.py" --root "$LIVE_ORIGIN"; }
read -r LIVE_ORIGIN_PORT <&"${LIVE_ORIGIN_SERVER[0]}" || die "the live origin did not start"
LIVE_URL="http://127.0.0.1:$LIVE_ORIGIN_PORT/live/master.m3u8"

LIVE_FFMPEG=(ffmpeg -nostdin -loglevel error -re -i "$CLIP" -t "$LIVE_SECONDS" -c copy -f mp4
             -movflags frag_keyframe+empty_moov+default_base_moof pipe:1)
LIVE_PACKAGER=("$PACKAGER" live --input - --profile tdf-hls -o "$LIVE_DIR" --kas-url "$KASURL"
               --kas-public-key "$WORK/kas-public.pem" --policy "$WORK/policy.json"
               --segment-duration "$LIVE_SEGMENT" --window 6 --dvr 60 --key-period 10 --quiet)
record_command live-encoder "${LIVE_FFMPEG[@]}"
record_command live-packager /usr/bin/time -f '%e %U %S' "${LIVE_PACKAGER[@]}"
record_command live-player "$PLAYER" play "http://127.0.0.1:ORIGIN_PORT/live/master.m3u8" --kas "$KASURL" --token TOKEN --json

step "live: ffmpeg -re feeding packager live for ${LIVE_SECONDS} s; player play from near the edge"
record "{\"kind\":\"load\",\"when\":\"start-live-stream\",\"loadavg\":\"$(loadavg)\"}"
( "${LIVE_FFMPEG[@]}" | /usr/bin/time -f '%e %U %S' -o "$WORK/live-packager.time" "${LIVE_PACKAGER[@]}" ) \
    2> "$WORK/live-pipeline.log" &
LIVE_PIPELINE=$!
listed=0
for _ in $(seq 1 600); do
    listed=$(grep -c '\.tdf$' "$LIVE_DIR/video.m3u8" 2>/dev/null || true)
    [ "${listed:-0}" -ge 4 ] && break
    kill -0 "$LIVE_PIPELINE" 2>/dev/null || break
    sleep 0.1
done
[ "${listed:-0}" -ge 4 ] || { cat "$WORK/live-pipeline.log" >&2; die "the live playlist never listed 4 segments"; }
grep -q 'EXT-X-ENDLIST' "$LIVE_DIR/video.m3u8" && die "the stream ended before the player started"
# Clear media goes to /dev/null through the shell; the JSON events come on standard error.
"$PLAYER" play "$LIVE_URL" --kas "$KASURL" --token "$(head -n 1 "$WORK/tokens.txt")" --json \
    > /dev/null 2> "$WORK/live-player.log" || { tail -n 20 "$WORK/live-player.log" >&2; die "player play of the live stream"; }
wait "$LIVE_PIPELINE" || { cat "$WORK/live-pipeline.log" >&2; die "ffmpeg | packager live"; }
record "{\"kind\":\"load\",\"when\":\"end-live-stream\",\"loadavg\":\"$(loadavg)\"}"

# The player's live events and the packager's times, as records.
"$PY" - "$WORK/live-player.log" "$WORK/live-packager.time" "$LIVE_SECONDS" "$LIVE_SEGMENT" >> "$RESULTS" <<'EOF'
import json, sys
player, times, seconds, segment = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
for line in open(player):
    try:
        event = json.loads(line)
    except ValueError:
        continue
    if isinstance(event, dict) and event.get("event") in ("live-started", "live-segment", "live-ended"):
        print(json.dumps({"kind": "live_event", **event}))
wall, user, system = (float(x) for x in open(times).read().split()[-3:])
print(json.dumps({"kind": "live_packager", "wall_s": wall, "user_s": user, "sys_s": system,
                  "input_s": seconds, "segment_s": segment}))
EOF
exec {LIVE_ORIGIN_SERVER[1]}>&-
