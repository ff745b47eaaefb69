# Sourced by Tools/bench.sh (the whole run, or BENCH_PART=ladder for this part alone): the
# packaging time of a four-rung ladder (issue 18), ours (tdf-hls: every segment a Standard TDF)
# and Shaka Packager 3.8.0 (clear HLS) on the same pre-made renditions with 2 s closed GOPs and
# 6 s segments, RUNS alternating runs each; then `--ladder` once, its ffmpeg time apart.
# Needs from bench.sh: CLIP, CACHE, WORK, PACKAGER, SHAKA, PY, KASURL, RUNS, step, timed,
# record, record_command, die.

step "ladder: pre-made renditions of the 1080p clip (cached in out/bench/media)"
LADDER_RUNGS=(1080:5000k 720:2800k 480:1400k 360:800k)
RUNG_FILES=()
for rung in "${LADDER_RUNGS[@]}"; do
    height=${rung%%:*}; rate=${rung#*:}
    file="$CACHE/rung-${height}p-gop2s.mp4"
    if [ ! -s "$file" ]; then
        ffmpeg -hide_banner -loglevel error -y -i "$CLIP" -map 0:v:0 -an -vf "scale=-2:$height" -c:v libx264 -preset veryfast \
            -b:v "$rate" -maxrate "$rate" -bufsize "$rate" -g 60 -keyint_min 60 -sc_threshold 0 -pix_fmt yuv420p \
            -movflags +faststart "$file.tmp.mp4"
        mv "$file.tmp.mp4" "$file"
    fi
    RUNG_FILES+=("$file")
done
record "{\"kind\":\"ladder_rungs\",\"files\":[$(for f in "${RUNG_FILES[@]}"; do printf '"%s",' "$(basename "$f")"; done | sed 's/,$//')],\"bytes\":$(cat "${RUNG_FILES[@]}" | wc -c)}"

step "ladder packaging: ours (tdf-hls) vs Shaka Packager 3.8.0 (clear HLS), 4 rungs + audio, $RUNS alternating runs each"
LADDER_OURS=("$PACKAGER" package "${RUNG_FILES[@]}" --audio "$CLIP:lang=en" --profile tdf-hls -o "$WORK/ladder-ours/"
             --kas-url "$KASURL" --kas-public-key "$WORK/kas-public.pem" --policy "$WORK/policy.json" --segment-duration 6 --quiet)
LADDER_SHAKA=("$SHAKA")
for f in "${RUNG_FILES[@]}"; do
    n=$(basename "$f" .mp4)
    LADDER_SHAKA+=("in=$f,stream=video,init_segment=$WORK/ladder-shaka/$n-init.mp4,segment_template=$WORK/ladder-shaka/$n-\$Number\$.m4s,playlist_name=$n.m3u8")
done
LADDER_SHAKA+=("in=$CLIP,stream=audio,init_segment=$WORK/ladder-shaka/audio-init.mp4,segment_template=$WORK/ladder-shaka/audio-\$Number\$.m4s,playlist_name=audio.m3u8,hls_group_id=audio,hls_name=English,language=en"
               --segment_duration 6 --hls_master_playlist_output "$WORK/ladder-shaka/master.m3u8")
record_command ladder-ours "${LADDER_OURS[@]}"
record_command ladder-shaka "${LADDER_SHAKA[@]}"
rm -rf "$WORK/ladder-ours"; "${LADDER_OURS[@]}" > /dev/null
rm -rf "$WORK/ladder-shaka"; mkdir -p "$WORK/ladder-shaka"; "${LADDER_SHAKA[@]}" 2> /dev/null
for i in $(seq 1 "$RUNS"); do
    rm -rf "$WORK/ladder-ours"
    timed ladder ours "$i" "${LADDER_OURS[@]}"
    rm -rf "$WORK/ladder-shaka"; mkdir -p "$WORK/ladder-shaka"
    timed ladder shaka "$i" "${LADDER_SHAKA[@]}"
done
# Both wrote four variants cut at the same times (checked once, not timed).
"$PY" "$HERE/ladder_check.py" "$WORK/ladder-ours/master.m3u8" "$WORK/ladder-shaka/master.m3u8" >> "$RESULTS" \
    || die "the two ladders do not have the same variants and segment boundaries"
record "{\"kind\":\"sizes\",\"ladder_ours_bytes\":$(du -sb "$WORK/ladder-ours" | cut -f1),\"ladder_shaka_bytes\":$(du -sb "$WORK/ladder-shaka" | cut -f1)}"

step "--ladder 1080p,720p,480p,360p from the 1080p clip: ffmpeg's time and the packaging time apart (one run)"
LADDER_AUTO=("$PACKAGER" package "$CLIP" --ladder 1080p,720p,480p,360p --profile tdf-hls -o "$WORK/ladder-auto/"
             --kas-url "$KASURL" --kas-public-key "$WORK/kas-public.pem" --policy "$WORK/policy.json" --segment-duration 6 --json --quiet)
record_command ladder-auto "${LADDER_AUTO[@]}"
"${LADDER_AUTO[@]}" > "$WORK/ladder-auto.json" || die "packager --ladder failed"
"$PY" -c 'import json,sys; s=json.load(open(sys.argv[1])); print(json.dumps({"kind":"ladder_auto","ffmpeg_s":s["ladderEncodeSeconds"],"packaging_s":s["packagingSeconds"],"variants":sum(c["id"].startswith("video") for c in s["components"])}))' \
    "$WORK/ladder-auto.json" >> "$RESULTS"
rm -rf "$WORK/ladder-ours" "$WORK/ladder-shaka" "$WORK/ladder-auto"
