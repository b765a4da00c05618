# shellcheck shell=bash disable=SC2034  # variables are used by the sourcing scripts
# Usage: source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"   (shared helpers for scripts/*)
# Not executable on its own. Defines: log, die, elapsed_since, need_cmd, abs_path,
# free_ports, as_postgres, wait_until, ensure_packages, use_librdkafka, and the paths below.

OUTBOXD_SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUTBOXD_REPO_ROOT="$(cd "$OUTBOXD_SCRIPTS_DIR/.." && pwd)"
OUTBOXD_CACHE="${OUTBOXD_CACHE:-$HOME/.cache/outboxd}"
KAFKA_DEFAULT_VERSION=4.1.1
# use_kafka_version VERSION — point KAFKA_VERSION, KAFKA_HOME_CACHE, KAFKA_LIBS and KAFKA_POM
# at VERSION (exported as OUTBOXD_KAFKA_VERSION for child scripts). Another version needs its
# pom in scripts/kafka-jars/VERSION/ (none is kept now: the SCRAM tests moved to 4.1.1 with
# librdkafka 2.8.0).
use_kafka_version() {
  KAFKA_VERSION=$1
  KAFKA_HOME_CACHE="$OUTBOXD_CACHE/kafka-$KAFKA_VERSION"
  KAFKA_LIBS="$KAFKA_HOME_CACHE/libs"
  KAFKA_POM="$OUTBOXD_SCRIPTS_DIR/kafka-jars/pom.xml"
  [[ $KAFKA_VERSION == "$KAFKA_DEFAULT_VERSION" ]] \
    || KAFKA_POM="$OUTBOXD_SCRIPTS_DIR/kafka-jars/$KAFKA_VERSION/pom.xml"
  export OUTBOXD_KAFKA_VERSION=$KAFKA_VERSION
}
use_kafka_version "${OUTBOXD_KAFKA_VERSION:-$KAFKA_DEFAULT_VERSION}"
# Class-data-sharing archive of the broker's classes (made by scripts/setup), keyed by the
# JVM binary so a JDK upgrade simply stops using it. Cuts broker start-up by ~30%.
kafka_cds_archive() {
  local java_bin
  java_bin=$(readlink -f "$(command -v java)" 2>/dev/null) || return 1
  printf '%s/cds/kafka-%s.jsa\n' "$KAFKA_HOME_CACHE" \
    "$(stat -c '%Y-%s' "$java_bin" | cksum | cut -d' ' -f1)"
}
# helm for tests/deploy: scripts/helm builds this version from its Go module into the cache
# and links it as $OUTBOXD_CACHE/bin/helm, where check_chart.py looks after $OUTBOXD_HELM.
HELM_MODULE=helm.sh/helm/v4
HELM_VERSION=v4.3.2
HELM_CACHE="$OUTBOXD_CACHE/helm-$HELM_VERSION"
# librdkafka: outboxd needs 2.8.0 (README "Which librdkafka"); on Debian 12, which ships 2.0.2,
# scripts/librdkafka unpacks Debian 13's 2.8.0 (built from source) into this private prefix
# instead of replacing the system's librdkafka1. The pin's SHA-256 is in scripts/librdkafka.
LIBRDKAFKA_DEB_VERSION=2.8.0-1
LIBRDKAFKA_MIN_VERSION=2.8.0
LIBRDKAFKA_PREFIX="$OUTBOXD_CACHE/librdkafka-$LIBRDKAFKA_DEB_VERSION/prefix"
# Debian 12's kcat links 2.0.2, whose SCRAM login Kafka 4 refuses (scripts/kafka's secure
# mode): scripts/librdkafka puts a kcat running with the private 2.8.0 in the prefix's bin/.
[[ -x $LIBRDKAFKA_PREFIX/bin/kcat ]] && PATH="$LIBRDKAFKA_PREFIX/bin:$PATH"
PG_BIN="${OUTBOXD_PG_BIN:-/usr/lib/postgresql/15/bin}"
SCRIPT_NAME="$(basename "$0")"

# The Debian packages of the test tools, by the script that owns (and installs) them; scripts/
# setup installs only what building, running and scripts/demo need, `scripts/setup --test` these.
LINT_PACKAGES=(clang-format clang-tidy clang jq git)                # scripts/lint
FUZZ_PACKAGES=(clang libclang-rt-14-dev)                            # scripts/fuzz (libFuzzer)
PACKAGING_PACKAGES=(dpkg-dev podman buildah debootstrap runc uidmap  # scripts/package, image
  systemd)                                                          # systemd-analyze verify
COMPOSE_PACKAGES=(podman-compose                                    # scripts/test-compose; DNS
  golang-github-containernetworking-plugin-dnsname)                 # between containers
SUITE_PACKAGES=(prometheus                                          # promtool (metrics_promtool_check)
  python3-yaml                                                      # tests/deploy
  python3-pip                                                       # scripts/pg-binaries
  jq curl unzip)                                                    # scripts/debezium

# log MESSAGE... — one line on stderr, prefixed with the script's name.
log() { printf '[%s] %s\n' "$SCRIPT_NAME" "$*" >&2; }

# die MESSAGE... — log and exit 1.
die() { printf '[%s] ERROR: %s\n' "$SCRIPT_NAME" "$*" >&2; exit 1; }

# now_ms — wall clock in milliseconds.
now_ms() { date +%s%3N; }

