package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/medishare/medishare/internal/blob"
	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/pgtest"
	"github.com/medishare/medishare/internal/testutil/proctest"
	"github.com/medishare/medishare/internal/testutil/s3test"
	"github.com/medishare/medishare/migrations"
)

// instanceOrphanAge is how old unreferenced contents must be before the
// janitor of TestTwoInstances removes them (an hour outside tests).
// Far above how long an upload takes here (about 0.1 s for 6 MiB), since
// contents are stored before their record commits.
const instanceOrphanAge = 3 * time.Second

// TestTwoInstances starts two servers at the same moment on one empty
// database and one bucket, configured as production would configure
// several instances (the same keys from files, the same public URL), and
// checks that what one instance does holds on the other.
func TestTwoInstances(t *testing.T) {
	testutil.Slow(t)
	bucket := s3test.Start(t)
	dbURL := pgtest.NewEmptyDatabase(t)

	// The keys every instance must share, from files, and the same demo
	// accounts (with the same passwords) in each instance's data folder.
	secrets := t.TempDir()
	for name, key := range map[string]string{"master.key": newMasterKey(t), "jwt.secret": newMasterKey(t)} {
		if err := os.WriteFile(filepath.Join(secrets, name), []byte(key+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	accounts := map[string]demoAccount{}
	for _, p := range demoPeople {
		accounts[p.role] = demoAccount{Email: p.username + "@medishare.example", Password: "Instances-" + uuid.NewString()}
	}
	accountsJSON, _ := json.Marshal(accounts)

	envs := make([]map[string]string, 2)
	logs := make([]*proctest.Buffer, 2)
	bases := make([]string, 2)
	for i := range envs {
		env := proctest.Env(t, dbURL)
		env["MEDISHARE_PUBLIC_URL"] = "https://medishare.example.org"
		env["MEDISHARE_MASTER_KEY_FILE"] = filepath.Join(secrets, "master.key")
		env["MEDISHARE_JWT_SECRET_FILE"] = filepath.Join(secrets, "jwt.secret")
		env["MEDISHARE_STORAGE"] = "s3"
		env["S3_ENDPOINT"], env["S3_REGION"], env["S3_BUCKET"] = bucket.Endpoint, bucket.Region, bucket.Bucket
		env["S3_ACCESS_KEY_ID"], env["S3_SECRET_ACCESS_KEY"], env["S3_PATH_STYLE"] = bucket.AccessKeyID, bucket.SecretAccessKey, "true"
		env["MEDISHARE_JANITOR_EVERY"] = "100ms"
		env["MEDISHARE_LOG_LEVEL"] = "debug" // the janitor's passes (checkJanitors)
		env["MEDISHARE_TEST_ORPHAN_AGE"] = instanceOrphanAge.String()
		if err := os.WriteFile(filepath.Join(env["MEDISHARE_DATA_DIR"], "demo-accounts.json"), accountsJSON, 0o600); err != nil {
			t.Fatal(err)
		}
		envs[i], logs[i], bases[i] = env, &proctest.Buffer{}, proctest.Base(env)
	}
	// At the same moment, on the empty database.
	for i := range envs {
		startProgram(t, envs[i], logs[i])
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the log of A:\n%s\nthe log of B:\n%s", logs[0], logs[1])
		}
	})
	for i := range bases {
		proctest.WaitStatus(t, bases[i]+"/readyz", http.StatusOK)
	}
	a, b := bases[0], bases[1]
	email := func(role string) string { return accounts[role].Email }
	password := func(role string) string { return accounts[role].Password }

	t.Run("migrations ran once", func(t *testing.T) {
		checkMigratedOnce(t, dbURL, logs)
	})

	// Ids and tokens first: the throttle check below locks the patient out.
	signIn := func(base, role string, want int) testutil.Session {
		return testutil.SignIn(t, http.DefaultClient, base, email(role), password(role), want)
	}
	provider := signIn(a, domain.RoleProvider, http.StatusOK)
	patient := signIn(b, domain.RolePatient, http.StatusOK)
	admin := signIn(b, domain.RoleAdmin, http.StatusOK)

	t.Run("a login throttled on one is throttled on the other", func(t *testing.T) {
		for range 10 { // the limit per email (S3)
			testutil.SignIn(t, http.DefaultClient, a, email(domain.RolePatient), "wrong password", http.StatusUnauthorized)
		}
		// The right password, on the instance that saw no failure.
		s := signIn(b, domain.RolePatient, http.StatusTooManyRequests)
		if !strings.Contains(s.Body, "Too many failed sign-in attempts. Please try again later.") {
			t.Fatalf("login on B after 10 failures on A: %d %s", s.Status, s.Body)
		}
	})

	t.Run("logout through one ends access on both", func(t *testing.T) {
		s := signIn(a, domain.RoleProvider, http.StatusOK)
		// The session works on B, and B renews it.
		if status, body := proctest.APIJSON(t, "GET", b+"/api/users/profile", s.Token, nil); status != http.StatusOK {
			t.Fatalf("token from A on B: %d %s", status, body)
		}
		renewed := refresh(t, b, s.Refresh)
		if renewed.Status != http.StatusOK || renewed.Token == "" || renewed.Refresh == "" {
			t.Fatalf("refresh on B: %d %s", renewed.Status, renewed.Body)
		}
		if status, body := proctest.APIJSON(t, "POST", a+"/api/auth/logout", renewed.Token, nil); status != http.StatusOK {
			t.Fatalf("logout on A: %d %s", status, body)
		}
		for _, token := range []string{s.Token, renewed.Token} {
			if status, body := proctest.APIJSON(t, "GET", b+"/api/users/profile", token, nil); status != http.StatusUnauthorized {
				t.Errorf("access token on B after logout on A: %d %s", status, body)
			}
		}
		if r := refresh(t, b, renewed.Refresh); r.Status != http.StatusUnauthorized {
			t.Errorf("refresh cookie on B after logout on A: %d %s", r.Status, r.Body)
		}
	})

	t.Run("a signed URL made by one works on the other", func(t *testing.T) {
		content := []byte("%PDF-1.4\n% signed on A, served by B\n%%EOF\n")
		id := proctest.MustUpload(t, a, provider.Token, patient.ID, "signed.pdf", content)
		link := imageLink(t, a, provider.Token, id)
		if got, status := proctest.Fetch(t, b+link, ""); status != http.StatusOK || !bytes.Equal(got, content) {
			t.Fatalf("A's signed link on B: %d %q", status, got)
		}
		// B does check the signature: the same link, altered, is refused.
		forged := strings.Replace(link, "sig=", "sig=x", 1)
		if _, status := proctest.Fetch(t, b+forged, ""); status != http.StatusUnauthorized {
			t.Fatalf("an altered link on B: %d", status)
		}
	})

	t.Run("the janitors never remove contents in use", func(t *testing.T) {
		checkJanitors(t, bucket, a, b, provider, patient.ID, logs)
	})

	t.Run("settings changed on one apply on the other", func(t *testing.T) {
		var before struct {
			Data struct{ RegistrationOpen bool }
		}
		if status, body := proctest.APIJSON(t, "GET", b+"/api/settings", admin.Token, nil); status != http.StatusOK || json.Unmarshal([]byte(body), &before) != nil || !before.Data.RegistrationOpen {
			t.Fatalf("settings on B before: %d %s", status, body)
		}
		change := map[string]any{"registrationOpen": false, "shareLifetimeDefaultHours": 2}
		if status, body := proctest.APIJSON(t, "PUT", a+"/api/settings", admin.Token, change); status != http.StatusOK {
			t.Fatalf("change on A: %d %s", status, body)
		}
		// At once: no waiting, no retry.
		register := map[string]string{"email": "new.patient@medishare.example", "username": "new.patient", "password": "Instances-" + uuid.NewString(),
			"role": domain.RolePatient, "firstname": "New", "lastname": "Patient"}
		if status, body := proctest.APIJSON(t, "POST", b+"/api/auth/register", "", register); status != http.StatusForbidden ||
			!strings.Contains(body, "Registration is closed.") {
			t.Errorf("registration on B after closing it on A: %d %s", status, body)
		}
		id := proctest.MustUpload(t, b, provider.Token, patient.ID, "lifetime.pdf", []byte("%PDF-1.4\n% lifetime\n%%EOF\n"))
		status, body := proctest.APIJSON(t, "POST", b+"/api/sharing/request", provider.Token, map[string]string{"imagemetadataId": id, "createdfor": patient.ID})
		var share struct{ Data struct{ ExpiresAt time.Time } }
		if status != http.StatusCreated || json.Unmarshal([]byte(body), &share) != nil {
			t.Fatalf("share on B: %d %s", status, body)
		}
		if left := time.Until(share.Data.ExpiresAt); left < 110*time.Minute || left > 2*time.Hour {
			t.Errorf("a share made on B with the default lifetime set to 2 hours on A expires in %s", left)
		}
	})
}

// checkMigratedOnce: every migration is recorded once, and exactly one
// instance says it applied them.
func checkMigratedOnce(t *testing.T, dbURL string, logs []*proctest.Buffer) {
	files, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("migrations: %v %v", files, err)
	}
	ctx := context.Background()
	db, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close(ctx) }() // read only
	var rows, versions int
	if err := db.QueryRow(ctx, "SELECT count(*), count(DISTINCT version_id) FROM goose_db_version WHERE version_id > 0").Scan(&rows, &versions); err != nil {
		t.Fatal(err)
	}
	if rows != len(files) || versions != len(files) {
		t.Errorf("goose_db_version: %d rows for %d versions, want one row for each of the %d migrations", rows, versions, len(files))
	}
	applied := 0
	want := fmt.Sprintf(`msg="applied database migrations" count=%d `, len(files))
	for i, l := range logs {
		if strings.Contains(l.String(), want) {
			applied++
		} else if strings.Contains(l.String(), "applied database migrations") {
			t.Errorf("instance %d applied some of the migrations:\n%s", i, l.String())
		}
	}
	if applied != 1 {
		t.Errorf("%d instances say they applied the migrations, want 1", applied)
	}
}

