# Sourced by Tools/bench.sh (the whole run, after the key-delivery phases, or BENCH_PART=licence for
# this part alone): the W3C ClearKey licence route (issue 29) under a fixed 1,000 req/s and at
# saturation, as standard players' CDMs call it: a cmaf title packaged and catalogued, one playback
# started by the page's backend, then its licence URL asked for the video key again and again.
# Every licence runs every check a key request does (the URL's signature and expiry, the viewer's
# key-request budget, the key ids, the media session, entitlement and rental, the stream limit).
# Needs from bench.sh: CLIP, WORK, PACKAGER, KAS, KASDATA, KASURL, PORT, PY, HERE, LOAD_SECONDS,
# kas_phase (with kas serve running), step, record, record_command, die.

step "licence route: a cmaf title (the 1080p clip) packaged and catalogued"
"$PACKAGER" package "$CLIP" --profile cmaf -o "$WORK/licence-cmaf/" --kas-url "$KASURL" \
    --kas-public-key "$WORK/kas-public.pem" --policy "$WORK/policy.json" --segment-duration 6 --quiet \
    || die "packaging the cmaf title for the licence route"
LICENCE_ASSET=$("$KAS" assets add "$WORK/licence-cmaf/" --path /licence-cmaf/ --title "licence bench" \
    --data-dir "$KASDATA" --public-url "$KASURL" 2> "$WORK/assets-add.log") \
    || { cat "$WORK/assets-add.log" >&2; die "kas assets add of the cmaf title"; }
LICENCE_INIT=$("$PY" -c 'import json,sys; m=json.load(open(sys.argv[1]+"/manifest.json")); print(next(k["renditions"][0] for k in m["meta"]["keys"] if k["component"]=="video"))' "$WORK/licence-cmaf")
LICENCE_VIDEO_KEY=$("$PY" "$HERE/unwrap_keys.py" "$WORK/licence-cmaf" "$KASDATA/keys/$(ls "$KASDATA/keys" | grep -m1 '^r[0-9]*\.pem$')" \
    video "$WORK/licence-cmaf/$LICENCE_INIT/init.mp4")
# 16 viewers with 2 playbacks each: the KAS serves one playback component's licences one at a
# time, so the load is spread over 32 playbacks as many players' would be.
: > "$WORK/licence-tokens.txt"
for v in $(seq 1 16); do
    "$KAS" token --data-dir "$KASDATA" --sub "licence-viewer-$v" --ttl 3600 \
        --claims '{"entitlements":["https://example.com/attr/tier/value/premium"]}' >> "$WORK/licence-tokens.txt"
done
"$PY" "$HERE/licence_pool.py" "$PORT" "$LICENCE_ASSET" "$WORK/licence-tokens.txt" "$WORK/licence.bin" \
    --expect-video "$LICENCE_VIDEO_KEY" --playbacks-per-viewer 2 > "$WORK/licence-pool.json" || die "the first ClearKey licences"
record "{\"kind\":\"licence_pool\",\"summary\":$(cat "$WORK/licence-pool.json")}"

step "licence route: 1,000 req/s and saturation, ${LOAD_SECONDS} s each"
record_command licence-fixed "$LOADGEN" --port "$PORT" --requests "$WORK/licence.bin" --rate 1000 --duration "$LOAD_SECONDS" --connections 32 --expect '"keys"'
record_command licence-saturation "$LOADGEN" --port "$PORT" --requests "$WORK/licence.bin" --rate 0 --duration "$LOAD_SECONDS" --connections 16 --expect '"keys"'
PHASE_KIND=licence_phase kas_phase licence-1000 warm 1000 "$WORK/licence.bin" 32
PHASE_KIND=licence_phase kas_phase licence-saturation warm 0 "$WORK/licence.bin" 16
