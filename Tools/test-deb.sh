#!/usr/bin/env bash
# Tools/test-deb.sh DEB LOG_DIR: the Debian package's life on this machine, as root (called by
# `make demo`; docs/operations.md, "The Debian package"):
#   install (dpkg -i): the files, the kas system user, /var/lib/kas, the configuration's mode;
#   systemd-analyze verify accepts the installed unit;
#   the installed kas run as the unit's ExecStart runs it (its arguments, Environment=, User=,
#   UMask=, from /, a clean environment, no capabilities, no new privileges; /opt/swift hidden
#   where a mount namespace is allowed) answers /healthz and serves the web player at /player/,
#   reloads a rotated key ring on the unit's ExecReload, stops on its KillSignal;
#   upgrade (dpkg -i of the package over itself: the maintainer scripts' upgrade path): the
#   operator's edit of the conffile, the state and the user kept;
#   remove (dpkg -r): the files gone, configuration, state and user kept;
#   purge (dpkg --purge): nothing of it left, the user and group gone.
# A trap purges the package however the script ends. Without systemd as PID 1 (these machines)
# the unit's sandbox is not exercised (docs/operations.md). Refuses to run where a mediadrm
# package, a kas user or group, /etc/mediadrm or /var/lib/kas already exists: it never touches
# an installation it did not make.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEB="${1:?usage: test-deb.sh DEB LOG_DIR}"
LOGS="${2:?usage: test-deb.sh DEB LOG_DIR}"
DEMO_NAME=test-deb
source "$ROOT/Tools/lib/processes.sh"
STEP="the Debian package"
UNIT=/lib/systemd/system/kas.service
CONFIG=/etc/mediadrm/kas.json
STATE=/var/lib/kas
mkdir -p "$LOGS"

[ "$(id -u)" = 0 ] || fail "installing a package needs root (run make demo as root)"
[ -f "$DEB" ] || fail "no package at '$DEB' (Tools/build-deb.sh makes it)"
package_status() { dpkg-query -W -f='${db:Status-Status}' mediadrm 2>/dev/null || echo not-installed; }
[ "$(package_status)" = not-installed ] || fail "a mediadrm package is already on this machine ($(package_status)): purge it first (dpkg --purge mediadrm)"
! getent passwd kas >/dev/null || fail "a user named kas already exists: the test would remove it on purge"
! getent group kas >/dev/null || fail "a group named kas already exists: the test would remove it on purge"
[ ! -e /etc/mediadrm ] || fail "/etc/mediadrm already exists: the test would remove it on purge"
[ ! -e "$STATE" ] || fail "$STATE already exists: the test would remove it on purge"

