# Sourced by the demo scripts: how a background server they started is stopped.

# stop_gracefully PID SIGNAL: sends SIGNAL (the server's graceful stop: TERM for kas serve and
# redis-server, QUIT for nginx), waits up to 10 s, then SIGKILL. Nothing when PID is empty or gone.
stop_gracefully() {
    local pid=$1 signal=$2
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
    kill -"$signal" "$pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
}
