package httpapi_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"net/http"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/apptest"
)

func send(t *testing.T, from *apptest.Person, to, content string) *apptest.Response {
	t.Helper()
	return from.Do(t, "POST", "/api/message/send", map[string]any{"recipientId": to, "content": content})
}

func mustSend(t *testing.T, from *apptest.Person, to, content string) map[string]any {
	t.Helper()
	r := send(t, from, to, content)
	if r.Status != http.StatusCreated || r.Message() != "Message sent." {
		t.Fatalf("send %q: %d %s", content, r.Status, r.Raw)
	}
	return r.Data()
}

// TestMessagesReach: who may write to whom (api.md, Messages): a person in
// the sender's directory, or anyone who wrote to the sender first; never
// oneself, an unknown id or a deactivated account. A conversation with a
// person out of reach is a 404, and the refusals are audited.
func TestMessagesReach(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider, colleague := app.SignUp(t, domain.RoleProvider), app.SignUp(t, domain.RoleProvider)
	patient, other := app.SignUp(t, domain.RolePatient), app.SignUp(t, domain.RolePatient)
	admin := app.SignUp(t, domain.RoleAdmin)

	cannot := "Please choose an active user you may write to."
	for _, c := range []struct {
		name    string
		from    *apptest.Person
		to      string
		status  int
		message string
	}{
		{"provider to patient", provider, patient.ID, 201, "Message sent."},
		{"provider to provider", provider, colleague.ID, 201, "Message sent."},
		{"patient to provider", other, provider.ID, 201, "Message sent."},
		{"patient to admin", patient, admin.ID, 201, "Message sent."},
		{"admin to patient", admin, other.ID, 201, "Message sent."},
		{"provider to admin: not in a provider's directory", colleague, admin.ID, 422, cannot},
		{"patient to patient", patient, other.ID, 422, cannot},
		{"to oneself", patient, patient.ID, 422, "You cannot send a message to yourself."},
		{"to nobody", patient, "00000000-0000-0000-0000-000000000000", 422, cannot},
		{"to no id", patient, "not-an-id", 422, cannot},
	} {
		r := send(t, c.from, c.to, "hello")
		if r.Status != c.status || r.Message() != c.message {
			t.Errorf("%s: %d %s", c.name, r.Status, r.Raw)
		}
	}
	// Someone who wrote first may be answered, though outside the
	// directory: an admin is not in a provider's.
	if r := send(t, admin, colleague.ID, "a question"); r.Status != 201 {
		t.Fatalf("admin to provider: %d %s", r.Status, r.Raw)
	}
	mustSend(t, colleague, admin.ID, "an answer to someone outside my directory who wrote first")

	// A deactivated person can no longer be written to.
	if r := admin.Do(t, "PATCH", "/api/users/"+other.ID, map[string]any{"active": false}); r.Status != 200 {
		t.Fatalf("deactivate: %d %s", r.Status, r.Raw)
	}
	if r := send(t, provider, other.ID, "hello"); r.Status != 422 || r.Message() != cannot {
		t.Errorf("to a deactivated patient: %d %s", r.Status, r.Raw)
	}

	// Reading: a person one has never exchanged with and cannot reach is a 404.
	if r := patient.Do(t, "GET", "/api/message/chat/"+other.ID, nil); r.Status != 404 {
		t.Errorf("a patient reading another patient's conversation: %d %s", r.Status, r.Raw)
	}
	if r := patient.Do(t, "GET", "/api/message/chat/not-an-id", nil); r.Status != 404 {
		t.Errorf("no id: %d %s", r.Status, r.Raw)
	}
	if denied := testutil.AuditCount(t, app.DB.Pool, testutil.Audit{Action: "access_denied", Actor: patient.ID}); denied == 0 {
		t.Errorf("refusals of the patient audited: %d", denied)
	}
}

