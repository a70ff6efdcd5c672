package analysis

import (
	"slices"
	"strings"

	"github.com/medishare/medishare/internal/domain"
)

// The screen decides which images may leave the server for an external
// model, and which words of their headers go with them. It allows what is
// known to be safe and nothing else: DICOM header fields are free text
// that anyone who made the file could have written, in any case, with
// spaces and several values (`us`, `US\OT`), so they are read as codes
// after normalising, and only codes from closed lists pass.

// sendableModalities are the DICOM modalities (PS3.3 C.7.3.1.1.1) whose
// pixels come from a detector and, as a rule, carry no burned-in text:
// cross-sectional imaging, projection radiography, nuclear medicine and
// fluoroscopy. Ultrasound (US), photographs (XC, ES, GM, OP), secondary
// captures (SC), other (OT) and anything unknown are left out: their pixels
// often show names, dates or faces.
var sendableModalities = map[string]bool{
	"CT": true, // computed tomography
	"MR": true, // magnetic resonance
	"CR": true, // computed radiography
	"DX": true, // digital radiography
	"MG": true, // mammography
	"PT": true, // positron emission tomography
	"NM": true, // nuclear medicine
	"RF": true, // radiofluoroscopy
	"XA": true, // X-ray angiography
}

// otherModalities are further DICOM modality codes that carry pixels: the
// screen does not send them, but once an admin lets unscreened images
// through, the model is told the code rather than nothing.
var otherModalities = map[string]bool{
	"US": true, "XC": true, "ES": true, "SC": true, "OT": true, "GM": true, "OP": true, "SM": true,
	"IO": true, "PX": true, "RG": true, "DG": true, "BMD": true, "OCT": true, "IVUS": true, "IVOCT": true, "RTIMAGE": true,
}

// bodyParts are the Body Part Examined codes that stand for the regions of
// DICOM PS3.16 CID 4031 "Common Anatomic Regions" (the mapping of PS3.16
// Annex L), with ARM and LEG of its earlier editions. Only these go to a
// model: the element is free text of 64 characters, which can hold a name
// or an instruction to the model.
var bodyParts = map[string]bool{
	"ABDOMEN": true, "ABDOMENPELVIS": true, "ACJOINT": true, "ANKLE": true, "ARM": true,
	"BILEDUCT": true, "BILIARYTRACT": true, "BLADDER": true, "BREAST": true, "BRONCHUS": true,
	"CALCANEUS": true, "CHEST": true, "CHESTABDOMEN": true, "CHESTABDPELVIS": true, "CLAVICLE": true,
	"COCCYX": true, "COLON": true, "COMMONBILEDUCT": true, "CSPINE": true, "CTSPINE": true,
	"DUODENUM": true, "ELBOW": true, "ESOPHAGUS": true, "EXTREMITY": true, "EYE": true,
	"FEMUR": true, "FIBULA": true, "FINGER": true, "FOOT": true, "FOREARM": true,
	"GALLBLADDER": true, "HAND": true, "HEAD": true, "HEADNECK": true, "HEART": true,
	"HIP": true, "HUMERUS": true, "IAC": true, "ILEUM": true, "ILIUM": true,
	"JAW": true, "JEJUNUM": true, "KNEE": true, "LARGEINTESTINE": true, "LARYNX": true,
	"LEG": true, "LOWERLEG": true, "LOWERLIMB": true, "LSPINE": true, "LSSPINE": true,
	"MANDIBLE": true, "MASTOID": true, "MAXILLA": true, "MEDIASTINUM": true, "NECK": true,
	"NECKCHEST": true, "NECKCHESTABDOMEN": true, "NECKCHESTABDPELV": true, "OPTICCANAL": true, "ORBIT": true,
	"PANCBILEDUCT": true, "PANCREAS": true, "PANCREATICDUCT": true, "PAROTID": true, "PATELLA": true,
	"PELVIS": true, "PELVISLOWEXTREMT": true, "PHANTOM": true, "PROSTATE": true, "RECTUM": true,
	"RIB": true, "SCAPULA": true, "SCJOINT": true, "SELLA": true, "SESAMOID": true,
	"SHOULDER": true, "SIJOINT": true, "SKULL": true, "SMALLINTESTINE": true, "SPINE": true,
	"SSPINE": true, "STERNUM": true, "STOMACH": true, "SUBMANDIBULAR": true, "THIGH": true,
	"THUMB": true, "TLSPINE": true, "TMJ": true, "TOE": true, "TRACHEA": true,
	"TSPINE": true, "UPPERARM": true, "UPPERLIMB": true, "UPRURINARYTRACT": true, "URETER": true,
	"URETHRA": true, "WHOLEBODY": true, "WRIST": true, "ZYGOMA": true,
}

