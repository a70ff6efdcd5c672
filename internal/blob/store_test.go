package blob_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/blob"
	"github.com/medishare/medishare/internal/domain"
)

const MiB = 1 << 20

// testStore is the behaviour every Store shares; each implementation's test
// runs it against a fresh, empty store.
func testStore(t *testing.T, s blob.Store) {
	ctx := context.Background()
	t.Run("ping", func(t *testing.T) {
		if err := s.Ping(ctx); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("round trip", func(t *testing.T) { testRoundTrip(t, s) })
	t.Run("missing", func(t *testing.T) { testMissing(t, s) })
	t.Run("replace", func(t *testing.T) { testReplace(t, s) })
	t.Run("range", func(t *testing.T) { testRange(t, s) })
	t.Run("delete", func(t *testing.T) { testDelete(t, s) })
	t.Run("invalid keys", func(t *testing.T) { testInvalidKeys(t, s) })
	t.Run("failed put leaves nothing", func(t *testing.T) { testFailedPut(t, s) })
	t.Run("walk", func(t *testing.T) { testWalk(t, s) })
	t.Run("readers never see half an object", func(t *testing.T) { testAtomic(t, s) })
}

func content(n int, seed uint64) []byte {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], seed)
	binary.LittleEndian.PutUint64(key[8:], uint64(n))
	b := make([]byte, n)
	_, _ = rand.NewChaCha8(key).Read(b)
	return b
}

func put(t *testing.T, s blob.Store, key string, data []byte) {
	t.Helper()
	// A plain io.Reader: the store may not rely on knowing the size.
	if err := s.Put(context.Background(), key, struct{ io.Reader }{bytes.NewReader(data)}); err != nil {
		t.Fatalf("Put(%s): %v", key, err)
	}
}

func get(t *testing.T, s blob.Store, key string) []byte {
	t.Helper()
	rc, err := s.Get(context.Background(), key)
	if err != nil {
		t.Fatalf("Get(%s): %v", key, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("Get(%s): read: %v", key, err)
	}
	return b
}

func wantKind(t *testing.T, err error, kind string) {
	t.Helper()
	if domain.ErrorKind(err) != kind {
		t.Fatalf("got %v, want %s", err, kind)
	}
}

func testRoundTrip(t *testing.T, s blob.Store) {
	tests := []struct {
		name string
		key  string
		size int
	}{
		{"empty", "rt/empty", 0},
		{"one byte", "rt/one", 1},
		{"a few KiB", "rt/kib", 4000},
		{"one part less a byte", "rt/part-minus", blob.PartSize - 1},
		{"one part", "rt/part", blob.PartSize},
		{"one part and a byte", "rt/part-plus", blob.PartSize + 1},
		{"three parts", "rt/three-parts", 2*blob.PartSize + 12345},
		{"top-level key", "toplevel", 10},
		{"deep key", "a/b/c/d-e-f/0123456789", 10},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := content(tt.size, uint64(i))
			put(t, s, tt.key, data)
			if got := get(t, s, tt.key); !bytes.Equal(got, data) {
				t.Fatalf("Get returned %d bytes that differ from the %d put", len(got), len(data))
			}
			size, err := objectSize(s, tt.key)
			if err != nil || size != int64(tt.size) {
				t.Fatalf("Size = %d, %v; want %d", size, err, tt.size)
			}
		})
	}
}

func testMissing(t *testing.T, s blob.Store) {
	ctx := context.Background()
	put(t, s, "missing/present/child", []byte("x"))
	for _, key := range []string{"missing/none", "missing/present", "missing/present/child/below"} {
		t.Run(key, func(t *testing.T) {
			_, err := s.Get(ctx, key)
			wantKind(t, err, domain.ENOTFOUND)
			_, err = s.GetRange(ctx, key, 0, 10)
			wantKind(t, err, domain.ENOTFOUND)
			_, err = s.GetRange(ctx, key, 0, 0)
			wantKind(t, err, domain.ENOTFOUND)
			_, err = objectSize(s, key)
			wantKind(t, err, domain.ENOTFOUND)
			if err := s.Delete(ctx, key); err != nil {
				t.Fatalf("Delete of a missing key: %v", err)
			}
		})
	}
	if got := get(t, s, "missing/present/child"); string(got) != "x" {
		t.Fatal("deleting a missing key removed a neighbour")
	}
}

