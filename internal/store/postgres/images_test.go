package postgres_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/store/postgres"
)

func newUser(t *testing.T, store *postgres.Store, role string) domain.User {
	t.Helper()
	n := make([]byte, 4)
	_, _ = rand.Read(n)
	u, err := store.CreateUser(context.Background(), domain.User{
		Email: fmt.Sprintf("u%x@clinic.test", n), Username: fmt.Sprintf("u%x", n), Role: role, Profile: domain.Profile{Firstname: "F", Lastname: "L"},
	}, "hash")
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestImagesRecords(t *testing.T) {
	ctx := context.Background()
	_, store := auditStore(t)
	provider, other := newUser(t, store, domain.RoleProvider), newUser(t, store, domain.RoleProvider)
	patient := newUser(t, store, domain.RolePatient)
	var ids []string
	for i, up := range []domain.User{provider, provider, provider, other} {
		im := domain.Image{
			ID: uuid.NewString(), Caption: fmt.Sprintf("scan %d", i), ContentType: "application/dicom", FileName: "ct.dcm",
			Size: 100, SHA256: make([]byte, 32), BlobKey: "images/" + uuid.NewString(), WrappedKey: []byte{1}, KeyID: []byte{2},
			UploadedBy: domain.Person{ID: up.ID}, Patient: domain.Person{ID: patient.ID},
			DICOM: &domain.DICOMFacts{Modality: "CT", Rows: 128, Columns: 128, Frames: 1},
		}
		if err := store.CreateImage(ctx, im); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, im.ID)
	}
	got, err := store.Image(ctx, ids[0])
	if err != nil || got.DICOM == nil || got.DICOM.Modality != "CT" || got.UploadedBy.Firstname != "F" || got.Patient.ID != patient.ID {
		t.Fatalf("image: %+v %v", got, err)
	}
	page, total, err := store.ImagesOfUploader(ctx, provider.ID, domain.Page{Page: 1, Limit: 2})
	if err != nil || len(page) != 2 || total != 3 || page[0].Caption != "scan 2" {
		t.Fatalf("uploader page: %d items, total %d, %v", len(page), total, err)
	}
	if page, total, _ := store.AllImages(ctx, domain.Page{Page: 1, Limit: 10}); len(page) != 4 || total != 4 || page[0].Caption != "scan 3" {
		t.Fatalf("all images: %d items, total %d", len(page), total)
	}
	if _, total, _ := store.AllImages(ctx, domain.Page{Page: 5, Limit: 2}); total != 4 {
		t.Fatalf("all images past the end: total %d", total)
	}
	if _, total, _ := store.ImagesOfUploader(ctx, provider.ID, domain.Page{Page: 9, Limit: 2}); total != 3 {
		t.Fatalf("uploader's images past the end: total %d", total)
	}
	key, err := store.DeleteImage(ctx, ids[1])
	if err != nil || key == "" {
		t.Fatal(err)
	}
	// The counters follow the deletion, in the same transaction.
	if n, _ := store.CountImages(ctx, provider.ID); n != 2 {
		t.Fatalf("provider's images after a deletion: %d", n)
	}
	if n, _ := store.CountImages(ctx, ""); n != 3 {
		t.Fatalf("all images after a deletion: %d", n)
	}
	if n, _ := store.CountPatientsOf(ctx, provider.ID); n != 1 {
		t.Fatalf("provider's patients: %d", n)
	}
	if ref, _ := store.BlobReferenced(ctx, key); ref {
		t.Fatal("deleted image still references its blob")
	}
	if _, err := store.Image(ctx, ids[1]); domain.ErrorKind(err) != domain.ENOTFOUND {
		t.Fatalf("deleted image: %v", err)
	}
	if err := store.CreateImage(ctx, domain.Image{ID: uuid.NewString(), Caption: "", ContentType: "text/html",
		UploadedBy: domain.Person{ID: provider.ID}, Patient: domain.Person{ID: patient.ID}, BlobKey: "x", SHA256: []byte{}, WrappedKey: []byte{}, KeyID: []byte{}}); domain.ErrorKind(err) != domain.EINVALID {
		t.Fatalf("the database accepted a bad record: %v", err)
	}
}

