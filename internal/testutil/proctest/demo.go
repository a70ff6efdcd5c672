package proctest

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/medishare/medishare/internal/testutil"
)

// DemoAccount is a demo account the development server made, as it keeps
// it in its data folder.
type DemoAccount struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

// ReadDemoAccount reads the demo account of role ("patient",
// "healthProvider", "admin") from the server's data folder.
func ReadDemoAccount(t testing.TB, env map[string]string, role string) DemoAccount {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(env["MEDISHARE_DATA_DIR"], "demo-accounts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var accounts map[string]DemoAccount
	if err := json.Unmarshal(b, &accounts); err != nil {
		t.Fatal(err)
	}
	return accounts[role]
}

// SignInDemo signs the demo account of role in and returns its token and id.
func SignInDemo(t testing.TB, env map[string]string, role string) (token, id string) {
	t.Helper()
	a := ReadDemoAccount(t, env, role)
	s := testutil.SignIn(t, http.DefaultClient, Base(env), a.Email, a.Password, http.StatusOK)
	return s.Token, s.ID
}

// SignInDemoProvider signs the demo provider in and returns its token and
// the demo patient's id.
func SignInDemoProvider(t testing.TB, env map[string]string) (token, patientID string) {
	t.Helper()
	token, _ = SignInDemo(t, env, "healthProvider")
	_, patientID = SignInDemo(t, env, "patient")
	return token, patientID
}
