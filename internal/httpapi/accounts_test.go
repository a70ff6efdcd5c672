package httpapi_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/secure"
	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/apptest"
)

func TestRegisterConfirmAndSignIn(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	c := app.Client()
	reg := apptest.Registration(domain.RolePatient)
	reg["email"] = "  Mixed.Case@Clinic.TEST "
	reg["active"], reg["verified"] = false, true // server-owned: ignored (S7)
	reg["licensenumber"], reg["bloodgroup"], reg["gender"] = "LIC-1", "O+", "fEmAlE"

	r := c.Do(t, "POST", "/api/auth/register", reg)
	if r.Status != http.StatusCreated || r.Message() != "Registration successful!" || r.Data()["email"] != "mixed.case@clinic.test" {
		t.Fatalf("register: %d %s", r.Status, r.Raw)
	}
	email := "mixed.case@clinic.test"
	login := map[string]string{"email": email, "password": reg["password"].(string)}
	if r := c.Do(t, "POST", "/api/auth/login", login); r.Status != http.StatusForbidden || r.Body["error"] != "account_not_verified" ||
		r.Message() != "Please verify your account before logging in." {
		t.Fatalf("login before confirmation: %d %s", r.Status, r.Raw)
	}

	code := app.Mailbox.Code(t, email, "Your MediShare confirmation code", `confirmation code is (\d{4})`)
	wrong := "0000"
	if code == wrong {
		wrong = "1111"
	}
	if r := c.Do(t, "POST", "/api/auth/confirm", map[string]string{"email": email, "code": wrong}); r.Status != http.StatusBadRequest || r.Message() != "Invalid code. 4 attempts left." {
		t.Fatalf("wrong code: %d %s", r.Status, r.Raw)
	}
	if r := c.Do(t, "POST", "/api/auth/confirm", map[string]string{"email": email, "code": "12a4"}); r.Status != http.StatusUnprocessableEntity {
		t.Fatalf("non-digit code: %d %s", r.Status, r.Raw)
	}
	if r := c.Do(t, "POST", "/api/auth/confirm", map[string]string{"email": email, "code": code}); r.Status != http.StatusOK {
		t.Fatalf("confirm: %d %s", r.Status, r.Raw)
	}
	if r := c.Do(t, "POST", "/api/auth/confirm", map[string]string{"email": email, "code": code}); r.Status != http.StatusBadRequest {
		t.Fatalf("code used twice: %d %s", r.Status, r.Raw)
	}

	r = c.Do(t, "POST", "/api/auth/login", login)
	if r.Status != http.StatusOK || r.Data()["token"] == "" {
		t.Fatalf("login: %d %s", r.Status, r.Raw)
	}
	cookie := r.Header.Get("Set-Cookie")
	for _, want := range []string{"medishare_refresh=", "Path=/api/auth", "HttpOnly", "SameSite=Strict"} {
		if !strings.Contains(cookie, want) {
			t.Errorf("refresh cookie %q lacks %q", cookie, want)
		}
	}
	user := r.Data()["user"].(map[string]any)
	if user["role"] != "patient" || user["verified"] != true || user["active"] != true || user["gender"] != "Female" ||
		user["bloodgroup"] != "O+" || user["licensenumber"] != nil {
		t.Errorf("user after sign-in: %v", user)
	}
	if _, leaked := user["password"]; leaked || strings.Contains(r.Raw, "argon2") {
		t.Error("the password hash left the server")
	}
}

func TestRegistrationValidation(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	c := app.Client()
	tests := []struct {
		name   string
		change func(map[string]any)
		status int
		field  string
	}{
		{"admin role refused", func(m map[string]any) { m["role"] = "admin" }, 422, "role"},
		{"no role", func(m map[string]any) { delete(m, "role") }, 422, "role"},
		{"bad email", func(m map[string]any) { m["email"] = "not-an-email" }, 422, "email"},
		{"email with a name part", func(m map[string]any) { m["email"] = "Eve <eve@clinic.test>" }, 422, "email"},
		{"short username", func(m map[string]any) { m["username"] = "ab" }, 422, "username"},
		{"username with spaces", func(m map[string]any) { m["username"] = "a b c" }, 422, "username"},
		{"missing first name", func(m map[string]any) { m["firstname"] = "  " }, 422, "firstname"},
		{"short password", func(m map[string]any) { m["password"] = "Ab1!" }, 422, "password"},
		{"common password", func(m map[string]any) { m["password"] = "password123" }, 422, "password"},
		{"bad gender", func(m map[string]any) { m["gender"] = "robot" }, 422, "gender"},
		{"future birth date", func(m map[string]any) { m["dob"] = "2999-01-01" }, 422, "dob"},
		{"wrong type", func(m map[string]any) { m["firstname"] = 42 }, 422, "firstname"},
		{"1 MB password", func(m map[string]any) { m["password"] = strings.Repeat("x", 1<<20) }, 413, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reg := apptest.Registration(domain.RolePatient)
			tc.change(reg)
			r := c.Do(t, "POST", "/api/auth/register", reg)
			if r.Status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.Status, tc.status, r.Raw)
			}
			if tc.field != "" && !strings.Contains(r.Raw, `"field":"`+tc.field+`"`) {
				t.Errorf("no field error for %s: %s", tc.field, r.Raw)
			}
		})
	}
	if r := c.Do(t, "POST", "/api/auth/register", "{not json"); r.Status != 400 {
		t.Errorf("malformed JSON: %d", r.Status)
	}
}

