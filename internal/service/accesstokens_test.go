package service_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/service"
	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/apptest"
)

func days(n int) *int { return &n }

// TestAccessTokenPrincipal: a token's caller is its owner as a session
// shows them (the role's permissions now), but with no session; a role
// change reaches a token at its next use; a token cannot manage tokens.
func TestAccessTokenPrincipal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	app := apptest.New(t)
	admin := app.SignUp(t, domain.RoleAdmin)
	provider := app.SignUp(t, domain.RoleProvider)
	tokens := app.Services.AccessTokens
	meta := domain.RequestMeta{IP: "192.0.2.7", UserAgent: "Orthanc"}

	session, err := app.Services.Sessions.Authenticate(ctx, provider.Token)
	if err != nil {
		t.Fatal(err)
	}
	made, err := tokens.Create(ctx, session, service.NewAccessToken{Name: "PACS", ExpiresInDays: days(30)}, meta)
	if err != nil {
		t.Fatal(err)
	}
	p, err := tokens.Authenticate(ctx, made.Secret, meta)
	if err != nil {
		t.Fatal(err)
	}
	if p.User.ID != provider.ID || p.SessionID != "" || p.AccessTokenID != made.ID || !slices.Equal(p.Permissions, session.Permissions) {
		t.Fatalf("token principal %+v, session principal %+v", p, session)
	}
	if n := testutil.AuditCount(t, app.DB.Pool, testutil.Audit{Action: "token_use", Record: made.ID, Actor: provider.ID}); n != 1 {
		t.Fatalf("token_use entries: %d", n)
	}

	if r := admin.Do(t, "PATCH", "/api/users/"+provider.ID, map[string]any{"role": domain.RolePatient}); r.Status != 200 {
		t.Fatalf("role change: %d %s", r.Status, r.Raw)
	}
	p, err = tokens.Authenticate(ctx, made.Secret, meta)
	if err != nil {
		t.Fatal(err)
	}
	if p.Can(domain.PermImagesUpload) || !p.Can(domain.PermImagesViewShared) {
		t.Fatalf("permissions after the role change: %v", p.Permissions)
	}

	if _, err := tokens.Create(ctx, p, service.NewAccessToken{Name: "x", ExpiresInDays: days(1)}, meta); domain.ErrorKind(err) != domain.EFORBIDDEN {
		t.Errorf("a token making a token: %v", err)
	}
	if err := tokens.Revoke(ctx, p, made.ID, meta); domain.ErrorKind(err) != domain.EFORBIDDEN {
		t.Errorf("a token revoking a token: %v", err)
	}
	if n := testutil.AuditCount(t, app.DB.Pool, testutil.Audit{Action: "access_denied", Table: "access_tokens", Actor: provider.ID}); n != 2 {
		t.Errorf("refusals recorded: %d, want 2", n)
	}
}

// TestAccessTokenAuthenticate: what Authenticate refuses, always as a bad
// access token, and when it marks a token used.
func TestAccessTokenAuthenticate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	app := apptest.New(t)
	patient := app.SignUp(t, domain.RolePatient)
	tokens := app.Services.AccessTokens
	p, err := app.Services.Sessions.Authenticate(ctx, patient.Token)
	if err != nil {
		t.Fatal(err)
	}
	made, err := tokens.Create(ctx, p, service.NewAccessToken{Name: "Viewer", ExpiresInDays: days(2)}, domain.RequestMeta{})
	if err != nil {
		t.Fatal(err)
	}
	lastUsed := func() *time.Time {
		var at *time.Time
		if err := app.DB.Pool.QueryRow(ctx, `SELECT last_used_at FROM access_tokens WHERE id = $1`, made.ID).Scan(&at); err != nil {
			t.Fatal(err)
		}
		return at
	}
	if lastUsed() != nil {
		t.Fatal("a new token is marked used")
	}
	for _, secret := range []string{"", "msp_", made.Secret[4:], made.Secret + "x", patient.Token} {
		if _, err := tokens.Authenticate(ctx, secret, domain.RequestMeta{}); domain.ErrorKind(err) != domain.EUNAUTHENTICATED || domain.ErrorMessage(err) != "Invalid or expired token" {
			t.Errorf("Authenticate(%q): %v", secret, err)
		}
	}
	if _, err := tokens.Authenticate(ctx, made.Secret, domain.RequestMeta{}); err != nil {
		t.Fatal(err)
	}
	first := lastUsed()
	if first == nil {
		t.Fatal("use not recorded")
	}
	app.Clock.Shift(30 * time.Second)
	if _, err := tokens.Authenticate(ctx, made.Secret, domain.RequestMeta{}); err != nil {
		t.Fatal(err)
	}
	if !lastUsed().Equal(*first) {
		t.Errorf("last_used_at moved within the minute")
	}
	app.Clock.Shift(2 * 24 * time.Hour)
	if _, err := tokens.Authenticate(ctx, made.Secret, domain.RequestMeta{}); domain.ErrorKind(err) != domain.EUNAUTHENTICATED {
		t.Errorf("expired token: %v", err)
	}
}

// TestAccessTokenCapUnderConcurrency: creations at once cannot pass the
// cap of live tokens together.
func TestAccessTokenCapUnderConcurrency(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	tokens := app.Services.AccessTokens
	p, err := app.Services.Sessions.Authenticate(ctx, provider.Token)
	if err != nil {
		t.Fatal(err)
	}
	for range domain.AccessTokenMaxLive - 2 {
		if _, err := tokens.Create(ctx, p, service.NewAccessToken{Name: "m", ExpiresInDays: days(10)}, domain.RequestMeta{}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 10)
	for range 10 {
		wg.Go(func() {
			_, err := tokens.Create(ctx, p, service.NewAccessToken{Name: "race", ExpiresInDays: days(10)}, domain.RequestMeta{})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	made, refused := 0, 0
	for err := range errs {
		switch {
		case err == nil:
			made++
		case domain.ErrorKind(err) == domain.EVALIDATION:
			refused++
		default:
			t.Errorf("create: %v", err)
		}
	}
	list, err := tokens.List(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if made != 2 || refused != 8 || len(list) != domain.AccessTokenMaxLive {
		t.Fatalf("made %d, refused %d, listed %d", made, refused, len(list))
	}
}