// TestMessagesContent: text is trimmed, 1 to 4000 characters counted as
// characters, kept as text (HTML included), sealed in the database and
// recorded in the audit log by id only.
func TestMessagesContent(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider, patient := app.SignUp(t, domain.RoleProvider), app.SignUp(t, domain.RolePatient)

	for _, blank := range []string{"", "   ", "\n\t "} {
		if r := send(t, provider, patient.ID, blank); r.Status != 422 || r.Message() != "Message cannot be empty." {
			t.Errorf("blank %q: %d %s", blank, r.Status, r.Raw)
		}
	}
	wide := strings.Repeat("é", domain.MessageMaxChars) // 8,000 bytes, 4,000 characters
	if m := mustSend(t, provider, patient.ID, "  "+wide+"\n"); m["content"] != wide {
		t.Error("a message of 4000 two-byte characters was not kept whole and trimmed")
	}
	if r := send(t, provider, patient.ID, wide+"é"); r.Status != 422 || r.Message() != "Message cannot be longer than 4000 characters." {
		t.Errorf("4001 characters: %d %s", r.Status, r.Raw)
	}
	html := `<script>alert("x")</script> your scan is ready`
	m := mustSend(t, provider, patient.ID, html)
	if m["content"] != html || m["senderId"] != provider.ID || m["recipientId"] != patient.ID || m["readAt"] != nil || m["image"] != nil {
		t.Errorf("sent: %v", m)
	}
	if r := patient.Do(t, "GET", "/api/message/chat/"+provider.ID, nil); r.List()[1]["content"] != html {
		t.Errorf("read back: %s", r.Raw)
	}

	// A dump of the whole database holds none of the texts, as text or as
	// the hex in which it writes bytea.
	dump, err := exec.Command("pg_dump", "--data-only", app.DatabaseURL()).Output()
	if err != nil {
		t.Fatalf("pg_dump: %v", err)
	}
	if !bytes.Contains(dump, []byte("COPY public.messages")) || bytes.Contains(dump, []byte("scan is ready")) ||
		bytes.Contains(dump, []byte(hex.EncodeToString([]byte("scan is ready")))) || bytes.Contains(dump, []byte("éééé")) {
		t.Error("pg_dump shows message text (or no messages table)")
	}
	ctx := context.Background()
	var clear int
	if err := app.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM messages WHERE position('scan is ready'::bytea in sealed) > 0 OR position('éééé'::bytea in sealed) > 0`).Scan(&clear); err != nil || clear != 0 {
		t.Errorf("clear text in the messages table: %d rows (%v)", clear, err)
	}
	var leaked int
	audited := testutil.AuditCount(t, app.DB.Pool, testutil.Audit{Action: "message_send", Record: m["id"].(string), Actor: provider.ID})
	_ = app.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE reason LIKE '%scan%'`).Scan(&leaked)
	if audited != 1 || leaked != 0 {
		t.Errorf("audit: %d entries of the send, %d with its text", audited, leaked)
	}
}

