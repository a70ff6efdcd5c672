#!/usr/bin/env bash
# Proves that the linter enforces the import rules of docs/architecture.md.
#
#   scripts/lint-selftest.sh GOLANGCI_LINT     (make lint runs it with the pinned binary)
#
# Builds a small fixture module in a temporary folder: the project's module
# path and its real .golangci.yml, an empty package wherever a rule names one,
# and one planted file per rule that breaks it, plus one test file that uses a
# test harness as it may. golangci-lint runs there; the script fails unless
# depguard reports every planted forbidden import and nothing in the allowed
# one. Linting a few empty packages takes seconds, where a copy of the whole
# tree would be linted a second time. The real tree is only read.
set -euo pipefail

lint=${1:?usage: $0 PATH-TO-GOLANGCI-LINT}
lint=$(cd "$(dirname "$lint")" && pwd)/$(basename "$lint")
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/medishare-lint-selftest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

mod=$(sed -n 's/^module //p' "$root/go.mod")
gover=$(sed -n 's/^go //p' "$root/go.mod")
cp "$root/.golangci.yml" "$tmp/"

# Third-party imports the rules deny are stand-in modules, so the fixture
# needs no download and no go.sum.
thirdparty=(github.com/jackc/pgx/v5 github.com/go-chi/chi/v5 github.com/aws/aws-sdk-go-v2)
{
	echo "module $mod"
	echo
	echo "go $gover"
	echo
	for m in "${thirdparty[@]}"; do
		major=v0
		[[ $m =~ /(v[0-9]+)$ ]] && major=${BASH_REMATCH[1]}
		echo "require $m $major.0.0"
		echo "replace $m => ./third_party/$m"
	done
} >"$tmp/go.mod"
for m in "${thirdparty[@]}"; do
	mkdir -p "$tmp/third_party/$m"
	printf 'module %s\n\ngo %s\n' "$m" "$gover" >"$tmp/third_party/$m/go.mod"
	printf 'package %s\n' "$(basename "${m%/v[0-9]*}" | tr -d -)" >"$tmp/third_party/$m/stub.go"
done

# Every package of the project that a rule covers or names, empty.
for pkg in migrations internal/domain internal/service internal/httpapi internal/config \
	internal/store/postgres internal/store/postgres/db internal/secure internal/medimg \
	internal/mail internal/blob internal/app internal/bench internal/testutil/apptest internal/testutil/s3test; do
	mkdir -p "$tmp/$pkg"
	printf 'package %s\n' "$(basename "$pkg")" >"$tmp/$pkg/doc.go"
done

# plant FILE PACKAGE IMPORT...: a Go file in the fixture that only imports.
plant() {
	local file=$1 pkg=$2
	shift 2
	{
		echo "package $pkg"
		echo
		echo "import ("
		printf '\t_ "%s"\n' "$@"
		echo ")"
	} >"$tmp/$file"
}
# No planted import creates an import cycle, so the packages still load.
plant internal/domain/zz_lint_selftest.go domain net/http $mod/migrations
plant internal/service/zz_lint_selftest.go service github.com/jackc/pgx/v5 github.com/go-chi/chi/v5 \
	github.com/aws/aws-sdk-go-v2 $mod/internal/config
plant internal/httpapi/zz_lint_selftest.go httpapi $mod/internal/store/postgres/db $mod/internal/testutil/s3test
plant internal/store/postgres/zz_lint_selftest.go postgres $mod/internal/service
plant internal/medimg/zz_lint_selftest.go medimg $mod/internal/store/postgres/db
plant internal/mail/zz_lint_selftest.go mail $mod/internal/config
plant internal/app/zz_lint_selftest.go app $mod/internal/config
plant internal/bench/zz_lint_selftest.go bench $mod/internal/app
# Allowed: an external test package may use the test harnesses.
plant internal/httpapi/zz_lint_selftest_test.go httpapi_test $mod/internal/testutil/apptest

out=$tmp/lint.out
rc=0
(cd "$tmp" && GOFLAGS=-mod=mod GOTOOLCHAIN=local "$lint" run ./...) >"$out" 2>&1 || rc=$?

fail=0
# expect FILE IMPORT: depguard reports that import in that file.
expect() {
	if grep -E "^$1:[0-9]+:[0-9]+: import '$2' is not allowed from list '[a-z]+'" "$out" | grep -q '(depguard)$'; then
		echo "lint self-test: $1 importing $2 is refused"
	else
		echo "lint self-test: FAIL: depguard did not refuse $2 in $1" >&2
		fail=1
	fi
}
expect internal/domain/zz_lint_selftest.go net/http
expect internal/domain/zz_lint_selftest.go $mod/migrations
expect internal/service/zz_lint_selftest.go github.com/jackc/pgx/v5
expect internal/service/zz_lint_selftest.go github.com/go-chi/chi/v5
expect internal/service/zz_lint_selftest.go github.com/aws/aws-sdk-go-v2
expect internal/service/zz_lint_selftest.go $mod/internal/config
expect internal/httpapi/zz_lint_selftest.go $mod/internal/store/postgres/db
expect internal/httpapi/zz_lint_selftest.go $mod/internal/testutil/s3test
expect internal/store/postgres/zz_lint_selftest.go $mod/internal/service
expect internal/medimg/zz_lint_selftest.go $mod/internal/store/postgres/db
expect internal/mail/zz_lint_selftest.go $mod/internal/config
expect internal/app/zz_lint_selftest.go $mod/internal/config
expect internal/bench/zz_lint_selftest.go $mod/internal/app
if grep -q '^internal/httpapi/zz_lint_selftest_test\.go:' "$out"; then
	echo "lint self-test: FAIL: a test file's use of apptest was reported" >&2
	fail=1
fi
# Only depguard may speak: anything else means the fixture itself is broken.
if grep -E '^[a-z_/]+\.go:[0-9]+:[0-9]+: ' "$out" | grep -v '(depguard)$' | grep -q .; then
	echo "lint self-test: FAIL: the fixture has findings other than depguard's" >&2
	fail=1
fi
if [ "$rc" -ne 1 ]; then
	echo "lint self-test: FAIL: golangci-lint exited $rc, want 1 (issues found)" >&2
	fail=1
fi
if [ "$fail" -ne 0 ]; then
	echo "--- golangci-lint output in the fixture:" >&2
	cat "$out" >&2
	exit 1
fi
echo "lint self-test: passed (golangci-lint exited $rc on the fixture)"