# Set only now: from here on any mediadrm package on the machine is this script's.
KAS_PID=""
cleanup() {
    local status=$?
    stop_gracefully "$KAS_PID" TERM
    if [ "$(package_status)" != not-installed ]; then
        dpkg_locked --purge mediadrm >"$LOGS/dpkg-purge-on-exit.log" 2>&1 || cat "$LOGS/dpkg-purge-on-exit.log" >&2
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# dpkg ARGS...: waits while another dpkg or apt holds the lock (a shared machine's apt-get), then
# runs; any other failure is returned with dpkg's own message.
dpkg_locked() {
    local output
    for _ in $(seq 120); do
        if output=$(dpkg "$@" </dev/null 2>&1); then echo "$output"; return 0; fi
        grep -q "locked by another process" <<<"$output" || { echo "$output"; return 1; }
        sleep 5
    done
    echo "$output"
    return 1
}
dpkg_step() {
    local log="$LOGS/dpkg-$1.log"
    dpkg_locked "$@" >"$log" 2>&1 || { cat "$log" >&2; fail "dpkg $*"; }
}
owner_mode() { stat -c '%U:%G %a' "$1"; }
state_digest() { (cd "$STATE" && find . -type f -printf '%P %U:%G %m\n' | LC_ALL=C sort && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum); }

echo "   dpkg -i $(basename "$DEB")"
dpkg_step -i "$DEB"
[ "$(package_status)" = installed ] || fail "dpkg -i left the package $(package_status)"
for tool in tdf packager kas player; do
    [ -x "/usr/bin/$tool" ] || fail "/usr/bin/$tool is not installed"
    "/usr/bin/$tool" --help >/dev/null || fail "the installed $tool --help fails"
    [ -f "/usr/share/man/man1/$tool.1.gz" ] || fail "the man page of $tool is not installed"
done
[ -f /usr/share/mediadrm/player/mediadrm-player.js ] || fail "the web player is not in /usr/share/mediadrm/player"
uid=$(id -u kas) || fail "postinst made no kas user"
[ "$uid" -lt 1000 ] || fail "kas is not a system user (uid $uid)"
[ "$(id -gn kas)" = kas ] || fail "the kas user's group is $(id -gn kas), not kas"
[ "$(getent passwd kas | cut -d: -f6,7)" = "$STATE:/usr/sbin/nologin" ] || fail "kas's home and shell: $(getent passwd kas | cut -d: -f6,7)"
[ "$(owner_mode "$STATE")" = "kas:kas 700" ] || fail "$STATE is $(owner_mode "$STATE"), not kas:kas 700"
[ "$(owner_mode "$CONFIG")" = "root:kas 640" ] || fail "$CONFIG is $(owner_mode "$CONFIG"), not root:kas 640"
dpkg-query -W -f='${Conffiles}\n' mediadrm | grep -q "^ $CONFIG " || fail "$CONFIG is not a conffile"
grep -q '^ExecStart=/usr/bin/kas serve' "$UNIT" || fail "the unit's ExecStart does not name /usr/bin/kas"
echo "   installed: the tools in /usr/bin, kas uid $uid (system), $STATE kas:kas 0700, $CONFIG root:kas 0640 (a conffile)"

if command -v systemd-analyze >/dev/null; then
    systemd-analyze verify "$UNIT" >"$LOGS/systemd-analyze-deb.log" 2>&1 \
        || { cat "$LOGS/systemd-analyze-deb.log" >&2; fail "systemd-analyze verify $UNIT"; }
    echo "   systemd-analyze verify accepts $UNIT"
fi

# The operator's edit of the conffile (a port of this test's own); written in place, so the
# file keeps its owner and mode as an editor keeps them.
port=$(free_port)
python3 - "$CONFIG" "$port" <<'PY'
import json, sys
path, port = sys.argv[1], sys.argv[2]
with open(path) as f:
    settings = json.load(f)
settings["listen"] = "127.0.0.1:" + port
settings["publicURL"] = "http://127.0.0.1:" + port
with open(path, "r+") as f:
    f.seek(0); f.truncate(); json.dump(settings, f, indent=2); f.write("\n")
PY
cp "$CONFIG" "$LOGS/kas.json.edited"

# The unit's own settings, read from the installed file.
unit_value() { sed -n "s/^$1=//p" "$UNIT"; }
exec_start=$(unit_value ExecStart) environment=$(unit_value Environment | tr "\n" " ") user=$(unit_value User)
group=$(unit_value Group) umask_value=$(unit_value UMask) kill_signal=$(unit_value KillSignal) exec_reload=$(unit_value ExecReload)
for setting in exec_start environment user group umask_value kill_signal exec_reload; do
    [ -n "${!setting}" ] || fail "the unit has no $setting"
    [[ "${!setting}" != *[\"\'%\\]* ]] || fail "the unit's $setting uses quoting or specifiers this test does not read: ${!setting}"
done
read -ra command <<<"$exec_start"
read -ra variables <<<"$environment"
as_unit=(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "${variables[@]}"
         setpriv "--reuid=$user" "--regid=$group" --init-groups --no-new-privs --bounding-set=-all --inh-caps=-all --
         "${command[@]}")
if unshare -m true 2>/dev/null; then
    as_unit=(unshare -m bash -c 'mount -t tmpfs none /opt/swift && exec "$@"' hidden "${as_unit[@]}")
    hidden=" (/opt/swift hidden)"
else
    hidden=""
fi
: >"$LOGS/deb-kas.log"
(cd / && umask "$umask_value" && exec "${as_unit[@]}") >>"$LOGS/deb-kas.log" 2>&1 &
KAS_PID=$!
for _ in $(seq 600); do
    grep -q '"event":"listening"' "$LOGS/deb-kas.log" && break
    kill -0 "$KAS_PID" 2>/dev/null || break
    sleep 0.1
done
grep -q '"event":"listening"' "$LOGS/deb-kas.log" || { cat "$LOGS/deb-kas.log" >&2; fail "the installed kas did not report listening"; }
url="http://127.0.0.1:$port"
curl -fsS "$url/healthz" >/dev/null || fail "the installed kas answers $url/healthz"
for file in index.html mediadrm-player.js; do
    curl -fsS "$url/player/${file#index.html}" | cmp -s - "/usr/share/mediadrm/player/$file" \
        || fail "the installed kas serves /usr/share/mediadrm/player/$file at /player/${file#index.html}"
done
[ "$(stat -c %U "/proc/$KAS_PID")" = kas ] || fail "the kas process runs as $(stat -c %U "/proc/$KAS_PID"), not kas"
ring=$(find "$STATE/keys" -maxdepth 1 -name '*.pem' 2>/dev/null | wc -l)
[ "$ring" -gt 0 ] || fail "kas generated no key ring in $STATE/keys"
! find "$STATE" ! -user kas | grep -q . || fail "a file in $STATE is not kas's: $(find "$STATE" ! -user kas | head -1)"
! find "$STATE" -type f -perm /077 | grep -q . || fail "a file in $STATE is readable by others: $(find "$STATE" -type f -perm /077 | head -1)"
echo "   kas as $user$hidden from /: $exec_start; /healthz and /player/ answered; its key ring in $STATE/keys ($ring key files, no file readable by others)"

# ExecReload after a rotation (as docs/operations.md tells an operator): the new key is served.
touch "$LOGS/deb-rotate.mark"
setpriv "--reuid=$user" "--regid=$group" --init-groups -- env -i PATH=/usr/bin:/bin /usr/bin/kas keys rotate --data-dir "$STATE" \
    >"$LOGS/deb-rotate.log" 2>&1 || { cat "$LOGS/deb-rotate.log" >&2; fail "kas keys rotate as $user"; }
rotated=$(find "$STATE/keys" -maxdepth 1 -name '*.pem' -newer "$LOGS/deb-rotate.mark" -printf '%f\n' | sed -n 's/\.pem$//p' | head -1)
[ -n "$rotated" ] || fail "kas keys rotate wrote no new key in $STATE/keys"
read -ra reload <<<"${exec_reload//\$MAINPID/$KAS_PID}"
"${reload[@]}" || fail "the unit's ExecReload: $exec_reload"
reloaded() { grep '"event":"keys_reloaded"' "$LOGS/deb-kas.log" | grep -q "\"$rotated\""; }
for _ in $(seq 300); do reloaded && break; sleep 0.1; done
reloaded || { cat "$LOGS/deb-kas.log" >&2; fail "kas did not reload its key ring with the new key $rotated on ExecReload"; }
curl -fsS "$url/healthz" >/dev/null || fail "kas stopped answering after the reload"
kill -"${kill_signal#SIG}" "$KAS_PID"
status=0
wait "$KAS_PID" || status=$?
KAS_PID=""
[ "$status" = 0 ] || { cat "$LOGS/deb-kas.log" >&2; fail "kas exited $status on $kill_signal"; }
echo "   ExecReload after kas keys rotate: keys_reloaded with the new key $rotated; $kill_signal: kas exited 0"

# Upgrade: the package over itself runs prerm upgrade, the new postrm upgrade and postinst
# configure with the old version, as a newer version would.
before_uid=$uid before_state=$(state_digest)
echo "   dpkg -i $(basename "$DEB") again (the upgrade path)"
dpkg_step -i "$DEB"
[ "$(package_status)" = installed ] || fail "the upgrade left the package $(package_status)"
cmp -s "$CONFIG" "$LOGS/kas.json.edited" || fail "the upgrade changed the operator's $CONFIG"
! ls /etc/mediadrm/*.dpkg-* >/dev/null 2>&1 || fail "the upgrade left $(ls /etc/mediadrm/*.dpkg-*)"
[ "$(owner_mode "$CONFIG")" = "root:kas 640" ] || fail "after the upgrade $CONFIG is $(owner_mode "$CONFIG")"
[ "$(id -u kas)" = "$before_uid" ] || fail "the upgrade changed kas's uid"
[ "$(state_digest)" = "$before_state" ] || fail "the upgrade changed $STATE"
echo "   upgraded: the edited $CONFIG, its mode, the kas user and $STATE unchanged"

dpkg-query -L mediadrm > "$LOGS/deb-files.txt"
echo "   dpkg -r mediadrm"
dpkg_step -r mediadrm
[ "$(package_status)" = config-files ] || fail "dpkg -r left the package $(package_status)"
[ ! -e /usr/bin/kas ] && [ ! -e "$UNIT" ] && [ ! -e /usr/share/mediadrm ] || fail "dpkg -r left the package's files"
cmp -s "$CONFIG" "$LOGS/kas.json.edited" || fail "dpkg -r did not keep $CONFIG"
[ "$(state_digest)" = "$before_state" ] || fail "dpkg -r changed $STATE"
getent passwd kas >/dev/null || fail "dpkg -r removed the kas user"
echo "   removed: the files gone; $CONFIG, $STATE and the kas user kept"

echo "   dpkg --purge mediadrm"
dpkg_step --purge mediadrm
[ "$(package_status)" = not-installed ] || fail "dpkg --purge left the package $(package_status)"
left=""
while IFS= read -r path; do
    [ "$path" != /. ] && [ -e "$path" ] || continue
    [ -d "$path" ] && [ -n "$(dpkg-query -S "$path" 2>/dev/null)" ] && continue   # a directory other packages share
    left="$left $path"
done < "$LOGS/deb-files.txt"
[ -z "$left" ] || fail "left after purge:$left"
[ ! -e /etc/mediadrm ] || fail "/etc/mediadrm is left after purge"
[ ! -e "$STATE" ] || fail "$STATE is left after purge"
! getent passwd kas >/dev/null || fail "the kas user is left after purge"
! getent group kas >/dev/null || fail "the kas group is left after purge"
! dpkg-statoverride --list "$CONFIG" >/dev/null || fail "the statoverride of $CONFIG is left after purge"
echo "   purged: no file of the package, no /etc/mediadrm, no $STATE, no kas user or group"
