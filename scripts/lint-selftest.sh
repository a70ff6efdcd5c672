#!/usr/bin/env bash
# Proves that the linter enforces the import rules of docs/architecture.md.
#
#   scripts/lint-selftest.sh GOLANGCI_LINT     (make lint runs it with the pinned binary)
#
# Copies the module as it is in the work tree (tracked and new files that git
# does not ignore) into a temporary folder, plants files there that break the
# rules, one per rule, and one test file that uses a test harness as it may,
# then runs golangci-lint with the project's .golangci.yml in that folder. It
# fails unless depguard reports every planted forbidden import and nothing in
# the allowed one. The real tree is only read.
set -euo pipefail

lint=${1:?usage: $0 PATH-TO-GOLANGCI-LINT}
lint=$(cd "$(dirname "$lint")" && pwd)/$(basename "$lint")
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/medishare-lint-selftest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

cd "$root"
git ls-files -z --cached --others --exclude-standard |
	while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
	tar --null -T - -cf - | tar -xf - -C "$tmp"

mod=github.com/medishare/medishare
# plant FILE PACKAGE IMPORT...: a Go file in the copy that only imports.
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
# Every planted import creates no import cycle, so the packages still load.
plant internal/domain/zz_lint_selftest.go domain net/http $mod/migrations
plant internal/service/zz_lint_selftest.go service github.com/jackc/pgx/v5
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
(cd "$tmp" && "$lint" run ./...) >"$out" 2>&1 || rc=$?

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
if [ "$rc" -ne 1 ]; then
	echo "lint self-test: FAIL: golangci-lint exited $rc, want 1 (issues found)" >&2
	fail=1
fi
if [ "$fail" -ne 0 ]; then
	echo "--- golangci-lint output in the planted copy:" >&2
	cat "$out" >&2
	exit 1
fi
echo "lint self-test: passed (golangci-lint exited $rc on the planted copy)"
