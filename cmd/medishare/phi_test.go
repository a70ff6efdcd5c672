package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/apptest"
	"github.com/medishare/medishare/internal/testutil/pgtest"
	"github.com/medishare/medishare/internal/testutil/proctest"
)

// TestNoPHIInTheLogs plants a canary in every text a person types (names,
// contact and medical details, captions, file names, messages, emails) and
// in a DICOM header, drives the server through each use at the debug log
// level, failures included, and finds none of it in the log.
func TestNoPHIInTheLogs(t *testing.T) {
	testutil.Slow(t)
	env := proctest.Env(t, pgtest.NewDatabase(t))
	env["MEDISHARE_LOG_LEVEL"] = "debug"
	env["MEDISHARE_LOG_FORMAT"] = "json"
	box := apptest.StartMailbox(t) // the development mailer logs mail on purpose
	env["SMTP_HOST"], env["SMTP_PORT"], env["SMTP_TLS"] = "127.0.0.1", fmt.Sprint(box.Port()), "none"
	var logs proctest.Buffer
	cmd := startProgram(t, env, &logs)
	base := proctest.Base(env)
	proctest.WaitStatus(t, base+"/readyz", http.StatusOK)

	const canary = "Qzcanary" // in every free text, with the field's name after it
	const phone = "+44 20 7946 0958"
	const phoneDigits = "79460958"
	field := func(name string) string { return canary + name }
	register := func(role, who string) (email, password string) {
		email = strings.ToLower(canary) + "." + who + "@clinic.test"
		password = "Tulip-Harbour-" + who + "-Quartz-17"
		body := map[string]any{"email": email, "username": "qz" + who, "password": password, "role": role,
			"firstname": field("first"), "lastname": field("last"), "gender": "Other", "phone": phone, "dob": "1961-02-03",
			"address": field("address"), "city": field("city"), "state": field("state"), "country": field("country"),
			"zipcode": "QZ1 9ZZ", "bio": field("bio"), "taxid": field("taxid"), "licensenumber": field("licence"),
			"insurancenumber": field("insurance"), "specialization": field("specialisation"), "bloodgroup": "A+",
			"primphysician": field("physician")}
		if status, out := proctest.APIJSON(t, "POST", base+"/api/auth/register", "", body); status != http.StatusCreated {
			t.Fatalf("register %s: %d %s", who, status, out)
		}
		code := box.Code(t, email, "Your MediShare confirmation code", `confirmation code is (\d{4})`)
		if status, out := proctest.APIJSON(t, "POST", base+"/api/auth/confirm", "", map[string]string{"email": email, "code": code}); status != http.StatusOK {
			t.Fatalf("confirm %s: %d %s", who, status, out)
		}
		return email, password
	}
	patientEmail, patientPassword := register("patient", "patient")
	providerEmail, providerPassword := register("healthProvider", "provider")
	patientSession := testutil.SignIn(t, http.DefaultClient, base, patientEmail, patientPassword, http.StatusOK)
	patient, patientID := patientSession.Token, patientSession.ID
	provider := testutil.SignIn(t, http.DefaultClient, base, providerEmail, providerPassword, http.StatusOK).Token

	// Failures name the same people.
	proctest.APIJSON(t, "POST", base+"/api/auth/login", "", map[string]string{"email": patientEmail, "password": "wrong " + canary})
	proctest.APIJSON(t, "POST", base+"/api/auth/login", "", map[string]string{"email": "nobody." + patientEmail, "password": "x"})
	proctest.APIJSON(t, "POST", base+"/api/auth/register", "", map[string]any{"email": patientEmail, "username": "qzagain",
		"password": "Tulip-Harbour-again-Quartz-17", "role": "patient", "firstname": field("again"), "lastname": field("again")})
	proctest.APIJSON(t, "POST", base+"/api/auth/register", "", map[string]any{"email": "not an email " + canary, "firstname": field("invalid")})
	proctest.APIJSON(t, "POST", base+"/api/auth/forgot-password", "", map[string]string{"email": patientEmail})
	proctest.APIJSON(t, "POST", base+"/api/auth/confirm", "", map[string]string{"email": patientEmail, "code": "0000"})
	proctest.APIJSON(t, "PUT", base+"/api/users/profile", patient, map[string]string{"bio": field("newbio"), "address": field("newaddress")})
	proctest.APIJSON(t, "PUT", base+"/api/users/profile", patient, map[string]string{"dob": "not a date " + canary})
	proctest.APIJSON(t, "GET", base+"/api/users?search="+canary, provider, nil)

	// A DICOM file whose header names the patient, under a telling file name.
	dcm, err := os.ReadFile("../../testdata/dicom/CT_small.dcm")
	if err != nil {
		t.Fatal(err)
	}
	dcm = bytes.Replace(dcm, []byte("CompressedSamples^CT1 "), []byte(fmt.Sprintf("%-22s", canary+"^Dicom")), 1)
	dicomStatus, dicomID := proctest.Upload(t, base, provider, patientID, field("dicomcaption"), canary+"-scan.dcm", dcm)
	pngStatus, pngID := proctest.Upload(t, base, provider, patientID, field("pngcaption"), canary+"-photo.png", proctest.ProbePNG(t, 32))
	if dicomStatus != http.StatusCreated || pngStatus != http.StatusCreated || !bytes.Contains(dcm, []byte(canary+"^Dicom")) {
		t.Fatalf("uploads: DICOM %d, PNG %d", dicomStatus, pngStatus)
	}
	proctest.Preview(t, base, provider, dicomID, http.StatusOK)
	proctest.APIJSON(t, "GET", base+"/api/upload/image/"+dicomID+"/dicom", provider, nil)
	proctest.APIJSON(t, "GET", base+"/api/analyze/"+dicomID, provider, nil)
	proctest.APIJSON(t, "PUT", base+"/api/upload/image/"+pngID, provider, map[string]string{"caption": field("caption")})
	if status, _ := proctest.Upload(t, base, provider, patientID, field("refused"), canary+"-not-an-image.txt", []byte("hello "+canary)); status == http.StatusCreated {
		t.Fatal("a text file was taken as an image")
	}

	// A share, its code tried wrong and right, messages and a refused one.
	status, out := proctest.APIJSON(t, "POST", base+"/api/sharing/request", provider,
		map[string]any{"imagemetadataId": pngID, "createdfor": patientID, "expiresInHours": 24})
	var share struct{ Data struct{ ID string } }
	if status != http.StatusCreated || json.Unmarshal([]byte(out), &share) != nil {
		t.Fatalf("share: %d %s", status, out)
	}
	proctest.APIJSON(t, "POST", base+"/api/sharing/verify", patient, map[string]string{"sharingRequestId": share.Data.ID, "verificationCode": "000000"})
	code := box.Code(t, patientEmail, "shared", `\b(\d{6})\b`)
	proctest.APIJSON(t, "POST", base+"/api/sharing/verify", patient, map[string]string{"sharingRequestId": share.Data.ID, "verificationCode": code})
	proctest.APIJSON(t, "POST", base+"/api/message/send", provider, map[string]string{"recipientId": patientID, "content": field("message")})
	proctest.APIJSON(t, "POST", base+"/api/message/send", provider, map[string]string{"recipientId": patientID, "content": strings.Repeat(canary, 600)})
	proctest.APIJSON(t, "GET", base+"/api/message/chat/"+patientID, provider, nil)
	proctest.APIJSON(t, "DELETE", base+"/api/users/profile", patient, map[string]string{"password": "wrong " + canary})

	// Stopped, the server has written its last lines: the requests', the
	// mail senders' and the shutdown's.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitExit(t, cmd, &logs)
	all := logs.String()
	if !strings.Contains(all, `"route":"/api/message/send"`) {
		t.Fatalf("the log lacks the requests; is it the server's?\n%s", all)
	}
	for _, line := range strings.Split(all, "\n") {
		lower := strings.ToLower(line)
		if strings.Contains(lower, strings.ToLower(canary)) || strings.Contains(strings.ReplaceAll(line, " ", ""), phoneDigits) ||
			strings.Contains(line, "QZ1 9ZZ") || strings.Contains(line, "1961-02-03") {
			t.Errorf("PHI in the log: %s", line)
		}
	}
}