func testReplace(t *testing.T, s blob.Store) {
	put(t, s, "replace/k", content(blob.PartSize+10, 1))
	put(t, s, "replace/k", []byte("short"))
	if got := get(t, s, "replace/k"); string(got) != "short" {
		t.Fatalf("after replace: %d bytes", len(got))
	}
}

func testRange(t *testing.T, s blob.Store) {
	const size = 1000
	data := content(size, 2)
	put(t, s, "range/k", data)
	put(t, s, "range/empty", nil)
	tests := []struct {
		name        string
		key         string
		offset, len int64
		want        []byte
		kind        string
	}{
		{"start", "range/k", 0, 10, data[:10], ""},
		{"middle", "range/k", 500, 100, data[500:600], ""},
		{"last byte", "range/k", size - 1, 1, data[size-1:], ""},
		{"whole", "range/k", 0, size, data, ""},
		{"past the end is cut", "range/k", size - 5, 100, data[size-5:], ""},
		{"at the end", "range/k", size, 10, nil, ""},
		{"beyond the end", "range/k", size + 100, 10, nil, ""},
		{"zero length", "range/k", 10, 0, nil, ""},
		{"empty object", "range/empty", 0, 10, nil, ""},
		{"negative offset", "range/k", -1, 10, nil, domain.EINVALID},
		{"negative length", "range/k", 0, -1, nil, domain.EINVALID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc, err := s.GetRange(context.Background(), tt.key, tt.offset, tt.len)
			if tt.kind != "" {
				wantKind(t, err, tt.kind)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			got, err := io.ReadAll(rc)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tt.want) {
				t.Fatalf("got %d bytes, want %d", len(got), len(tt.want))
			}
		})
	}
}

func testDelete(t *testing.T, s blob.Store) {
	ctx := context.Background()
	put(t, s, "del/a", []byte("a"))
	put(t, s, "del/b", []byte("b"))
	if err := s.Delete(ctx, "del/a"); err != nil {
		t.Fatal(err)
	}
	_, err := s.Get(ctx, "del/a")
	wantKind(t, err, domain.ENOTFOUND)
	if err := s.Delete(ctx, "del/a"); err != nil {
		t.Fatalf("second Delete: %v", err)
	}
	if err := s.Delete(ctx, "del"); err != nil {
		t.Fatalf("Delete of a key that is only a prefix: %v", err)
	}
	if string(get(t, s, "del/b")) != "b" {
		t.Fatal("Delete removed another object")
	}
}

func testInvalidKeys(t *testing.T, s blob.Store) {
	ctx := context.Background()
	keys := []string{"", "/abs", "a/../b", "..", "a/./b", "Upper", "a b", "a.b", "a//b", "trailing/", "a\\b", "é", "a\x00b", string(make([]byte, 1025))}
	for _, key := range keys {
		t.Run(fmt.Sprintf("%q", key), func(t *testing.T) {
			wantKind(t, s.Put(ctx, key, bytes.NewReader([]byte("x"))), domain.EINVALID)
			_, err := s.Get(ctx, key)
			wantKind(t, err, domain.EINVALID)
			_, err = s.GetRange(ctx, key, 0, 1)
			wantKind(t, err, domain.EINVALID)
			_, err = objectSize(s, key)
			wantKind(t, err, domain.EINVALID)
			wantKind(t, s.Delete(ctx, key), domain.EINVALID)
		})
	}
	for _, prefix := range []string{"/abs", "a..", "A", "a//"} {
		err := s.Walk(ctx, prefix, time.Now(), func(string) error { return nil })
		wantKind(t, err, domain.EINVALID)
	}
}

// failingReader yields n bytes, then fails as a client that hangs up would.
type failingReader struct {
	data []byte
	err  error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, f.err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

func testFailedPut(t *testing.T, s blob.Store) {
	boom := domain.Errorf(domain.ETOOLARGE, "too large")
	tests := []struct {
		name   string
		after  int
		cancel bool
	}{
		{"fails at once", 0, false},
		{"fails in the first part", 1000, false},
		{"fails in the second part", blob.PartSize + 1000, false},
		{"fails after whole parts", 2 * blob.PartSize, false},
		{"context canceled", 1000, true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var want error = boom
			r := io.Reader(&failingReader{content(tt.after, 9), boom})
			if tt.cancel {
				cancel()
				r, want = bytes.NewReader(content(tt.after, 9)), context.Canceled
			}
			newKey := fmt.Sprintf("failed/new-%d", i)
			if err := s.Put(ctx, newKey, r); !errors.Is(err, want) {
				t.Fatalf("Put = %v, want %v", err, want)
			}
			_, err := objectSize(s, newKey)
			wantKind(t, err, domain.ENOTFOUND)

			// A failed replacement keeps the old object whole.
			oldKey := fmt.Sprintf("failed/old-%d", i)
			old := content(3000, 3)
			put(t, s, oldKey, old)
			r = &failingReader{content(tt.after, 9), boom}
			if err := s.Put(context.Background(), oldKey, r); !errors.Is(err, boom) {
				t.Fatalf("Put over an object = %v, want %v", err, boom)
			}
			if got := get(t, s, oldKey); !bytes.Equal(got, old) {
				t.Fatal("a failed Put changed the object it would have replaced")
			}
		})
	}
}

