// Package bench measures the real server process: transfers, contents and
// previews, memory, lists at scale, messaging, the soak and MediShare beside
// Orthanc. Its benchmarks (the _test.go files) start bin/medishare, which
// `make build` makes, and write their sections of docs/performance.md when
// BENCH_REPORT names it: `make bench`, `make bench-peer` and `make soak`
// run them. They are not tests: `go test` runs none of them without -bench.
package bench
