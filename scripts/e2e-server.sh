#!/usr/bin/env bash
# Started by Playwright (web/playwright.config.ts): the real binary with the
# embedded app on 127.0.0.1:18080, in development mode, on a fresh database
# and a fresh data folder.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
port=${E2E_PORT:-18080}
cluster="$root/data/postgres-test"

[ -x bin/medishare ] || { echo "e2e-server: bin/medishare is missing; run 'make build'" >&2; exit 1; }
url=$(PG_FAST=1 scripts/pg.sh start "$cluster" "${MEDISHARE_TEST_PG_PORT:-54330}")
scripts/pg.sh psql "$cluster" -q -c 'DROP DATABASE IF EXISTS medishare_e2e WITH (FORCE)' -c 'CREATE DATABASE medishare_e2e' >&2

rm -rf "$root/data/e2e"
export DATABASE_URL=${url/\/medishare\?/\/medishare_e2e?}
export MEDISHARE_ENV=development
# As make run: the demo images and the demo study, which the suite opens too.
export MEDISHARE_DEMO_IMAGES=1
export MEDISHARE_ADDR=127.0.0.1:$port
export MEDISHARE_DATA_DIR=$root/data/e2e
export MEDISHARE_LOG_FORMAT=text
export MEDISHARE_LOG_LEVEL=${MEDISHARE_LOG_LEVEL:-warn}
exec bin/medishare serve
