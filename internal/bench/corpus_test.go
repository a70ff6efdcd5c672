package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/medimg"
	"github.com/medishare/medishare/internal/service"
	"github.com/medishare/medishare/internal/testutil/orthanctest"
)

// BenchmarkCorpus measures coverage, not speed: every DICOM file of a corpus
// gathered from sources that did not make them for MediShare (Debian
// packages' test and example files: scripts/bench-corpus.sh gathers them
// into BENCH_CORPUS, one folder per source, and names each source's
// package, version and licence in its sources.tsv) goes to Orthanc with its
// GDCM plugin (POST /instances, then GET /instances/{id}/preview) and
// through MediShare's own upload path in process (medimg.Detect, Clean and
// the previewer at the server's preview size). A file is "stored" when the
// system keeps it and "previewed" when it renders an image of it. It
// writes its table into docs/performance.md (BENCH_REPORT). Run it with
// `make bench-corpus`.
func BenchmarkCorpus(b *testing.B) {
	dir := os.Getenv("BENCH_CORPUS")
	if dir == "" {
		b.Skip("BENCH_CORPUS names no corpus folder (make bench-corpus gathers one)")
	}
	sources, err := readSources(filepath.Join(dir, "sources.tsv"))
	if err != nil {
		b.Fatal(err)
	}
	files, err := corpusFiles(dir)
	if err != nil {
		b.Fatal(err)
	}
	if len(files) == 0 {
		b.Fatal("no DICOM file in the corpus")
	}

	orthanctest.Install(b, "orthanc-gdcm")
	srv := orthanctest.Start(b, envPort("BENCH_ORTHANC_PORT", 18142), map[string]any{
		"Plugins": []string{orthanctest.Plugin(b, "orthanc-gdcm", "/libOrthancGdcm.so")},
		"Gdcm":    map[string]any{"Enable": true},
	})
	orthanc := corpusOrthanc{srv: srv, client: &http.Client{Timeout: 2 * time.Minute}}
	previewer := medimg.NewPreviewer(256 << 20)

	var rows []corpusRow
	for b.Loop() {
		rows = rows[:0]
		for _, f := range files {
			data, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				b.Fatal(err)
			}
			row := corpusRow{file: f, source: strings.SplitN(f, "/", 2)[0]}
			ms := mediShareCoverage(previewer, filepath.Base(f), data)
			row.msStored, row.msPreviewed, row.msWhy = ms.stored, ms.previewed, ms.why
			row.syntax, row.modality = ms.syntax, ms.modality
			orthanc.coverage(b, data, &row)
			rows = append(rows, row)
		}
	}
	version := "?"
	if status, body, _, err := orthanc.do("GET", "/system", nil); err == nil && status == http.StatusOK {
		var sys struct{ Version string }
		if json.Unmarshal(body, &sys) == nil && sys.Version != "" {
			version = sys.Version
		}
	}
	report := corpusReport(sources, rows, version)
	b.Log("\n" + report)
	if path := os.Getenv("BENCH_REPORT"); path != "" {
		if err := updateReport(path, "corpus", report); err != nil {
			b.Fatal(err)
		}
	}
}

type corpusRow struct {
	file, source, syntax, modality string
	orStored, orPreviewed          bool
	msStored, msPreviewed          bool
	msWhy, orWhy                   string // why not stored or not previewed
}

type corpusSource struct{ name, pkg, version, licence, where string }

// readSources reads sources.tsv: folder, package, version, licence, where in
// the package the files are.
func readSources(path string) ([]corpusSource, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read only
	var out []corpusSource
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		if len(c) != 5 {
			continue
		}
		out = append(out, corpusSource{name: c[0], pkg: c[1], version: c[2], licence: c[3], where: c[4]})
	}
	return out, sc.Err()
}

// corpusFiles lists the corpus's DICOM files, relative to dir, sorted: a
// Part 10 file ("DICM" after the preamble) whatever its name, and a file
// named .dcm or .dicom, or with no extension, that starts like a raw
// dataset's group 0008 (in either byte order). Anything else (Python, JSON,
// dumps, lookup tables) is not DICOM.
func corpusFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		head := make([]byte, 132)
		n, _ := io.ReadFull(f, head)
		_ = f.Close() // read only
		head = head[:n]
		ext := strings.ToLower(filepath.Ext(path))
		part10 := n == 132 && string(head[128:]) == "DICM"
		raw := n >= 2 && (ext == ".dcm" || ext == ".dicom" || ext == "") &&
			(bytes.HasPrefix(head, []byte{0x08, 0x00}) || bytes.HasPrefix(head, []byte{0x00, 0x08}))
		if part10 || raw || ext == ".dcm" || ext == ".dicom" {
			rel, err := filepath.Rel(dir, path)
			if err != nil {
				return err
			}
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}

type coverage struct {
	stored, previewed bool
	syntax, modality  string
	why               string
}

