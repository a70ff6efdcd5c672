package medimg

import (
	"bytes"
	"strings"
	"testing"

	"github.com/medishare/medishare/internal/domain"
)

func TestDetect(t *testing.T) {
	jpg := encodeJPEG(t, testImage(8, 8))
	pngData := encodePNG(t, testImage(8, 8))
	dcm := syntheticDICOM(4, 4, "Doe^John")
	elf := append([]byte("\x7fELF\x02\x01\x01\x00"), make([]byte, 200)...)
	// A DICOM whose preamble starts like a JPEG: the extension decides.
	polyglot := append([]byte{0xFF, 0xD8, 0xFF, 0xE0}, dcm[4:]...)

	tests := []struct {
		name, file string
		head       []byte
		want       string // "" for the invalid-type error
	}{
		{name: "jpeg .jpg", file: "photo.jpg", head: jpg, want: JPEG},
		{name: "jpeg .JPEG upper case", file: "PHOTO.JPEG", head: jpg, want: JPEG},
		{name: "png", file: "scan.png", head: pngData, want: PNG},
		{name: "pdf", file: "report.pdf", head: []byte(minimalPDF), want: PDF},
		{name: "dicom .dcm", file: "ct.dcm", head: dcm, want: DICOM},
		{name: "dicom .dicom", file: "ct.dicom", head: dcm, want: DICOM},
		{name: "dicom without extension", file: "IM00001", head: dcm, want: DICOM},
		{name: "dicom with a path", file: `C:\cd\DICOM\IM00001`, head: dcm, want: DICOM},
		{name: "polyglot named .dcm", file: "x.dcm", head: polyglot, want: DICOM},
		{name: "polyglot named .jpg", file: "x.jpg", head: polyglot, want: JPEG},
		{name: "text named .dcm", file: "notes.dcm", head: []byte(strings.Repeat("hello world\n", 20))},
		{name: "ELF named .png", file: "run.png", head: elf},
		{name: "PNG named .pdf", file: "scan.pdf", head: pngData},
		{name: "PNG named .dcm", file: "scan.dcm", head: pngData},
		{name: "JPEG named .png", file: "photo.png", head: jpg},
		{name: "DICOM named .png", file: "ct.png", head: dcm},
		{name: "empty file", file: "empty.png", head: nil},
		{name: "short DICOM head", file: "ct.dcm", head: dcm[:131]},
		{name: "jpeg with no extension", file: "photo", head: jpg},
		{name: "pdf named .exe", file: "report.exe", head: []byte(minimalPDF)},
		{name: "bidi override hides .exe", file: "scan\u202egnp.exe", head: pngData},
		{name: "no_meta fixture", file: "no_meta.dcm", head: readFixture(t, "no_meta.dcm")[:132]},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			head := tc.head[:min(len(tc.head), 132)]
			got, err := Detect(head, tc.file)
			if tc.want == "" {
				wantKind(t, err, domain.EUNSUPPORTED, "Invalid file type. Allowed: .jpg, .png, .pdf, .dicom")
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Detect = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestCleanName(t *testing.T) {
	long := strings.Repeat("é", 150) + ".png" // 300 bytes of two-byte runes
	tests := []struct {
		name, in, want string
	}{
		{name: "plain", in: "scan.png", want: "scan.png"},
		{name: "traversal with control bytes", in: "../../etc/passwd\x00\x1b[31m.png", want: "passwd[31m.png"},
		{name: "windows path", in: `C:\Users\pat\Desktop\x-ray.jpg`, want: "x-ray.jpg"},
		{name: "mixed separators", in: `a/b\..\c.pdf`, want: "c.pdf"},
		{name: "trailing slash", in: "../", want: "file"},
		{name: "dot dot", in: "..", want: "file"},
		{name: "empty", in: "", want: "file"},
		{name: "only controls", in: "\x00\x01\x7f", want: "file"},
		{name: "bidi override", in: "invoice\u202Efdp.exe", want: "invoicefdp.exe"},
		{name: "zero width and BOM", in: "\ufeffsc\u200ban.png", want: "scan.png"},
		{name: "spaces trimmed", in: "  scan.png \t", want: "scan.png"},
		{name: "newline inside", in: "scan\r\nfile.png", want: "scanfile.png"},
		{name: "invalid UTF-8 dropped", in: "sc\xffan.png", want: "scan.png"},
		{name: "unicode kept", in: "Röntgen 胸部.dcm", want: "Röntgen 胸部.dcm"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := CleanName(tc.in); got != tc.want {
				t.Errorf("CleanName(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}

	t.Run("long name keeps extension on a rune boundary", func(t *testing.T) {
		got := CleanName(long)
		if len(got) > 200 || !strings.HasSuffix(got, ".png") || !strings.HasPrefix(got, "éé") {
			t.Fatalf("CleanName(long) = %q (%d bytes)", got, len(got))
		}
		if !bytes.Equal([]byte(got), []byte(strings.ToValidUTF8(got, "?"))) {
			t.Fatal("cut inside a rune")
		}
	})
}
