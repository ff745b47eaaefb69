# Sourced by Tools/bench.sh for `BENCH_PART=redis`: the key-request load of section 3 (warm cache,
# 1,000 req/s and saturation) against one `kas serve` on its SQLite store, one node on Redis
# (appendfsync always, then everysec), and two nodes on one Redis behind nginx (round robin), all
# on this one machine. Expects KAS, LOADGEN, PACKAGER, PY, WORK, KASDATA, CLIP, HERE, LOAD_SECONDS
# and the helpers step/die/record/record_command from bench.sh. Each configuration gets a fresh
# store and its own pool of live sessions (sessions live in the store under test).
REDIS_PIDS=() NODE_PIDS=() NGINX_PID=""
redis_cleanup() {
    local pid
    for pid in "${NODE_PIDS[@]}" ${NGINX_PID:+"$NGINX_PID"} "${REDIS_PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    NODE_PIDS=() REDIS_PIDS=() NGINX_PID=""
}
trap 'redis_cleanup; cleanup' EXIT
command -v redis-server >/dev/null || die "redis-server is missing (make deps installs it)"
NGINX_BIN=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$NGINX_BIN" ] || die "nginx is missing (make deps installs it)"
free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_http() {   # URL PID
    for _ in $(seq 1 300); do
        curl -fsS "$1/healthz" > /dev/null 2>&1 && return 0
        kill -0 "$2" 2>/dev/null || die "a server exited before answering $1"
        sleep 0.1
    done
    die "$1 did not answer /healthz"
}

step "package the 1080p clip once (fps-v2) for the key-request pools"
"$PACKAGER" package "$CLIP" -o "$WORK/ours.zip" --kas-url "$KASURL" --kas-public-key "$WORK/kas-public.pem" \
    --policy "$WORK/policy.json" --segment-duration 6 --quiet
mkdir -p "$WORK/pkg" && (cd "$WORK/pkg" && unzip -q "$WORK/ours.zip")
VIDEO_KEY=$("$PY" "$HERE/unwrap_keys.py" "$WORK/pkg" "$KASDATA/keys/$(ls "$KASDATA/keys" | grep -m1 '^r[0-9]*\.pem$')" video)
: > "$WORK/tokens.txt"
for v in 1 2 3 4; do
    "$KAS" token --data-dir "$KASDATA" --sub "bench-viewer-$v" --ttl 3600 \
        --claims '{"entitlements":["https://example.com/attr/tier/value/premium"]}' >> "$WORK/tokens.txt"
done

# start_redis FSYNC: a fresh redis-server (AOF with appendfsync FSYNC, noeviction) on a free port.
start_redis() {
    local dir="$WORK/redis-$1-$RANDOM"
    mkdir -p "$dir"
    REDIS_PORT=$(free_port)
    redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --dir "$dir" --save "" --appendonly yes \
        --appendfsync "$1" --maxmemory-policy noeviction > "$dir/redis.log" 2>&1 &
    REDIS_PIDS+=("$!")
    for _ in $(seq 1 100); do redis-cli -p "$REDIS_PORT" ping > /dev/null 2>&1 && return 0; sleep 0.1; done
    die "redis-server did not answer on $REDIS_PORT"
}
# start_node NAME [STORE_URL]: kas serve on the bench key ring, its own data directory.
start_node() {
    local name=$1 store=${2:-} port
    port=$(free_port)
    env KAS_KEY_REQUESTS_PER_MINUTE=1000000 KAS_NODE="$name" KAS_PUBLIC_URL="$KASURL" KAS_TRUSTED_PROXIES=127.0.0.1 \
        ${store:+KAS_STORE_URL="$store"} \
        "$KAS" serve --listen "127.0.0.1:$port" --data-dir "$WORK/node-$name" --key-ring-dir "$KASDATA" \
        2> "$WORK/node-$name.log" &
    NODE_PIDS+=("$!")
    wait_http "http://127.0.0.1:$port" "$!"
    NODE_PORT=$port
}
start_nginx() {   # PORT UPSTREAM_PORT...
    local port=$1; shift
    local dir="$WORK/nginx" upstream=""
    mkdir -p "$dir/logs" "$dir/tmp"
    for p in "$@"; do upstream+="server 127.0.0.1:$p; "; done
    cat > "$dir/nginx.conf" <<EOF
daemon off;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/logs/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $dir/tmp/body; proxy_temp_path $dir/tmp/proxy; fastcgi_temp_path $dir/tmp/fastcgi;
    uwsgi_temp_path $dir/tmp/uwsgi; scgi_temp_path $dir/tmp/scgi;
    upstream kas { $upstream keepalive 64; }
    server {
        listen 127.0.0.1:$port;
        client_max_body_size 2m;
        location / {
            proxy_pass http://kas; proxy_http_version 1.1; proxy_set_header Connection "";
            proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
        }
    }
}
EOF
    "$NGINX_BIN" -p "$dir" -c "$dir/nginx.conf" 2> "$dir/logs/stderr.log" &
    NGINX_PID=$!
    wait_http "http://127.0.0.1:$port" "$NGINX_PID"
}
cpu_of() { local total=0 pid; for pid in "$@"; do total=$(( total + $(awk '{print $14 + $15}' "/proc/$pid/stat") )); done; echo "$total"; }

