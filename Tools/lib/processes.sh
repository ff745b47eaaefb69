# Sourced by the demo scripts: their steps and failures, and how a background server they
# started is stopped. The script sets DEMO_NAME (its name in failure messages) before calling.

STEP=""
# step TEXT: starts a numbered-by-heading step; fail names the step that failed.
step() { STEP="$*"; printf '\n== %s\n' "$*"; }
fail() { echo "$DEMO_NAME: step '$STEP' failed: $*" >&2; exit 1; }
now_ms() { date +%s%3N; }
# A free TCP port on 127.0.0.1 (the kernel's choice).
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# stop_gracefully PID SIGNAL: sends SIGNAL (the server's graceful stop: TERM for kas serve and
# redis-server, QUIT for nginx), waits up to 10 s, then SIGKILL. Nothing when PID is empty or gone.
stop_gracefully() {
    local pid=$1 signal=$2
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
    kill -"$signal" "$pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
}
