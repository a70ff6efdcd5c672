#!/usr/bin/env bash
# Installs Debian packages whose command or file is missing.
#
#   scripts/apt-ensure.sh COMMAND-OR-PATH:PACKAGE...
#
# Each argument names what must be there (a command on the PATH, or an
# absolute path) and the package that brings it.
set -euo pipefail
missing=()
for arg in "$@"; do
	what=${arg%%:*} pkg=${arg#*:}
	case "$what" in
	/*) [ -e "$what" ] || missing+=("$pkg") ;;
	*) command -v "$what" >/dev/null 2>&1 || missing+=("$pkg") ;;
	esac
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "apt-ensure: installing ${missing[*]}" >&2
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