// mediShareCoverage runs a file through what an upload and a preview do.
func mediShareCoverage(p *medimg.Previewer, name string, data []byte) coverage {
	if len(data) > domain.MaxUploadBytes {
		return coverage{why: "over the 10 MiB upload limit"}
	}
	ct, err := medimg.Detect(data[:min(len(data), 132)], name)
	if err != nil {
		return coverage{why: "415 " + domain.ErrorMessage(err)}
	}
	var stored bytes.Buffer
	info, err := medimg.Clean(&stored, bytes.NewReader(data), ct)
	if err != nil {
		return coverage{why: "422 " + domain.ErrorMessage(err)}
	}
	c := coverage{stored: true}
	if info.DICOM != nil {
		c.syntax, c.modality = info.DICOM.TransferSyntax, info.DICOM.Modality
	}
	open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(stored.Bytes())), nil }
	var out bytes.Buffer
	err = p.Preview(context.Background(), &out, open, int64(stored.Len()), ct, service.PreviewMaxSide)
	switch {
	case err == nil:
		if _, derr := png.DecodeConfig(&out); derr != nil {
			c.why = "preview is not a PNG"
			return c
		}
		c.previewed = true
	case errors.Is(err, medimg.ErrNoPreview):
		c.why = "no preview"
	default:
		c.why = "preview: " + domain.ErrorMessage(err)
	}
	return c
}

type corpusOrthanc struct {
	srv    *orthanctest.Server
	client *http.Client
}

