package interop

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/medishare/medishare/internal/medimg/synth"
	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/orthanctest"
	"github.com/medishare/medishare/internal/testutil/pgtest"
	"github.com/medishare/medishare/internal/testutil/proctest"
)

// TestOrthancDICOMweb has Orthanc, with Debian's DICOMweb plugin as its
// client, store a study of three series in the real MediShare process with
// STOW-RS, find it with QIDO-RS and retrieve it with WADO-RS, byte for
// byte.
func TestOrthancDICOMweb(t *testing.T) {
	testutil.Slow(t)
	orthanctest.Install(t, "orthanc-dicomweb")

	// MediShare, as `make build` makes it, in development mode: the demo
	// provider uploads, for the demo patient.
	env := proctest.Env(t, pgtest.NewDatabase(t))
	env["MEDISHARE_LOG_LEVEL"] = "warn"
	var logs proctest.Buffer
	proctest.Start(t, proctest.Built(t), env, &logs)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("MediShare's log:\n%s", logs.String())
		}
	})
	base := proctest.Base(env)
	proctest.WaitStatus(t, base+"/readyz", http.StatusOK)
	token, patientID := proctest.SignInDemoProvider(t, env)

	// Orthanc with its DICOMweb plugin, MediShare its one remote server,
	// reached with the provider's personal access token as the password of
	// HTTP Basic authentication, as docs/dicomweb.md tells a PACS to.
	status, body := proctest.APIJSON(t, "POST", base+"/api/tokens", token, map[string]any{"name": "Orthanc", "expiresInDays": 1})
	var made struct{ Data struct{ Token string } }
	if err := json.Unmarshal([]byte(body), &made); status != http.StatusCreated || err != nil || made.Data.Token == "" {
		t.Fatalf("personal access token: %d %s", status, body)
	}
	medishare := map[string]any{
		"Url":      base + "/dicomweb/",
		"Username": "orthanc",
		"Password": made.Data.Token,
	}
	orthanc := orthanctest.Start(t, pgtest.FreePort(t), map[string]any{
		"Plugins": []string{orthanctest.Plugin(t, "orthanc-dicomweb", "/libOrthancDicomWeb.so")},
		"DicomWeb": map[string]any{
			"Enable":  true,
			"Root":    "/dicom-web/",
			"Servers": map[string]any{"medishare": medishare},
		},
	})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("Orthanc's log ends with:\n%s", orthanc.LogTail(40))
		}
	})

	// A study of three series, loaded into Orthanc through its REST API.
	px := synth.NewPixels(64, 64)
	study := synth.Study("Interop^Olivia", "IOP-1", "Orthanc round trip", "CT", 2, 3, 1)
	sent := map[string]bool{} // the SHA-256 of each file
	for _, in := range study {
		file := px.File(in)
		sent[digest(file)] = true
		orthanc.MustStore(t, file)
	}
	var studies []string
	orthanc.JSON(t, "GET", "/studies", nil, &studies)
	if len(studies) != 1 {
		t.Fatalf("Orthanc holds %d studies", len(studies))
	}
	uid := study[0].Study

	// STOW-RS: Orthanc sends the study to MediShare. Its DICOMweb client
	// posts to the server's Url + "studies" and takes no query string
	// (neither in Url, which it prefixes to the path, nor in the stow
	// request), so the study arrives unassigned and the provider gives it
	// its patient through the API.
	orthanc.JSON(t, "POST", "/dicom-web/servers/medishare/stow", map[string]any{"Resources": studies}, nil)
	status, body = proctest.APIJSON(t, "GET", base+"/api/upload/unassigned", token, nil)
	var waiting struct {
		Data []struct {
			ID    string
			Study struct {
				StudyInstanceUID  string `json:"studyInstanceUid"`
				Series, Instances int
				Modalities        []string
			}
		}
	}
	if err := json.Unmarshal([]byte(body), &waiting); err != nil || status != http.StatusOK || len(waiting.Data) != 1 {
		t.Fatalf("unassigned studies: %d %v %s", status, err, body)
	}
	got := waiting.Data[0]
	if got.Study.StudyInstanceUID != uid || got.Study.Series != 3 || got.Study.Instances != len(study) || !slices.Equal(got.Study.Modalities, []string{"CT"}) {
		t.Fatalf("the study stored: %s", body)
	}
	if status, body := proctest.APIJSON(t, "PATCH", base+"/api/upload/image/"+got.ID, token, map[string]string{"patientId": patientID}); status != http.StatusOK {
		t.Fatalf("assign the patient: %d %s", status, body)
	}

	// QIDO-RS: Orthanc searches MediShare, on the patient's name with a
	// wildcard, and below the study. Its qido route answers each attribute
	// in Orthanc's own form (the first value, when it is a string or a
	// person's name); its get route answers MediShare's DICOM JSON as is.
	var found []map[string]struct{ Value string }
	orthanc.JSON(t, "POST", "/dicom-web/servers/medishare/qido", map[string]any{
		"Uri": "/studies", "Arguments": map[string]string{"PatientName": "interop*", "ModalitiesInStudy": "CT"},
	}, &found)
	if len(found) != 1 {
		t.Fatalf("QIDO-RS found %d studies: %v", len(found), found)
	}
	for tag, want := range map[string]string{
		"0020000D": uid, "00100010": "Interop^Olivia", "00100020": "IOP-1", "00080020": "20261123",
		"00080050": "AIOP-1", "00080061": "CT", "00081030": "Orthanc round trip",
		"00081190": base + "/dicomweb/studies/" + uid,
	} {
		if v := found[0][tag].Value; v != want {
			t.Errorf("QIDO-RS %s: %q, want %q", tag, v, want)
		}
	}
	var raw []map[string]struct {
		VR    string
		Value []any
	}
	orthanc.JSON(t, "POST", "/dicom-web/servers/medishare/get", map[string]any{
		"Uri": "/studies", "Arguments": map[string]string{"StudyInstanceUID": uid},
	}, &raw)
	if len(raw) != 1 || fmt.Sprint(raw[0]["00201206"].Value) != "[3]" || fmt.Sprint(raw[0]["00201208"].Value) != fmt.Sprintf("[%d]", len(study)) {
		t.Errorf("QIDO-RS through get: %v", raw)
	}
	// As Orthanc Explorer's DICOMweb page asks: keys by tag, fuzzy
	// matching (which MediShare does not do: literal matching), a limit.
	var lookup []map[string]struct{ Value string }
	orthanc.JSON(t, "POST", "/dicom-web/servers/medishare/qido", map[string]any{
		"Uri": "/studies", "Arguments": map[string]string{"fuzzymatching": "true", "limit": "101", "00100010": "Interop^Olivia", "00080020": "20261101-"},
	}, &lookup)
	if len(lookup) != 1 || lookup[0]["0020000D"].Value != uid {
		t.Errorf("QIDO-RS as Orthanc Explorer asks: %v", lookup)
	}
	var series []map[string]struct{ Value string }
	orthanc.JSON(t, "POST", "/dicom-web/servers/medishare/qido", map[string]any{"Uri": "/studies/" + uid + "/series"}, &series)
	if len(series) != 3 {
		t.Fatalf("QIDO-RS found %d series", len(series))
	}
	var inSeries []map[string]struct{ Value string }
	orthanc.JSON(t, "POST", "/dicom-web/servers/medishare/qido", map[string]any{"Uri": "/studies/" + uid + "/series/" + study[2].Series + "/instances"}, &inSeries)
	if len(inSeries) != 3 {
		t.Errorf("QIDO-RS found %d instances in the second series", len(inSeries))
	}
	// The metadata and a rendered instance, as Orthanc Explorer shows them.
	var meta []map[string]any
	orthanc.JSON(t, "POST", "/dicom-web/servers/medishare/get", map[string]any{"Uri": "/studies/" + uid + "/metadata"}, &meta)
	if len(meta) != len(study) {
		t.Errorf("metadata of %d instances", len(meta))
	}
	if status, png := orthanc.Call(t, "POST", "/dicom-web/servers/medishare/get", map[string]any{
		"Uri": "/studies/" + uid + "/series/" + study[0].Series + "/instances/" + study[0].SOP + "/rendered",
	}); status != http.StatusOK || !strings.HasPrefix(string(png), "\x89PNG") {
		t.Errorf("rendered: %d %.40q", status, png)
	}
	var none []map[string]any
	orthanc.JSON(t, "POST", "/dicom-web/servers/medishare/qido", map[string]any{
		"Uri": "/studies", "Arguments": map[string]string{"PatientName": "Nobody*"},
	}, &none)
	if len(none) != 0 {
		t.Errorf("QIDO-RS for nobody found %d studies", len(none))
	}

	// WADO-RS: the study leaves Orthanc, which retrieves it from MediShare
	// and keeps each instance as received.
	orthanc.JSON(t, "DELETE", "/studies/"+studies[0], nil, nil)
	var left []string
	if orthanc.JSON(t, "GET", "/instances", nil, &left); len(left) != 0 {
		t.Fatalf("Orthanc still holds %d instances", len(left))
	}
	// A series and an instance of another first, then the whole study.
	retrieve := func(resource map[string]string, want int) {
		t.Helper()
		orthanc.JSON(t, "POST", "/dicom-web/servers/medishare/retrieve", map[string]any{"Resources": []map[string]string{resource}}, nil)
		var held []string
		if orthanc.JSON(t, "GET", "/instances", nil, &held); len(held) != want {
			t.Fatalf("after retrieving %v, Orthanc holds %d instances, want %d", resource, len(held), want)
		}
	}
	retrieve(map[string]string{"Study": uid, "Series": study[0].Series}, 2)
	retrieve(map[string]string{"Study": uid, "Series": study[5].Series, "Instance": study[5].SOP}, 3)
	retrieve(map[string]string{"Study": uid}, len(study))
	var instances []string
	orthanc.JSON(t, "GET", "/instances", nil, &instances)
	for _, id := range instances {
		status, file := orthanc.Call(t, "GET", "/instances/"+id+"/file", nil)
		if status != http.StatusOK || !sent[digest(file)] {
			t.Errorf("instance %s came back changed (%d, %d bytes)", id, status, len(file))
		}
		delete(sent, digest(file))
	}
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
