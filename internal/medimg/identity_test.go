package medimg

import (
	"bytes"
	"io"
	"testing"

	"github.com/medishare/medishare/internal/medimg/synth"
)

func TestDICOMIdentity(t *testing.T) {
	in := synth.Study("Doe^Jane", "P-17", "CT chest", "CT", 1)[0]
	in.InstanceNumber = 7
	info, err := Clean(io.Discard, bytes.NewReader(synth.NewPixels(8, 8).File(in)), DICOM)
	if err != nil {
		t.Fatal(err)
	}
	id := info.DICOM.Identity
	if id.StudyInstanceUID != in.Study || id.SeriesInstanceUID != in.Series || id.SOPInstanceUID != in.SOP {
		t.Errorf("identity %+v, want the file's UIDs", id)
	}
	if id.SOPClassUID != "1.2.840.10008.5.1.4.1.1.2" || id.StudyDate != "20261123" || id.AccessionNumber != "AP-17" {
		t.Errorf("identity %+v", id)
	}
	if id.SeriesNumber == nil || *id.SeriesNumber != 1 || id.InstanceNumber == nil || *id.InstanceNumber != 7 {
		t.Errorf("numbers %v %v", id.SeriesNumber, id.InstanceNumber)
	}
	if p := info.DICOM.Patient; p.Name != "Doe^Jane" || p.ID != "P-17" {
		t.Errorf("patient %+v", p)
	}
}

func TestValidUID(t *testing.T) {
	for s, want := range map[string]bool{
		"1.2.840.10008.1.2": true, "2.25.123": true, "": false, "1..2": false, "1.02": false,
		"1.2.a": false, "1.2.": false, "1." + string(bytes.Repeat([]byte("1"), 63)): false,
	} {
		if got := ValidUID(s); got != want {
			t.Errorf("ValidUID(%q) = %v", s, got)
		}
	}
}
