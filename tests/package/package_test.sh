#!/usr/bin/env bash
# The Debian package as an administrator meets it (issue 37), checked by
# Debian's own tools on this machine: built from the release tree BUILD_DIR,
# packed again later (the same bytes), lintian clean, its contents and
# control fields as tests/package/expected-contents.txt lists them, its units
# verified and scored by systemd-analyze, then installed with apt, the
# service's start done by hand as systemd would (no systemd here), upgraded
# to a higher version with an edited conffile, removed and purged, leaving
# nothing of ours. Needs root (it installs a package): exit 77, which CTest
# reports as skipped, otherwise.
# Usage: tests/package/package_test.sh BUILD_DIR
set -euo pipefail
build=$(realpath "$1")
cd "$(dirname "$0")/../.."
here=tests/package

if [ "$(id -u)" -ne 0 ]; then
  echo "package test skipped: it installs and purges the package, which needs root (CI runs as root)"
  exit 77
fi
for tool in lintian dpkg-deb systemd-analyze apt-get; do
  command -v "$tool" >/dev/null || { echo "package test: $tool is missing: run scripts/setup" >&2; exit 1; }
done
if dpkg-query -W -f='${Status}' abcictl 2>/dev/null | grep -q 'installed'; then
  echo "package test: abcictl is already installed here; purge it first (apt purge abcictl)" >&2
  exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/package-test.XXXXXX")
created_policy=""
cleanup() {
  dpkg --purge abcictl >/dev/null 2>&1 || true
  [ -z "$created_policy" ] || rm -f /usr/sbin/policy-rc.d
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "package test: $*" >&2; exit 1; }

# --- Built, then packed again from the same tree a moment later under
# another umask into another directory: the same bytes (make
# package-reproducible does the same from two fresh clones).
# One date for every pack, even if the checkout's HEAD moves meanwhile.
SOURCE_DATE_EPOCH=$(git log -1 --format=%ct)
export SOURCE_DATE_EPOCH
deb=$(scripts/package "$build" "$work/first" | grep '\.deb$')
sleep 1.1
again=$( (umask 002; scripts/package --no-build "$build" "$work/second-directory") | grep '\.deb$')
cmp "$deb" "$again" || fail "two packs of one tree differ: $(sha256sum "$deb" "$again")"
upgrade=$(scripts/package --no-build "$build" "$work/upgrade" -D CPACK_DEBIAN_PACKAGE_RELEASE=99 | grep '\.deb$')
version=$(dpkg-deb --field "$deb" Version)
[ "$version" = "$("$build/src/abcictl" version | sed -n 's/^abcictl \([^ ]*\) .*/\1/p')-1" ] ||
  fail "the package's version $version is not abcictl version's with revision 1"
echo "package: $(basename "$deb"), sha256 $(sha256sum "$deb" | cut -d' ' -f1)"

# --- Contents and control fields.
dpkg-deb --contents "$deb" | awk '{print $1, $2, $6}' >"$work/contents"
diff -u "$here/expected-contents.txt" "$work/contents" || fail "dpkg-deb --contents differs from $here/expected-contents.txt"
dpkg-deb --field "$deb" Package Architecture Section Priority Depends Recommends >"$work/fields"
{ grep -qx 'Package: abcictl' "$work/fields" && grep -qx 'Architecture: amd64' "$work/fields"; } ||
  fail "control fields: $(cat "$work/fields")"
# dpkg-shlibdeps found the libraries; adduser is the postinst's.
for dependency in libc6 libpq5 libssl3 adduser; do
  grep -q "^Depends:.*\b$dependency\b" "$work/fields" || fail "Depends lacks $dependency: $(grep ^Depends "$work/fields")"
done
dpkg-deb --ctrl-tarfile "$deb" | tar -t | sort | grep -qx './conffiles' || fail "no conffiles in the control archive"
[ "$(dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles)" = "/etc/abcictl/abcictl.toml" ] || fail "conffiles"

# --- lintian: no error, no warning (overrides in packaging/lintian-overrides, each with its reason).
start=$SECONDS
lintian --fail-on error,warning --display-level '>=warning' "$deb" || fail "lintian reports the above"
echo "package: lintian clean ($((SECONDS - start)) s)"

# --- Installed with apt, services kept from starting where policy-rc.d says so.
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\n# Written by the abcictl package test: no service starts while it runs.\nexit 101\n' >/usr/sbin/policy-rc.d
  chmod 0755 /usr/sbin/policy-rc.d
  created_policy=1
fi
# Everything of ours has abcictl in its path, or belongs to its user (a
# numeric id once the user is gone) where the service may write (its unit
# makes the rest of the system read-only to it). Others' files on this
# shared machine may come and go meanwhile.
ours() {
  local owned=()
  if getent passwd abcictl >/dev/null; then owned+=(-o -user abcictl); fi
  if getent group abcictl >/dev/null; then owned+=(-o -group abcictl); fi
  {
    # A file that vanishes while find looks is not ours.
    find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /run -o -path /tmp -o -path /var/tmp \
      -o -path /work -o -path /root -o -path /home -o -path "$build" \) -prune -o -path '*abcictl*' \
      -printf '%p %u:%g %m\n' 2>/dev/null || true
    find /etc /var -xdev -path /var/tmp -prune -o \( -nouser -o -nogroup "${owned[@]}" \) \
      -printf '%p %u:%g %m\n' 2>/dev/null || true
  } | sort -u
  getent passwd abcictl || true
  getent group abcictl || true
}
ours >"$work/before"
apt_get() { DEBIAN_FRONTEND=noninteractive apt-get -qq -o DPkg::Lock::Timeout=300 "$@" >"$work/apt.log" 2>&1 ||
  { cat "$work/apt.log" >&2; fail "apt-get $*"; }; }