// TestMessagesAttachment: a message may be about an image both people can
// see already (the recipient through a verified share), and carries its id
// and caption; attaching grants nothing, and what stops one from seeing the
// image stops the attaching.
func TestMessagesAttachment(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider, colleague, patient := app.SignUp(t, domain.RoleProvider), app.SignUp(t, domain.RoleProvider), app.SignUp(t, domain.RolePatient)
	imageID := sharedImage(t, provider, patient.ID)
	attach := func(from *apptest.Person, to string) *apptest.Response {
		t.Helper()
		return from.Do(t, "POST", "/api/message/send", map[string]any{"recipientId": to, "content": "about this image", "imageId": imageID})
	}
	refused := "Please choose an image you both may see."
	if r := attach(provider, patient.ID); r.Status != 422 || r.Message() != refused {
		t.Errorf("the patient has no share: %d %s", r.Status, r.Raw)
	}
	shareID, code := share(t, app, provider, patient, imageID, nil)
	if r := attach(provider, patient.ID); r.Status != 422 {
		t.Errorf("the patient's share is not verified: %d %s", r.Status, r.Raw)
	}
	if r := verify(t, patient, shareID, code); r.Status != 200 {
		t.Fatalf("verify: %d %s", r.Status, r.Raw)
	}
	r := attach(provider, patient.ID)
	image, _ := r.Data()["image"].(map[string]any)
	if r.Status != 201 || image["id"] != imageID || image["caption"] != "Scan knee.jpg" {
		t.Fatalf("attached: %d %s", r.Status, r.Raw)
	}
	page := patient.Do(t, "GET", "/api/message/chat/"+provider.ID, nil).List()
	if got, _ := page[0]["image"].(map[string]any); got["id"] != imageID {
		t.Errorf("the recipient's conversation: %v", page[0])
	}
	if r := attach(patient, provider.ID); r.Status != 201 {
		t.Errorf("the patient answering about the image: %d %s", r.Status, r.Raw)
	}
	if r := attach(colleague, patient.ID); r.Status != 422 {
		t.Errorf("a colleague who cannot see the image: %d %s", r.Status, r.Raw)
	}
	if r := provider.Do(t, "POST", "/api/message/send", map[string]any{"recipientId": patient.ID, "content": "x", "imageId": "00000000-0000-0000-0000-000000000000"}); r.Status != 422 || r.Message() != refused {
		t.Errorf("no such image: %d %s", r.Status, r.Raw)
	}

	// Revoked: the message stays, but grants nothing.
	if r := provider.Do(t, "DELETE", "/api/sharing/"+shareID, nil); r.Status != 200 {
		t.Fatalf("revoke: %d %s", r.Status, r.Raw)
	}
	if r := patient.Do(t, "GET", "/api/upload/image/"+imageID, nil); r.Status != 404 {
		t.Errorf("the image after revocation, to the patient who had it in a message: %d", r.Status)
	}
	if r := attach(provider, patient.ID); r.Status != 422 {
		t.Errorf("attaching after revocation: %d %s", r.Status, r.Raw)
	}
}

// TestMessagesConversation: pages go back through history with no gap or
// repeat, oldest first within a page; reading marks what the other person
// wrote read; the chat list has one row per person, newest first, with
// the unread count.
func TestMessagesConversation(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider, patient, second := app.SignUp(t, domain.RoleProvider), app.SignUp(t, domain.RolePatient), app.SignUp(t, domain.RolePatient)
	const n = 25
	var sent []string
	for i := range n {
		from, to := provider, patient.ID
		if i%3 == 2 {
			from, to = patient, provider.ID
		}
		sent = append(sent, mustSend(t, from, to, "message "+strconv.Itoa(i))["id"].(string))
	}
	mustSend(t, provider, second.ID, "to the second patient")

	chats := patient.Do(t, "GET", "/api/message/chat-list", nil).List()
	if len(chats) != 1 || chats[0]["id"] != provider.ID || chats[0]["unread"] != float64(17) {
		t.Fatalf("the patient's chat list: %v", chats)
	}
	last := chats[0]["lastMessage"].(map[string]any)
	if last["content"] != "message 24" || last["senderId"] != provider.ID {
		t.Errorf("last message: %v", last)
	}
	chats = provider.Do(t, "GET", "/api/message/chat-list", nil).List()
	if len(chats) != 2 || chats[0]["id"] != second.ID || chats[1]["id"] != patient.ID || chats[1]["unread"] != float64(8) {
		t.Errorf("the provider's chat list: %v", chats)
	}

	var got []string
	before := ""
	for pages := 0; ; pages++ {
		path := "/api/message/chat/" + provider.ID + "?limit=10"
		if before != "" {
			path += "&before=" + before
		}
		r := patient.Do(t, "GET", path, nil)
		if r.Status != 200 {
			t.Fatalf("page: %d %s", r.Status, r.Raw)
		}
		var ids []string
		for _, m := range r.List() {
			ids = append(ids, m["id"].(string))
			if m["recipientId"] == patient.ID && m["readAt"] == nil {
				t.Errorf("a received message on the page is not read: %v", m)
			}
		}
		got = append(ids, got...)
		p := r.Body["pagination"].(map[string]any)
		if p["hasMore"] != true {
			break
		}
		before = p["before"].(string)
		if pages > 5 {
			t.Fatal("the pages never end")
		}
	}
	if strings.Join(got, ",") != strings.Join(sent, ",") {
		t.Errorf("history: %d messages, not the %d sent in order", len(got), len(sent))
	}
	if chats := patient.Do(t, "GET", "/api/message/chat-list", nil).List(); chats[0]["unread"] != float64(0) {
		t.Errorf("unread after reading: %v", chats[0]["unread"])
	}
	// The sender sees their messages read.
	mine := provider.Do(t, "GET", "/api/message/chat/"+patient.ID+"?limit=1", nil).List()
	if mine[0]["readAt"] == nil {
		t.Errorf("the provider's newest message, read by the patient: %v", mine[0])
	}
	for _, bad := range []string{"?limit=0", "?limit=101", "?limit=x"} {
		if r := patient.Do(t, "GET", "/api/message/chat/"+provider.ID+bad, nil); r.Status != 422 {
			t.Errorf("%s: %d", bad, r.Status)
		}
	}
	if r := patient.Do(t, "GET", "/api/message/chat/"+provider.ID+"?before="+sent[0][:8], nil); r.Status != 404 {
		t.Errorf("before no message: %d", r.Status)
	}
	other := mustSend(t, provider, second.ID, "x")["id"].(string)
	if r := patient.Do(t, "GET", "/api/message/chat/"+provider.ID+"?before="+other, nil); r.Status != 404 {
		t.Errorf("before a message of another conversation: %d", r.Status)
	}
}

