package postgres_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/medishare/medishare/internal/domain"
)

// TestCountersMatchTheRows: the counters behind the lists' totals
// (migrations/00005_lists.sql) and the directory search's trigram entries
// and counts (00011_directory_grams.sql) equal what the rows say after a
// random mix of concurrent creations, changes and deletions of users,
// images and shares.
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
				switch r.IntN(7) {
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
				case 6: // a new name
					names := []string{"Anders", "Sanders", "Henderson", "Lindqvist"}
					p := domain.Profile{Firstname: names[r.IntN(len(names))], Lastname: names[r.IntN(len(names))]}
					if _, err := store.UpdateProfile(ctx, patient.ID, p); err != nil {
						t.Error(err)
					}
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
		{"the directory's trigram entries",
			`SELECT md5(string_agg(concat_ws('|', gram, lastname, firstname, user_id, role, active, search_text), ',' ORDER BY gram, user_id)) FROM user_grams`,
			`SELECT md5(string_agg(concat_ws('|', g, lastname, firstname, id, role, active, search_text), ',' ORDER BY g, id)) FROM users, search_grams(search_text) g WHERE deleted_at IS NULL`},
		{"people by trigram",
			`SELECT md5(string_agg(gram || ':' || users, ',' ORDER BY gram)) FROM user_gram_counts WHERE users > 0`,
			`SELECT md5(string_agg(gram || ':' || n, ',' ORDER BY gram)) FROM (SELECT gram, count(*) AS n FROM user_grams GROUP BY gram) c`},
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
// A fragment of one or two letters (no trigram) pages the same way.
func TestDirectorySearchCountsUpToACap(t *testing.T) {
	ctx := context.Background()
	db, store := auditStore(t)
	const common = 130
	_, err := db.Pool.Exec(ctx, `INSERT INTO users (email, username, password_hash, role, verified, firstname, lastname)
		SELECT 'p' || g || '@seed.test', 'p' || g, 'x', 'patient', true, 'Ann', 'Sanders' || lpad(g::text, 4, '0')
		FROM generate_series(1, $1) g`, common)
	if err != nil {
		t.Fatal(err)
	}
	newUser(t, store, domain.RolePatient) // "F L", matches neither search
	rare := newUser(t, store, domain.RolePatient)
	dir := domain.Directory{Roles: []string{domain.RolePatient}, ReachableOnly: true}

	users, page, err := store.ListUsers(ctx, dir, rare.Username[1:], domain.Page{Page: 1, Limit: 10})
	if err != nil || len(users) != 1 || page.TotalItems != 1 || page.AtLeast || page.HasNext() {
		t.Fatalf("a rare search: %d users, %+v, %v", len(users), page, err)
	}

	for _, fragment := range []string{"anders", "rs"} {
		var seen []string
		for n := 1; ; n++ {
			users, page, err := store.ListUsers(ctx, dir, fragment, domain.Page{Page: n, Limit: 50})
			if err != nil {
				t.Fatal(err)
			}
			// Counted up to 100, or up to the page's end when that is
			// further: the last page has counted them all.
			if page.AtLeast && page.TotalItems < 100 || !page.AtLeast && (page.TotalItems != common || page.HasNext()) || n == 1 && !page.AtLeast {
				t.Fatalf("%q, page %d: %+v", fragment, n, page)
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
			t.Fatalf("%q: %d matches in all pages, want %d", fragment, len(seen), common)
		}
		for i := 1; i < len(seen); i++ {
			if seen[i-1] >= seen[i] {
				t.Fatalf("%q: not in name order, or repeated, at %d: %s, %s", fragment, i, seen[i-1], seen[i])
			}
		}
		users, page, err := store.ListUsers(ctx, dir, fragment, domain.Page{Page: 20, Limit: 50})
		if err != nil || len(users) != 0 || page.TotalItems != common || page.AtLeast {
			t.Fatalf("%q, past the last page: %d users, %+v, %v", fragment, len(users), page, err)
		}
	}
}

// TestDirectorySearchFollowsChanges: a search finds people by the name,
// email, role and state they have now, in the caller's scope, and never the
// erased; a fragment is matched whole, wherever it stands in a word or
// across words, and is no pattern.
func TestDirectorySearchFollowsChanges(t *testing.T) {
	ctx := context.Background()
	_, store := auditStore(t)
	patients := domain.Directory{Roles: []string{domain.RolePatient}, ReachableOnly: true}
	found := func(dir domain.Directory, search string) []string {
		t.Helper()
		users, _, err := store.ListUsers(ctx, dir, search, domain.Page{Page: 1, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		ids := []string{}
		for _, u := range users {
			ids = append(ids, u.ID)
		}
		return ids
	}
	want := func(dir domain.Directory, search string, ids ...string) {
		t.Helper()
		if got := found(dir, search); !slices.Equal(got, append([]string{}, ids...)) {
			t.Errorf("search %q: %v, want %v", search, got, ids)
		}
	}

	ann := newUser(t, store, domain.RolePatient)
	if _, err := store.UpdateProfile(ctx, ann.ID, domain.Profile{Firstname: "Ann", Lastname: "Kowalski_50%"}); err != nil {
		t.Fatal(err)
	}
	want(patients, "owals", ann.ID)
	want(patients, "ann kow", ann.ID)      // across words
	want(patients, "KOWALSKI_50%", ann.ID) // any case, and _ and % are letters
	want(patients, "kowalskix50")
	want(patients, "i_5", ann.ID) // no trigram inside a word: the names are walked
	want(patients, ann.Email[:len(ann.Email)-3], ann.ID)

	if _, err := store.UpdateProfile(ctx, ann.ID, domain.Profile{Firstname: "Ann", Lastname: "Nowak"}); err != nil {
		t.Fatal(err)
	}
	want(patients, "owals")
	want(patients, "nowak", ann.ID)
	if _, err := store.UpdateProfile(ctx, ann.ID, domain.Profile{Firstname: "Łucja", Lastname: "Nowak"}); err != nil {
		t.Fatal(err)
	}
	// A letter beyond ASCII: the trigrams walked are those of "ucja" and
	// "now", and the letter itself is checked in the text. (Its case is
	// folded as the database's locale folds it; the C locale of the test
	// cluster folds only ASCII.)
	want(patients, "ŁuCJA now", ann.ID)
	want(patients, "Łu", ann.ID)
	want(patients, "Łux")
	if _, err := store.SetActive(ctx, ann.ID, false); err != nil {
		t.Fatal(err)
	}
	want(patients, "nowak")
	want(domain.Directory{Roles: []string{domain.RolePatient}}, "nowak", ann.ID)
	want(domain.Directory{Roles: []string{domain.RoleProvider}, Self: ann.ID}, "nowak", ann.ID) // the caller is in their own directory
	if _, err := store.SetActive(ctx, ann.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := store.SetRole(ctx, ann.ID, domain.RoleProvider); err != nil {
		t.Fatal(err)
	}
	providers := domain.Directory{Roles: []string{domain.RoleProvider}, ReachableOnly: true}
	want(patients, "nowak")
	want(providers, "nowak", ann.ID)

	// A provider waiting for approval is found only where unreachable
	// people are (an admin's directory), and counted only there, until
	// approved.
	waiting, err := store.CreateUser(ctx, domain.User{Email: "wanda@clinic.test", Username: "wanda", Role: domain.RoleProvider,
		AwaitingApproval: true, Profile: domain.Profile{Firstname: "Wanda", Lastname: "Nowakowska"}}, "hash")
	if err != nil {
		t.Fatal(err)
	}
	total := func(dir domain.Directory, page int) int {
		t.Helper()
		_, p, err := store.ListUsers(ctx, dir, "", domain.Page{Page: page, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		return p.TotalItems
	}
	everyProvider := domain.Directory{Roles: []string{domain.RoleProvider}}
	want(providers, "nowak", ann.ID)
	want(providers, "ak", ann.ID) // no trigram: the names walked
	want(everyProvider, "nowak", ann.ID, waiting.ID)
	want(everyProvider, "ak", ann.ID, waiting.ID)
	if n, all, past := total(providers, 1), total(everyProvider, 1), total(providers, 9); n != 1 || all != 2 || past != 1 {
		t.Errorf("providers counted: %d reachable, %d in all, %d past the last page; want 1, 2, 1", n, all, past)
	}
	if _, err := store.ApproveUser(ctx, waiting.ID); err != nil {
		t.Fatal(err)
	}
	want(providers, "nowak", ann.ID, waiting.ID)
	want(providers, "ak", ann.ID, waiting.ID)
	if n := total(providers, 1); n != 2 {
		t.Errorf("providers counted once approved: %d, want 2", n)
	}

	if err := store.EraseUser(ctx, ann.ID); err != nil {
		t.Fatal(err)
	}
	want(domain.Directory{Roles: domain.Roles}, "nowak", waiting.ID)
	want(domain.Directory{Roles: domain.Roles}, "deleted")
}
