#!/usr/bin/env bash
# Debian's Chromium for the Playwright suite (Playwright's own browser
# download is not used). CHROMIUM_PATH names another build.
set -euo pipefail
if [ -n "${CHROMIUM_PATH:-}" ] && [ -x "$CHROMIUM_PATH" ]; then exit 0; fi
exec "$(dirname "$0")/apt-ensure.sh" chromium:chromium
