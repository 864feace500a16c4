#!/usr/bin/env bash
# Fetches Postfix's smtp-sink, the fault-injecting SMTP server the MTA's remote-fault tests
# run against. Only the Debian package is downloaded and unpacked (no mail server is
# installed or started). Idempotent: a second run finds the unpacked binary and only prints
# its path. Prints the path of smtp-sink on stdout; progress goes to stderr.
#
# Usage: bash scripts/fetch-smtp-sink.sh [cache-dir]   (relative to the repository; default
# MAILROOM_SMTP_SINK_CACHE, else .cache/postfix). The tests find the default location by
# themselves; for another, set MAILROOM_SMTP_SINK to the printed path. smtp-sink needs
# LD_LIBRARY_PATH=<cache-dir>/root/usr/lib/postfix (the tests set it).
set -euo pipefail
cd "$(dirname "$0")/.."

cache="${1:-${MAILROOM_SMTP_SINK_CACHE:-.cache/postfix}}"
mkdir -p "$cache"
cache="$(cd "$cache" && pwd)"
root="$cache/root"
sink="$root/usr/sbin/smtp-sink"

# Without arguments smtp-sink exits non-zero printing its usage: that proves it loads its libraries.
runs() {
  local out
  out="$(LD_LIBRARY_PATH="$root/usr/lib/postfix" "$sink" 2>&1 || true)"
  [[ "$out" == *usage:* ]]
}

if [ -x "$sink" ] && runs; then
  echo "$sink"
  exit 0
fi

# apt-get download writes into the current directory, named after the package version.
download() { (cd "$cache" && apt-get download postfix >&2); }
deb() { find "$cache" -maxdepth 1 -name 'postfix_*.deb' | sort | tail -n 1; }

if [ -z "$(deb)" ]; then
  # A fresh machine may have no package lists yet: update only when the download fails.
  if ! download; then
    echo "fetch-smtp-sink: apt-get download failed; running apt-get update" >&2
    apt-get update >&2
    download
  fi
fi
package="$(deb)"
if [ -z "$package" ]; then
  echo "fetch-smtp-sink: no postfix package was downloaded into $cache" >&2
  exit 1
fi

# Unpack into a fresh directory and move it into place, so an interrupted run never leaves
# a half-extracted tree that looks complete.
rm -rf "$root.tmp"
dpkg -x "$package" "$root.tmp"
rm -rf "$root"
mv "$root.tmp" "$root"

if ! runs; then
  echo "fetch-smtp-sink: $sink does not run (LD_LIBRARY_PATH=$root/usr/lib/postfix)" >&2
  exit 1
fi
echo "$sink"
