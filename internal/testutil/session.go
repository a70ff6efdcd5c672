package testutil

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Session is the answer to a sign-in or a refresh: its status and body,
// and when it succeeded the access token, the refresh cookie's value and
// the user's id.
type Session struct {
	Status         int
	Body           string
	Token, Refresh string
	ID             string
}

// SignIn signs in at the API under base with client (whose cookie jar,
// when it has one, keeps the refresh cookie), and fails the test unless
// the answer's status is want; a 200 must carry a token, a refresh cookie
// and the user's id. It is every test's sign-in, in the test's process or
// against the real program.
func SignIn(t testing.TB, client *http.Client, base, email, password string, want int) Session {
	t.Helper()
	body := fmt.Sprintf(`{"email":%q,"password":%q}`, email, password)
	resp, err := client.Post(base+"/api/auth/login", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	s := ReadSession(t, resp)
	if s.Status != want || (want == http.StatusOK && (s.Token == "" || s.Refresh == "" || s.ID == "")) {
		t.Fatalf("sign-in of %s: %d %s, want %d", email, s.Status, s.Body, want)
	}
	return s
}

// ReadSession reads the answer of a sign-in or a refresh, and closes it.
func ReadSession(t testing.TB, resp *http.Response) Session {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	s := Session{Status: resp.StatusCode, Body: string(b)}
	var out struct {
		Data struct {
			Token string
			User  struct{ ID string }
		}
	}
	if json.Unmarshal(b, &out) == nil {
		s.Token, s.ID = out.Data.Token, out.Data.User.ID
	}
	for _, c := range resp.Cookies() {
		if c.Name == "medishare_refresh" {
			s.Refresh = c.Value
		}
	}
	return s
}
