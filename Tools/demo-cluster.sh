#!/usr/bin/env bash
# `make demo-cluster`: the KAS scaled out as docs/kas.md "Scale-out with Redis" describes it,
# on this machine, step by step:
#   one redis-server (AOF with appendfsync always, maxmemory-policy noeviction, a password),
#   two `kas serve` nodes sharing that store and one key ring directory, each with its own data
#   directory (audit log) and node name, and nginx in front as the load balancer (round robin,
#   X-Forwarded-For, the nodes trusting nginx through trustedProxies);
#   a clip packaged for the load balancer's URL and played twice with `player` through nginx,
#   checked against the source with ffmpeg, and the audit logs' `node` field showing that the
#   sessions landed on both nodes.
# Everything listens on 127.0.0.1 only and is stopped at the end (and on any failure). What it made
# stays in out/demo-cluster/. CONFIG=debug uses debug builds (default: release, as `make demo`).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SCRATCH="$ROOT/.build"
CONFIG="${CONFIG:-release}"
BIN="$SCRATCH/$CONFIG"
DEMO="$ROOT/out/demo-cluster"
export PATH="/opt/swift/usr/bin:$PATH"
DEMO_NAME=demo-cluster
source "$ROOT/Tools/lib/processes.sh"

PIDS=()   # "name:pid:signal", stopped in reverse order
cleanup() {
    local status=$? name pid signal
    for (( i=${#PIDS[@]}-1; i>=0; i-- )); do
        IFS=: read -r name pid signal <<<"${PIDS[$i]}"
        stop_gracefully "$pid" "$signal"
    done
    if [ "$status" -ne 0 ]; then echo "demo-cluster: FAILED (exit $status); logs in $DEMO/logs" >&2; fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# wait_for WHAT PID COMMAND...: polls COMMAND (bounded, 30 s) while PID lives.
wait_for() {
    local what=$1 pid=$2 t0; shift 2
    t0=$(now_ms)
    until "$@" >/dev/null 2>&1; do
        kill -0 "$pid" 2>/dev/null || fail "$what exited (see $DEMO/logs)"
        [ $(( $(now_ms) - t0 )) -lt 30000 ] || fail "$what did not come up within 30 s"
        sleep 0.05
    done
}

for tool in redis-server redis-cli nginx ffmpeg curl python3; do
    command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] || fail "$tool is not installed: run 'make deps'"
done
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

rm -rf "$DEMO"
mkdir -p "$DEMO/logs" "$DEMO/redis" "$DEMO/nginx/logs" "$DEMO/nginx/tmp"

step "build the tools ($CONFIG: packager, kas, player)"
for pair in Packager:packager KAS:kas Client:player; do
    package=${pair%%:*} product=${pair##*:}
    rm -f "$SCRATCH/$CONFIG.yaml" "$SCRATCH/$CONFIG/description.json"
    swift build --package-path "$ROOT/Packages/$package" --scratch-path "$SCRATCH" -c "$CONFIG" --product "$product" \
        >"$DEMO/logs/build-$product.log" 2>&1 || { tail -30 "$DEMO/logs/build-$product.log" >&2; fail "swift build $product"; }
    echo "   $product: $BIN/$product"
done

step "redis-server on 127.0.0.1: AOF with appendfsync always, maxmemory-policy noeviction, a password"
REDIS_PORT=$(free_port)
# The password lives in a 0600 file and reaches the nodes through KAS_STORE_PASSWORD: it is never
# on a command line, in a URL or printed.
( umask 077; head -c 24 /dev/urandom | base64 | tr -d '/+=' >"$DEMO/redis/password" )
( umask 077; {
    echo "bind 127.0.0.1"; echo "port $REDIS_PORT"; echo "dir $DEMO/redis"; echo "save \"\""
    echo "appendonly yes"; echo "appendfsync always"; echo "maxmemory-policy noeviction"
    echo "requirepass $(cat "$DEMO/redis/password")"
} >"$DEMO/redis/redis.conf" )
redis-server "$DEMO/redis/redis.conf" </dev/null >"$DEMO/logs/redis.log" 2>&1 &
PIDS+=("redis:$!:TERM")
REDIS_PID=$!
wait_for redis-server "$REDIS_PID" env REDISCLI_AUTH="$(cat "$DEMO/redis/password")" redis-cli -p "$REDIS_PORT" ping
echo "   redis://127.0.0.1:$REDIS_PORT/0 (pid $REDIS_PID; password in $DEMO/redis/password, 0600)"

step "one key ring for both nodes (kas keys generate in a shared directory)"
"$BIN/kas" keys generate --data-dir "$DEMO/shared" >"$DEMO/logs/keys.log" 2>&1 || { cat "$DEMO/logs/keys.log" >&2; fail "kas keys generate"; }
"$BIN/kas" keys list --data-dir "$DEMO/shared" | sed 's/^/   /'

LB_PORT=$(free_port)
LB_URL="http://127.0.0.1:$LB_PORT"
step "two kas serve nodes, node-a and node-b: store redis://127.0.0.1:$REDIS_PORT/0, key ring $DEMO/shared, trusting nginx (127.0.0.1)"
NODE_PORTS=()
for node in node-a node-b; do
    port=$(free_port)
    KAS_STORE_URL="redis://127.0.0.1:$REDIS_PORT/0" KAS_STORE_PASSWORD="$(cat "$DEMO/redis/password")" \
    KAS_NODE="$node" KAS_TRUSTED_PROXIES=127.0.0.1 KAS_PUBLIC_URL="$LB_URL" \
        "$BIN/kas" serve --listen "127.0.0.1:$port" --data-dir "$DEMO/$node" --key-ring-dir "$DEMO/shared" \
        </dev/null 2>"$DEMO/logs/$node.log" &
    PIDS+=("$node:$!:TERM")
    wait_for "kas serve ($node)" "$!" grep -q '"event":"listening"' "$DEMO/logs/$node.log"
    NODE_PORTS+=("$port")
    echo "   $node: http://127.0.0.1:$port (pid $!; audit log $DEMO/$node/audit.log)"
done
if grep -q "$(cat "$DEMO/redis/password")" "$DEMO"/logs/node-*.log; then fail "a node printed the store password"; fi

step "nginx on $LB_URL: round robin over both nodes, X-Forwarded-For appended"
cat >"$DEMO/nginx/nginx.conf" <<EOF
daemon off;
pid $DEMO/nginx/nginx.pid;
error_log $DEMO/nginx/logs/error.log warn;
events { worker_connections 256; }
http {
    access_log $DEMO/nginx/logs/access.log;
    client_body_temp_path $DEMO/nginx/tmp/body;
    proxy_temp_path $DEMO/nginx/tmp/proxy;
    fastcgi_temp_path $DEMO/nginx/tmp/fastcgi;
    uwsgi_temp_path $DEMO/nginx/tmp/uwsgi;
    scgi_temp_path $DEMO/nginx/tmp/scgi;
    upstream kas {
        server 127.0.0.1:${NODE_PORTS[0]};
        server 127.0.0.1:${NODE_PORTS[1]};
        keepalive 16;
    }
    server {
        listen 127.0.0.1:$LB_PORT;
        client_header_timeout 5s;
        client_body_timeout 5s;
        client_max_body_size 2m;
        location / {
            proxy_pass http://kas;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host \$host;
            proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
        }
    }
}
EOF
"$NGINX" -p "$DEMO/nginx" -c "$DEMO/nginx/nginx.conf" </dev/null 2>"$DEMO/logs/nginx.log" &
PIDS+=("nginx:$!:QUIT")
wait_for nginx "$!" curl -sf "$LB_URL/healthz"
echo "   $LB_URL/healthz answers through nginx"

step "package a 10 s clip as fps-v2 for $LB_URL (premium tier, at most 2 concurrent streams)"
ffmpeg -nostdin -loglevel error -y -f lavfi -i testsrc2=size=320x180:rate=30 \
    -f lavfi -i "aevalsrc=0.4*sin(440*2*PI*t)|0.4*sin(660*2*PI*t):s=48000" -t 10 \
    -c:v libx264 -preset veryfast -g 60 -pix_fmt yuv420p -c:a aac -ac 2 -b:a 96k "$DEMO/sample.mp4" || fail "ffmpeg"
"$BIN/kas" keys export-public --data-dir "$DEMO/shared" >"$DEMO/kas-public.pem" || fail "kas keys export-public"
echo '{"body":{"dataAttributes":[{"attribute":"https://example.com/attr/tier/value/premium"}],"dissem":[]}}' >"$DEMO/policy.json"
"$BIN/packager" package "$DEMO/sample.mp4" -o "$DEMO/sample.tdf" --kas-url "$LB_URL" --kas-public-key "$DEMO/kas-public.pem" \
    --policy "$DEMO/policy.json" --classification '{"filter":"passed","flagged":[],"v":1}' --max-streams 2 --quiet >"$DEMO/logs/packager.out" \
    2>"$DEMO/logs/packager.log" || { cat "$DEMO/logs/packager.log" >&2; fail "packager package"; }
echo "   $DEMO/sample.tdf ($(stat -c %s "$DEMO/sample.tdf") bytes)"

step "play it twice through nginx (player play --kas $LB_URL: a session and a key per component each time)"
TOKEN=$("$BIN/kas" token --sub demo-cluster-viewer --ttl 3600 --data-dir "$DEMO/shared" \
    --claims '{"entitlements":["https://example.com/attr/tier/value/premium"]}') || fail "kas token"
for run in 1 2; do
    t0=$(now_ms)
    "$BIN/player" play "$DEMO/sample.tdf" --kas "$LB_URL" --token "$TOKEN" --output "$DEMO/clear-$run.mp4" \
        2>"$DEMO/logs/player-$run.log" || { cat "$DEMO/logs/player-$run.log" >&2; fail "player play (run $run)"; }
    for map in 0:v 0:a; do
        a=$(ffmpeg -nostdin -loglevel error -i "$DEMO/sample.mp4" -map "$map" -c copy -f streamhash -hash md5 - | cut -d, -f2-)
        b=$(ffmpeg -nostdin -loglevel error -i "$DEMO/clear-$run.mp4" -map "$map" -c copy -f streamhash -hash md5 - | cut -d, -f2-)
        [ -n "$a" ] && [ "$a" = "$b" ] || fail "run $run, $map: playback $b, source $a"
    done
    echo "   run $run: $(( $(now_ms) - t0 )) ms; video and audio identical to the source (md5 streamhash)"
done

step "where the sessions landed: the audit logs' node field"
python3 - "$DEMO/node-a/audit.log" "$DEMO/node-b/audit.log" <<'EOF' || fail "the sessions did not land on both nodes"
import collections, json, sys
counts = collections.Counter()
for path in sys.argv[1:]:
    for line in open(path):
        event = json.loads(line)
        if event["decision"] == "allow":
            counts[(event["node"], event["event"])] += 1
for (node, event), n in sorted(counts.items()):
    print(f"   {node}  {event:<14} {n}")
nodes = {node for node, event in counts if event == "session_start"}
sys.exit(0 if nodes == {"node-a", "node-b"} else 1)
EOF
SESSIONS=$(REDISCLI_AUTH="$(cat "$DEMO/redis/password")" redis-cli -p "$REDIS_PORT" dbsize)
echo "   one store behind both: redis holds $SESSIONS keys (sessions, first plays, stream limits, rate buckets)"

step "stop nginx, both nodes (SIGTERM, graceful) and redis-server"
for (( i=${#PIDS[@]}-1; i>=0; i-- )); do
    IFS=: read -r name pid signal <<<"${PIDS[$i]}"
    stop_gracefully "$pid" "$signal"
    echo "   $name stopped"
done
PIDS=()
echo
echo "demo-cluster: two nodes behind nginx served one viewer from one Redis store; both playbacks matched the source."
