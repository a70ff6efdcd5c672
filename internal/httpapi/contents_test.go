package httpapi_test

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/apptest"
)

// TestDownloadIsOnePass: a download opens the stored object once; nothing
// reads it ahead to check it first.
func TestDownloadIsOnePass(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	content := pdfOfSize(300<<10, "one pass")
	r := upload(t, provider, patient.ID, "a.pdf", content)
	if r.Status != 201 {
		t.Fatal(r.Raw)
	}
	id := r.Data()["id"].(string)
	before := app.Blobs.Reads("images/" + id)
	if ok, body := fetchWhole(t, provider, id); !ok || !bytes.Equal(body, content) {
		t.Fatalf("download: %v, %d bytes", ok, len(body))
	}
	if n := app.Blobs.Reads("images/"+id) - before; n != 1 {
		t.Fatalf("the download opened the object %d times, want 1", n)
	}
}

// TestPreviewRenderedOnce: the first preview renders and keeps the PNG
// encrypted beside the image; later ones serve it without reading the
// image, with an ETag, and If-None-Match gets 304 without reading anything.
// Every answer, 304 included, is audited as a preview.
func TestPreviewRenderedOnce(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	r := upload(t, provider, patient.ID, "ct.dcm", fixture(t, "CT_small.dcm"))
	if r.Status != 201 {
		t.Fatal(r.Raw)
	}
	id := r.Data()["id"].(string)
	path := "/api/upload/image/" + id + "/preview"

	resp, first := provider.Get(t, path, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("first preview: %d %s", resp.StatusCode, first)
	}
	if _, err := png.Decode(bytes.NewReader(first)); err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	etag := resp.Header.Get("ETag")
	want := map[string]string{"Content-Type": "image/png", "Cache-Control": "private, no-cache", "X-Content-Type-Options": "nosniff"}
	for k, v := range want {
		if resp.Header.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, resp.Header.Get(k), v)
		}
	}
	if !strings.Contains(resp.Header.Get("Content-Security-Policy"), "sandbox") || len(etag) != 66 || etag[0] != '"' {
		t.Fatalf("headers: %v", resp.Header)
	}
	stored, _ := filepath.Glob(filepath.Join(app.BlobDir, "previews", "*"))
	if len(stored) != 1 {
		t.Fatalf("stored previews: %v", stored)
	}
	if data, _ := os.ReadFile(stored[0]); bytes.Contains(data, []byte("IHDR")) {
		t.Fatal("the stored preview is not encrypted")
	}

	reads := app.Blobs.Reads("images/")
	resp, again := provider.Get(t, path, nil)
	if resp.StatusCode != 200 || !bytes.Equal(again, first) || resp.Header.Get("ETag") != etag {
		t.Fatalf("second preview: %d, same bytes %v, ETag %q", resp.StatusCode, bytes.Equal(again, first), resp.Header.Get("ETag"))
	}
	if n := app.Blobs.Reads("images/"); n != reads {
		t.Fatalf("the second preview read the image %d times: rendered again", n-reads)
	}

	allReads := app.Blobs.Reads("")
	for _, inm := range []string{etag, `W/` + etag, `"other", ` + etag, "*"} {
		resp, body := provider.Get(t, path, map[string]string{"If-None-Match": inm})
		if resp.StatusCode != 304 || len(body) != 0 || resp.Header.Get("ETag") != etag || resp.Header.Get("Cache-Control") != "private, no-cache" ||
			!strings.Contains(resp.Header.Get("Content-Security-Policy"), "sandbox") {
			t.Fatalf("If-None-Match %s: %d %v", inm, resp.StatusCode, resp.Header)
		}
	}
	if n := app.Blobs.Reads(""); n != allReads {
		t.Fatalf("a 304 read %d objects", n-allReads)
	}
	if resp, body := provider.Get(t, path, map[string]string{"If-None-Match": `"stale"`}); resp.StatusCode != 200 || !bytes.Equal(body, first) {
		t.Fatalf("a stale ETag: %d", resp.StatusCode)
	}
	if n := testutil.AuditCount(t, app.DB.Pool, testutil.Audit{Action: string(domain.ActionPreview), Table: string(domain.TableImages), Record: id}); n != 7 {
		t.Fatalf("%d preview entries, want 7 (304s included)", n)
	}
	// Someone else gets 404 and no ETag, whatever they send.
	other := app.SignUp(t, domain.RoleProvider)
	if resp, _ := other.Get(t, path, map[string]string{"If-None-Match": etag}); resp.StatusCode != 404 || resp.Header.Get("ETag") != "" {
		t.Fatalf("another provider: %d %v", resp.StatusCode, resp.Header)
	}

	// The signed preview URL works, and keeps working from the cache.
	signed := provider.Do(t, "GET", "/api/upload/image/"+id, nil).Data()["preview_url"].(string)
	for range 2 {
		if resp, body := app.Client().Get(t, signed, nil); resp.StatusCode != 200 || !bytes.Equal(body, first) {
			t.Fatalf("signed preview URL: %d", resp.StatusCode)
		}
	}

	// Deleting the image deletes its preview too.
	if r := provider.Do(t, "DELETE", "/api/upload/image/"+id, nil); r.Status != 200 {
		t.Fatal(r.Raw)
	}
	if n := countFiles(t, app.BlobDir); n != 0 {
		t.Fatalf("%d objects left after deletion", n)
	}
}

