#!/usr/bin/env bash
# Debian's Chromium for the Playwright suite (Playwright's own browser
# download is not used).
set -euo pipefail
if [ -n "${CHROMIUM_PATH:-}" ] && [ -x "$CHROMIUM_PATH" ]; then exit 0; fi
command -v chromium >/dev/null 2>&1 && exit 0
echo "ensure-chromium: installing Debian's chromium" >&2
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