// checkJanitors uploads images through both instances while both janitors
// run every 100 ms and collect contents older than instanceOrphanAge that no
// record names; an orphan put into the bucket shows that they do collect.
// Half the images are uploaded first, and the other half once the first
// are older than the orphan age, so that the janitors consider aged images
// while others are being uploaded (whose contents are stored before their
// record commits). Once every image is older than that and each janitor
// has made a whole pass since, each image's contents and preview still
// download intact from both instances.
func checkJanitors(t *testing.T, bucket blob.S3Config, a, b string, provider testutil.Session, patientID string, logs []*proctest.Buffer) {
	client := s3test.NewClient(bucket)
	orphan := "images/" + uuid.NewString()
	if _, err := client.PutObject(context.Background(), &s3.PutObjectInput{Bucket: &bucket.Bucket, Key: &orphan,
		Body: strings.NewReader("no record names this")}); err != nil {
		t.Fatal(err)
	}

	type upload struct {
		id      string
		content []byte
	}
	uploads := make([]upload, 16)
	for i := range uploads {
		switch i % 4 {
		case 0: // with a stored preview
			uploads[i].content = proctest.ProbePNG(t, 32+i)
		case 3: // more than one S3 part
			uploads[i].content = []byte("%PDF-1.4\n" + strings.Repeat(fmt.Sprintf("part %d ", i), 6<<20/8) + "\n%%EOF\n")
		default:
			uploads[i].content = []byte("%PDF-1.4\n" + strings.Repeat(fmt.Sprintf("janitor %d ", i), 1000) + "\n%%EOF\n")
		}
	}
	uploadAll := func(from, to int) {
		var wg sync.WaitGroup
		errs := make([]error, len(uploads))
		for i := from; i < to; i++ {
			wg.Go(func() {
				upload, other := []string{a, b}[i%2], []string{b, a}[i%2]
				uploads[i].id, errs[i] = proctest.UploadFile(upload, provider.Token, patientID, fmt.Sprintf("janitor-%d", i), uploads[i].content)
				if errs[i] == nil && i%4 == 0 { // the preview stored by the other instance
					if _, status := proctest.FetchStatus(other+"/api/upload/image/"+uploads[i].id+"/preview", provider.Token); status != http.StatusOK {
						errs[i] = fmt.Errorf("preview: %d", status)
					}
				}
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("upload %d: %v", i, err)
			}
		}
	}
	// agedPass waits until each janitor has made a whole pass that began
	// once what was stored before it was called was older than the
	// orphan age.
	agedPass := func() {
		aged := time.Now().Add(instanceOrphanAge)
		testutil.Eventually(t, "a janitor pass of each instance over aged contents", func() bool {
			for _, l := range logs {
				if janitorPassesSince(l.String(), aged) < 2 { // the second began after the first ended
					return false
				}
			}
			return true
		})
	}
	uploadAll(0, len(uploads)/2)
	agedPass()
	uploadAll(len(uploads)/2, len(uploads))
	testutil.Eventually(t, "the janitors to remove the orphan", func() bool {
		_, err := client.HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: &bucket.Bucket, Key: &orphan})
		return err != nil
	})
	agedPass()
	for _, up := range uploads {
		for _, base := range []string{a, b} {
			got, status := proctest.Fetch(t, base+"/api/upload/image/"+up.id+"/content", provider.Token)
			if status != http.StatusOK || !bytes.Equal(got, up.content) {
				t.Errorf("%s: image %s: %d, %d bytes of %d intact", base, up.id, status, len(got), len(up.content))
			}
			if bytes.HasPrefix(up.content, []byte("\x89PNG")) {
				if _, status := proctest.Fetch(t, base+"/api/upload/image/"+up.id+"/preview", provider.Token); status != http.StatusOK {
					t.Errorf("%s: preview of %s: %d", base, up.id, status)
				}
			}
		}
	}
	for i, l := range logs {
		if strings.Contains(l.String(), "msg=janitor ") {
			t.Errorf("instance %d: the janitor failed:\n%s", i, l.String())
		}
	}
}