// TestMessagesThrottle: at most 30 messages a minute per sender.
func TestMessagesThrottle(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider, patient := app.SignUp(t, domain.RoleProvider), app.SignUp(t, domain.RolePatient)
	for i := range 30 {
		mustSend(t, provider, patient.ID, "m"+strconv.Itoa(i))
	}
	r := send(t, provider, patient.ID, "one too many")
	if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" {
		t.Fatalf("31st message: %d %s", r.Status, r.Raw)
	}
	// The window is measured by the database clock: move it there.
	if _, err := app.DB.Pool.Exec(context.Background(), "UPDATE throttles SET window_start = window_start - interval '61 seconds'"); err != nil {
		t.Fatal(err)
	}
	mustSend(t, provider, patient.ID, "a minute later")
}

// TestAttachmentAfterAccessEnds: once its reader may no longer see the
// image (the share revoked or expired, the image deleted), a message about
// it shows only that the image is no longer available, without its id or
// caption, wherever the message is read: the conversation, the chat list,
// the stream's replay, and a live event of it that arrives afterwards (as a
// notice from another instance may). Whoever still sees the image still
// sees its caption.
func TestAttachmentAfterAccessEnds(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		end  func(t *testing.T, app *apptest.App, provider *apptest.Person, imageID, shareID string)
		// uploaderSees: the provider who uploaded the image still sees it.
		uploaderSees bool
	}{
		{"revoked", func(t *testing.T, _ *apptest.App, provider *apptest.Person, _, shareID string) {
			if r := provider.Do(t, "DELETE", "/api/sharing/"+shareID, nil); r.Status != http.StatusOK {
				t.Fatalf("revoke: %d %s", r.Status, r.Raw)
			}
		}, true},
		{"expired", func(t *testing.T, app *apptest.App, _ *apptest.Person, _, _ string) {
			app.Clock.Shift(61 * time.Minute) // past the share's hour
		}, true},
		{"image deleted", func(t *testing.T, _ *apptest.App, provider *apptest.Person, imageID, _ string) {
			if r := provider.Do(t, "DELETE", "/api/upload/image/"+imageID, nil); r.Status != http.StatusOK {
				t.Fatalf("delete: %d %s", r.Status, r.Raw)
			}
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			app := apptest.New(t)
			provider, patient := app.SignUp(t, domain.RoleProvider), app.SignUp(t, domain.RolePatient)
			const caption = "Scan kneecap-7731.jpg"
			r := upload(t, provider, patient.ID, "kneecap-7731.jpg", jpegBytes(t))
			if r.Status != http.StatusCreated {
				t.Fatalf("upload: %d %s", r.Status, r.Raw)
			}
			imageID := r.Data()["id"].(string)
			shareID, code := share(t, app, provider, patient, imageID, map[string]any{"expiresInHours": 1})
			if r := verify(t, patient, shareID, code); r.Status != http.StatusOK {
				t.Fatalf("verify: %d %s", r.Status, r.Raw)
			}
			before := mustSend(t, provider, patient.ID, "your scan is ready")["id"].(string)
			r = provider.Do(t, "POST", "/api/message/send", map[string]any{"recipientId": patient.ID, "content": "about this one", "imageId": imageID})
			if r.Status != http.StatusCreated {
				t.Fatalf("attach: %d %s", r.Status, r.Raw)
			}
			about := r.Data()["id"].(string)
			available := map[string]any{"available": true, "id": imageID, "caption": caption}
			if got := imageOf(patient.Do(t, "GET", "/api/message/chat/"+provider.ID, nil).List(), about); !reflect.DeepEqual(got, available) {
				t.Fatalf("the attachment while the share is open: %v", got)
			}

			c.end(t, app, provider, imageID, shareID)
			patient.SignIn(t) // the clock may have moved past the access token
			provider.SignIn(t)

			gone := map[string]any{"available": false}
			conv := patient.Do(t, "GET", "/api/message/chat/"+provider.ID, nil)
			if got := imageOf(conv.List(), about); !reflect.DeepEqual(got, gone) || strings.Contains(string(conv.Raw), "kneecap") {
				t.Errorf("the patient's conversation: %s", conv.Raw)
			}
			if chats := patient.Do(t, "GET", "/api/message/chat-list", nil); chats.Status != http.StatusOK || strings.Contains(string(chats.Raw), "kneecap") {
				t.Errorf("the patient's chat list: %d %s", chats.Status, chats.Raw)
			}
			want := gone
			if c.uploaderSees {
				want = available
			}
			if got := imageOf(provider.Do(t, "GET", "/api/message/chat/"+patient.ID, nil).List(), about); !reflect.DeepEqual(got, want) {
				t.Errorf("the uploader's conversation: %v, want %v", got, want)
			}

			// The stream: the replay after a reconnect, then the same
			// message's notice arriving live.
			_, events := openStream(t, app, patient, before)
			streamed := func(how string) {
				t.Helper()
				for {
					ev := next(t, events, "message")
					if ev.ID != about {
						continue
					}
					if !reflect.DeepEqual(ev.Data["image"], gone) || strings.Contains(fmt.Sprint(ev.Data), "kneecap") {
						t.Errorf("%s: %v", how, ev.Data)
					}
					return
				}
			}
			streamed("replayed")
			if _, err := app.DB.Pool.Exec(context.Background(), "SELECT pg_notify('medishare_events', $1)", "message:"+about); err != nil {
				t.Fatal(err)
			}
			streamed("live")
		})
	}
}