# redis_phase CONFIG NAME RATE CONNECTIONS PORT: one loadgen run on CONFIG's pool, CPU of every
# server process of the configuration (nodes, nginx, redis-server) around it.
redis_phase() {
    local config=$1 name=$2 rate=$3 connections=$4 port=$5 cpu0 cpu1 t0 t1 out pids
    # nginx's work is done by its worker, a child of the master.
    pids=("${NODE_PIDS[@]}" "${REDIS_PIDS[@]}")
    if [ -n "$NGINX_PID" ]; then pids+=("$NGINX_PID" $(pgrep -P "$NGINX_PID")); fi
    cpu0=$(cpu_of "${pids[@]}"); t0=$(date +%s%N)
    out=$("$LOADGEN" --port "$port" --requests "$WORK/pool-$config-warm.bin" --rate "$rate" --duration "$LOAD_SECONDS" \
          --connections "$connections" --expect '"success"') || die "loadgen failed in $config/$name"
    t1=$(date +%s%N); cpu1=$(cpu_of "${pids[@]}")
    record "{\"kind\":\"redis_phase\",\"config\":\"$config\",\"name\":\"$name\",\"cpu_s\":$(( cpu1 - cpu0 ))e-2,\"wall_s\":$(( (t1 - t0) / 1000000 ))e-3,\"loadavg\":\"$(loadavg)\",\"result\":$out}"
    echo "   $config $name: $(echo "$out" | "$PY" -c 'import json,sys; r=json.load(sys.stdin); print("%s req/s ok, p50 %s p95 %s p99 %s ms, errors %s" % (r["throughput_rps"], r["p50_ms"], r["p95_ms"], r["p99_ms"], r["errors"]))')"
}
# run_config CONFIG PORT: the pool (sessions started in this configuration's store), then the phases.
run_config() {
    local config=$1 port=$2
    "$PY" "$HERE/keypool.py" "$port" "$WORK/pkg" "$WORK/tokens.txt" "$WORK/pool-$config" \
        --warm $(( 1000 * LOAD_SECONDS + 1000 )) --cold 1 --sessions-per-viewer 8 --expect-video "$VIDEO_KEY" > /dev/null
    # The sessions must be in this configuration's Redis, or the run would measure something else.
    if [ "${#REDIS_PIDS[@]}" -gt 0 ] && [ "$(redis-cli -p "$REDIS_PORT" dbsize)" -eq 0 ]; then
        die "$config: the nodes wrote nothing to redis-server on port $REDIS_PORT"
    fi
    redis_phase "$config" warm-1000 1000 32 "$port"
    redis_phase "$config" warm-saturation 0 16 "$port"
    redis_cleanup
}

record_command redis-server redis-server --bind 127.0.0.1 --port PORT --dir DIR --save "" --appendonly yes --appendfsync always --maxmemory-policy noeviction
record_command redis-node env KAS_KEY_REQUESTS_PER_MINUTE=1000000 KAS_NODE=NAME KAS_STORE_URL=redis://127.0.0.1:PORT/0 "$KAS" serve --listen 127.0.0.1:PORT --data-dir DIR --key-ring-dir '$WORK/kas'
record_command redis-fixed "$LOADGEN" --port PORT --requests POOL --rate 1000 --duration "$LOAD_SECONDS" --connections 32 --expect '"success"'
record_command redis-saturation "$LOADGEN" --port PORT --requests POOL --rate 0 --duration "$LOAD_SECONDS" --connections 16 --expect '"success"'

step "key requests, one node on SQLite (the default store)"
start_node sqlite
run_config sqlite "$NODE_PORT"

step "key requests, one node on Redis (appendfsync always)"
start_redis always
start_node redis-always "redis://127.0.0.1:$REDIS_PORT/0"
run_config redis-always "$NODE_PORT"

step "key requests, one node on Redis (appendfsync everysec)"
start_redis everysec
start_node redis-everysec "redis://127.0.0.1:$REDIS_PORT/0"
run_config redis-everysec "$NODE_PORT"

step "key requests, two nodes on one Redis (appendfsync always) behind nginx (round robin)"
start_redis always
start_node pair-a "redis://127.0.0.1:$REDIS_PORT/0"; PAIR_A=$NODE_PORT
start_node pair-b "redis://127.0.0.1:$REDIS_PORT/0"; PAIR_B=$NODE_PORT
LB_PORT=$(free_port)
start_nginx "$LB_PORT" "$PAIR_A" "$PAIR_B"
run_config two-nodes-nginx "$LB_PORT"
