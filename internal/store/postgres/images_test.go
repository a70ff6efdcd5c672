package postgres_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"testing"

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
