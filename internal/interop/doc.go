// Package interop checks that real clients of MediShare's standard
// interfaces work with it: Orthanc, the open-source DICOM server, stores a
// study in MediShare over DICOMweb (STOW-RS), finds it (QIDO-RS) and
// retrieves it (WADO-RS). Its tests (the _test.go files) start
// bin/medishare, which `make build` makes, and Debian's Orthanc with its
// DICOMweb plugin, which they install through scripts/apt-ensure.sh when
// missing; `make test` runs them in a step of their own (test-interop),
// after make build and its packages step. `go test -short` skips them.
package interop
