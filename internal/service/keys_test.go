package service_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/medimg/synth"
	"github.com/medishare/medishare/internal/secure"
	"github.com/medishare/medishare/internal/service"
	"github.com/medishare/medishare/internal/testutil/apptest"
)

// TestKeyRotation: what the stack stored under its master key (a file's
// key, a preview's key, a message, an analysis, a queued mail) is moved to
// a new key, each record once; a second rotation finds nothing left; a
// record under neither key stops the rotation and is named.
func TestKeyRotation(t *testing.T) {
	ctx := context.Background()
	app := apptest.New(t)
	provider, patient := app.SignUp(t, domain.RoleProvider), app.SignUp(t, domain.RolePatient)
	r := provider.Upload(t, [][2]string{{"caption", "rotation"}, {"patientId", patient.ID}, {"file"}}, "scan.png", pngFile(t))
	if r.Status != 201 {
		t.Fatalf("upload: %d %s", r.Status, r.Raw)
	}
	imageID := r.Data()["id"].(string)
	study := provider.Upload(t, [][2]string{{"caption", "study"}, {"patientId", patient.ID}, {"file"}}, "ct.dcm",
		synth.NewPixels(8, 8).File(synth.Study("Doe^Jane", "P-1", "CT", "CT", 1)[0]))
	if study.Status != 201 {
		t.Fatalf("upload a study: %d %s", study.Status, study.Raw)
	}
	studyID := study.Data()["id"].(string)
	if resp, _ := provider.Get(t, "/api/upload/image/"+imageID+"/preview", nil); resp.StatusCode != 200 {
		t.Fatalf("preview: %d", resp.StatusCode)
	}
	analysis := provider.Do(t, "GET", "/api/analyze/"+imageID, nil)
	if analysis.Status != 200 {
		t.Fatalf("analysis: %d %s", analysis.Status, analysis.Raw)
	}
	const text = "Your scan is ready."
	if r := provider.Do(t, "POST", "/api/message/send", map[string]string{"recipientId": patient.ID, "content": text}); r.Status != 201 {
		t.Fatalf("send: %d %s", r.Status, r.Raw)
	}
	old, err := secure.NewTextSealer(apptest.MasterKey)
	if err != nil {
		t.Fatal(err)
	}
	// Due tomorrow, so the stack's own outbox leaves it queued.
	queue := func(sealer *secure.TextSealer, plain string) string {
		id := uuid.NewString()
		if _, err := app.DB.Pool.Exec(ctx, `INSERT INTO mail_outbox (id, sealed, next_attempt_at) VALUES ($1, $2, now() + interval '1 day')`,
			id, sealer.Seal(id, plain)); err != nil {
			t.Fatal(err)
		}
		return id
	}
	const mail = `{"To":"p@clinic.test","Subject":"code","Text":"Your code is 123456"}`
	mailID := queue(old, mail)
	// An authenticator secret, sealed to its person.
	setup := patient.Do(t, "POST", "/api/auth/mfa/totp/setup", nil)
	if setup.Status != 200 {
		t.Fatalf("authenticator setup: %d %s", setup.Status, setup.Raw)
	}
	totpSecret, _ := setup.Data()["secret"].(string)

	newKey := make([]byte, 32)
	_, _ = rand.Read(newKey) // never fails
	keys, err := secure.NewEnvelope(newKey)
	if err != nil {
		t.Fatal(err)
	}
	texts, err := secure.NewTextSealer(newKey)
	if err != nil {
		t.Fatal(err)
	}
	oldKeys, err := secure.NewEnvelope(apptest.MasterKey)
	if err != nil {
		t.Fatal(err)
	}
	// What each record holds, read under the old key, and read again
	// under the new one after the rotation.
	type held map[string]string
	read := func(under *secure.Envelope, sealer *secure.TextSealer, other []byte, otherTexts []byte) held {
		t.Helper()
		out := held{}
		fileKeys, err := app.Store.KeysNotUnder(ctx, other)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range fileKeys {
			key, err := under.Unwrap(k.Wrapped, k.ImageID)
			if err != nil || !bytes.Equal(k.KeyID, under.KeyID()) {
				t.Fatalf("the key of image %s: %v", k.ImageID, err)
			}
			out["file "+k.ImageID] = string(key)
		}
		instances, err := app.Store.InstanceKeysNotUnder(ctx, other)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range instances {
			key, err := under.Unwrap(k.Wrapped, k.ImageID)
			if err != nil {
				t.Fatalf("the key of instance %s: %v", k.ImageID, err)
			}
			out["instance "+k.ImageID] = string(key)
		}
		studies, err := app.Store.StudiesNotUnder(ctx, otherTexts)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range studies {
			plain, err := sealer.Open("study/"+st.ID, st.Sealed)
			if err != nil {
				t.Fatalf("study %s: %v", st.ID, err)
			}
			out["study "+st.ID] = plain
		}
		previews, err := app.Store.PreviewKeysNotUnder(ctx, other)
		if err != nil {
			t.Fatal(err)
		}
		for _, pv := range previews {
			key, err := under.Unwrap(pv.WrappedKey, pv.FileID())
			if err != nil {
				t.Fatalf("the preview key of image %s: %v", pv.ImageID, err)
			}
			out["preview "+pv.ImageID] = string(key)
		}
		totps, err := app.Store.TOTPNotUnder(ctx, otherTexts)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range totps {
			plain, err := sealer.Open(domain.TOTPSealID(st.ID), st.Sealed)
			if err != nil {
				t.Fatalf("authenticator secret of %s: %v", st.ID, err)
			}
			out["totp "+st.ID] = plain
		}
		for what, list := range map[string]func(context.Context, []byte) ([]domain.SealedText, error){
			"message": app.Store.MessagesNotUnder, "analysis": app.Store.AnalysesNotUnder, "mail": app.Store.MailNotUnder,
		} {
			sealed, err := list(ctx, otherTexts)
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range sealed {
				plain, err := sealer.Open(st.ID, st.Sealed)
				if err != nil {
					t.Fatalf("%s %s: %v", what, st.ID, err)
				}
				out[what+" "+st.ID] = plain
			}
		}
		return out
	}
	before := read(oldKeys, old, keys.KeyID(), texts.KeyID())
	if len(before) != 9 || before["totp "+patient.ID] != totpSecret || before["mail "+mailID] != mail || before["file "+imageID] == "" || before["preview "+imageID] == "" ||
		before["instance "+studyID] != before["file "+studyID] || !strings.Contains(before["study "+studyID], "Doe^Jane") {
		t.Fatalf("before the rotation: %d records %v", len(before), before)
	}
	rotation := service.NewKeyRotationService(app.Store, keys, texts)

	if _, err := rotation.Rotate(ctx, []byte("too short")); domain.ErrorKind(err) != domain.EINVALID {
		t.Fatalf("an old key of the wrong length: %v", err)
	}
	done, err := rotation.Rotate(ctx, apptest.MasterKey)
	if want := (service.Rotated{FileKeys: 2, InstanceKeys: 1, PreviewKeys: 1, Messages: 1, Analyses: 1, Mails: 1, Studies: 1, TOTPSecrets: 1}); err != nil || done != want {
		t.Fatalf("rotate: %+v %v, want %+v", done, err, want)
	}
	if again, err := rotation.Rotate(ctx, apptest.MasterKey); err != nil || again != (service.Rotated{}) {
		t.Fatalf("a second rotation: %+v %v, want nothing moved", again, err)
	}
	after := read(keys, texts, oldKeys.KeyID(), old.KeyID())
	if len(after) != len(before) {
		t.Errorf("after the rotation, %d records under the new key, want %d", len(after), len(before))
	}
	for record, plain := range before {
		if after[record] != plain {
			t.Errorf("%s changed with the rotation", record)
		}
	}
	for record, plain := range before {
		if strings.HasPrefix(record, "message ") && plain != text {
			t.Errorf("%s read %q, want %q", record, plain, text)
		}
	}

	// A mail under a third key: the rotation names it and stops.
	stranger, err := secure.NewTextSealer(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	strangeID := queue(stranger, mail)
	_, err = service.NewKeyRotationService(app.Store, keys, texts).Rotate(ctx, apptest.MasterKey)
	if domain.ErrorKind(err) != domain.EINVALID || !strings.Contains(domain.ErrorMessage(err), "queued mail "+strangeID) {
		t.Errorf("a mail under neither key: %v", err)
	}
}

func pngFile(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	for x := range 64 {
		img.Set(x, x, color.RGBA{200, 30, 30, 255})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