// imageOf is the image of the message id among msgs.
func imageOf(msgs []map[string]any, id string) any {
	for _, m := range msgs {
		if m["id"] == id {
			return m["image"]
		}
	}
	return "no such message"
}

// TestAttachingTellsNothingOfOthersShares: someone who sees an image
// through a share may attach it for its uploader, who shared it with them,
// or an admin, whom they know to see it; for anyone else the answer is the
// same refusal whether or not that person holds a verified share, so it
// never tells them who else does (api.md, Messages). The uploader may know
// every share of their image and is answered as before. An image that
// does not exist is refused, and recorded, like one the sender does not see.
func TestAttachingTellsNothingOfOthersShares(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	owner, patient := app.SignUp(t, domain.RoleProvider), app.SignUp(t, domain.RolePatient)
	caller, holder, pending, stranger := app.SignUp(t, domain.RoleProvider), app.SignUp(t, domain.RoleProvider),
		app.SignUp(t, domain.RoleProvider), app.SignUp(t, domain.RoleProvider)
	admin := app.SignUp(t, domain.RoleAdmin)
	mustSend(t, admin, caller.ID, "write to me about anything") // an admin is outside a provider's directory
	imageID := sharedImage(t, owner, patient.ID)
	for _, p := range []*apptest.Person{caller, holder} {
		shareID, code := share(t, app, owner, p, imageID, nil)
		if r := verify(t, p, shareID, code); r.Status != http.StatusOK {
			t.Fatalf("verify: %d %s", r.Status, r.Raw)
		}
	}
	share(t, app, owner, pending, imageID, nil) // not verified
	attach := func(from *apptest.Person, to, image string) *apptest.Response {
		t.Helper()
		return from.Do(t, "POST", "/api/message/send", map[string]any{"recipientId": to, "content": "about this image", "imageId": image})
	}
	answer := func(r *apptest.Response) string { return fmt.Sprint(r.Status, " ", r.Message(), " ", r.Body["errors"]) }

	for _, to := range []*apptest.Person{owner, admin} {
		if r := attach(caller, to.ID, imageID); r.Status != http.StatusCreated {
			t.Errorf("through a share, for the %s: %d %s", to.Role, r.Status, r.Raw)
		}
	}
	refused := answer(attach(caller, stranger.ID, imageID))
	if !strings.HasPrefix(refused, "422 Please choose an image you both may see.") {
		t.Fatalf("through a share, for someone without one: %s", refused)
	}
	for name, to := range map[string]*apptest.Person{"a verified share": holder, "a share not verified": pending} {
		if got := answer(attach(caller, to.ID, imageID)); got != refused {
			t.Errorf("through a share, for someone with %s: %s; for someone without one: %s", name, got, refused)
		}
	}
	// The caller's own log reads the same for each of them.
	var reasons []string
	for _, e := range auditPage(t, caller, "limit=20&action=access_denied").List() {
		reason := e["reason"].(string)
		for _, p := range []*apptest.Person{holder, pending, stranger} {
			reason = strings.ReplaceAll(reason, p.ID, "someone")
		}
		reasons = append(reasons, fmt.Sprint(e["recordId"], " ", reason))
	}
	if len(reasons) != 3 || reasons[0] != reasons[1] || reasons[1] != reasons[2] {
		t.Errorf("the caller's refusals:\n%s", strings.Join(reasons, "\n"))
	}

	// The uploader knows who holds a verified share.
	if r := attach(owner, holder.ID, imageID); r.Status != http.StatusCreated {
		t.Errorf("the uploader, for a holder: %d %s", r.Status, r.Raw)
	}
	if r := attach(owner, stranger.ID, imageID); answer(r) != refused {
		t.Errorf("the uploader, for someone without a share: %d %s", r.Status, r.Raw)
	}

	// An image one does not see and one that does not exist: the same
	// answer, and the same trace in one's own log.
	noImage := uuid.NewString()
	there, absent := attach(stranger, owner.ID, imageID), attach(stranger, owner.ID, noImage)
	if answer(there) != refused || answer(absent) != refused {
		t.Errorf("an image the sender does not see: %s; none: %s", answer(there), answer(absent))
	}
	trace := map[string]string{}
	for _, e := range auditPage(t, stranger, "limit=20&action=access_denied").List() {
		trace[e["recordId"].(string)] = fmt.Sprint(e["tablename"], " ", e["status"], " ", e["reason"])
	}
	if trace[imageID] == "" || trace[imageID] != trace[noImage] {
		t.Errorf("the sender's log: %q about the image, %q about none", trace[imageID], trace[noImage])
	}
}
