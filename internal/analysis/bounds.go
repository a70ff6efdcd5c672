package analysis

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds on what an analysis keeps. An external model's answer is text
// from outside the server: it is sealed into the analyses table, shown on
// the analysis page, and its model name goes into the audit entry the
// image's patient reads. Longer is cut, more is dropped.
const (
	// maxAnswerBytes bounds a whole Chat Completions answer as read from
	// the wire. A bounded analysis (below) is a few KiB of JSON, so 1 MiB
	// leaves verbose servers room while a runaway answer cannot fill the
	// memory before it is judged.
	maxAnswerBytes = 1 << 20
	// maxDescription: a few paragraphs, what the page shows as the description.
	maxDescription = 2000
	// maxEntry: one condition, treatment, follow-up, warning or measurement
	// label, a sentence or two.
	maxEntry = 300
	// maxEntries per list from the model: a differential past ten is noise.
	maxEntries = 10
	// maxModelName: model names are short identifiers (gpt-4o-2024-08-06,
	// llava:13b); the name is stored beside each analysis and repeated in
	// its audit entry.
	maxModelName = 100
	// maxSendSide: the pixels sent are at most this many a side, enough
	// for a vision model, which scales larger images down itself.
	maxSendSide = 1024
)

// Bounded is r with every text held to its bound, whichever analyser
// wrote it: the service keeps nothing longer. Lists from a model are cut
// to maxEntries when its answer is read (parseAnswer); the few entries the
// server adds itself stay.
func (r Result) Bounded() Result {
	r.Description = cut(r.Description, maxDescription)
	r.DifferentialDiagnosis = slices.Clone(r.DifferentialDiagnosis)
	for i, c := range r.DifferentialDiagnosis {
		r.DifferentialDiagnosis[i].Condition = cut(c.Condition, maxEntry)
	}
	r.Treatment, r.FollowUp, r.Warnings = entries(r.Treatment, len(r.Treatment)), entries(r.FollowUp, len(r.FollowUp)), entries(r.Warnings, len(r.Warnings))
	r.Measurements = slices.Clone(r.Measurements)
	for i, m := range r.Measurements {
		r.Measurements[i].Key, r.Measurements[i].Label, r.Measurements[i].Unit = cut(m.Key, maxEntry), cut(m.Label, maxEntry), cut(m.Unit, maxEntry)
	}
	r.Provider, r.Model = modelName(r.Provider), modelName(r.Model)
	if p := r.Provenance; p != nil {
		bounded := Provenance{PromptVersion: cut(p.PromptVersion, maxEntry), SchemaVersion: cut(p.SchemaVersion, maxEntry),
			ImageSHA256: cut(p.ImageSHA256, maxEntry), DeIdentification: cut(p.DeIdentification, maxEntry), SentTo: cut(p.SentTo, maxEntry)}
		r.Provenance = &bounded
	}
	return r
}

// entries is list cut to at most n entries, each to maxEntry.
func entries(list []string, n int) []string {
	if list == nil {
		return nil
	}
	out := make([]string, 0, min(len(list), n))
	for _, s := range list[:min(len(list), n)] {
		out = append(out, cut(s, maxEntry))
	}
	return out
}

// modelName is a name as the audit log may repeat it: printable
// characters only (no line breaks to forge a line with), at most
// maxModelName bytes.
func modelName(s string) string {
	return cut(strings.Map(func(r rune) rune {
		if !unicode.IsPrint(r) {
			return -1
		}
		return r
	}, s), maxModelName)
}

// cut shortens s to at most n bytes, on a character boundary.
func cut(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.TrimSpace(s[:n])
}
