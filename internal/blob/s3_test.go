package blob_test

import (
	"context"
	"io"
	"net"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/medishare/medishare/internal/blob"
	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/s3test"
)

func newS3(t *testing.T) (*blob.S3, blob.S3Config) {
	t.Helper()
	cfg := s3test.Start(t)
	s, err := blob.NewS3(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s, cfg
}

func TestS3(t *testing.T) {
	s, cfg := newS3(t)
	testStore(t, s)
	if ups := s3test.Uploads(t, cfg); len(ups) != 0 {
		t.Fatalf("%d multipart uploads left unfinished", len(ups))
	}
}

func TestNewS3NeedsBucket(t *testing.T) {
	_, err := blob.NewS3(blob.S3Config{Endpoint: "http://127.0.0.1:1"})
	wantKind(t, err, domain.EINVALID)
}

// Walk aborts multipart uploads a crash left behind, once they are old.
func TestS3WalkAbortsStaleUploads(t *testing.T) {
	s, cfg := newS3(t)
	client := s3test.NewClient(cfg)
	key := "files/crashed"
	if _, err := client.CreateMultipartUpload(context.Background(), &s3.CreateMultipartUploadInput{Bucket: &cfg.Bucket, Key: &key}); err != nil {
		t.Fatal(err)
	}
	walk(t, s, "files/", time.Now().Add(-time.Hour))
	if n := len(s3test.Uploads(t, cfg)); n != 1 {
		t.Fatalf("a young upload was aborted (%d left)", n)
	}
	walk(t, s, "other/", time.Now().Add(time.Hour))
	if n := len(s3test.Uploads(t, cfg)); n != 1 {
		t.Fatalf("an upload outside the prefix was aborted (%d left)", n)
	}
	walk(t, s, "files/", time.Now().Add(time.Hour))
	if n := len(s3test.Uploads(t, cfg)); n != 0 {
		t.Fatalf("%d stale uploads left", n)
	}
}

// A store that is down or misconfigured fails with EUNAVAILABLE (S27), by
// itself: each call gives up after its few attempts, long before the
// test's deadline. A server that drops every connection counts them: three
// attempts a call at most, which with backoffs of at most 300 ms is what
// makes a call fail fast.
func TestS3Unavailable(t *testing.T) {
	cfg := s3test.Start(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	dropping, connections := droppingServer(t)

	wrongSecret := cfg
	wrongSecret.SecretAccessKey = "wrong"
	noBucket := cfg
	noBucket.Bucket = "no-such-bucket-here"
	down := cfg
	down.Endpoint = closed
	drops := cfg
	drops.Endpoint = dropping

	tests := []struct {
		name string
		cfg  blob.S3Config
	}{
		{"server down", down},
		{"server drops every connection", drops},
		{"wrong secret", wrongSecret},
		{"no bucket", noBucket},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := blob.NewS3(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), testutil.EventuallyTimeout)
			defer cancel()
			for _, op := range []struct {
				name string
				call func() error
			}{
				{"ping", func() error { return s.Ping(ctx) }},
				{"put", func() error { return s.Put(ctx, "k", io.LimitReader(zeros{}, 10)) }},
				{"get", func() error { _, err := s.Get(ctx, "k"); return err }},
				{"walk", func() error { return s.Walk(ctx, "", time.Now(), func(string) error { return nil }) }},
			} {
				before := connections()
				err := op.call()
				wantKind(t, err, domain.EUNAVAILABLE)
				if domain.ErrorMessage(err) != "The file store is temporarily unavailable." {
					t.Fatalf("%s: message %q", op.name, domain.ErrorMessage(err))
				}
				if ctx.Err() != nil {
					t.Fatalf("%s: ended by the test's deadline, not by the store giving up", op.name)
				}
				if n := connections() - before; tt.cfg.Endpoint == dropping && (n < 1 || n > 3) {
					t.Errorf("%s: %d attempts, want 1 to 3", op.name, n)
				}
			}
		})
	}
}

// droppingServer accepts connections and closes them at once, counting them.
func droppingServer(t *testing.T) (url string, connections func() int64) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() }) // the test is over
	var n atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			_ = c.Close() // dropped: that is the point
		}
	}()
	return "http://" + ln.Addr().String(), n.Load
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// countingReader yields n zero bytes and samples the heap at every read.
type countingReader struct {
	n       int64
	maxHeap uint64
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.n == 0 {
		return 0, io.EOF
	}
	k := min(int64(len(p)), c.n)
	clear(p[:k])
	c.n -= k
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	c.maxHeap = max(c.maxHeap, m.HeapAlloc)
	return int(k), nil
}

// An upload holds one part in memory, however large the object, and does
// not allocate per part.
func TestS3PutMemory(t *testing.T) {
	s, _ := newS3(t)
	const size = 40 << 20
	// Twice, so pooled part buffers from earlier tests are gone too.
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	baseHeap, baseTotal := m.HeapAlloc, m.TotalAlloc
	r := &countingReader{n: size}
	if err := s.Put(context.Background(), "big", r); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&m)
	grew := float64(int64(r.maxHeap)-int64(baseHeap)) / (1 << 20)
	total := float64(m.TotalAlloc-baseTotal) / (1 << 20)
	t.Logf("uploading %d MiB: heap grew by at most %.1f MiB; %.1f MiB allocated in all", size>>20, grew, total)
	if grew > 2*blob.PartSize>>20 || total > 2*blob.PartSize>>20 {
		t.Fatalf("heap grew by %.1f MiB, %.1f MiB allocated", grew, total)
	}
	if n, err := objectSize(s, "big"); err != nil || n != size {
		t.Fatalf("Size = %d, %v", n, err)
	}
}
