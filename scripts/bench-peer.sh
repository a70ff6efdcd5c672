#!/usr/bin/env bash
# MediShare beside Orthanc (`make bench-peer`): installs Debian's
# orthanc, orthanc-postgresql, orthanc-dicomweb and wrk when they are missing, starts the
# private test PostgreSQL cluster, and runs BenchmarkPeer once against the real
# bin/medishare (built by make) and an Orthanc it starts itself with a
# generated configuration. It writes its section of docs/performance.md.
#
#   MEDISHARE_TEST_PG_PORT  the test cluster's port (default 54330)
#   BENCH_MEDISHARE_PORT    MediShare's HTTP port (default 18200)
#   BENCH_ORTHANC_PORT      Orthanc's HTTP port (default 18201; the next one is its DICOM port, disabled)
#
#   BENCH_PEER_QUICK=1      shrinks every size, to try it out (its numbers mean nothing: do not commit what it writes)
#
# It takes about half an hour on two cores (more on a busy machine), much of
# it filling Orthanc with 100,000 studies through its REST API and waiting
# for its study searches.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

scripts/apt-ensure.sh Orthanc:orthanc /usr/share/orthanc/plugins/libOrthancPostgreSQLIndex.so:orthanc-postgresql /usr/share/orthanc/plugins/libOrthancDicomWeb.so:orthanc-dicomweb wrk:wrk
[ -x bin/medishare ] || { echo "bench-peer: bin/medishare is missing; run 'make build'" >&2; exit 1; }

# The cluster the benchmark's databases live in (pgtest starts the same one).
PG_FAST=1 scripts/pg.sh start data/postgres-test "${MEDISHARE_TEST_PG_PORT:-54330}" >/dev/null

BENCH_REPORT="$root/docs/performance.md" go test -run '^$' -bench '^BenchmarkPeer$' -benchtime 1x -timeout 60m ./internal/bench/