# elapsed_since START_MS — "1.234s".
elapsed_since() {
  local ms=$(( $(now_ms) - $1 ))
  printf '%d.%03ds' $((ms / 1000)) $((ms % 1000))
}

# need_cmd CMD HINT — fail clearly when a command is missing.
need_cmd() { command -v "$1" >/dev/null 2>&1 || die "'$1' not found; $2"; }

# as_root CMD... — CMD as root: directly, or through passwordless sudo.
as_root() {
  if (( EUID == 0 )); then "$@"
  elif command -v sudo >/dev/null; then sudo -n "$@"
  else die "need root (or passwordless sudo) to run: $*"
  fi
}

# missing_packages PKG... — those of PKG that dpkg does not report installed, one a line.
missing_packages() {
  local out rc=0 p
  # dpkg-query exits 1 when it knows some PKG not at all (never installed): expected here.
  out=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "$@" 2>/dev/null) || rc=$?
  (( rc <= 1 )) || die "dpkg-query failed (exit $rc): is this Debian?"
  out=" $(awk '$2 == "installed" { printf "%s ", $1 }' <<<"$out")"
  for p in "$@"; do [[ $out == *" $p "* ]] || echo "$p"; done
}

# ensure_packages WHY PKG... — apt-get install those of PKG not installed yet, saying which and
# for what first; the package lists are refreshed only when an install fails without them.
ensure_packages() {
  local why=$1 list missing
  shift
  list=$(missing_packages "$@") || exit 1
  [[ -n $list ]] || return 0
  mapfile -t missing <<<"$list"
  log "apt: installing ${missing[*]} ($why)"
  local install=(env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends)
  if ! as_root "${install[@]}" "${missing[@]}" </dev/null >/dev/null 2>&1; then
    as_root apt-get update -qq || die "apt-get update failed"
    as_root "${install[@]}" "${missing[@]}" </dev/null >/dev/null \
      || die "apt-get install failed for: ${missing[*]}"
  fi
}

# abs_path PATH — absolute path (PATH need not exist yet, its parent must).
abs_path() {
  local p=$1
  [[ -d $p ]] && { (cd "$p" && pwd); return; }
  printf '%s/%s\n' "$(cd "$(dirname "$p")" && pwd)" "$(basename "$p")"
}

# port_in_use PORT — true if any local TCP socket (any state) uses PORT.
port_in_use() {
  local hex
  hex=$(printf ':%04X ' "$1")
  grep -qs -- "$hex" /proc/net/tcp /proc/net/tcp6
}

# free_ports N — print N distinct free TCP ports (one per line), chosen at random
# below the kernel's ephemeral range so outgoing connections cannot take them.
free_ports() {
  local n=$1 picked=() p tries=0
  while (( ${#picked[@]} < n )); do
    (( ++tries < 500 )) || die "could not find $n free TCP ports"
    p=$(( 20000 + (RANDOM * 32768 + RANDOM) % 12000 ))
    [[ " ${picked[*]} " == *" $p "* ]] && continue
    port_in_use "$p" && continue
    picked+=("$p")
  done
  printf '%s\n' "${picked[@]}"
}

# as_postgres CMD... — run CMD as the postgres system user when root, directly otherwise.
as_postgres() {
  if (( EUID == 0 )); then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

# wait_until TIMEOUT_S DESCRIPTION CMD... — poll CMD every 0.2 s until it succeeds.
# Returns 1 (without exiting) on timeout so callers can print diagnostics.
wait_until() {
  local timeout=$1 what=$2 deadline
  shift 2
  deadline=$(( $(now_ms) + timeout * 1000 ))
  until "$@" >/dev/null 2>&1; do
    if (( $(now_ms) > deadline )); then
      log "timed out after ${timeout}s waiting for $what"
      return 1
    fi
    sleep 0.2
  done
}

# pid_alive PID — true if PID is a live, non-zombie process.
pid_alive() {
  [[ -n ${1:-} ]] && kill -0 "$1" 2>/dev/null || return 1
  local state
  state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
  [[ $state != Z ]]
}

# services_dir_arg DIR — validate and create DIR, print its absolute path.
services_dir_arg() {
  [[ -n ${1:-} ]] || die "missing DIR argument"
  mkdir -p "$1"
  abs_path "$1"
}

# librdkafka_private_lib — the private prefix's library directory, if scripts/librdkafka made it.
# Its .complete marker holds that directory (scripts/librdkafka writes it last).
librdkafka_private_lib() {
  local lib
  lib=$(cat "$LIBRDKAFKA_PREFIX/.complete" 2>/dev/null) && [[ -d $lib ]] && printf '%s\n' "$lib"
}

# use_librdkafka — set RDKAFKA_CMAKE_ARGS (and export PKG_CONFIG_PATH) so that CMake finds
# librdkafka >= 2.8.0: the system's if it has one, else the private prefix (the build tree's
# RUNPATH then points there). Fails naming scripts/setup when neither is there.
use_librdkafka() {
  RDKAFKA_CMAKE_ARGS=()
  pkg-config --atleast-version="$LIBRDKAFKA_MIN_VERSION" rdkafka 2>/dev/null && return 0
  local lib
  lib=$(librdkafka_private_lib) \
    || die "librdkafka >= $LIBRDKAFKA_MIN_VERSION is neither installed nor in $LIBRDKAFKA_PREFIX; run scripts/setup"
  export PKG_CONFIG_PATH="$lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  RDKAFKA_CMAKE_ARGS=(-DCMAKE_PREFIX_PATH="$LIBRDKAFKA_PREFIX/usr")
}

