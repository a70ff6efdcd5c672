package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/testutil/pgtest"
)

// orthanc is an Orthanc server (Debian's package) started for a benchmark,
// the reference issue 10 measures downloads against: it stores files
// unencrypted and serves them from disk.
type orthanc struct {
	url     string
	version string
}

// startOrthanc starts Orthanc on a free loopback port with a fresh storage
// folder, or returns nil when it is not installed (apt-get install orthanc).
func startOrthanc(b *testing.B) *orthanc {
	bin, err := exec.LookPath("Orthanc")
	if err != nil {
		b.Log("Orthanc is not installed (apt-get install orthanc): no comparison")
		return nil
	}
	dir := b.TempDir()
	port := pgtest.FreePort(b)
	config := map[string]any{
		"Name": "bench", "StorageDirectory": dir, "IndexDirectory": dir, "HttpPort": port,
		"DicomServerEnabled": false, "RemoteAccessAllowed": false, "AuthenticationEnabled": false,
		"HttpCompressionEnabled": false, "StorageCompression": false, "KeepAlive": true, "Plugins": []string{},
	}
	raw, _ := json.Marshal(config)
	path := filepath.Join(dir, "orthanc.json")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(bin, path)
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	o := &orthanc{url: fmt.Sprintf("http://127.0.0.1:%d", port)}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(o.url + "/system")
		if err == nil {
			var sys struct{ Version string }
			_ = json.NewDecoder(resp.Body).Decode(&sys)
			resp.Body.Close()
			if resp.StatusCode == 200 {
				o.version = sys.Version
				return o
			}
		}
		if time.Now().After(deadline) {
			b.Fatalf("Orthanc did not start: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// upload stores a DICOM file and returns the URL that downloads it.
func (o *orthanc) upload(b *testing.B, file []byte) string {
	resp, err := http.Post(o.url+"/instances", "application/dicom", bytes.NewReader(file))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ ID string }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 || out.ID == "" {
		b.Fatalf("Orthanc upload: %d %v", resp.StatusCode, err)
	}
	return o.url + "/instances/" + out.ID + "/file"
}

// benchDICOM is a DICOM Part 10 file of about size bytes: a 16-bit greyscale
// image whose pixel data fills it (explicit VR little endian).
func benchDICOM(size int) []byte {
	var ds bytes.Buffer
	elem := func(buf *bytes.Buffer, group, element uint16, vr string, value []byte) {
		_ = binary.Write(buf, binary.LittleEndian, [2]uint16{group, element})
		buf.WriteString(vr)
		switch vr {
		case "OB", "OW", "UN", "SQ", "UT":
			buf.Write([]byte{0, 0})
			_ = binary.Write(buf, binary.LittleEndian, uint32(len(value)))
		default:
			_ = binary.Write(buf, binary.LittleEndian, uint16(len(value)))
		}
		buf.Write(value)
	}
	str := func(s string) []byte {
		if len(s)%2 == 1 {
			s += "\x00"
		}
		return []byte(s)
	}
	us := func(v uint16) []byte { return binary.LittleEndian.AppendUint16(nil, v) }
	const sopClass, syntax = "1.2.840.10008.5.1.4.1.1.7", "1.2.840.10008.1.2.1"
	uid := fmt.Sprintf("1.2.826.0.1.3680043.10.1234.%d", time.Now().UnixNano())
	var meta bytes.Buffer
	elem(&meta, 0x0002, 0x0001, "OB", []byte{0, 1})
	elem(&meta, 0x0002, 0x0002, "UI", str(sopClass))
	elem(&meta, 0x0002, 0x0003, "UI", str(uid+".3"))
	elem(&meta, 0x0002, 0x0010, "UI", str(syntax))
	elem(&ds, 0x0008, 0x0016, "UI", str(sopClass))
	elem(&ds, 0x0008, 0x0018, "UI", str(uid+".3"))
	elem(&ds, 0x0008, 0x0060, "CS", str("OT"))
	elem(&ds, 0x0010, 0x0010, "PN", str("Bench^Patient"))
	elem(&ds, 0x0010, 0x0020, "LO", str("BENCH1"))
	elem(&ds, 0x0020, 0x000D, "UI", str(uid+".1"))
	elem(&ds, 0x0020, 0x000E, "UI", str(uid+".2"))
	elem(&ds, 0x0028, 0x0002, "US", us(1))
	elem(&ds, 0x0028, 0x0004, "CS", str("MONOCHROME2"))
	columns := 1024
	rows := (size - 1024) / (2 * columns)
	elem(&ds, 0x0028, 0x0010, "US", us(uint16(rows)))
	elem(&ds, 0x0028, 0x0011, "US", us(uint16(columns)))
	elem(&ds, 0x0028, 0x0100, "US", us(16))
	elem(&ds, 0x0028, 0x0101, "US", us(16))
	elem(&ds, 0x0028, 0x0102, "US", us(15))
	elem(&ds, 0x0028, 0x0103, "US", us(0))
	pixels := make([]byte, rows*columns*2)
	for i := range pixels {
		pixels[i] = byte(i * 7)
	}
	elem(&ds, 0x7FE0, 0x0010, "OW", pixels)

	var out bytes.Buffer
	out.Write(make([]byte, 128))
	out.WriteString("DICM")
	elem(&out, 0x0002, 0x0000, "UL", binary.LittleEndian.AppendUint32(nil, uint32(meta.Len())))
	out.Write(meta.Bytes())
	out.Write(ds.Bytes())
	return out.Bytes()
}

// orthancNote says how this run compares with Orthanc, or that it did not.
func orthancNote(o *orthanc, down1, down8, orth1, orth8 float64) string {
	if o == nil {
		return "Orthanc was not installed for this run (`apt-get install orthanc`), so it was not measured."
	}
	return strings.TrimSpace(fmt.Sprintf(`
Orthanc %s (Debian's package, its files unencrypted on the same disk) was
measured in the same run, its rounds taken in turn with MediShare's: %.0f MB/s
with 1 client and %.0f MB/s with 8. MediShare reached %.2f and %.2f of that
(target: 0.8).`, o.version, orth1, orth8, down1/orth1, down8/orth8))
}
