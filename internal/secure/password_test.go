package secure

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/domain"
)

func TestHashFormat(t *testing.T) {
	p := NewPasswords(2)
	a, err := p.Hash(context.Background(), "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.Hash(context.Background(), "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(a, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Errorf("hash %q lacks the PHC prefix with the S1 parameters", a)
	}
	if a == b {
		t.Error("two hashes of one password are equal: salt not random")
	}
	_, salt, key, err := decodeHash(a)
	if err != nil || len(salt) != saltLen || len(key) != keyLen {
		t.Errorf("decode: salt %d bytes, key %d bytes, err %v", len(salt), len(key), err)
	}
}

func TestVerify(t *testing.T) {
	p := NewPasswords(4)
	ctx := context.Background()
	hashOf := func(pw string) string {
		h, err := p.Hash(ctx, pw)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	good := hashOf("correct horse battery")
	unicode := hashOf("pässwörd-🦀-Ünïcode")

	// Change one character of the key to another base64 letter: still
	// well-formed, no longer matching.
	i := strings.LastIndex(good, "$") + 5
	other := "A"
	if good[i] == 'A' {
		other = "B"
	}
	flipped := good[:i] + other + good[i+1:]
	if flipped == good {
		t.Fatal("flip did nothing")
	}

	tests := []struct {
		name     string
		encoded  string
		password string
		want     bool
	}{
		{"right password", good, "correct horse battery", true},
		{"wrong password", good, "correct horse battery!", false},
		{"case differs", good, "Correct horse battery", false},
		{"empty password", good, "", false},
		{"unicode password", unicode, "pässwörd-🦀-Ünïcode", true},
		{"tampered key", flipped, "correct horse battery", false},
		{"tampered memory cost", strings.Replace(good, "m=19456", "m=19457", 1), "correct horse battery", false},
		{"tampered time cost", strings.Replace(good, "t=2", "t=3", 1), "correct horse battery", false},
		{"password over the byte limit", good, strings.Repeat("x", maxPasswordBytes+1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, err := p.Verify(ctx, tt.encoded, tt.password)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if ok != tt.want {
				t.Errorf("Verify = %v, want %v", ok, tt.want)
			}
		})
	}
}

func TestVerifyMalformed(t *testing.T) {
	const salt = "$c2FsdHNhbHRzYWx0c2FsdA"                 // 16 bytes
	const key = "$a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2U" // 32 bytes
	tests := []struct {
		name    string
		encoded string
	}{
		{"empty", ""},
		{"not phc", "hunter2"},
		{"argon2i", "$argon2i$v=19$m=19456,t=2,p=1" + salt + key},
		{"bcrypt", "$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy"},
		{"old version", "$argon2id$v=16$m=19456,t=2,p=1" + salt + key},
		{"missing version", "$argon2id$m=19456,t=2,p=1" + salt + key},
		{"missing p", "$argon2id$v=19$m=19456,t=2" + salt + key},
		{"costs out of order", "$argon2id$v=19$t=2,m=19456,p=1" + salt + key},
		{"memory over 256 MiB", "$argon2id$v=19$m=262145,t=2,p=1" + salt + key},
		{"memory overflows uint32", "$argon2id$v=19$m=4294967296,t=2,p=1" + salt + key},
		{"memory below 8 per lane", "$argon2id$v=19$m=15,t=2,p=2" + salt + key},
		{"time zero", "$argon2id$v=19$m=19456,t=0,p=1" + salt + key},
		{"time over 10", "$argon2id$v=19$m=19456,t=11,p=1" + salt + key},
		{"threads zero", "$argon2id$v=19$m=19456,t=2,p=0" + salt + key},
		{"threads over 16", "$argon2id$v=19$m=19456,t=2,p=17" + salt + key},
		{"signed cost", "$argon2id$v=19$m=+19456,t=2,p=1" + salt + key},
		{"negative cost", "$argon2id$v=19$m=-1,t=2,p=1" + salt + key},
		{"trailing text in costs", "$argon2id$v=19$m=19456,t=2,p=1x" + salt + key},
		{"salt not base64", "$argon2id$v=19$m=19456,t=2,p=1$!!!!!!!!!!!!" + key},
		{"salt padded", "$argon2id$v=19$m=19456,t=2,p=1" + salt + "==" + key},
		{"salt too short", "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA" + key},
		{"empty key", "$argon2id$v=19$m=19456,t=2,p=1" + salt + "$"},
		{"key too short", "$argon2id$v=19$m=19456,t=2,p=1" + salt + "$a2V5a2V5"},
		{"extra field", "$argon2id$v=19$m=19456,t=2,p=1" + salt + key + "$x"},
		{"leading space", " $argon2id$v=19$m=19456,t=2,p=1" + salt + key},
		{"truncated", dummyHash[:len(dummyHash)-20]},
	}
	p := NewPasswords(1)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, err := p.Verify(context.Background(), tt.encoded, "password")
			if ok || domain.ErrorKind(err) != domain.EINTERNAL {
				t.Errorf("Verify(%q) = %v, %v; want false and an EINTERNAL error", tt.encoded, ok, err)
			}
		})
	}
}

// Hashes made with other costs keep verifying after the defaults change.
func TestVerifyReadsParamsFromHash(t *testing.T) {
	tests := []struct {
		name   string
		params argonParams
	}{
		{"cheaper", argonParams{memory: 8 * 1024, time: 1, threads: 2}},
		{"dearer", argonParams{memory: 32 * 1024, time: 3, threads: 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := NewPasswords(1)
			old.params = tt.params
			h, err := old.Hash(context.Background(), "an older password")
			if err != nil {
				t.Fatal(err)
			}
			if got, _, _, _ := decodeHash(h); got != tt.params {
				t.Fatalf("encoded params %+v, want %+v", got, tt.params)
			}
			ok, err := NewPasswords(1).Verify(context.Background(), h, "an older password")
			if err != nil || !ok {
				t.Errorf("Verify with default hasher = %v, %v; want true", ok, err)
			}
		})
	}
}

