package bench

import "github.com/medishare/medishare/internal/medimg/synth"

// newBenchDICOM makes the pixels of the benchmarks' DICOM files.
func newBenchDICOM(rows, cols int) *synth.Pixels { return synth.NewPixels(rows, cols) }

// largeBenchDICOM is the 10 MiB file of the transfer measures: 2047 x 2560
// pixels, just under MediShare's 10 MiB upload limit with its header.
func largeBenchDICOM() *synth.Pixels { return newBenchDICOM(2047, 2560) }

// newUIDs returns a chest radiograph's fresh identifiers, so Orthanc, which
// keeps one copy per SOP Instance UID, stores every upload.
func newUIDs(patientID string, number int) synth.Instance {
	return benchInstance(patientID, synth.NewUID(), synth.NewUID(), number)
}

// benchInstance is instance number of the given study and series.
func benchInstance(patientID, study, series string, number int) synth.Instance {
	return synth.Instance{
		PatientName: "Bench^" + patientID, PatientID: patientID,
		Study: study, Series: series, SOP: synth.NewUID(),
		StudyDescription: "Chest PA (benchmark)", StudyDate: "20261123", Modality: "CR", BodyPart: "CHEST",
		SeriesNumber: 1, InstanceNumber: number,
	}
}
