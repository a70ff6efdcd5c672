package postgres_test

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/medishare/medishare/internal/domain"
)

// TestCountersMatchTheRows: the counters behind the lists' totals
// (migrations/00005_lists.sql) equal a real count after a random mix of
// concurrent creations, changes and deletions of users, images and shares.
func TestCountersMatchTheRows(t *testing.T) {
	ctx := context.Background()
	db, store := auditStore(t)
	providers := []domain.User{newUser(t, store, domain.RoleProvider), newUser(t, store, domain.RoleProvider)}
	var patients []domain.User
	for range 4 {
		patients = append(patients, newUser(t, store, domain.RolePatient))
	}

	var mu sync.Mutex
	var images []string
	var wg sync.WaitGroup
	for worker := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(worker), 7))
			for range 60 {
				provider, patient := providers[r.IntN(len(providers))], patients[r.IntN(len(patients))]
				switch r.IntN(6) {
				case 0, 1: // an upload
					id := uuid.NewString()
					if err := store.CreateImage(ctx, testImage(id, provider.ID, patient.ID)); err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					images = append(images, id)
					mu.Unlock()
				case 2: // a deletion (its shares go with it)
					mu.Lock()
					var id string
					if len(images) > 0 {
						i := r.IntN(len(images))
						id = images[i]
						images = append(images[:i], images[i+1:]...)
					}
					mu.Unlock()
					if id != "" {
						if _, err := store.DeleteImage(ctx, id); err != nil {
							t.Error(err)
						}
					}
				case 3: // a share
					mu.Lock()
					var id string
					if len(images) > 0 {
						id = images[r.IntN(len(images))]
					}
					mu.Unlock()
					if id != "" {
						now := time.Now()
						err := store.InTx(ctx, func(ctx context.Context) error {
							_, err := store.OpenShare(ctx, domain.Share{ID: uuid.NewString(), ImageID: id, SharedBy: domain.Person{ID: provider.ID},
								SharedWith: domain.Person{ID: patient.ID}, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}, []byte{1})
							return err
						})
						if err != nil && domain.ErrorKind(err) != domain.ENOTFOUND { // the image may be gone meanwhile
							t.Error(err)
						}
					}
				case 4: // (de)activation, in both directions at once
					if _, err := store.SetActive(ctx, patient.ID, r.IntN(2) == 0); err != nil {
						t.Error(err)
					}
				case 5: // a new account
					newUser(t, store, domain.RolePatient)
				}
			}
		}()
	}
	wg.Wait()
	if err := store.EraseUser(ctx, patients[0].ID); err != nil {
		t.Fatal(err)
	}

	checks := []struct{ name, counter, count string }{
		{"users by role and state",
			`SELECT coalesce(string_agg(role || active || users, ',' ORDER BY role, active), '') FROM user_counts WHERE users > 0`,
			`SELECT coalesce(string_agg(role || active || n, ',' ORDER BY role, active), '') FROM (SELECT role, active, count(*) AS n FROM users WHERE deleted_at IS NULL GROUP BY role, active) c`},
		{"images by uploader",
			`SELECT coalesce(string_agg(uploader_id || ':' || images, ',' ORDER BY uploader_id), '') FROM image_counts WHERE images > 0`,
			`SELECT coalesce(string_agg(uploader_id || ':' || n, ',' ORDER BY uploader_id), '') FROM (SELECT uploader_id, count(*) AS n FROM images GROUP BY uploader_id) c`},
		{"patients by uploader",
			`SELECT coalesce(string_agg(uploader_id || ':' || patient_id || ':' || images, ',' ORDER BY uploader_id, patient_id), '') FROM uploader_patients`,
			`SELECT coalesce(string_agg(uploader_id || ':' || patient_id || ':' || n, ',' ORDER BY uploader_id, patient_id), '') FROM (SELECT uploader_id, patient_id, count(*) AS n FROM images GROUP BY uploader_id, patient_id) c`},
		{"shares by sharer",
			`SELECT coalesce(string_agg(shared_by || ':' || shares, ',' ORDER BY shared_by), '') FROM share_counts WHERE shares > 0`,
			`SELECT coalesce(string_agg(shared_by || ':' || n, ',' ORDER BY shared_by), '') FROM (SELECT shared_by, count(*) AS n FROM shares GROUP BY shared_by) c`},
	}
	for _, c := range checks {
		var counted, real string
		if err := db.Pool.QueryRow(ctx, c.counter).Scan(&counted); err != nil {
			t.Fatal(err)
		}
		if err := db.Pool.QueryRow(ctx, c.count).Scan(&real); err != nil {
			t.Fatal(err)
		}
		if counted != real || real == "" {
			t.Errorf("%s: counters %q, rows %q", c.name, counted, real)
		}
	}
}

func testImage(id, uploaderID, patientID string) domain.Image {
	return domain.Image{
		ID: id, Caption: "scan", ContentType: domain.TypePNG, FileName: "a.png", Size: 1, SHA256: make([]byte, 32),
		BlobKey: "images/" + id, WrappedKey: []byte{1}, KeyID: []byte{2},
		UploadedBy: domain.Person{ID: uploaderID}, Patient: domain.Person{ID: patientID},
	}
}

// TestDirectorySearchCountsUpToACap: a search counts its matches exactly up
// to the cap; past it, the total is a lower bound, the pages still come in
// name order with no gap or repeat, and the last one says nothing follows.
func TestDirectorySearchCountsUpToACap(t *testing.T) {
	ctx := context.Background()
	db, store := auditStore(t)
	const common = 230
	_, err := db.Pool.Exec(ctx, `INSERT INTO users (email, username, password_hash, role, verified, firstname, lastname)
		SELECT 'p' || g || '@seed.test', 'p' || g, 'x', 'patient', true, 'Ann', 'Sanders' || lpad(g::text, 4, '0')
		FROM generate_series(1, $1) g`, common)
	if err != nil {
		t.Fatal(err)
	}
	newUser(t, store, domain.RolePatient) // "F L", matches neither search
	rare := newUser(t, store, domain.RolePatient)
	dir := domain.Directory{Roles: []string{domain.RolePatient}, ActiveOnly: true}

	users, page, err := store.ListUsers(ctx, dir, rare.Username[1:], domain.Page{Page: 1, Limit: 10})
	if err != nil || len(users) != 1 || page.TotalItems != 1 || page.AtLeast || page.HasNext() {
		t.Fatalf("a rare search: %d users, %+v, %v", len(users), page, err)
	}

	var seen []string
	for n := 1; ; n++ {
		users, page, err := store.ListUsers(ctx, dir, "anders", domain.Page{Page: n, Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		if !page.AtLeast || page.TotalItems < 200 {
			t.Fatalf("page %d of a common search: %+v", n, page)
		}
		for _, u := range users {
			seen = append(seen, u.Lastname)
		}
		if !page.HasNext() {
			break
		}
		if n > 10 {
			t.Fatal("the pages never end")
		}
	}
	if len(seen) != common {
		t.Fatalf("%d matches in all pages, want %d", len(seen), common)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i-1] >= seen[i] {
			t.Fatalf("not in name order, or repeated, at %d: %s, %s", i, seen[i-1], seen[i])
		}
	}
}
