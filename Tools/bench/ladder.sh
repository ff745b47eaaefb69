# Sourced by Tools/bench.sh (the whole run, or BENCH_PART=ladder for this part alone): the
# packaging time of a four-rung ladder (issue 18), ours (tdf-hls: every segment a Standard TDF)
# and Shaka Packager 3.8.0 (clear HLS) on the same pre-made renditions with 2 s closed GOPs and
# 6 s segments, RUNS alternating runs each; then `--ladder` once, its ffmpeg time apart.
# Then the same rungs as cmaf against Shaka Packager's cbcs (issue 29).
# Needs from bench.sh: CLIP, CACHE, WORK, PACKAGER, SHAKA, PY, KASURL, RUNS, VKID, VKEY, AKID, AKEY,
# step, timed, record, record_command, die.

# alternate GROUP OURS SHAKA OURS_OUT SHAKA_OUT: OURS and SHAKA name command arrays; one unrecorded
# run of each (the inputs in the page cache, the binaries loaded), then RUNS alternating timed runs,
# each into a fresh output.
alternate() {
    local group=$1 ours_out=$4 shaka_out=$5 i
    local -n ours_command=$2 shaka_command=$3
    rm -rf "$ours_out"; "${ours_command[@]}" > /dev/null
    rm -rf "$shaka_out"; mkdir -p "$shaka_out"; "${shaka_command[@]}" 2> /dev/null
    for i in $(seq 1 "$RUNS"); do
        rm -rf "$ours_out"
        timed "$group" ours "$i" "${ours_command[@]}"
        rm -rf "$shaka_out"; mkdir -p "$shaka_out"
        timed "$group" shaka "$i" "${shaka_command[@]}"
    done
}

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
alternate ladder LADDER_OURS LADDER_SHAKA "$WORK/ladder-ours" "$WORK/ladder-shaka"
# Both wrote four variants cut at the same times (checked once, not timed).
"$PY" "$HERE/ladder_check.py" "$WORK/ladder-ours/master.m3u8" "$WORK/ladder-shaka/master.m3u8" >> "$RESULTS" \
    || die "the two ladders do not have the same variants and segment boundaries"
record "{\"kind\":\"sizes\",\"ladder_ours_bytes\":$(du -sb "$WORK/ladder-ours" | cut -f1),\"ladder_shaka_bytes\":$(du -sb "$WORK/ladder-shaka" | cut -f1)}"

step "cmaf ladder packaging: ours (--profile cmaf) vs Shaka Packager 3.8.0 (cbcs), 4 rungs + audio, $RUNS alternating runs each"
# The same rungs and audio, both encrypted in cbcs with one video key and one audio key, the W3C
# common pssh in every init, an HLS master and a DASH MPD (issue 29).
CMAF_OURS=("$PACKAGER" package "${RUNG_FILES[@]}" --audio "$CLIP:lang=en" --profile cmaf -o "$WORK/cmaf-ours/"
           --kas-url "$KASURL" --kas-public-key "$WORK/kas-public.pem" --policy "$WORK/policy.json" --segment-duration 6 --quiet)
CMAF_SHAKA=("$SHAKA")
for f in "${RUNG_FILES[@]}"; do
    n=$(basename "$f" .mp4)
    CMAF_SHAKA+=("in=$f,stream=video,drm_label=VIDEO,init_segment=$WORK/cmaf-shaka/$n/init.mp4,segment_template=$WORK/cmaf-shaka/$n/\$Number\$.m4s,playlist_name=$n.m3u8")
done
CMAF_SHAKA+=("in=$CLIP,stream=audio,drm_label=AUDIO,init_segment=$WORK/cmaf-shaka/audio/init.mp4,segment_template=$WORK/cmaf-shaka/audio/\$Number\$.m4s,playlist_name=audio.m3u8,hls_group_id=audio,hls_name=English,language=en"
             --protection_scheme cbcs --enable_raw_key_encryption --keys "label=VIDEO:key_id=$VKID:key=$VKEY,label=AUDIO:key_id=$AKID:key=$AKEY"
             --protection_systems CommonSystem --clear_lead 0 --segment_duration 6
             --hls_master_playlist_output "$WORK/cmaf-shaka/master.m3u8" --mpd_output "$WORK/cmaf-shaka/manifest.mpd")
record_command cmaf-ladder-ours "${CMAF_OURS[@]}"
record_command cmaf-ladder-shaka "${CMAF_SHAKA[@]}"
alternate cmaf-ladder CMAF_OURS CMAF_SHAKA "$WORK/cmaf-ours" "$WORK/cmaf-shaka"
"$PY" "$HERE/ladder_check.py" "$WORK/cmaf-ours/master.m3u8" "$WORK/cmaf-shaka/master.m3u8" --name cmaf_ladder_check >> "$RESULTS" \
    || die "the two cmaf ladders do not have the same variants and segment boundaries"
record "{\"kind\":\"sizes\",\"cmaf_ours_bytes\":$(du -sb "$WORK/cmaf-ours" | cut -f1),\"cmaf_shaka_bytes\":$(du -sb "$WORK/cmaf-shaka" | cut -f1)}"
rm -rf "$WORK/cmaf-ours" "$WORK/cmaf-shaka"

step "--ladder 1080p,720p,480p,360p from the 1080p clip: ffmpeg's time and the packaging time apart (one run)"
LADDER_AUTO=("$PACKAGER" package "$CLIP" --ladder 1080p,720p,480p,360p --profile tdf-hls -o "$WORK/ladder-auto/"
             --kas-url "$KASURL" --kas-public-key "$WORK/kas-public.pem" --policy "$WORK/policy.json" --segment-duration 6 --json --quiet)
record_command ladder-auto "${LADDER_AUTO[@]}"
"${LADDER_AUTO[@]}" > "$WORK/ladder-auto.json" || die "packager --ladder failed"
"$PY" -c 'import json,sys; s=json.load(open(sys.argv[1])); print(json.dumps({"kind":"ladder_auto","ffmpeg_s":s["ladderEncodeSeconds"],"packaging_s":s["packagingSeconds"],"variants":sum(c["id"].startswith("video") for c in s["components"])}))' \
    "$WORK/ladder-auto.json" >> "$RESULTS"
rm -rf "$WORK/ladder-ours" "$WORK/ladder-shaka" "$WORK/ladder-auto"
