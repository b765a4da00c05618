# shellcheck shell=bash
# Usage: source "$(dirname "${BASH_SOURCE[0]}")/podman.sh"   (after lib.sh; root)
# Debian base images without a registry, for scripts/image and scripts/package: a debootstrap
# minbase rootfs of a release, cached as a tarball in ${OUTBOXD_CACHE}/image and imported into
# podman once. Defines use_podman_config, mirror, rootfs_tar SUITE and base_image SUITE.

IMAGE_CACHE="$OUTBOXD_CACHE/image"

# use_podman_config — runc and host-sized ulimits: crun rejects this machine's hybrid cgroup
# set-up, and the default ulimits exceed the host's.
use_podman_config() {
  mkdir -p "$IMAGE_CACHE"
  cat >"$IMAGE_CACHE/containers.conf" <<'CONF'
# Written by scripts/podman.sh.
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF
  export CONTAINERS_CONF="$IMAGE_CACHE/containers.conf"
}

# host_uri SUFFIX FALLBACK — the first apt URI of this machine ending in SUFFIX.
host_uri() {
  local uri
  uri=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources \
          2>/dev/null | grep -v '^\s*#' | grep -oE "https?://[^ ]*$1/?( |$)" | head -n1 | tr -d ' ')
  printf '%s\n' "${uri%/}" | grep . || printf '%s\n' "$2"
}

mirror() { echo "${OUTBOXD_DEBIAN_MIRROR:-$(host_uri /debian http://deb.debian.org/debian)}"; }
security_mirror() { host_uri /debian-security http://deb.debian.org/debian-security; }

# rootfs_tar SUITE — path of the cached rootfs tarball; builds it (about 80-90 s) when missing.
rootfs_tar() {
  local suite=$1 key tar
  key=$(printf '%s %s minbase' "$suite" "$(mirror)" | cksum | cut -d' ' -f1)
  tar="$IMAGE_CACHE/$suite-minbase-$key.tar"
  [[ -f $tar ]] && { echo "$tar"; return; }
  need_cmd debootstrap "run scripts/setup (installs debootstrap)"
  local start tmp
  start=$(now_ms)
  mkdir -p "$IMAGE_CACHE"
  tmp=$(mktemp -d "$IMAGE_CACHE/rootfs.tmp.XXXXXX")
  log "debootstrap --variant=minbase $suite from $(mirror) (one-off, cached in $IMAGE_CACHE)"
  debootstrap --variant=minbase "$suite" "$tmp/root" "$(mirror)" >"$tmp/debootstrap.log" 2>&1 \
    || { tail -n 20 "$tmp/debootstrap.log" >&2; rm -rf "$tmp"; die "debootstrap failed (is $(mirror) reachable?)"; }
  cat >"$tmp/root/etc/apt/sources.list" <<SOURCES
deb $(mirror) $suite main
deb $(mirror) $suite-updates main
deb $(security_mirror) $suite-security main
SOURCES
  rm -rf "$tmp"/root/var/cache/apt/archives/*.deb "$tmp"/root/var/lib/apt/lists/* "$tmp"/root/tmp/*
  tar -C "$tmp/root" --numeric-owner -cf "$tmp/rootfs.tar" . || { rm -rf "$tmp"; die "tar of the rootfs failed"; }
  mv "$tmp/rootfs.tar" "$tar"
  rm -rf "$tmp"
  log "rootfs cached as $tar ($(du -m "$tar" | cut -f1) MB) in $(elapsed_since "$start")"
  echo "$tar"
}

# base_image SUITE — a podman image of the cached rootfs, imported once per tarball.
base_image() {
  local suite=$1 tar tag
  tar=$(rootfs_tar "$suite")
  tag="localhost/outboxd-base:$suite-$(stat -c '%Y-%s' "$tar" | cksum | cut -d' ' -f1)"
  if ! podman image exists "$tag"; then
    local start
    start=$(now_ms)
    podman import --quiet "$tar" "$tag" >/dev/null || die "podman import of $tar failed"
    log "imported $tar as $tag in $(elapsed_since "$start")"
  fi
  echo "$tag"
}

# dist_deb DIST_DIR RELEASE — the one outboxd .deb for Debian RELEASE (12, 13) in DIST_DIR.
dist_deb() {
  local debs=("$1"/outboxd_*+deb"$2"_*.deb)
  [[ -f ${debs[0]} ]] || die "no outboxd .deb for Debian $2 in $1; run scripts/package first"
  (( ${#debs[@]} == 1 )) || die "several .debs for Debian $2 in $1: ${debs[*]}; remove the stale ones"
  printf '%s\n' "${debs[0]}"
}