// TestListsCarryTheirShares: a page of the uploader's and of every image
// comes with each image's open shares, read in the same statement, newest first, an
// image without shares with none, and a revoked share left out.
func TestListsCarryTheirShares(t *testing.T) {
	ctx := context.Background()
	db, store := auditStore(t)
	provider := newUser(t, store, domain.RoleProvider)
	patients := []domain.User{newUser(t, store, domain.RolePatient), newUser(t, store, domain.RolePatient), newUser(t, store, domain.RolePatient)}
	// Three images, oldest first: two shares on the oldest (one revoked
	// later, and a third to another patient), none on the middle one, one
	// on the newest.
	var ids []string
	for i := range 3 {
		id := uuid.NewString()
		if err := store.CreateImage(ctx, testImage(id, provider.ID, patients[0].ID)); err != nil {
			t.Fatal(err)
		}
		// Creation times a second apart, whatever the clock's resolution.
		if _, err := db.Pool.Exec(ctx, "UPDATE images SET created_at = now() - make_interval(secs => $2) WHERE id = $1", id, 10-i); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	share := func(imageID string, to domain.User, at time.Time) string {
		t.Helper()
		id := uuid.NewString()
		err := store.InTx(ctx, func(ctx context.Context) error {
			_, err := store.OpenShare(ctx, domain.Share{ID: id, ImageID: imageID, SharedBy: domain.Person{ID: provider.ID},
				SharedWith: domain.Person{ID: to.ID}, CreatedAt: at, ExpiresAt: at.Add(time.Hour)}, []byte{1})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	now := time.Now()
	older := share(ids[0], patients[1], now.Add(-2*time.Minute))
	newer := share(ids[0], patients[2], now.Add(-time.Minute))
	revoked := share(ids[0], patients[0], now.Add(-3*time.Minute))
	if _, err := store.RevokeShare(ctx, revoked, now); err != nil {
		t.Fatal(err)
	}
	newest := share(ids[2], patients[1], now)

	check := func(name string, images []domain.Image, total int, err error) {
		t.Helper()
		if err != nil || total != 3 || len(images) != 3 {
			t.Fatalf("%s: %d images of %d, %v", name, len(images), total, err)
		}
		want := [][]string{{newest}, {}, {newer, older}} // newest image first
		for i, im := range images {
			var got []string
			for _, sh := range im.Shares {
				got = append(got, sh.ID)
				if sh.ImageID != im.ID || sh.SharedBy.ID != provider.ID || sh.Caption != im.Caption || sh.SharedWith.Firstname != "F" {
					t.Errorf("%s: share %+v of image %s", name, sh, im.ID)
				}
			}
			if im.ID != ids[2-i] || im.Shares == nil || fmt.Sprint(got) != fmt.Sprint(want[i]) {
				t.Errorf("%s: image %d is %s with shares %v, want %s with %v", name, i, im.ID, got, ids[2-i], want[i])
			}
		}
	}
	images, total, err := store.ImagesOfUploader(ctx, provider.ID, domain.Page{Page: 1, Limit: 10})
	check("uploader's", images, total, err)
	images, total, err = store.AllImages(ctx, domain.Page{Page: 1, Limit: 10})
	check("all", images, total, err)

	// A later page of one image carries its shares too.
	images, _, err = store.ImagesOfUploader(ctx, provider.ID, domain.Page{Page: 3, Limit: 1})
	if err != nil || len(images) != 1 || images[0].ID != ids[0] || len(images[0].Shares) != 2 {
		t.Errorf("page 3 of 1: %+v %v", images, err)
	}
	// Past the end: no images, the total still.
	images, total, err = store.ImagesOfUploader(ctx, provider.ID, domain.Page{Page: 4, Limit: 1})
	if err != nil || len(images) != 0 || total != 3 {
		t.Errorf("past the end: %d images of %d, %v", len(images), total, err)
	}
}