// TestNoPreviewIsRemembered: "Preview not available." is decided once.
func TestNoPreviewIsRemembered(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	r := upload(t, provider, patient.ID, "plan.dcm", fixture(t, "rtplan.dcm"))
	if r.Status != 201 {
		t.Fatal(r.Raw)
	}
	id := r.Data()["id"].(string)
	for i := range 3 {
		if r := provider.Do(t, "GET", "/api/upload/image/"+id+"/preview", nil); r.Status != 404 || r.Message() != "Preview not available." {
			t.Fatalf("preview %d: %d %s", i, r.Status, r.Raw)
		}
		if n := app.Blobs.Reads("images/" + id); n != 1 {
			t.Fatalf("after preview %d the image was read %d times, want once", i, n)
		}
	}
}

// TestFirstPreviewsAtOnce: two first views at once render twice, keep one
// preview, and leave no stray object.
func TestFirstPreviewsAtOnce(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	id := upload(t, provider, patient.ID, "p.png", pngBytes(t, 300, 200)).Data()["id"].(string)
	var wg sync.WaitGroup
	bodies := make([][]byte, 4)
	for i := range bodies {
		wg.Go(func() {
			resp, body := provider.Get(t, "/api/upload/image/"+id+"/preview", nil)
			if resp.StatusCode == 200 {
				bodies[i] = body
			}
		})
	}
	wg.Wait()
	for _, b := range bodies {
		if b == nil || !bytes.Equal(b, bodies[0]) {
			t.Fatal("the previews differ or failed")
		}
	}
	stored, _ := filepath.Glob(filepath.Join(app.BlobDir, "previews", "*"))
	if len(stored) != 1 {
		t.Fatalf("stored previews: %v", stored)
	}
}

// TestDamagedPreviewFailsCleanly: a stored preview is checked whole before
// it is sent.
func TestDamagedPreviewFailsCleanly(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	id := upload(t, provider, patient.ID, "p.png", pngBytes(t, 300, 200)).Data()["id"].(string)
	if resp, _ := provider.Get(t, "/api/upload/image/"+id+"/preview", nil); resp.StatusCode != 200 {
		t.Fatal(resp.StatusCode)
	}
	stored, _ := filepath.Glob(filepath.Join(app.BlobDir, "previews", "*"))
	flipByte(t, stored[0], 40)
	r := provider.Do(t, "GET", "/api/upload/image/"+id+"/preview", nil)
	if r.Status != 500 || r.Message() != "The file could not be decrypted." || r.Header.Get("ETag") != "" {
		t.Fatalf("damaged preview: %d %s %v", r.Status, r.Raw, r.Header)
	}
	reason, err := app.Services.Integrity.CheckImage(t.Context(), id)
	if err != nil || !strings.HasPrefix(reason, "preview: ") {
		t.Fatalf("check: %q %v", reason, err)
	}
}

