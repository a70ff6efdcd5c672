#!/usr/bin/env bash
# DICOM coverage on a public corpus, beside Orthanc with its GDCM plugin
# (`make bench-corpus`, also run by `make bench-peer`). It gathers, into a
# temporary folder, the DICOM test and example files that Debian packages
# ship (made by their projects, not for MediShare), installs Debian's
# orthanc and orthanc-gdcm when they are missing, and runs BenchmarkCorpus
# once: every file goes to Orthanc (POST /instances, then its preview) and
# through MediShare's upload path and previewer in process. It writes its
# section of docs/performance.md. Nothing of the corpus is committed.
#
#   BENCH_ORTHANC_PORT   Orthanc's HTTP port (default 18142; the next one is its DICOM port, disabled)
#   BENCH_CORPUS         an existing corpus folder to use instead of gathering one
#
# Sources: a folder per Debian package, with where in the package its files
# are and the licence its copyright file gives them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

scripts/apt-ensure.sh Orthanc:orthanc /usr/share/orthanc/plugins/libOrthancGdcm.so:orthanc-gdcm

# package, licence of its files, where they are in the package
sources=(
	"python3-pydicom|MIT (Expat)|usr/lib/python3/dist-packages/pydicom/data"
	"python3-nibabel|MIT (Expat)|usr/lib/python3/dist-packages/nibabel"
	"heudiconv|Apache-2.0|usr/lib/python3/dist-packages/heudiconv/tests/data"
	"octave-dicom|GPL-3+|usr/share/octave/packages"
	"dicom3tools|BSD-3-clause|usr/share/doc/dicom3tools/examples"
)

if [ -z "${BENCH_CORPUS:-}" ]; then
	work=$(mktemp -d "${TMPDIR:-/tmp}/medishare-corpus.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	corpus="$work/corpus"
	mkdir -p "$corpus" "$work/debs"
	: >"$corpus/sources.tsv"
	for s in "${sources[@]}"; do
		IFS='|' read -r pkg licence where <<<"$s"
		(cd "$work/debs" && apt-get download -q "$pkg" >/dev/null 2>&1) || {
			sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
			$sudo apt-get update -qq >/dev/null
			(cd "$work/debs" && apt-get download -q "$pkg" >/dev/null)
		}
		deb=$(ls "$work/debs/${pkg}"_*.deb)
		version=$(dpkg-deb -f "$deb" Version)
		dpkg-deb -x "$deb" "$work/x-$pkg"
		mkdir -p "$corpus/$pkg"
		# The package's own layout below $where; links stay links, which the
		# benchmark skips (they are not files of their own).
		cp -rP "$work/x-$pkg/$where/." "$corpus/$pkg/"
		printf '%s\t%s\t%s\t%s\t%s\n' "$pkg" "$pkg" "$version" "$licence" "/$where" >>"$corpus/sources.tsv"
	done
	BENCH_CORPUS="$corpus"
fi

BENCH_CORPUS="$BENCH_CORPUS" BENCH_REPORT="$root/docs/performance.md" \
	go test -run '^$' -bench '^BenchmarkCorpus$' -benchtime 1x -timeout 30m ./internal/bench/