// janitorPassesSince counts the janitor passes that a text log records as
// ended at since or later.
func janitorPassesSince(log string, since time.Time) int {
	n := 0
	for _, line := range strings.Split(log, "\n") {
		stamp, ok := strings.CutPrefix(line, "time=")
		if !ok || !strings.Contains(line, `msg="janitor pass"`) {
			continue
		}
		stamp, _, _ = strings.Cut(stamp, " ")
		if at, err := time.Parse(time.RFC3339Nano, stamp); err == nil && !at.Before(since) {
			n++
		}
	}
	return n
}

// refresh renews a session with its refresh cookie, as the app does.
func refresh(t *testing.T, base, cookie string) testutil.Session {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/api/auth/refresh", nil)
	req.AddCookie(&http.Cookie{Name: "medishare_refresh", Value: cookie})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return testutil.ReadSession(t, resp)
}

// imageLink is the signed content link the instance at base gives for an image.
func imageLink(t *testing.T, base, token, id string) string {
	t.Helper()
	status, body := proctest.APIJSON(t, "GET", base+"/api/upload/image/"+id, token, nil)
	var out struct {
		Data struct {
			ImageURL string `json:"image_url"`
		}
	}
	if status != http.StatusOK || json.Unmarshal([]byte(body), &out) != nil || !strings.HasPrefix(out.Data.ImageURL, "/api/") {
		t.Fatalf("image %s: %d %s", id, status, body)
	}
	return out.Data.ImageURL
}
