#!/usr/bin/env bash
# A private S3-compatible server in a folder, for development and tests:
# Versity's versitygw with its posix backend (objects are plain files).
#
#   scripts/s3.sh start DIR [PORT]  start it on 127.0.0.1:PORT (default 9330); prints
#                                   S3_ENDPOINT, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, S3_BUCKET
#   scripts/s3.sh stop DIR          stop it
#   scripts/s3.sh env DIR           print those lines again
#   scripts/s3.sh build DIR         only build the server (make test does it before the Go tests)
#
# The server is built once from the Go module proxy into .tools/bin (about two
# and a half minutes on two cores). The keys are generated on first start and
# kept in DIR/credentials; nothing secret is in the repository. S3_BUCKET
# (default "medishare") names the bucket made on start. Works as root and as
# an ordinary user.
set -euo pipefail

VERSITYGW_VERSION=v1.8.0

cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop|env DIR [PORT]" >&2; exit 2; }
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tools="$root/.tools/bin"
bin="$tools/versitygw-$VERSITYGW_VERSION"
bucket=${S3_BUCKET:-medishare}
port=9330
[ -f "$dir/port" ] && port=$(cat "$dir/port")
[ "$cmd" = start ] && [ -n "${3:-}" ] && port=$3

build() {
	[ -x "$bin" ] && return
	mkdir -p "$tools"
	exec 8>"$tools/.versitygw.lock"
	flock 8 # one build, however many test packages start at once
	if [ ! -x "$bin" ]; then
		echo "s3.sh: building versitygw $VERSITYGW_VERSION (once)" >&2
		tmp=$(mktemp -d "$tools/.build-XXXXXX")
		# Go's default flags, as the project's own builds: the standard
		# library compiled for one serves the other.
		(cd "$tmp" && GOBIN="$tmp" go install \
			-ldflags "-s -w -X main.Version=$VERSITYGW_VERSION" \
			"github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION") >&2 \
			|| { rm -rf "$tmp"; exit 1; }
		mv "$tmp/versitygw" "$bin"
		rm -rf "$tmp"
	fi
	exec 8>&-
}

load_keys() {
	if [ ! -s "$dir/credentials" ]; then
		(umask 077
		 printf 'access=%s\nsecret=%s\n' "$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')" \
			"$(head -c 24 /dev/urandom | base64 | tr -d '/+=')" > "$dir/credentials.new"
		 mv "$dir/credentials.new" "$dir/credentials")
	fi
	access=$(sed -n 's/^access=//p' "$dir/credentials")
	secret=$(sed -n 's/^secret=//p' "$dir/credentials")
}

running() {
	local pid
	[ -s "$dir/pid" ] || return 1
	pid=$(cat "$dir/pid")
	kill -0 "$pid" 2>/dev/null && grep -q versitygw "/proc/$pid/cmdline" 2>/dev/null
}

endpoint() { printf 'http://127.0.0.1:%s' "$port"; }

# answers: any HTTP status (an anonymous request gets 403) means it is serving.
answers() {
	local code
	code=$(curl -s -o /dev/null -m 2 -w '%{http_code}' "$(endpoint)/" 2>/dev/null || true)
	[ -n "$code" ] && [ "$code" != 000 ]
}

# s3curl METHOD PATH: a signed request without a body; prints the HTTP status.
s3curl() {
	local method=(-X "$1")
	[ "$1" = HEAD ] && method=(-I)
	curl -s -o /dev/null -w '%{http_code}' -m 10 "${method[@]}" \
		-H "x-amz-content-sha256: $empty_sha256" \
		--aws-sigv4 "aws:amz:us-east-1:s3" --user "$access:$secret" "$(endpoint)$2"
}
empty_sha256=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855

print_env() {
	printf 'S3_ENDPOINT=%s\nS3_ACCESS_KEY_ID=%s\nS3_SECRET_ACCESS_KEY=%s\nS3_BUCKET=%s\nS3_REGION=us-east-1\nS3_PATH_STYLE=true\n' \
		"$(endpoint)" "$access" "$secret" "$bucket"
}

"$root/scripts/apt-ensure.sh" curl:curl

case "$cmd" in
build)
	build
	;;
start)
	build
	exec 9>"$dir/.lock"
	flock 9 # several test packages may start it at once
	load_keys
	echo "$port" > "$dir/port"
	if ! running; then
		if answers; then
			echo "s3.sh: something else already listens on 127.0.0.1:$port" >&2
			exit 1
		fi
		mkdir -p "$dir/data" "$dir/meta"
		chmod 700 "$dir/data" "$dir/meta"
		# Keys through the environment, not the command line, which other
		# users can read. Metadata in a sidecar folder, so the filesystem
		# needs no extended attributes. The daemon keeps no inherited fd: the
		# lock's (9) would hold the lock as long as it runs, and a caller's
		# pipe would keep the caller waiting for EOF.
		(
			for fd in /proc/$BASHPID/fd/*; do
				fd=${fd##*/}
				[ "$fd" -gt 2 ] && eval "exec $fd>&-" 2>/dev/null
			done
			ROOT_ACCESS_KEY_ID="$access" ROOT_SECRET_ACCESS_KEY="$secret" \
				exec nohup "$bin" --port "127.0.0.1:$port" --region us-east-1 --quiet \
				posix --sidecar "$dir/meta" --dir-perms 0700 --file-perms 0600 "$dir/data" \
				>"$dir/server.log" 2>&1 </dev/null 9>&-
		) &
		pid=$!
		echo "$pid" > "$dir/pid"
		# Until the subshell has exec'd, its command line is bash's, not
		# versitygw's: only whether the process is still there tells here.
		for _ in $(seq 1 300); do
			answers && break
			if ! kill -0 "$pid" 2>/dev/null; then
				echo "s3.sh: versitygw exited:" >&2; tail -n 20 "$dir/server.log" >&2; exit 1
			fi
			sleep 0.1
		done
		answers || { echo "s3.sh: versitygw does not answer on $(endpoint)" >&2; tail -n 20 "$dir/server.log" >&2; exit 1; }
	fi
	case "$(s3curl HEAD "/$bucket")" in
	200) ;;
	404)
		code=$(s3curl PUT "/$bucket")
		[ "$code" = 200 ] || [ "$code" = 409 ] || { echo "s3.sh: creating bucket $bucket: HTTP $code" >&2; exit 1; }
		;;
	*) echo "s3.sh: bucket $bucket: unexpected answer" >&2; exit 1 ;;
	esac
	print_env
	;;
stop)
	if running; then
		pid=$(cat "$dir/pid")
		kill "$pid"
		for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
	fi
	rm -f "$dir/pid"
	;;
env)
	load_keys
	print_env
	;;
*)
	echo "usage: $0 start|stop|env DIR [PORT]" >&2; exit 2
	;;
esac