func walk(t *testing.T, s blob.Store, prefix string, olderThan time.Time) []string {
	t.Helper()
	var keys []string
	err := s.Walk(context.Background(), prefix, olderThan, func(key string) error {
		keys = append(keys, key)
		return nil
	})
	if err != nil {
		t.Fatalf("Walk(%q): %v", prefix, err)
	}
	slices.Sort(keys)
	return keys
}

func testWalk(t *testing.T, s blob.Store) {
	for _, k := range []string{"walk/a", "walk/b/c", "walk/b/d", "walkx/e", "other/f"} {
		put(t, s, k, []byte(k))
	}
	later := time.Now().Add(time.Hour)
	tests := []struct {
		name      string
		prefix    string
		olderThan time.Time
		want      []string
	}{
		{"folder prefix", "walk/", later, []string{"walk/a", "walk/b/c", "walk/b/d"}},
		{"plain prefix", "walk", later, []string{"walk/a", "walk/b/c", "walk/b/d", "walkx/e"}},
		{"prefix inside a name", "walk/b/", later, []string{"walk/b/c", "walk/b/d"}},
		{"partial last segment", "walk/b/c", later, []string{"walk/b/c"}},
		{"nothing there", "nothing/", later, nil},
		{"all too new", "walk/", time.Now().Add(-time.Hour), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := walk(t, s, tt.prefix, tt.olderThan); !slices.Equal(got, tt.want) {
				t.Fatalf("Walk = %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("everything", func(t *testing.T) {
		got := walk(t, s, "", later)
		for _, k := range []string{"walk/a", "walk/b/c", "walkx/e", "other/f"} {
			if !slices.Contains(got, k) {
				t.Fatalf("Walk(\"\") = %v, missing %s", got, k)
			}
		}
	})
	t.Run("fn's error stops the walk", func(t *testing.T) {
		stop := errors.New("stop")
		calls := 0
		err := s.Walk(context.Background(), "walk/", later, func(string) error { calls++; return stop })
		if !errors.Is(err, stop) || calls != 1 {
			t.Fatalf("Walk = %v after %d calls, want stop after 1", err, calls)
		}
	})
	t.Run("deleting while walking", func(t *testing.T) {
		err := s.Walk(context.Background(), "walk/", later, func(key string) error {
			return s.Delete(context.Background(), key)
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := walk(t, s, "walk/", later); len(got) != 0 {
			t.Fatalf("left %v", got)
		}
	})
}

// testAtomic replaces an object over and over while readers check that
// every read returns one whole version.
func testAtomic(t *testing.T, s blob.Store) {
	const size = 256 << 10
	versions := [][]byte{bytes.Repeat([]byte{'a'}, size), bytes.Repeat([]byte{'b'}, size+1)}
	put(t, s, "atomic/k", versions[0])
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	wg.Go(func() {
		for i := 0; ctx.Err() == nil; i++ {
			if err := s.Put(context.Background(), "atomic/k", bytes.NewReader(versions[i%2])); err != nil {
				errs <- err
				return
			}
		}
	})
	for range 2 {
		wg.Go(func() {
			for ctx.Err() == nil {
				rc, err := s.Get(context.Background(), "atomic/k")
				if err != nil {
					errs <- err
					return
				}
				got, err := io.ReadAll(rc)
				rc.Close()
				if err != nil {
					errs <- err
					return
				}
				if !bytes.Equal(got, versions[0]) && !bytes.Equal(got, versions[1]) {
					errs <- fmt.Errorf("read %d bytes that are neither version", len(got))
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// objectSize is the length of a stored object, read through Get.
func objectSize(s blob.Store, key string) (int64, error) {
	rc, err := s.Get(context.Background(), key)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	return io.Copy(io.Discard, rc)
}