func (o corpusOrthanc) do(method, path string, body []byte) (int, []byte, string, error) {
	req, err := http.NewRequest(method, o.srv.Base+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, "", err
	}
	o.srv.Auth(req)
	resp, err := o.client.Do(req)
	if err != nil {
		return 0, nil, "", err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp.StatusCode, out, resp.Header.Get("Content-Type"), err
}

// coverage stores the file in Orthanc, asks for its preview and removes it
// again, so files that share a SOP Instance UID are each measured. An
// Orthanc that dies on a file is noted for that file and restarted.
func (o corpusOrthanc) coverage(b *testing.B, data []byte, row *corpusRow) {
	crashed := func(what string, err error) {
		row.orWhy = "Orthanc died on " + what
		b.Logf("%s: Orthanc died on %s (%v); restarting it\n%s", row.file, what, err, o.srv.LogTail(5))
		o.srv.Restart(b, nil)
	}
	status, body, _, err := o.do("POST", "/instances", data)
	if err != nil {
		crashed("the upload", err)
		return
	}
	var stored struct{ ID, Status string }
	if status != http.StatusOK || json.Unmarshal(body, &stored) != nil || stored.ID == "" {
		row.orWhy = fmt.Sprintf("%d %s", status, firstLine(body))
		return
	}
	row.orStored = true
	defer func() {
		if s, _, _, err := o.do("DELETE", "/instances/"+stored.ID, nil); err != nil || s != http.StatusOK {
			b.Fatalf("Orthanc: delete %s: %d %v", stored.ID, s, err)
		}
	}()
	status, body, ct, err := o.do("GET", "/instances/"+stored.ID+"/preview", nil)
	switch {
	case err != nil:
		crashed("the preview", err)
	case status == http.StatusOK && strings.HasPrefix(ct, "image/"):
		row.orPreviewed = true
	default:
		row.orWhy = fmt.Sprintf("preview %d %s", status, firstLine(body))
	}
	if row.syntax == "" {
		if s, v, _, err := o.do("GET", "/instances/"+stored.ID+"/metadata/TransferSyntax", nil); err == nil && s == http.StatusOK {
			row.syntax = strings.TrimSpace(string(v))
		}
	}
	if row.modality == "" {
		if s, v, _, err := o.do("GET", "/instances/"+stored.ID+"/content/0008-0060", nil); err == nil && s == http.StatusOK {
			row.modality = strings.TrimSpace(strings.TrimRight(string(v), "\x00"))
		}
	}
}

func firstLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	var v struct{ Message, OrthancError string }
	if json.Unmarshal(b, &v) == nil && (v.Message != "" || v.OrthancError != "") {
		s = v.OrthancError
		if v.Message != "" && v.Message != v.OrthancError {
			s = strings.TrimSpace(v.Message + ": " + v.OrthancError)
		}
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return s
}

// syntaxNames are the short names of the table's transfer syntaxes.
var syntaxNames = map[string]string{
	"1.2.840.10008.1.2":       "implicit LE",
	"1.2.840.10008.1.2.1":     "explicit LE",
	"1.2.840.10008.1.2.2":     "explicit BE",
	"1.2.840.10008.1.2.1.99":  "deflated LE",
	"1.2.840.10008.1.2.5":     "RLE",
	"1.2.840.10008.1.2.4.50":  "JPEG baseline",
	"1.2.840.10008.1.2.4.51":  "JPEG extended (12-bit)",
	"1.2.840.10008.1.2.4.57":  "JPEG lossless",
	"1.2.840.10008.1.2.4.70":  "JPEG lossless SV1",
	"1.2.840.10008.1.2.4.80":  "JPEG-LS lossless",
	"1.2.840.10008.1.2.4.81":  "JPEG-LS near-lossless",
	"1.2.840.10008.1.2.4.90":  "JPEG 2000 lossless",
	"1.2.840.10008.1.2.4.91":  "JPEG 2000",
	"1.2.840.10008.1.2.4.201": "HTJ2K lossless",
	"1.2.840.10008.1.2.4.203": "HTJ2K",
	"1.2.840.10008.1.2.1.98":  "encapsulated uncompressed",
	"1.2.840.10008.1.2.4.100": "MPEG2",
	"1.2.840.10008.1.2.4.102": "MPEG-4",
	"1.2.840.10008.1.2.4.202": "HTJ2K RPCL",
}

func syntaxName(uid string) string {
	uid = strings.Trim(uid, " \x00")
	if n, ok := syntaxNames[uid]; ok {
		return n
	}
	if uid == "" {
		return "?"
	}
	return uid
}

func yes(v bool) string {
	if v {
		return "yes"
	}
	return "-"
}

// corpusReport is the section of docs/performance.md: the sources, the
// totals and a row per file.
func corpusReport(sources []corpusSource, rows []corpusRow, orthancVersion string) string {
	var w strings.Builder
	count := func(f func(corpusRow) bool) int {
		n := 0
		for _, r := range rows {
			if f(r) {
				n++
			}
		}
		return n
	}
	fmt.Fprintf(&w, "## DICOM coverage on a public corpus, beside Orthanc with GDCM\n\n")
	fmt.Fprintf(&w, "Every DICOM file of %d public sources that did not make them for MediShare, "+
		"sent to Orthanc with its GDCM plugin (`POST /instances`, then `GET /instances/{id}/preview`) "+
		"and through MediShare's upload path in process (`medimg.Detect`, `Clean`, the previewer at %d px). "+
		"Target: every file Orthanc previews, MediShare previews too. "+
		"Measured by `make bench-corpus` (BenchmarkCorpus in internal/bench/corpus_test.go) on %s with Orthanc %s and Debian's orthanc-gdcm; "+
		"it gathers the corpus again at every run, and nothing of it is committed.\n\n",
		len(sources), service.PreviewMaxSide, time.Now().UTC().Format("2006-01-02"), orthancVersion)
	fmt.Fprintf(&w, "| source | Debian package | version | licence | files |\n|---|---|---|---|---|\n")
	for _, s := range sources {
		n := count(func(r corpusRow) bool { return r.source == s.name })
		fmt.Fprintf(&w, "| %s | %s | %s | %s | %d |\n", s.name, s.pkg, s.version, s.licence, n)
	}
	fmt.Fprintf(&w, "\n| totals | files | stored | previewed |\n|---|---|---|---|\n")
	fmt.Fprintf(&w, "| Orthanc + GDCM | %d | %d | %d |\n", len(rows),
		count(func(r corpusRow) bool { return r.orStored }), count(func(r corpusRow) bool { return r.orPreviewed }))
	fmt.Fprintf(&w, "| MediShare | %d | %d | %d |\n", len(rows),
		count(func(r corpusRow) bool { return r.msStored }), count(func(r corpusRow) bool { return r.msPreviewed }))
	gapStored := count(func(r corpusRow) bool { return r.orStored && !r.msStored })
	gapPreview := count(func(r corpusRow) bool { return r.orPreviewed && !r.msPreviewed })
	fmt.Fprintf(&w, "\nOrthanc stores and MediShare refuses: %d. Orthanc previews and MediShare does not: %d. "+
		"MediShare previews and Orthanc does not: %d.\n\n", gapStored, gapPreview,
		count(func(r corpusRow) bool { return r.msPreviewed && !r.orPreviewed }))
	if gapPreview > 0 {
		var syntaxes []string
		for _, r := range rows {
			if n := syntaxName(r.syntax); r.orPreviewed && !r.msPreviewed && !slices.Contains(syntaxes, n) {
				syntaxes = append(syntaxes, n)
			}
		}
		fmt.Fprintf(&w, "The target does not hold yet: the files Orthanc previews and MediShare does not are in %s, "+
			"which MediShare's previewer does not decode (\"Preview not available.\", the file is stored and downloads).\n\n",
			strings.Join(syntaxes, ", "))
	} else {
		fmt.Fprintf(&w, "The target holds: MediShare previews every file Orthanc previews.\n\n")
	}
	fmt.Fprintf(&w, "| file | transfer syntax | modality | Orthanc stored | Orthanc previewed | MediShare stored | MediShare previewed | why not |\n")
	fmt.Fprintf(&w, "|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		var why []string
		if r.orWhy != "" {
			why = append(why, "Orthanc: "+r.orWhy)
		}
		if r.msWhy != "" && (r.msWhy != "no preview" || r.orPreviewed) {
			why = append(why, "MediShare: "+r.msWhy)
		}
		fmt.Fprintf(&w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", r.file, syntaxName(r.syntax), cell(r.modality),
			yes(r.orStored), yes(r.orPreviewed), yes(r.msStored), yes(r.msPreviewed), cell(strings.Join(why, "; ")))
	}
	return w.String()
}

// cell keeps text from breaking a table row.
func cell(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ").Replace(s)
}
