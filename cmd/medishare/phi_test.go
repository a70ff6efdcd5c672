package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/testutil/apptest"
	"github.com/medishare/medishare/internal/testutil/pgtest"
)

// TestNoPHIInTheLogs plants a canary in every text a person types (names,
// contact and medical details, captions, file names, messages, emails) and
// in a DICOM header, drives the server through each use at the debug log
// level, failures included, and finds none of it in the log.
func TestNoPHIInTheLogs(t *testing.T) {
	env := devEnv(t, pgtest.NewDatabase(t))
	env["MEDISHARE_LOG_LEVEL"] = "debug"
	env["MEDISHARE_LOG_FORMAT"] = "json"
	box := apptest.StartMailbox(t) // the development mailer logs mail on purpose
	env["SMTP_HOST"], env["SMTP_PORT"], env["SMTP_TLS"] = "127.0.0.1", fmt.Sprint(box.Port()), "none"
	var logs syncBuffer
	startProgram(t, env, &logs)
	base := "http://" + env["MEDISHARE_ADDR"]
	waitStatus(t, base+"/readyz", http.StatusOK)

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
		if status, out := apiJSON(t, "POST", base+"/api/auth/register", "", body); status != http.StatusCreated {
			t.Fatalf("register %s: %d %s", who, status, out)
		}
		code := box.Code(t, email, "Your MediShare confirmation code", `confirmation code is (\d{4})`)
		if status, out := apiJSON(t, "POST", base+"/api/auth/confirm", "", map[string]string{"email": email, "code": code}); status != http.StatusOK {
			t.Fatalf("confirm %s: %d %s", who, status, out)
		}
		return email, password
	}
	patientEmail, patientPassword := register("patient", "patient")
	providerEmail, providerPassword := register("healthProvider", "provider")
	patientSession := mustLogin(t, base, patientEmail, patientPassword)
	patient, patientID := patientSession.token, patientSession.id
	provider := mustLogin(t, base, providerEmail, providerPassword).token

	// Failures name the same people.
	apiJSON(t, "POST", base+"/api/auth/login", "", map[string]string{"email": patientEmail, "password": "wrong " + canary})
	apiJSON(t, "POST", base+"/api/auth/login", "", map[string]string{"email": "nobody." + patientEmail, "password": "x"})
	apiJSON(t, "POST", base+"/api/auth/register", "", map[string]any{"email": patientEmail, "username": "qzagain",
		"password": "Tulip-Harbour-again-Quartz-17", "role": "patient", "firstname": field("again"), "lastname": field("again")})
	apiJSON(t, "POST", base+"/api/auth/register", "", map[string]any{"email": "not an email " + canary, "firstname": field("invalid")})
	apiJSON(t, "POST", base+"/api/auth/forgot-password", "", map[string]string{"email": patientEmail})
	apiJSON(t, "POST", base+"/api/auth/confirm", "", map[string]string{"email": patientEmail, "code": "0000"})
	apiJSON(t, "PUT", base+"/api/users/profile", patient, map[string]string{"bio": field("newbio"), "address": field("newaddress")})
	apiJSON(t, "PUT", base+"/api/users/profile", patient, map[string]string{"dob": "not a date " + canary})
	apiJSON(t, "GET", base+"/api/users?search="+canary, provider, nil)

	// A DICOM file whose header names the patient, under a telling file name.
	dcm, err := os.ReadFile("../../testdata/dicom/CT_small.dcm")
	if err != nil {
		t.Fatal(err)
	}
	dcm = bytes.Replace(dcm, []byte("CompressedSamples^CT1 "), []byte(fmt.Sprintf("%-22s", canary+"^Dicom")), 1)
	dicomStatus, dicomID := uploadAs(t, base, provider, patientID, field("dicomcaption"), canary+"-scan.dcm", dcm)
	pngStatus, pngID := uploadAs(t, base, provider, patientID, field("pngcaption"), canary+"-photo.png", probePNGOf(t, 32))
	if dicomStatus != http.StatusCreated || pngStatus != http.StatusCreated || !bytes.Contains(dcm, []byte(canary+"^Dicom")) {
		t.Fatalf("uploads: DICOM %d, PNG %d", dicomStatus, pngStatus)
	}
	getPreview(t, base, provider, dicomID, http.StatusOK)
	apiJSON(t, "GET", base+"/api/upload/image/"+dicomID+"/dicom", provider, nil)
	apiJSON(t, "GET", base+"/api/analyze/"+dicomID, provider, nil)
	apiJSON(t, "PUT", base+"/api/upload/image/"+pngID, provider, map[string]string{"caption": field("caption")})
	if status, _ := uploadAs(t, base, provider, patientID, field("refused"), canary+"-not-an-image.txt", []byte("hello "+canary)); status == http.StatusCreated {
		t.Fatal("a text file was taken as an image")
	}

	// A share, its code tried wrong and right, messages and a refused one.
	status, out := apiJSON(t, "POST", base+"/api/sharing/request", provider,
		map[string]any{"imagemetadataId": pngID, "createdfor": patientID, "expiresInHours": 24})
	var share struct{ Data struct{ ID string } }
	if status != http.StatusCreated || json.Unmarshal([]byte(out), &share) != nil {
		t.Fatalf("share: %d %s", status, out)
	}
	apiJSON(t, "POST", base+"/api/sharing/verify", patient, map[string]string{"sharingRequestId": share.Data.ID, "verificationCode": "000000"})
	code := box.Code(t, patientEmail, "shared", `\b(\d{6})\b`)
	apiJSON(t, "POST", base+"/api/sharing/verify", patient, map[string]string{"sharingRequestId": share.Data.ID, "verificationCode": code})
	apiJSON(t, "POST", base+"/api/message/send", provider, map[string]string{"recipientId": patientID, "content": field("message")})
	apiJSON(t, "POST", base+"/api/message/send", provider, map[string]string{"recipientId": patientID, "content": strings.Repeat(canary, 600)})
	apiJSON(t, "GET", base+"/api/message/chat/"+patientID, provider, nil)
	apiJSON(t, "DELETE", base+"/api/users/profile", patient, map[string]string{"password": "wrong " + canary})

	time.Sleep(500 * time.Millisecond) // the last lines and the mail senders' are written
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
