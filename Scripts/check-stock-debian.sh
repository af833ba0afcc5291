#!/usr/bin/env bash
# Proves the README's first command on a stock Debian 12: a minimal root made with
# `debootstrap --variant=minbase bookworm`, given only what swift.org tells a Debian 12 user to
# install for the toolchain, then the README's `./Scripts/bootstrap.sh && swift run callbot demo`
# line (read from README.md itself, so the two cannot drift) run in it with chroot and a clean
# environment. It passes when that line exits 0 and the demo printed live stats and reached its
# end (hang-up and call log), and the root holds no Python but Debian's own.
#
# What the root shares with this machine, each bind-mounted at the same path: the Swift toolchain
# (as a swift.org tarball would be unpacked), the machine's copies of the Swift packages
# (/opt/swift-packages, with git's url.*.insteadOf settings that point github.com at them) and
# this checkout, so that the .build that CI made before is reused: what the root proves is the
# install steps and the running demo, not a second 20-minute build. The Swift modules are
# reused as they are. The C and C++ files (BoringSSL's, the shims') are compiled again, about a
# minute, when this machine's Debian headers are older than the mirror's, which the root gets
# (seen: linux-libc-dev 6.1.187 here, 6.1.192 in the root; llbuild sees the headers' other
# times), and a later build outside the root compiles them again likewise; with the same
# versions nothing is compiled (seen: "Build of product 'callbot' complete! (0.41s)").
#
# Root only (debootstrap, mount, chroot). The mounts live in a mount namespace of their own
# (unshare), so that none outlives the script whatever happens, and are unmounted by a trap too.
# The root is kept under $SWIFTRTC_STOCK_DEBIAN_CACHE (default /var/cache/swiftrtc-stock-debian):
# base/ is debootstrap plus the toolchain's packages, made once (a few minutes); each run copies
# it to run/, so that bootstrap.sh's own installs are done again every time (apt's downloaded
# packages are kept in archives/).
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
self="$repo/Scripts/$(basename "$0")"
cache="${SWIFTRTC_STOCK_DEBIAN_CACHE:-/var/cache/swiftrtc-stock-debian}"
base="$cache/base"
run="$cache/run"
archives="$cache/archives"

# swift.org's "Installation via Tarball", Debian 12: the toolchain's own dependencies. Plus
# libstdc++-12-dev (in swift.org's Debian 12 Docker image too) and ca-certificates.
toolchain_packages=(
  binutils-gold gcc git libcurl4-openssl-dev libedit-dev libicu-dev libncurses-dev libpython3-dev
  libsqlite3-dev libxml2-dev pkg-config tzdata uuid-dev
  libstdc++-12-dev ca-certificates
)

say() { echo "check-stock-debian: [$((SECONDS - ${start:-SECONDS})) s] $*"; }
fail() {
  echo "check-stock-debian: FAILED: $*" >&2
  exit 1
}

# The toolchain's root: swift is <root>/usr/bin/swift.
toolchain_root() {
  local swift
  swift="$(readlink -f "$(command -v swift)")" || fail "swift is not on PATH"
  dirname "$(dirname "$(dirname "$swift")")"
}

# Mounts $1 (a folder of this machine) at the same path inside the root $2; ro for read-only.
bind_same_path() {
  mkdir -p "$2$1"
  mount --bind "$1" "$2$1"
  [ "${3:-}" != ro ] || mount -o remount,bind,ro "$2$1"
}

# Inside the private mount namespace: /proc, /sys, /dev and the shared folders, then chroot.
# Every mount is undone on exit by the trap (and by the namespace's end in any case).
mount_root() {
  local root="$1"
  trap 'unmount_root "'"$root"'"' EXIT
  mount -t proc proc "$root/proc"
  mount --rbind /sys "$root/sys"
  mount --make-rslave "$root/sys"
  mount --rbind /dev "$root/dev"
  mount --make-rslave "$root/dev"
  mkdir -p "$archives"
  mount --bind "$archives" "$root/var/cache/apt/archives"
}