func TestDummyHash(t *testing.T) {
	params, _, key, err := decodeHash(dummyHash)
	if err != nil {
		t.Fatal(err)
	}
	// An unknown email must cost what a known one costs (S2).
	if params != defaultParams || len(key) != keyLen {
		t.Errorf("dummy hash params %+v key %d bytes; want %+v and %d", params, len(key), defaultParams, keyLen)
	}
	p := NewPasswords(1)
	var hashed atomic.Int32
	p.testHookHashing = func() { hashed.Add(1) }
	p.VerifyDummy(context.Background(), "whatever")
	if hashed.Load() != 1 {
		t.Errorf("VerifyDummy hashed %d times, want 1", hashed.Load())
	}
}

func TestHashRefusesHugePassword(t *testing.T) {
	_, err := NewPasswords(1).Hash(context.Background(), strings.Repeat("x", 1<<20))
	if domain.ErrorKind(err) != domain.EVALIDATION {
		t.Errorf("Hash(1 MB) err = %v, want EVALIDATION", err)
	}
}

// With 2 slots, 10 hashes never run more than 2 at a time. Each hash is held
// in the hook until the test releases it, so the count does not depend on timing.
func TestConcurrencyIsBounded(t *testing.T) {
	const slots, jobs = 2, 10
	p := NewPasswords(slots)
	var cur, peak atomic.Int32
	entered := make(chan struct{}, jobs)
	release := make(chan struct{})
	p.testHookHashing = func() {
		n := cur.Add(1)
		for {
			old := peak.Load()
			if n <= old || peak.CompareAndSwap(old, n) {
				break
			}
		}
		entered <- struct{}{}
		<-release
		cur.Add(-1)
	}

	var wg sync.WaitGroup
	errs := make(chan error, jobs)
	for range jobs {
		wg.Go(func() {
			_, err := p.Hash(context.Background(), "password-under-load")
			errs <- err
		})
	}
	for range slots {
		<-entered
	}
	// Both slots are held: one more caller cannot get in and gives up with its context.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := p.Hash(ctx, "one too many"); domain.ErrorKind(err) != domain.EUNAVAILABLE {
		t.Errorf("hash beyond the bound: err = %v, want EUNAVAILABLE", err)
	}
	for range jobs - slots {
		release <- struct{}{}
		<-entered
	}
	for range slots {
		release <- struct{}{}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if peak.Load() != slots {
		t.Errorf("peak concurrent hashes = %d, want %d", peak.Load(), slots)
	}
}

func TestWaitHonoursContext(t *testing.T) {
	p := NewPasswords(1)
	release := make(chan struct{})
	held := make(chan struct{})
	p.testHookHashing = func() {
		close(held)
		<-release
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = p.Hash(context.Background(), "holds the only slot")
	}()
	<-held
	p.testHookHashing = nil // only the goroutine above blocks; it has read the hook already

	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel2()

	tests := []struct {
		name  string
		ctx   context.Context
		call  func(context.Context) error
		cause error
	}{
		{"hash, canceled", canceled, func(ctx context.Context) error { _, err := p.Hash(ctx, "password"); return err }, context.Canceled},
		{"verify, canceled", canceled, func(ctx context.Context) error { _, err := p.Verify(ctx, dummyHash, "password"); return err }, context.Canceled},
		{"hash, deadline while waiting", expired, func(ctx context.Context) error { _, err := p.Hash(ctx, "password"); return err }, context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call(tt.ctx)
			if domain.ErrorKind(err) != domain.EUNAVAILABLE || domain.ErrorMessage(err) != busyMessage {
				t.Errorf("err = %v, want EUNAVAILABLE %q", err, busyMessage)
			}
			if !errors.Is(err, tt.cause) {
				t.Errorf("err = %v, want cause %v kept", err, tt.cause)
			}
		})
	}
	close(release)
	<-done
}

func FuzzVerifyParse(f *testing.F) {
	for _, s := range []string{
		dummyHash,
		"$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5aw",
		"$argon2id$v=19$m=19456,t=2,p=1$$",
		"$argon2id$v=19$m=0,t=0,p=0$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5aw",
		"$argon2id$v=19$m=99999999999,t=2,p=1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5aw",
		"$argon2id$$$$$",
		"",
	} {
		f.Add(s)
	}
	p := NewPasswords(1)
	f.Fuzz(func(t *testing.T, encoded string) {
		params, salt, key, err := decodeHash(encoded)
		if err != nil {
			return
		}
		if params.memory > maxMemory || params.time < 1 || params.time > maxTime ||
			params.threads < 1 || params.threads > maxThreads || params.memory < 8*uint32(params.threads) {
			t.Fatalf("accepted absurd params %+v from %q", params, encoded)
		}
		if len(salt) < minSaltLen || len(key) < minKeyLen {
			t.Fatalf("accepted salt %d / key %d bytes from %q", len(salt), len(key), encoded)
		}
		// Run argon2 itself only when it is cheap, to keep the fuzzer fast.
		if params.memory*params.time <= 4096 {
			if _, err := p.Verify(context.Background(), encoded, "password"); err != nil {
				t.Fatalf("Verify of a parsed hash: %v", err)
			}
		}
	})
}