func TestRegistrationKeepsOnlyTheRolesFields(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	c := app.Client()
	reg := apptest.Registration(domain.RoleProvider)
	reg["licensenumber"], reg["specialization"], reg["bloodgroup"], reg["primphysician"] = "LIC-9", "Radiology", "AB-", "Dr. Who"
	if r := c.Do(t, "POST", "/api/auth/register", reg); r.Status != 201 {
		t.Fatal(r.Raw)
	}
	u, _, err := app.Store.UserByEmail(context.Background(), reg["email"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if u.LicenseNumber != "LIC-9" || u.Specialization != "Radiology" || u.BloodGroup != "" || u.PrimPhysician != "" || u.Verified {
		t.Errorf("stored provider: %+v", u)
	}
}

func TestRegisteredEmailGetsTheSameAnswer(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	existing := app.SignUp(t, domain.RolePatient)
	c := app.Client()
	fresh := apptest.Registration(domain.RolePatient)
	again := apptest.Registration(domain.RolePatient)
	again["email"] = existing.Email

	r1 := c.Do(t, "POST", "/api/auth/register", fresh)
	r2 := c.Do(t, "POST", "/api/auth/register", again)
	if r1.Status != r2.Status || r2.Status != 201 || r1.Message() != r2.Message() {
		t.Fatalf("answers differ: %d %s / %d %s", r1.Status, r1.Raw, r2.Status, r2.Raw)
	}
	app.Mailbox.Wait(t, existing.Email, "Someone tried to register with your email")

	again["email"], again["username"] = "other@clinic.test", strings.ToUpper(existing.Username)
	if r := c.Do(t, "POST", "/api/auth/register", again); r.Status != 409 || !strings.Contains(r.Raw, `"field":"username"`) {
		t.Fatalf("taken username: %d %s", r.Status, r.Raw)
	}
}

// TestNoUserEnumeration: login, resend and forgot-password answer unknown and
// known emails alike (S2).
func TestNoUserEnumeration(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	known := app.SignUp(t, domain.RolePatient)
	c := app.Client()
	for _, tc := range []struct {
		path          string
		known, absent any
	}{
		{"/api/auth/login", map[string]string{"email": known.Email, "password": "Wrong-Password-123"}, map[string]string{"email": "nobody@clinic.test", "password": "Wrong-Password-123"}},
		{"/api/auth/resend-confirmation", map[string]string{"email": known.Email}, map[string]string{"email": "nobody@clinic.test"}},
		{"/api/auth/forgot-password", map[string]string{"email": known.Email}, map[string]string{"email": "nobody@clinic.test"}},
	} {
		a, b := c.Do(t, "POST", tc.path, tc.known), c.Do(t, "POST", tc.path, tc.absent)
		if a.Status != b.Status || a.Raw != b.Raw {
			t.Errorf("%s: known %d %s, unknown %d %s", tc.path, a.Status, a.Raw, b.Status, b.Raw)
		}
	}
	if r := c.Do(t, "POST", "/api/auth/login", map[string]string{"email": "nobody@clinic.test", "password": "x"}); r.Message() != "Invalid email or password." || r.Status != 401 {
		t.Errorf("login message: %d %s", r.Status, r.Raw)
	}
}

func TestLoginThrottling(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	p := app.SignUp(t, domain.RolePatient)
	c := app.Client()
	for _, email := range []string{p.Email, "ghost@clinic.test"} {
		for i := 0; i < 10; i++ {
			if r := c.Do(t, "POST", "/api/auth/login", map[string]string{"email": email, "password": "Wrong-Password-123"}); r.Status != 401 {
				t.Fatalf("failure %d for %s: %d", i, email, r.Status)
			}
		}
		r := c.Do(t, "POST", "/api/auth/login", map[string]string{"email": email, "password": p.Password})
		if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" {
			t.Fatalf("11th try for %s: %d %s (Retry-After %q)", email, r.Status, r.Raw, r.Header.Get("Retry-After"))
		}
	}
	app.Clock.Shift(16 * 60 * 1e9) // the window is measured by the database clock, so shift it there
	if _, err := app.DB.Pool.Exec(context.Background(), "UPDATE throttles SET window_start = window_start - interval '16 minutes'"); err != nil {
		t.Fatal(err)
	}
	if r := c.Do(t, "POST", "/api/auth/login", map[string]string{"email": p.Email, "password": p.Password}); r.Status != 200 {
		t.Fatalf("after the lock: %d %s", r.Status, r.Raw)
	}
}

func TestCodeRequestThrottling(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	c := app.Client()
	var last *apptest.Response
	for i := 0; i < 6; i++ {
		last = c.Do(t, "POST", "/api/auth/forgot-password", map[string]string{"email": "someone@clinic.test"})
	}
	if last.Status != http.StatusTooManyRequests || last.Header.Get("Retry-After") == "" {
		t.Fatalf("6th code request in an hour: %d %s", last.Status, last.Raw)
	}
}

// TestConcurrentConfirmationCodes: 50 wrong guesses at once never pass the
// limit of 5; 50 correct submissions at once succeed exactly once (S4).
func TestConcurrentConfirmationCodes(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	c := app.Client()
	register := func() (string, string) {
		reg := apptest.Registration(domain.RolePatient)
		if r := c.Do(t, "POST", "/api/auth/register", reg); r.Status != 201 {
			t.Fatal(r.Raw)
		}
		email := reg["email"].(string)
		return email, app.Mailbox.Code(t, email, "Your MediShare confirmation code", `confirmation code is (\d{4})`)
	}
	burst := func(email, code string) map[int]int {
		var mu sync.Mutex
		statuses := map[int]int{}
		var wg sync.WaitGroup
		for i := 0; i < 50; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := app.Client().Do(t, "POST", "/api/auth/confirm", map[string]string{"email": email, "code": code})
				mu.Lock()
				statuses[r.Status]++
				mu.Unlock()
			}()
		}
		wg.Wait()
		return statuses
	}

	email, code := register()
	wrong := "0000"
	if code == wrong {
		wrong = "9999"
	}
	burst(email, wrong)
	var tries int
	if err := app.DB.Pool.QueryRow(context.Background(),
		"SELECT max(tries) FROM one_time_codes c JOIN users u ON u.id = c.user_id WHERE u.email = $1", email).Scan(&tries); err != nil {
		t.Fatal(err)
	}
	if tries > 5 {
		t.Fatalf("tries reached %d", tries)
	}
	if r := c.Do(t, "POST", "/api/auth/confirm", map[string]string{"email": email, "code": code}); r.Status != 400 {
		t.Fatalf("the right code after 5 wrong ones: %d %s", r.Status, r.Raw)
	}

	email, code = register()
	if got := burst(email, code); got[200] != 1 || got[400] != 49 {
		t.Fatalf("50 correct submissions: %v", got)
	}
}