unmount_root() {
  local root="$1" target
  # Deepest first.
  while read -r target; do
    umount -R "$target" 2>/dev/null || umount -l "$target" 2>/dev/null || true
  done < <(findmnt -n -l -o TARGET | grep -F "$root/" | sort -r)
}

# The local folders that git's url.*.insteadOf settings of this machine name (the copies of the
# Swift packages), one a line.
package_folders() {
  git config --get-regexp '^url\..*\.insteadof$' 2>/dev/null | while read -r name _; do
    folder="${name#url.}"
    folder="${folder%.insteadof}"
    folder="${folder%/}"
    if [[ "$folder" == /* && -d "$folder" ]]; then echo "$folder"; fi
  done | sort -u
}

in_root() {
  local root="$1"
  shift
  chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
}

# Phase run inside the namespace (this script again, under unshare).
if [ "${1:-}" = --in-namespace ]; then
  phase="$2"
  case "$phase" in
    base)
      root="$base.new"
      mount_root "$root"
      in_root "$root" apt-get update -qq
      in_root "$root" apt-get install -y -qq --no-install-recommends "${toolchain_packages[@]}" >/dev/null
      exit 0
      ;;
    check)
      root="$run"
      toolchain="$3"
      command="$4"
      mount_root "$root"
      bind_same_path "$toolchain" "$root" ro
      # The folders git's url.<folder>.insteadOf settings point github.com at (here
      # /opt/swift-packages), which the outer part copied into the root's /etc/gitconfig.
      while read -r folder; do
        bind_same_path "$folder" "$root" ro
      done < <(package_folders)
      bind_same_path "$repo" "$root"
      # The README's line, as a user would type it, with swift.org's PATH advice (the
      # toolchain's usr/bin on PATH) and nothing else of this machine's environment.
      chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
        PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$toolchain/usr/bin" \
        /bin/bash -c 'cd "$1" && eval "$2"' bash "$repo" "$command"
      exit $?
      ;;
  esac
  fail "unknown phase $phase"
fi

[ "$#" -eq 0 ] || {
  echo "usage: $0   (as root; no arguments)" >&2
  exit 2
}
[ "$(id -u)" -eq 0 ] || fail "run as root (debootstrap, mount, chroot)"
start=$SECONDS

# The README's first command, verbatim.
command="$(grep -m1 -E '^\./Scripts/bootstrap\.sh && swift run callbot demo' "$repo/README.md")" ||
  fail "README.md has no line beginning ./Scripts/bootstrap.sh && swift run callbot demo"
toolchain="$(toolchain_root)"
case "$toolchain" in
  / | /usr | /usr/local) fail "swift is installed into $toolchain itself; this check needs a toolchain folder of its own (as swift.org's tarball or swiftly make)" ;;
esac
say "README's command: $command"
say "toolchain: $toolchain ($(swift --version 2>/dev/null | head -1))"

# The Debian mirror this machine's apt already uses (no other network exists), and its
# security archive if it has one.
sources() {
  cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null || true
}
mirror="$(sources | grep -v '^[[:space:]]*#' | grep -oE 'https?://[^ ]+/debian/?' | head -1)"
security="$(sources | grep -v '^[[:space:]]*#' | grep -oE 'https?://[^ ]+/debian-security/?' | head -1)"
[ -n "$mirror" ] || fail "no Debian mirror in /etc/apt/sources.list or /etc/apt/sources.list.d/"
mirror="${mirror%/}"
security="${security%/}"

if ! command -v debootstrap >/dev/null; then
  say "installing debootstrap"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null ||
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null; }
fi

# No mount of an earlier run may be left (a bug of ours, or someone else's).
if findmnt -n -l -o TARGET | grep -qF "$cache/"; then
  fail "mounts under $cache are left from an earlier run: $(findmnt -n -l -o TARGET | grep -F "$cache/" | tr '\n' ' ')"
fi

# base/: debootstrap and the toolchain's packages, remade when the mirror or the list changes.
key="$mirror $security ${toolchain_packages[*]}"
if [ "$(cat "$base/.swiftrtc-base" 2>/dev/null)" != "$key" ]; then
  say "making the Debian 12 root (debootstrap --variant=minbase bookworm $mirror)"
  rm -rf --one-file-system "$base" "$base.new"
  mkdir -p "$cache/debootstrap"
  debootstrap --variant=minbase --cache-dir="$cache/debootstrap" bookworm "$base.new" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
    { tail -20 "$cache/debootstrap.log" >&2; fail "debootstrap failed (log: $cache/debootstrap.log)"; }
  {
    echo "deb $mirror bookworm main"
    echo "deb $mirror bookworm-updates main"
    [ -z "$security" ] || echo "deb $security bookworm-security main"
  } >"$base.new/etc/apt/sources.list"
  cp /etc/resolv.conf "$base.new/etc/resolv.conf"
  printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$base.new/etc/hosts"
  # A chroot has no init: packages must not try to start services.
  printf '#!/bin/sh\nexit 101\n' >"$base.new/usr/sbin/policy-rc.d"
  chmod 755 "$base.new/usr/sbin/policy-rc.d"
  say "installing swift.org's Debian 12 packages: ${toolchain_packages[*]}"
  unshare --mount --propagation private -- "$self" --in-namespace base
  echo "$key" >"$base.new/.swiftrtc-base"
  mv "$base.new" "$base"
fi

# run/: a fresh copy of base each time.
say "copying the root"
rm -rf --one-file-system "$run"
cp -a "$base" "$run"
cp /etc/resolv.conf "$run/etc/resolv.conf"
# git's addresses of github.com packages, pointed at this machine's copies as git is here.
while read -r name value; do
  in_root "$run" git config --system --add "$name" "$value"
done < <(git config --get-regexp '^url\..*\.insteadof$' || true)

log="$cache/run.log"
say "running in the root: $command"
set +e
unshare --mount --propagation private -- "$self" --in-namespace check "$toolchain" "$command" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e

# Nothing may stay mounted, in this namespace or (the namespace is gone) any other.
if findmnt -n -l -o TARGET | grep -qF "$run/"; then
  fail "mounts left under $run: $(findmnt -n -l -o TARGET | grep -F "$run/" | tr '\n' ' ')"
fi

[ "$status" -eq 0 ] || fail "the README's command exited $status in the root (log: $log)"
grep -q -- '^--- caller (alice), ' "$log" || fail "the demo printed no live stats (log: $log)"
grep -qE '^demo: alice sees bob hang up|^demo: bob sees alice hang up' "$log" ||
  fail "the demo never hung up (log: $log)"
grep -qE '^demo: call log of alice \([1-9]' "$log" || fail "the demo printed no call log (log: $log)"
grep -q '^demo: connected | ' "$log" || fail "the demo did not reach its summary (log: $log)"

# Python: the light path needs none; if the root has one, it is Debian's (libglib2.0-dev-bin's
# tools bring python3), without pip.
python="$(in_root "$run" sh -c 'command -v python3 || true')"
case "$python" in
  "" | /usr/bin/python3) ;;
  *) fail "the root's python3 is $python, not Debian's" ;;
esac
if [ -n "$python" ] && in_root "$run" python3 -m pip --version >/dev/null 2>&1; then
  fail "the root's python3 has pip: something installed it"
fi
if [ -n "$(ls "$run"/usr/local/bin 2>/dev/null)" ]; then
  fail "something was installed into the root's /usr/local/bin: $(ls "$run"/usr/local/bin | tr '\n' ' ')"
fi

rm -rf --one-file-system "$run"
say "passed in $((SECONDS - start)) s (python3 in the root: ${python:-none})"
