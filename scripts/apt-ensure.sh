#!/usr/bin/env bash
# Installs Debian packages whose command or file is missing.
#
#   scripts/apt-ensure.sh COMMAND-OR-PATH:PACKAGE...
#
# Each argument names what must be there (a command on the PATH, or an
# absolute path, which may be a glob) and the package that brings it. Every
# script of the repository installs through here, holding one lock, so steps
# of `make test` that run side by side never race for apt's own locks.
set -euo pipefail
missing() {
	local arg what pkg
	for arg in "$@"; do
		what=${arg%%:*} pkg=${arg#*:}
		case "$what" in
		/*) compgen -G "$what" >/dev/null || echo "$pkg" ;;
		*) command -v "$what" >/dev/null 2>&1 || echo "$pkg" ;;
		esac
	done
}
[ -z "$(missing "$@")" ] && exit 0
exec 9>"${TMPDIR:-/tmp}/medishare-apt.lock"
flock 9
# Another script may have installed them while this one waited.
mapfile -t pkgs < <(missing "$@")
[ ${#pkgs[@]} -eq 0 ] && exit 0
echo "apt-ensure: installing ${pkgs[*]}" >&2
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >&2
