#!/usr/bin/env bash
# `make run`: serve the built binary in development mode. When DATABASE_URL
# is not set, a private PostgreSQL cluster in the data folder is started for
# the run and stopped after it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

export MEDISHARE_ENV=${MEDISHARE_ENV:-development}
export MEDISHARE_DATA_DIR=${MEDISHARE_DATA_DIR:-$root/data}
export MEDISHARE_LOG_FORMAT=${MEDISHARE_LOG_FORMAT:-text}
export MEDISHARE_ADDR=${MEDISHARE_ADDR:-127.0.0.1:8080}
# Demo images for the demo accounts on a fresh database (development only).
export MEDISHARE_DEMO_IMAGES=${MEDISHARE_DEMO_IMAGES:-true}

own_db=0
if [ -z "${DATABASE_URL:-}" ]; then
	DATABASE_URL=$(scripts/pg.sh start "$MEDISHARE_DATA_DIR/postgres" "${MEDISHARE_PG_PORT:-54329}")
	export DATABASE_URL
	own_db=1
fi

# Ctrl-C reaches the server, which drains and exits; then the cluster stops.
trap '' INT TERM
status=0
(trap - INT TERM; exec bin/medishare serve) || status=$?
if [ "$own_db" = 1 ]; then scripts/pg.sh stop "$MEDISHARE_DATA_DIR/postgres" || true; fi
exit "$status"