// codes reads a DICOM code string as its values: split at the backslash
// that separates multiple values, each upper-cased with its spaces
// trimmed and inner runs of white space made one space. An empty field
// has no values; an empty value among others stays, as "".
func codes(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	values := strings.Split(s, `\`)
	for i, v := range values {
		values[i] = strings.ToUpper(strings.Join(strings.Fields(v), " "))
	}
	return values
}

// BurnedInAnnotation reads the DICOM Burned In Annotation element
// (0028,0301) as written: whether the pixels may carry text. The standard
// says YES or NO; files say `Y`, `yes` or ` YES ` too. Anything present
// that is not a plain no counts as yes: a value nobody can read is no
// promise that the pixels are clean. An absent element says nothing
// ("" is false), and the modality decides.
func BurnedInAnnotation(value string) bool {
	for _, v := range codes(value) {
		if v != "" && v != "NO" && v != "N" {
			return true
		}
	}
	return false
}

// sendableModality says whether every value of a modality is on the
// allow-list (`CT\MR` is, `US\OT` and `CT\` are not); else, which value
// is not, "" when the field is empty.
func sendableModality(modality string) (ok bool, offending string) {
	values := codes(modality)
	if len(values) == 0 {
		return false, ""
	}
	for _, v := range values {
		if !sendableModalities[v] {
			return false, v
		}
	}
	return true, ""
}

// screen says what may show who the patient is in an image's pixels:
// burnedIn when its header says they carry text (never sent), unvouched
// when nothing vouches for them (sent only when an admin allows unscreened
// images). Both are "" for an image that may go.
func screen(f Facts) (burnedIn, unvouched string) {
	if f.BurnedInAnnotation {
		return "its DICOM header says it carries burned-in annotation", ""
	}
	if f.ContentType != domain.TypeDICOM {
		return "", "photographs and scans without a DICOM header may show a face, a name or other identifying text"
	}
	ok, offending := sendableModality(f.Modality)
	switch {
	case ok:
		return "", ""
	case strings.TrimSpace(f.Modality) == "":
		return "", "its DICOM header names no modality, so nothing says its pixels are free of text"
	case otherModalities[offending]:
		return "", "images of modality " + offending + " often carry identifying text in their pixels"
	}
	return "", "its modality is not one whose images are known to be free of text in their pixels"
}

// withheldBecause is why an image must not leave the server, or "" when it
// may. sendUnscreened lets through what the screen cannot vouch for, never
// an image whose header says its pixels carry text.
func withheldBecause(f Facts, sendUnscreened bool) string {
	burnedIn, unvouched := screen(f)
	switch {
	case burnedIn != "":
		return burnedIn
	case sendUnscreened:
		return ""
	}
	return unvouched
}

// promptModality is the modality as the model may read it: the normalised
// codes when every one is a known modality code, else "".
func promptModality(modality string) string {
	values := codes(modality)
	if len(values) == 0 || slices.ContainsFunc(values, func(v string) bool { return !sendableModalities[v] && !otherModalities[v] }) {
		return ""
	}
	return strings.Join(values, ", ")
}

// promptBodyPart is the body part as the model may read it: a code of
// the closed list (bodyParts), else "".
func promptBodyPart(bodyPart string) string {
	values := codes(bodyPart)
	if len(values) != 1 || !bodyParts[values[0]] {
		return ""
	}
	return values[0]
}
