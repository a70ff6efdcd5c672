package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/pgtest"
	"github.com/medishare/medishare/internal/testutil/proctest"
)

func TestAdminCreateAndAuditVerify(t *testing.T) {
	env := proctest.Env(t, pgtest.NewDatabase(t))
	getenv := func(k string) string { return env[k] }
	ctx := context.Background()

	var out bytes.Buffer
	err := run(ctx, []string{"admin", "create", "--email", "Chief@Clinic.test", "--firstname", "Maryam", "--lastname", "Aziz"}, getenv, &out, &out)
	if err != nil {
		t.Fatalf("admin create: %v\n%s", err, out.String())
	}
	m := regexp.MustCompile(`Password \(shown once, store it safely\): (\S+)`).FindStringSubmatch(out.String())
	if !strings.Contains(out.String(), "Created admin chief@clinic.test") || m == nil || len(m[1]) < 20 {
		t.Fatalf("output:\n%s", out.String())
	}

	pwFile := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pwFile, []byte("Granite-Harbor-6620-Finch\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	err = run(ctx, []string{"admin", "create", "--email", "second@clinic.test", "--firstname", "Omar", "--lastname", "Raza", "--password-file", pwFile}, getenv, &out, &out)
	if err != nil || strings.Contains(out.String(), "Password") {
		t.Fatalf("admin create with a password file: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := run(ctx, []string{"admin", "create", "--email", "chief@clinic.test", "--firstname", "A", "--lastname", "B"}, getenv, &out, &out); err == nil {
		t.Fatal("a second admin with the same email was created")
	}
	if err := os.WriteFile(pwFile, []byte("password\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := run(ctx, []string{"admin", "create", "--email", "weak@clinic.test", "--firstname", "A", "--lastname", "B", "--password-file", pwFile}, getenv, &out, &out); err == nil {
		t.Fatal("a weak password was accepted")
	}

	out.Reset()
	if err := run(ctx, []string{"audit", "verify"}, getenv, &out, &out); err != nil || !strings.Contains(out.String(), "audit log intact: 2 entries checked") {
		t.Fatalf("audit verify: %v\n%s", err, out.String())
	}
}

func TestDemoAccountsInDevelopmentOnly(t *testing.T) {
	testutil.Slow(t)
	url := pgtest.NewDatabase(t)
	env := proctest.Env(t, url)
	var logs bytes.Buffer
	cmd := startProgram(t, env, &logs)
	proctest.WaitStatus(t, proctest.Base(env)+"/readyz", 200)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()

	b, err := os.ReadFile(filepath.Join(env["MEDISHARE_DATA_DIR"], "demo-accounts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var accounts map[string]struct{ Email, Password string }
	if err := json.Unmarshal(b, &accounts); err != nil || len(accounts) != 3 {
		t.Fatalf("demo accounts: %s %v", b, err)
	}
	for _, role := range []string{"patient", "healthProvider", "admin"} {
		a := accounts[role]
		if a.Email == "" || a.Password == "" || !strings.Contains(logs.String(), a.Password) {
			t.Errorf("%s demo account not printed: %+v", role, a)
		}
	}
	info, _ := os.Stat(filepath.Join(env["MEDISHARE_DATA_DIR"], "demo-accounts.json"))
	if info.Mode().Perm() != 0o600 {
		t.Errorf("demo-accounts.json mode %v", info.Mode().Perm())
	}
}

func TestDemoImagesOnAFreshDatabase(t *testing.T) {
	testutil.Slow(t)
	url := pgtest.NewDatabase(t)
	env := proctest.Env(t, url)
	env["MEDISHARE_DEMO_IMAGES"] = "true"
	base := proctest.Base(env)
	for start := range 2 { // the second start finds them there and adds none
		cmd := startProgram(t, env, io.Discard)
		proctest.WaitStatus(t, base+"/readyz", 200)
		token, _ := proctest.SignInDemo(t, env, "patient")
		status, body := proctest.APIJSON(t, "GET", base+"/api/audit/logs?about=images&limit=20", token, nil)
		var page struct {
			Data []struct {
				Actiontype string
				User       struct{ Username string }
			}
		}
		if err := json.Unmarshal([]byte(body), &page); status != 200 || err != nil {
			t.Fatalf("start %d: the patient's access history: %d %s", start, status, body)
		}
		var got []string
		for _, e := range page.Data {
			got = append(got, e.Actiontype+":"+e.User.Username)
		}
		// The study's caption set after its nine instances, then the two
		// radiographs, each uploaded and viewed.
		want := "image_update:demo.provider" + strings.Repeat(" upload:demo.provider", 9) +
			" view:demo.provider upload:demo.provider view:demo.provider upload:demo.provider"
		if strings.Join(got, " ") != want {
			t.Errorf("start %d: the demo patient's access history: %v, want %s", start, got, want)
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
}
