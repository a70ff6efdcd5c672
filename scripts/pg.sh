#!/usr/bin/env bash
# A private PostgreSQL cluster in a folder, for development and tests.
#
#   scripts/pg.sh start DIR PORT   start it (creating it the first time); prints its DATABASE_URL
#   scripts/pg.sh stop DIR         stop it
#   scripts/pg.sh url DIR PORT     print its DATABASE_URL
#   scripts/pg.sh psql DIR ARGS... run psql on its maintenance database
#
# Uses the machine's PostgreSQL binaries, installing Debian's postgresql when
# they are missing. Works as an ordinary user and as root (then the cluster
# runs as the 'postgres' user, which PostgreSQL requires). PG_FAST=1 turns off
# durability for throw-away test clusters. The password is generated on first
# start and kept in DIR/password; nothing secret is in the repository.
set -euo pipefail

cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop|url|psql DIR [PORT]" >&2; exit 2; }
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
port=54329
[ -f "$dir/port" ] && port=$(cat "$dir/port")
[ "$cmd" = start ] && [ -n "${3:-}" ] && port=$3

find_bindir() {
	local d
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
		[ -x "$d/initdb" ] && { echo "$d"; return; }
	done
	command -v initdb >/dev/null 2>&1 && dirname "$(readlink -f "$(command -v initdb)")"
}

bindir=$(find_bindir || true)
if [ -z "$bindir" ] && [ "$cmd" = start ]; then
	"$(dirname "${BASH_SOURCE[0]}")/apt-ensure.sh" '/usr/lib/postgresql/*/bin/initdb:postgresql'
	bindir=$(find_bindir)
fi

# As root the server must run as another user, who must be able to reach the
# folder; when it cannot (say, under /root), the cluster lives in /var/tmp.
as_pg=()
cluster="$dir/data"
if [ "$(id -u)" -eq 0 ]; then
	id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /usr/sbin/nologin postgres
	as_pg=(runuser -u postgres --)
	if ! "${as_pg[@]}" test -x "$dir" 2>/dev/null; then
		cluster="/var/tmp/medishare-pg-$(printf %s "$dir" | sha1sum | cut -c1-16)"
	fi
fi

url() {
	printf 'postgres://medishare:%s@127.0.0.1:%s/%s?sslmode=disable\n' "$(cat "$dir/password")" "$port" "${1:-medishare}"
}

running() { [ -n "$bindir" ] && "${as_pg[@]}" "$bindir/pg_ctl" -D "$cluster" status >/dev/null 2>&1; }

case "$cmd" in
start)
	exec 9>"$dir/.lock"
	flock 9 # several test packages may start it at once
	if [ ! -s "$dir/password" ]; then
		(umask 077; head -c 24 /dev/urandom | base64 | tr -d '/+=' > "$dir/password")
	fi
	echo "$port" > "$dir/port"
	if [ ! -f "$cluster/PG_VERSION" ]; then
		mkdir -p "$cluster"
		[ ${#as_pg[@]} -eq 0 ] || chown postgres "$cluster"
		chmod 700 "$cluster"
		pwfile=$(mktemp)
		cp "$dir/password" "$pwfile"
		[ ${#as_pg[@]} -eq 0 ] || chown postgres "$pwfile"
		"${as_pg[@]}" "$bindir/initdb" -D "$cluster" -U medishare --auth=scram-sha-256 \
			--pwfile="$pwfile" --encoding=UTF8 --locale=C >"$dir/initdb.log" 2>&1 \
			|| { rm -f "$pwfile"; cat "$dir/initdb.log" >&2; exit 1; }
		rm -f "$pwfile"
	fi
	if ! running; then
		opts="-c listen_addresses=127.0.0.1 -p $port -k $cluster -c max_connections=200"
		[ "${PG_FAST:-0}" = 1 ] && opts="$opts -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
		"${as_pg[@]}" "$bindir/pg_ctl" -D "$cluster" -l "$cluster/server.log" -o "$opts" -w -t 60 start >&2 9>&- \
			|| { tail -n 20 "$cluster/server.log" >&2; exit 1; }
	fi
	admin=$(url postgres)
	if ! "$bindir/psql" "$admin" -tAc "SELECT 1 FROM pg_database WHERE datname = 'medishare'" | grep -q 1; then
		"$bindir/psql" "$admin" -qc "CREATE DATABASE medishare" >&2
	fi
	url
	;;
stop)
	if running; then "${as_pg[@]}" "$bindir/pg_ctl" -D "$cluster" -m fast -w stop >&2; fi
	;;
url)
	url
	;;
psql)
	shift 2
	exec "$bindir/psql" "$(url postgres)" "$@"
	;;
*)
	echo "usage: $0 start|stop|url|psql DIR [PORT]" >&2; exit 2
	;;
esac
