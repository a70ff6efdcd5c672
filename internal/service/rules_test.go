package service

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/domain"
)

func TestNormalizeEmail(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{" Alice@Example.ORG ", "alice@example.org", true},
		{"alice@localhost", "alice@localhost", false},
		{"Alice <alice@example.org>", "alice <alice@example.org>", false},
		{"", "", false},
		{"a@b.c" + strings.Repeat("x", 260), "", false},
		{"no-at-sign.example.org", "no-at-sign.example.org", false},
	}
	for _, tt := range tests {
		got, ok := normalizeEmail(tt.in)
		if ok != tt.ok || (tt.want != "" && got != tt.want) {
			t.Errorf("normalizeEmail(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestNormalizeProfile(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	base := domain.Profile{Firstname: " Ada ", Lastname: "Lovelace", Gender: "female", DOB: "1990-02-03T00:00:00Z",
		TaxID: "T1", LicenseNumber: "L1", InsuranceNumber: "I1", Specialization: "Radiology", BloodGroup: "O+", PrimPhysician: "Dr X"}
	tests := []struct {
		name   string
		role   string
		in     domain.Profile
		want   domain.Profile
		fields []string // fields with an error
	}{
		{name: "a provider keeps provider details only", role: domain.RoleProvider, in: base,
			want: domain.Profile{Firstname: "Ada", Lastname: "Lovelace", Gender: "Female", DOB: "1990-02-03",
				TaxID: "T1", LicenseNumber: "L1", InsuranceNumber: "I1", Specialization: "Radiology"}},
		{name: "a patient keeps patient details only", role: domain.RolePatient, in: base,
			want: domain.Profile{Firstname: "Ada", Lastname: "Lovelace", Gender: "Female", DOB: "1990-02-03", BloodGroup: "O+", PrimPhysician: "Dr X"}},
		{name: "an admin keeps neither", role: domain.RoleAdmin, in: base,
			want: domain.Profile{Firstname: "Ada", Lastname: "Lovelace", Gender: "Female", DOB: "1990-02-03"}},
		{name: "names are required", role: domain.RolePatient, in: domain.Profile{Firstname: "  "}, fields: []string{"firstname", "lastname"}},
		{name: "too long", role: domain.RolePatient, in: domain.Profile{Firstname: "A", Lastname: "B", Zipcode: strings.Repeat("9", 21)}, fields: []string{"zipcode"}},
		{name: "control characters", role: domain.RolePatient, in: domain.Profile{Firstname: "A\x07", Lastname: "B"}, fields: []string{"firstname"}},
		{name: "a bio keeps its lines", role: domain.RolePatient, in: domain.Profile{Firstname: "A", Lastname: "B", Bio: "one\ntwo"},
			want: domain.Profile{Firstname: "A", Lastname: "B", Bio: "one\ntwo"}},
		{name: "a date in the future", role: domain.RolePatient, in: domain.Profile{Firstname: "A", Lastname: "B", DOB: "2030-01-01"}, fields: []string{"dob"}},
		{name: "not a date", role: domain.RolePatient, in: domain.Profile{Firstname: "A", Lastname: "B", DOB: "01/02/1990"}, fields: []string{"dob"}},
		{name: "an unknown gender", role: domain.RolePatient, in: domain.Profile{Firstname: "A", Lastname: "B", Gender: "x"}, fields: []string{"gender"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errs fieldErrors
			got := normalizeProfile(&errs, tt.in, tt.role, now)
			var fields []string
			for _, e := range errs {
				fields = append(fields, e.Field)
			}
			if strings.Join(fields, ",") != strings.Join(tt.fields, ",") {
				t.Fatalf("errors on %v, want %v", fields, tt.fields)
			}
			if tt.fields == nil && got != tt.want {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestApplyProfileChange(t *testing.T) {
	stored := domain.Profile{Firstname: "Ada", Lastname: "Lovelace", City: "London", BloodGroup: "O+"}
	tests := []struct {
		name   string
		role   string
		change ProfileChange
		want   domain.Profile
		fields []string // fields refused
	}{
		{name: "what is sent changes, the rest stays", role: domain.RolePatient,
			change: ProfileChange{"city": "Karachi", "primphysician": "Dr X"},
			want:   domain.Profile{Firstname: "Ada", Lastname: "Lovelace", City: "Karachi", BloodGroup: "O+", PrimPhysician: "Dr X"}},
		{name: "a provider's field from a patient is refused", role: domain.RolePatient,
			change: ProfileChange{"licensenumber": "L1", "specialization": "Radiology", "city": "Karachi"},
			fields: []string{"licensenumber", "specialization"}},
		{name: "a patient's field from a provider is refused", role: domain.RoleProvider,
			change: ProfileChange{"bloodgroup": "A+"}, fields: []string{"bloodgroup"}},
		{name: "an admin has no role's fields", role: domain.RoleAdmin,
			change: ProfileChange{"taxid": "T1", "primphysician": "Dr X"}, fields: []string{"taxid", "primphysician"}},
		{name: "another role's field sent empty changes nothing", role: domain.RoleProvider,
			change: ProfileChange{"bloodgroup": " ", "primphysician": "", "specialization": "Radiology"},
			want:   domain.Profile{Firstname: "Ada", Lastname: "Lovelace", City: "London", BloodGroup: "O+", Specialization: "Radiology"}},
		{name: "a name the table does not know is not a field", role: domain.RolePatient,
			change: ProfileChange{"role": "admin", "email": "x@example.org"}, want: stored},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errs fieldErrors
			got := applyProfileChange(&errs, stored, tt.change, tt.role)
			var fields []string
			for _, e := range errs {
				fields = append(fields, e.Field)
				if e.Message != "This field does not apply to your role." {
					t.Errorf("%s: %q", e.Field, e.Message)
				}
			}
			if strings.Join(fields, ",") != strings.Join(tt.fields, ",") {
				t.Fatalf("refused %v, want %v", fields, tt.fields)
			}
			if tt.fields == nil && got != tt.want {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestEscapeLike(t *testing.T) {
	if got := escapeLike(`50%_off\`); got != `50\%\_off\\` {
		t.Errorf("escapeLike = %q", got)
	}
}

func TestTruncate(t *testing.T) {
	if got := truncate("ééé", 3); got != "é" {
		t.Errorf("truncate cut a character: %q", got)
	}
	if got := truncate("abc", 10); got != "abc" {
		t.Errorf("truncate = %q", got)
	}
}

func TestLinks(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { return now }
	links := NewLinks([]byte("0123456789abcdef0123456789abcdef"), clock)
	p := &domain.Principal{SessionID: "session-1"}
	g := links.Sign(p, "image-1", LinkContent)
	if err := links.check(g, "image-1", LinkContent); err != nil {
		t.Fatalf("a fresh grant is refused: %v", err)
	}
	tests := []struct {
		name    string
		grant   Grant
		imageID string
		kind    string
		after   time.Duration
	}{
		{"another image", g, "image-2", LinkContent, 0},
		{"another kind", g, "image-1", LinkPreview, 0},
		{"another session", Grant{SessionID: "session-2", Expires: g.Expires, Signature: g.Signature}, "image-1", LinkContent, 0},
		{"a later expiry", Grant{SessionID: g.SessionID, Expires: g.Expires + 60, Signature: g.Signature}, "image-1", LinkContent, 0},
		{"expired", g, "image-1", LinkContent, SignedLinkTTL + time.Second},
		{"too far in the future", links.Sign(p, "image-1", LinkContent), "image-1", LinkContent, -2 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at := now.Add(tt.after)
			checker := NewLinks(links.key, func() time.Time { return at })
			if err := checker.check(tt.grant, tt.imageID, tt.kind); domain.ErrorKind(err) != domain.EUNAUTHENTICATED {
				t.Errorf("check = %v, want EUNAUTHENTICATED", err)
			}
		})
	}
}

func TestMailName(t *testing.T) {
	if got := mailName(domain.User{Verified: false, Profile: domain.Profile{Firstname: "Click http://evil"}}); got != "" {
		t.Errorf("an unconfirmed account's name goes into mail: %q", got)
	}
	if got := mailName(domain.User{Verified: true, Profile: domain.Profile{Firstname: "Ada"}}); got != "Ada" {
		t.Errorf("mailName = %q", got)
	}
}

type failingAuditWriter struct{}

func (failingAuditWriter) AppendAudit(context.Context, domain.AuditEntry) error {
	return domain.Errorf(domain.EUNAVAILABLE, "The service is temporarily unavailable.")
}

// An audit entry that cannot be written is counted for the metrics
// (medishare_audit_write_failures_total), and the failure is returned.
func TestAuditWriteFailuresAreCounted(t *testing.T) {
	before := AuditWriteFailures()
	err := record(context.Background(), failingAuditWriter{}, domain.RequestMeta{}, Event{Action: domain.ActionLogin})
	if err == nil || AuditWriteFailures() != before+1 {
		t.Fatalf("err %v, failures %d then %d", err, before, AuditWriteFailures())
	}
}

// A failed mail waits 5 s, then twice as long after each failure, never
// more than 10 minutes.
func TestMailBackoff(t *testing.T) {
	for attempts, want := range map[int]time.Duration{
		1: 5 * time.Second, 2: 10 * time.Second, 3: 20 * time.Second, 7: 320 * time.Second,
		8: 10 * time.Minute, 9: 10 * time.Minute, 100: 10 * time.Minute,
	} {
		if got := mailBackoff(attempts); got != want {
			t.Errorf("mailBackoff(%d) = %s, want %s", attempts, got, want)
		}
	}
}
