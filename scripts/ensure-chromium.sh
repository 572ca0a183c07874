#!/usr/bin/env bash
# Installs Debian's Chromium for the console's browser tests (packages/console/test/*.e2e.test.ts)
# when /usr/bin/chromium is missing. The tests drive it through playwright-core and never
# download a browser of their own. Safe to run repeatedly.
set -euo pipefail

CHROMIUM=/usr/bin/chromium

if [ -x "$CHROMIUM" ]; then
  echo "chromium present: $("$CHROMIUM" --version 2>/dev/null || echo "$CHROMIUM")"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "chromium is missing at $CHROMIUM and apt-get is not available: install Chromium so that $CHROMIUM exists" >&2
  exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "chromium is missing at $CHROMIUM; installing it needs root (run as root or install sudo)" >&2
    exit 1
  fi
  SUDO="sudo"
fi

echo "installing Debian's chromium package"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq chromium >/dev/null

if [ ! -x "$CHROMIUM" ]; then
  echo "the chromium package installed, but $CHROMIUM does not exist" >&2
  exit 1
fi
echo "chromium installed: $("$CHROMIUM" --version 2>/dev/null || echo "$CHROMIUM")"
