package codec

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
)

var allModules = []string{"openjpeg", "ijg", "charls"}

// TestModulesEmbedded fails when the package was compiled without running
// scripts/codecs.sh (make codecs).
func TestModulesEmbedded(t *testing.T) {
	for _, name := range allModules {
		if b, err := modules.ReadFile("wasm/" + name + ".wasm"); err != nil || len(b) == 0 {
			t.Errorf("%s.wasm is not embedded: run make codecs (%v)", name, err)
		}
	}
}

// TestModulesImportLittle: the modules ask the host for nothing but a few
// WASI calls of the C library, all answered by wazero without a file
// system, network, environment or clock of the host's.
func TestModulesImportLittle(t *testing.T) {
	ctx := context.Background()
	s, err := sandboxFor(ctx, minClass)
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{
		"fd_write": true, "fd_close": true, "fd_seek": true, "fd_fdstat_get": true, "proc_exit": true,
		"environ_get": true, "environ_sizes_get": true, "args_get": true, "args_sizes_get": true,
	}
	for _, name := range allModules {
		m, err := s.module(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range m.ImportedFunctions() {
			mod, fn, _ := f.Import()
			got = append(got, mod+"."+fn)
			if mod != "wasi_snapshot_preview1" || !allowed[fn] {
				t.Errorf("%s imports %s.%s", name, mod, fn)
			}
		}
		sort.Strings(got)
		t.Logf("%s imports %s", name, strings.Join(got, ", "))
		for _, mem := range m.ExportedMemories() {
			// The modules declare no maximum; the runtime's limit is theirs.
			if max, _ := mem.Max(); int64(max)*pageSize > minClass {
				t.Errorf("%s: memory maximum %d pages, want at most %d", name, max, minClass/pageSize)
			}
		}
	}
}

// TestMemoryLimitApplied: an instance cannot grow its memory past the cap
// of its class; malloc fails instead.
func TestMemoryLimitApplied(t *testing.T) {
	ctx := context.Background()
	for _, limit := range []int64{minClass, 4 * minClass} {
		s, err := sandboxFor(ctx, limit)
		if err != nil {
			t.Fatal(err)
		}
		m, err := s.module(ctx, "openjpeg")
		if err != nil {
			t.Fatal(err)
		}
		mod, err := s.rt.InstantiateModule(ctx, m, wazero.NewModuleConfig().WithName("").WithStartFunctions("_initialize"))
		if err != nil {
			t.Fatal(err)
		}
		malloc := mod.ExportedFunction("malloc")
		if r, err := malloc.Call(ctx, uint64(limit)); err != nil || r[0] != 0 {
			t.Errorf("malloc(%d) in a %d-byte sandbox = %v, %v; want 0", limit, limit, r, err)
		}
		if r, err := malloc.Call(ctx, uint64(limit/2)); err != nil || r[0] == 0 {
			t.Errorf("malloc(%d) in a %d-byte sandbox = %v, %v; want memory", limit/2, limit, r, err)
		}
		if size := int64(mod.Memory().Size()); size > limit {
			t.Errorf("memory grew to %d bytes, cap %d", size, limit)
		}
		_ = mod.Close(ctx)
	}
}

func TestMemoryCap(t *testing.T) {
	small := MemoryCap(JPEG2000, 20000, 128, 128, 1, 16)
	if small != minClass {
		t.Errorf("cap of a 128x128 frame = %d, want the smallest class %d", small, minClass)
	}
	// A 4096 x 4096 16-bit JPEG 2000 frame: 8*16M + 32M + 2*8M + 8M = 184 MiB, rounded up to 192.
	if big := MemoryCap(JPEG2000, 8<<20, 4096, 4096, 1, 16); big != 192<<20 {
		t.Errorf("cap of a 4096x4096 frame = %d MiB, want 192", big>>20)
	}
	for _, need := range []int64{minClass + 1, 20 << 20, 35 << 20, 100<<20 + 7, 1 << 30} {
		c := class(need)
		if c < need || c > need+need/4 || c%pageSize != 0 {
			t.Errorf("class(%d) = %d", need, c)
		}
	}
	if _, err := Decode(context.Background(), JPEG2000, []byte{0xFF, 0x4F}, 30000, 30000, 3, 16); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Decode of a frame declared 30000 x 30000 x 3 = %v, want ErrTooLarge", err)
	}
}

// TestDecodeRefusesGarbage: every module, whatever bytes it is given.
func TestDecodeRefusesGarbage(t *testing.T) {
	inputs := map[string][]byte{
		"empty-ish":   {0},
		"soi only":    {0xFF, 0xD8},
		"soc only":    {0xFF, 0x4F, 0xFF, 0x51},
		"text":        []byte(strings.Repeat("not an image ", 100)),
		"markers":     append([]byte{0xFF, 0xD8}, []byte(strings.Repeat("\xFF\xC3\x00\x0B\x10\xFF\xFF\xFF\xFF\x01\x01\x11\x00", 50))...),
		"jp2 magic":   {0, 0, 0, 12, 'j', 'P', ' ', ' ', 13, 10, 0x87, 10, 0, 0, 0, 0},
		"sos no sof":  {0xFF, 0xD8, 0xFF, 0xDA, 0, 8, 1, 1, 0, 0, 63, 0},
		"jls no scan": {0xFF, 0xD8, 0xFF, 0xF7, 0, 11, 8, 0, 4, 0, 4, 1, 1, 0x11, 0, 0xFF, 0xD9},
	}
	for _, ts := range []string{JPEG2000, JPEG2000Lossless, JPEGLSLossless, JPEGLossless, JPEGExtended12} {
		for name, in := range inputs {
			if _, err := Decode(context.Background(), ts, in, 4, 4, 1, 8); !errors.Is(err, ErrDecode) {
				t.Errorf("%s, %s: err = %v, want ErrDecode", ts, name, err)
			}
		}
	}
}

// TestDeadline: a decode that outlives Timeout is stopped.
func TestDeadline(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if _, err := Decode(ctx, JPEG2000, []byte{0xFF, 0x4F, 0xFF, 0x51}, 4, 4, 1, 8); err == nil {
		t.Error("Decode with an ended context succeeded")
	}
	if time.Since(start) > 5*time.Second {
		t.Error("Decode with an ended context took seconds")
	}
}

func BenchmarkCompile(b *testing.B) {
	ctx := context.Background()
	for _, name := range allModules {
		bin, err := modules.ReadFile("wasm/" + name + ".wasm")
		if err != nil {
			b.Skip("modules not built")
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				rt := wazero.NewRuntime(ctx)
				if _, err := rt.CompileModule(ctx, bin); err != nil {
					b.Fatal(err)
				}
				_ = rt.Close(ctx)
			}
		})
	}
}