apt_get install --no-install-recommends "$deb"

[ "$(/usr/bin/abcictl version | cut -d' ' -f1-2)" = "abcictl ${version%-*}" ] || fail "/usr/bin/abcictl version"
# Found by name where man looks, then opened (-l: man-db keeps no formatted copy of it in /var/cache/man).
page=$(man -w abcictl) || fail "man finds no abcictl page"
man -P cat -l "$page" 2>/dev/null | grep -q '^NAME' || fail "man abcictl does not open"
[ "$(getent passwd abcictl | cut -d: -f6,7)" = "/var/lib/abcictl:/usr/sbin/nologin" ] || fail "user abcictl: $(getent passwd abcictl)"
[ "$(stat -c '%a %U:%G' /etc/abcictl/abcictl.toml)" = "640 root:abcictl" ] || fail "conffile: $(stat -c '%a %U:%G' /etc/abcictl/abcictl.toml)"
[ -L /etc/systemd/system/multi-user.target.wants/abcictl.service ] || fail "the service is not enabled"

# The units as installed: systemd-analyze finds nothing to say, and the
# hardening scores at most 2.0 ("OK").
for unit in abcictl.service abcictl@example.service; do
  out=$(SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no "/lib/systemd/system/$unit" 2>&1) ||
    fail "systemd-analyze verify $unit: $out"
  [ -z "$out" ] || fail "systemd-analyze verify $unit: $out"
done
score=$(systemd-analyze security --offline=yes /lib/systemd/system/abcictl.service 2>&1 |
  sed -n 's/.*Overall exposure level for abcictl.service: \([0-9.]*\) .*/\1/p')
echo "package: systemd-analyze security: abcictl.service exposure $score"
awk -v s="$score" 'BEGIN { exit !(s != "" && s <= 2.0) }' || fail "exposure ${score:-unknown} is above 2.0"

# What systemd does at start, done by hand: the state directory, then serve
# as the service user with the packaged configuration and the unit's
# environment; it answers on its port, and on its metrics listener, written
# by the library the package puts in /usr/lib/abcictl.
install -d -m 0700 -o abcictl -g abcictl /var/lib/abcictl
ABCI_DATA_DIR=/var/lib/abcictl ABCI_METRICS_LISTEN=127.0.0.1:0 setpriv --reuid=abcictl --regid=abcictl --init-groups /usr/bin/abcictl serve --config /etc/abcictl/abcictl.toml \
  --listen 127.0.0.1:0 >"$work/serve.log" 2>&1 &
serve=$!
port=""
for _ in $(seq 100); do
  port=$(sed -n 's/.*"listen":"127.0.0.1:\([0-9]*\)".*"msg":"serving".*/\1/p' "$work/serve.log")
  [ -z "$port" ] || break
  sleep 0.1
done
curl -fsS "http://127.0.0.1:$port/livez" >/dev/null || { cat "$work/serve.log" >&2; fail "serve as abcictl did not answer"; }
metrics_port=$(sed -n 's/.*"listen":"127.0.0.1:\([0-9]*\)".*"msg":"serving metrics".*/\1/p' "$work/serve.log")
{ curl -fsS "http://127.0.0.1:$metrics_port/metrics" >"$work/metrics" && grep -q '^abcictl_build_info{' "$work/metrics"; } ||
  { cat "$work/serve.log" >&2; fail "serve's metrics listener did not answer"; }
kill -TERM "$serve"
wait "$serve" || { cat "$work/serve.log" >&2; fail "serve did not stop cleanly"; }
[ -n "$(find /var/lib/abcictl -user abcictl -type f)" ] || fail "serve wrote no state in /var/lib/abcictl"

# --- Upgraded: the edited conffile stays as the administrator left it.
echo '# edited by the package test' >>/etc/abcictl/abcictl.toml
apt_get install --no-install-recommends "$upgrade"
[ "$(dpkg-query -W -f='${Version}' abcictl)" = "${version%-*}-99" ] || fail "the upgrade did not install"
tail -1 /etc/abcictl/abcictl.toml | grep -qx '# edited by the package test' || fail "the upgrade lost the edited conffile"
[ "$(stat -c '%a %U:%G' /etc/abcictl/abcictl.toml)" = "640 root:abcictl" ] || fail "conffile after the upgrade"

# --- Removed: the program goes, the configuration and the state stay.
apt_get remove abcictl
[ ! -e /usr/bin/abcictl ] || fail "remove left /usr/bin/abcictl"
{ [ -f /etc/abcictl/abcictl.toml ] && [ -d /var/lib/abcictl ]; } || fail "remove took the configuration or the state"

# --- Purged: nothing of ours is left.
apt_get purge abcictl
ours >"$work/after"
diff -u "$work/before" "$work/after" || fail "purge left the above behind"
echo "package: installed, upgraded, removed and purged; nothing left"
