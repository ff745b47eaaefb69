#!/usr/bin/env bash
# `make deb`: the Debian package `mediadrm` (docs/operations.md, "The Debian package"): the
# release tools staged by Tools/install.sh under /usr (built by Tools/build-release.sh unless
# NO_BUILD=1), stripped; the unit in /lib/systemd/system; /etc/mediadrm/kas.json as a conffile;
# the maintainer scripts, control template and copyright from deploy/debian/; Depends from
# dpkg-shlibdeps. Built with dpkg-deb alone (no debhelper: docs/operations.md says why), then
# checked with lintian: any error or warning fails. Writes OUT_DIR/mediadrm_<version>_<arch>.deb
# and prints its path on the last line.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${1:?usage: build-deb.sh OUT_DIR}"
TEMPLATES="$ROOT/deploy/debian"
TOOLS=(tdf packager kas player)
umask 022

for command in dpkg-deb dpkg-shlibdeps lintian help2man strip; do
    command -v "$command" >/dev/null || { echo "build-deb: $command is missing (make deps installs it)" >&2; exit 1; }
done
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
if [ "${NO_BUILD:-}" != 1 ]; then
    echo "build-deb: building the release tools"
    "$ROOT/Tools/build-release.sh" "$OUT/logs"
fi

version="$("$ROOT/Tools/version.sh")"
architecture="$(dpkg --print-architecture)"
name="mediadrm_${version}_${architecture}"
root="$OUT/$name"
rm -rf "$root" "$OUT/$name.deb"
mkdir -p "$root/DEBIAN"

NO_BUILD=1 DESTDIR="$root" PREFIX=/usr SYSCONFDIR=/etc UNITDIR=/lib/systemd/system "$ROOT/Tools/install.sh" >/dev/null
# Debian's usual modes: what install.sh made 0640 becomes root:kas 0640 in postinst through
# dpkg-statoverride (the kas group does not exist when the archive is unpacked).
chmod 0644 "$root/etc/mediadrm/kas.json"
# As dh_strip does: the symbol tables and notes out, the dynamic symbols the runtime uses kept.
for tool in "${TOOLS[@]}"; do
    strip --remove-section=.comment --remove-section=.note --strip-unneeded "$root/usr/bin/$tool"
done

doc="$root/usr/share/doc/mediadrm"
install -d "$doc"
install -m 0644 "$TEMPLATES/copyright" "$doc/copyright"
# A native package's changelog is changelog.gz (Debian Policy §12.7); one entry per build, dated
# by its commit so the same commit gives the same file.
maintainer="$(sed -n 's/^Maintainer: //p' "$TEMPLATES/control")"
commit="$(git -C "$ROOT" rev-parse --short=7 HEAD 2>/dev/null || echo none)"
date="$(git -C "$ROOT" log -1 --format=%cD 2>/dev/null || date -R)"
{
    echo "mediadrm ($version) unstable; urgency=medium"
    echo
    echo "  * Built from commit $commit of the MediaDRM repository."
    echo
    echo " -- $maintainer  $date"
} | gzip -9n > "$doc/changelog.gz"
chmod 0644 "$doc/changelog.gz"

# Depends: the packages of the shared libraries the binaries link (dpkg-shlibdeps reads a
# debian/control, so it runs in a scratch directory holding one).
shlibs_dir="$OUT/shlibdeps"
rm -rf "$shlibs_dir"
mkdir -p "$shlibs_dir/debian"
printf 'Source: mediadrm\n\nPackage: mediadrm\nArchitecture: any\n' > "$shlibs_dir/debian/control"
shlibs="$(cd "$shlibs_dir" && dpkg-shlibdeps -O "${TOOLS[@]/#/$root/usr/bin/}" | sed -n 's/^shlibs:Depends=//p')"
rm -rf "$shlibs_dir"
[ -n "$shlibs" ] || { echo "build-deb: dpkg-shlibdeps found no shared library dependency" >&2; exit 1; }

installed_size="$(du -sk --apparent-size --exclude=DEBIAN "$root" | cut -f1)"
sed -e "s#@version@#$version#" -e "s#@architecture@#$architecture#" \
    -e "s#@installed_size@#$installed_size#" -e "s#@shlibs@#$shlibs#" "$TEMPLATES/control" > "$root/DEBIAN/control"
install -m 0644 "$TEMPLATES/conffiles" "$root/DEBIAN/conffiles"
for script in postinst prerm postrm; do
    install -m 0755 "$TEMPLATES/$script" "$root/DEBIAN/$script"
done
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/md5sums"

# --root-owner-group: every file root:root without fakeroot.
dpkg-deb --root-owner-group --build "$root" "$OUT/$name.deb" >/dev/null
rm -rf "$root"

# Errors and warnings fail; overrides, if any, are shipped in the package (docs/operations.md).
if ! lintian --fail-on error,warning --tag-display-limit 0 "$OUT/$name.deb" > "$OUT/lintian.log" 2>&1; then
    cat "$OUT/lintian.log" >&2
    echo "build-deb: lintian reports errors or warnings on $OUT/$name.deb" >&2
    exit 1
fi
echo "build-deb: $name.deb ($(stat -c %s "$OUT/$name.deb") bytes), lintian: no error, no warning"
echo "$OUT/$name.deb"