func flipByte(t *testing.T, path string, at int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[at] ^= 0x01
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestJanitorRemovesOrphanPreviews: a preview object no record names
// (a crash before its record, a losing render) goes after an hour.
func TestJanitorRemovesOrphanPreviews(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	id := upload(t, provider, patient.ID, "p.png", pngBytes(t, 8, 8)).Data()["id"].(string)
	if resp, _ := provider.Get(t, "/api/upload/image/"+id+"/preview", nil); resp.StatusCode != 200 {
		t.Fatal(resp.StatusCode)
	}
	kept, _ := filepath.Glob(filepath.Join(app.BlobDir, "previews", "*"))
	orphan := filepath.Join(app.BlobDir, "previews", "00000000-0000-4000-8000-0000000000bb")
	if err := os.WriteFile(orphan, []byte("left by a crash"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * time.Hour)
	for _, p := range append(kept, orphan) {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := app.Services.Integrity.CollectOrphans(t.Context()); err != nil || n != 1 {
		t.Fatalf("orphans removed: %d %v", n, err)
	}
	if left, _ := filepath.Glob(filepath.Join(app.BlobDir, "previews", "*")); !slices.Equal(left, kept) {
		t.Fatalf("previews left: %v, want %v", left, kept)
	}
}

// TestScrub: the periodic scrub reads each image whole once, finds a
// flipped byte that no download has met, audits it once, and reports it in
// the status the admins' health panel shows.
func TestScrub(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	admin := app.SignUp(t, domain.RoleAdmin)
	good := upload(t, provider, patient.ID, "good.pdf", pdfOfSize(100<<10, "good")).Data()["id"].(string)
	bad := upload(t, provider, patient.ID, "bad.pdf", pdfOfSize(100<<10, "bad")).Data()["id"].(string)
	flipByte(t, filepath.Join(app.BlobDir, "images", bad), 70000)

	ctx := t.Context()
	integrity := app.Services.Integrity
	for i := range 2 {
		if due, err := integrity.ScrubNext(ctx); err != nil || !due {
			t.Fatalf("scrub %d: %v %v", i, due, err)
		}
	}
	if due, err := integrity.ScrubNext(ctx); err != nil || due {
		t.Fatalf("a third image was due: %v %v", due, err)
	}
	adminP, err := app.Services.Sessions.Authenticate(ctx, admin.Token)
	if err != nil {
		t.Fatal(err)
	}
	status, err := integrity.ScrubStatus(ctx, adminP, domain.RequestMeta{})
	if err != nil {
		t.Fatal(err)
	}
	if status.Images != 2 || status.Checked != 2 || status.Failing != 1 || status.LastChecked.IsZero() ||
		len(status.Failures) != 1 || status.Failures[0].ImageID != bad || !strings.HasPrefix(status.Failures[0].Reason, "contents: chunk 1") {
		t.Fatalf("status: %+v", status)
	}
	if n := testutil.AuditCount(t, app.DB.Pool, testutil.Audit{Action: string(domain.ActionIntegrityFailure), Table: string(domain.TableImages), Record: bad}); n != 1 {
		t.Fatalf("%d integrity_failure entries for the damaged image", n)
	}
	if n := testutil.AuditCount(t, app.DB.Pool, testutil.Audit{Action: string(domain.ActionIntegrityFailure), Table: string(domain.TableImages), Record: good}); n != 0 {
		t.Fatal("the intact image was reported")
	}
	// Checked again, still failing: no second entry.
	if reason, err := integrity.CheckImage(ctx, bad); err != nil || reason == "" {
		t.Fatalf("recheck: %q %v", reason, err)
	}
	if n := testutil.AuditCount(t, app.DB.Pool, testutil.Audit{Action: string(domain.ActionIntegrityFailure), Table: string(domain.TableImages), Record: bad}); n != 1 {
		t.Fatalf("%d integrity_failure entries after a recheck", n)
	}
	// Only those who monitor the system (system:monitor: admins) see the status.
	providerP, err := app.Services.Sessions.Authenticate(ctx, provider.Token)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := integrity.ScrubStatus(ctx, providerP, domain.RequestMeta{}); domain.ErrorKind(err) != domain.EFORBIDDEN {
		t.Fatalf("a provider's status: %v", err)
	}
	// The checksum itself is checked: a record whose SHA-256 does not match.
	if _, err := app.DB.Pool.Exec(ctx, "UPDATE images SET sha256 = $1 WHERE id = $2", make([]byte, 32), good); err != nil {
		t.Fatal(err)
	}
	if reason, err := integrity.CheckImage(ctx, good); err != nil || reason != "contents: the SHA-256 differs from the record" {
		t.Fatalf("a wrong SHA-256: %q %v", reason, err)
	}
}

// TestScrubbersTakeDifferentImages: scrubbers in several instances claim
// through PostgreSQL, and never the same image while a claim holds.
func TestScrubbersTakeDifferentImages(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	const n = 6
	var ids []string
	for i := range n {
		ids = append(ids, upload(t, provider, patient.ID, "f.pdf", pdfOfSize(1000+i, "x")).Data()["id"].(string))
	}
	claimed := make([]string, 2*n)
	var wg sync.WaitGroup
	for i := range claimed {
		wg.Go(func() {
			id, err := app.Store.ClaimContentCheck(t.Context(), time.Minute, time.Hour)
			if err != nil && domain.ErrorKind(err) != domain.ENOTFOUND {
				t.Error(err)
			}
			claimed[i] = id
		})
	}
	wg.Wait()
	got := slices.DeleteFunc(slices.Clone(claimed), func(s string) bool { return s == "" })
	slices.Sort(got)
	slices.Sort(ids)
	if !slices.Equal(got, ids) {
		t.Fatalf("claims %v, want each of %v once", got, ids)
	}
	// A claim that ran out is taken again; a recorded check is not due.
	if _, err := app.Store.RecordContentCheck(t.Context(), ids[0], ""); err != nil {
		t.Fatal(err)
	}
	if _, err := app.DB.Pool.Exec(t.Context(), "UPDATE content_checks SET claimed_until = now() - interval '1 second' WHERE image_id = $1", ids[1]); err != nil {
		t.Fatal(err)
	}
	if id, err := app.Store.ClaimContentCheck(t.Context(), time.Minute, time.Hour); err != nil || id != ids[1] {
		t.Fatalf("after the lease: %q %v, want %s", id, err, ids[1])
	}
}