// TestConcurrentCodeRequests: two requests for a new code for one account
// at once (a double click, two tabs) both get the answer every such
// request gets and both mail their code; the account keeps one live code,
// the one issued last, which works, while the other no longer does.
// Earlier, the second of two overlapping issues failed on the live-code
// key and its mail was never sent. Each round holds the requests' work
// after the answer until both have answered, so the two issues overlap.
func TestConcurrentCodeRequests(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, path, subject, pattern string
		purposes                     []string // the live codes one request leaves
		account                      func(t *testing.T, app *apptest.App) (id, email string)
		// spend uses the code that must work and, first, the one that must not.
		spend func(t *testing.T, app *apptest.App, email, dead, live string)
	}{
		{
			name: "forgot password", path: "/api/auth/forgot-password",
			subject: "Your MediShare password reset code", pattern: `reset code is (\d{6})`,
			purposes: []string{"reset", "reset_link"},
			account: func(t *testing.T, app *apptest.App) (string, string) {
				p := app.SignUp(t, domain.RolePatient)
				return p.ID, p.Email
			},
			spend: func(t *testing.T, app *apptest.App, email, dead, live string) {
				c := app.Client()
				if r := c.Do(t, "POST", "/api/auth/reset-password", map[string]string{"email": email, "otp": dead, "newPassword": "Harbor-Lantern-6604-Moss"}); r.Status != 400 {
					t.Fatalf("the earlier code: %d %s", r.Status, r.Raw)
				}
				if r := c.Do(t, "POST", "/api/auth/reset-password", map[string]string{"email": email, "otp": live, "newPassword": "Harbor-Lantern-6604-Moss"}); r.Status != 200 {
					t.Fatalf("the latest code: %d %s", r.Status, r.Raw)
				}
			},
		},
		{
			name: "resend confirmation", path: "/api/auth/resend-confirmation",
			subject: "Your MediShare confirmation code", pattern: `confirmation code is (\d{4})`,
			purposes: []string{"confirm"},
			account: func(t *testing.T, app *apptest.App) (string, string) {
				reg := apptest.Registration(domain.RolePatient)
				if r := app.Client().Do(t, "POST", "/api/auth/register", reg); r.Status != http.StatusCreated {
					t.Fatalf("register: %d %s", r.Status, r.Raw)
				}
				email := reg["email"].(string)
				app.Mailbox.Wait(t, email, "Your MediShare confirmation code")
				var id string
				if err := app.DB.Pool.QueryRow(t.Context(), "SELECT id FROM users WHERE email = $1", email).Scan(&id); err != nil {
					t.Fatal(err)
				}
				return id, email
			},
			spend: func(t *testing.T, app *apptest.App, email, dead, live string) {
				c := app.Client()
				if r := c.Do(t, "POST", "/api/auth/confirm", map[string]string{"email": email, "code": dead}); r.Status != 400 {
					t.Fatalf("the earlier code: %d %s", r.Status, r.Raw)
				}
				if r := c.Do(t, "POST", "/api/auth/confirm", map[string]string{"email": email, "code": live}); r.Status != 200 {
					t.Fatalf("the latest code: %d %s", r.Status, r.Raw)
				}
			},
		},
	}
	keys, err := secure.NewKeys(apptest.MasterKey)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			app := apptest.New(t)
			userID, email := tt.account(t, app)
			ctx := t.Context()
			var dead, live string
			for round := range 20 {
				// The limit is 5 code requests an hour: start each round afresh.
				if _, err := app.DB.Pool.Exec(ctx, "DELETE FROM throttles"); err != nil {
					t.Fatal(err)
				}
				mailed := app.Mailbox.Count(email, tt.subject)
				app.Services.Background.Hold()
				start := make(chan struct{})
				answers := make([]*apptest.Response, 2)
				var wg sync.WaitGroup
				for i := range answers {
					wg.Go(func() {
						<-start
						answers[i] = app.Client().Do(t, "POST", tt.path, map[string]string{"email": email})
					})
				}
				close(start)
				wg.Wait()
				app.Services.Background.Release()
				app.Services.Background.Wait()
				if answers[0].Status != http.StatusOK || answers[0].Status != answers[1].Status || answers[0].Raw != answers[1].Raw {
					t.Fatalf("round %d: answers %d %s and %d %s", round, answers[0].Status, answers[0].Raw, answers[1].Status, answers[1].Raw)
				}

				// Both mails go out.
				testutil.Eventually(t, "the outbox to empty", func() bool {
					queued, _, err := app.Services.Outbox.State(ctx)
					return err == nil && queued == 0
				})
				var codes []string
				for _, m := range app.Mailbox.All(email) {
					if match := regexp.MustCompile(tt.pattern).FindStringSubmatch(m.Data); match != nil {
						codes = append(codes, match[1])
					}
				}
				if len(codes) != mailed+2 {
					t.Fatalf("round %d: %d mails for two requests", round, len(codes)-mailed)
				}

				// One live code for each purpose; the reset code (or the
				// confirmation code) is one of the two just mailed.
				for _, purpose := range tt.purposes {
					var n int
					if err := app.DB.Pool.QueryRow(ctx, "SELECT count(*) FROM one_time_codes WHERE user_id = $1 AND purpose = $2 AND used_at IS NULL", userID, purpose).Scan(&n); err != nil {
						t.Fatal(err)
					}
					if n != 1 {
						t.Fatalf("round %d: %d live %s codes", round, n, purpose)
					}
				}
				var hash []byte
				if err := app.DB.Pool.QueryRow(ctx, "SELECT code_hash FROM one_time_codes WHERE user_id = $1 AND purpose = $2 AND used_at IS NULL", userID, tt.purposes[0]).Scan(&hash); err != nil {
					t.Fatal(err)
				}
				a, b := codes[len(codes)-2], codes[len(codes)-1]
				switch {
				case secure.Equal(hash, keys.CodeHash(tt.purposes[0], userID, a)):
					dead, live = b, a
				case secure.Equal(hash, keys.CodeHash(tt.purposes[0], userID, b)):
					dead, live = a, b
				default:
					t.Fatalf("round %d: the live code is neither of the two mailed", round)
				}
			}
			if dead == live {
				t.Skip("both requests drew the same code") // one chance in 10^4 or 10^6
			}
			tt.spend(t, app, email, dead, live)
		})
	}
}
