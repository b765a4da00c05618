#!/usr/bin/env bash
# Usage: promtool_check_metrics.sh RENDER_BINARY
#   Pipes RENDER_BINARY's exposition text to `promtool check metrics`, which fails on a parse
#   error or a naming lint. Exits 77 (ctest: skipped) when promtool is not installed.
set -euo pipefail
command -v promtool >/dev/null || {
  echo "promtool not installed (Debian package prometheus; scripts/setup --test installs it): skipped" >&2
  exit 77
}
text=$("$1")
lines=$(grep -c '' <<<"$text")
promtool check metrics <<<"$text"
echo "promtool check metrics: ${lines} lines OK"
