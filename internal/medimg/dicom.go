package medimg

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/suyashkumar/dicom"
	"github.com/suyashkumar/dicom/pkg/tag"
)

// parseBudget is how long the DICOM parser may work on one file. It counts
// only time the parser keeps the upload waiting, not time spent waiting for a
// slow client. A variable so tests can shorten it.
var parseBudget = 10 * time.Second

// cleanDICOM stores the file with its preamble zeroed (CVE-2019-11687: the
// preamble can hold an executable header) while the header is parsed from the
// same stream. A raw dataset (no preamble, no meta group) is stored wrapped
// into Part 10 with a generated meta group (asPart10).
func cleanDICOM(dst io.Writer, src io.Reader) (Info, error) {
	src, err := asPart10(src)
	if err != nil {
		return Info{}, err
	}
	bw := bufio.NewWriterSize(dst, copyBufSize)
	ds, g, err := parseDICOM(src, bw, false)
	if err != nil {
		return Info{}, err
	}
	if err := flush(bw); err != nil {
		return Info{}, err
	}
	di := dicomInfo(&ds, g)
	return Info{ContentType: DICOM, Width: di.Columns, Height: di.Rows, DICOM: di}, nil
}

// parseDICOM feeds src, preamble zeroed, to suyashkumar/dicom through the
// guard, copying it to tee (if not nil) as it goes. The parser runs in its own
// goroutine at the other end of a pipe, so memory stays at a few buffers
// whatever the file size, and a parser that takes too long can be cut off.
// keepPixels makes the library read pixel data (raw) for a preview; otherwise
// it skips it.
func parseDICOM(src io.Reader, tee io.Writer, keepPixels bool) (dicom.Dataset, *dicomGuard, error) {
	pr, pw := io.Pipe()
	g := newDicomGuard(pr, keepPixels)
	opts := []dicom.ParseOption{dicom.AllowUnknownSpecificCharacterSet()}
	if keepPixels {
		opts = append(opts, dicom.SkipProcessingPixelDataValue())
	} else {
		opts = append(opts, dicom.SkipPixelData())
	}

	type result struct {
		ds  dicom.Dataset
		err error
	}
	done := make(chan result, 1)
	go func() {
		var res result
		defer func() {
			if r := recover(); r != nil {
				res = result{err: errParserPanic}
			}
			// Whatever happened, the parser reads no more: unblock the feeder.
			pr.CloseWithError(errParserStopped)
			done <- res
		}()
		ds, err := dicom.ParseUntilEOF(g, nil, opts...)
		res = result{ds: ds, err: err}
	}()

	budget := parseBudget
	var timedOut atomic.Bool
	stop := func() {
		timedOut.Store(true)
		pr.CloseWithError(errParseTimeout)
	}
	timer := time.AfterFunc(time.Hour, stop)
	timer.Stop()
	defer timer.Stop()

	feedErr := feed(src, tee, func(chunk []byte) error {
		if budget <= 0 {
			return errParseTimeout
		}
		start := time.Now()
		timer.Reset(budget)
		_, err := pw.Write(chunk)
		timer.Stop()
		budget -= time.Since(start)
		return err
	})
	var ioErr error
	switch {
	case feedErr == nil:
		pw.Close()
	case errors.Is(feedErr, errParseTimeout):
		stop()
	case errors.Is(feedErr, errFeed):
		// The parser stopped reading; its result says why.
	default:
		ioErr = feedErr // src or tee failed: stop the parser and report that
		pw.CloseWithError(errParserStopped)
	}

	var res result
	select {
	case res = <-done:
	case <-time.After(max(budget, 0)):
		stop()
		select {
		case res = <-done:
		case <-time.After(time.Second):
			// The parser is busy without reading; leave it (it holds
			// nothing of the caller's) rather than hang the upload.
			return dicom.Dataset{}, nil, errDamaged(errParseTimeout)
		}
	}
	if ioErr != nil {
		return dicom.Dataset{}, nil, ioErr
	}
	if timedOut.Load() {
		return dicom.Dataset{}, nil, errDamaged(errParseTimeout)
	}
	if res.err != nil || !g.done {
		return dicom.Dataset{}, nil, errDamaged(parseCause(res.err, g))
	}
	return res.ds, g, nil
}

// errFeed marks a failed write into the parser's pipe, as opposed to a failed
// read from the upload or write to storage.
var errFeed = errors.New("medimg: parser input closed")

// feed reads src to the end, zeroing the 128-byte preamble, and passes each
// chunk to tee and then to parse.
func feed(src io.Reader, tee io.Writer, parse func([]byte) error) error {
	buf := make([]byte, copyBufSize)
	var off int64
	for {
		n, rerr := src.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			if off < 128 {
				clear(chunk[:min(int64(n), 128-off)])
			}
			off += int64(n)
			if tee != nil {
				if _, err := tee.Write(chunk); err != nil {
					return writeErr(err)
				}
			}
			if err := parse(chunk); err != nil {
				return fmt.Errorf("%w: %w", errFeed, err)
			}
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return fmt.Errorf("medimg: read upload: %w", rerr)
		}
	}
}

// parseCause picks an error to keep as the hidden cause. The library's own
// errors are never kept: they can quote element values (S17).
func parseCause(libErr error, g *dicomGuard) error {
	switch {
	case g.err != nil && g.err != io.EOF:
		for _, known := range []error{errTruncated, errStructure, errBounds} {
			if errors.Is(g.err, known) {
				return known
			}
		}
		return errParse
	case errors.Is(libErr, errParserPanic):
		return errParserPanic
	}
	return errParse
}

// dicomInfo copies the allow-listed fields out of the parsed header.
func dicomInfo(ds *dicom.Dataset, g *dicomGuard) *DICOMInfo {
	di := &DICOMInfo{
		Modality:                  headerText(ds, tag.Modality),
		BodyPart:                  headerText(ds, tag.BodyPartExamined),
		StudyDescription:          headerText(ds, tag.StudyDescription),
		Rows:                      headerInt(ds, tag.Rows, 0),
		Columns:                   headerInt(ds, tag.Columns, 0),
		HasPixels:                 g.hasPixels,
		TransferSyntax:            g.transferSyntax,
		BurnedInAnnotation:        headerText(ds, tag.BurnedInAnnotation),
		BitsStored:                headerInt(ds, tag.BitsStored, 0),
		PhotometricInterpretation: headerText(ds, tag.PhotometricInterpretation),
		PixelSpacing:              headerFloats(ds, tag.PixelSpacing),
		WindowCenter:              headerFloat(ds, tag.WindowCenter),
		WindowWidth:               headerFloat(ds, tag.WindowWidth),
		ExposureIndex:             headerFloat(ds, tag.ExposureIndex),
		TargetExposureIndex:       headerFloat(ds, tag.TargetExposureIndex),
		DeviationIndex:            headerFloat(ds, tag.DeviationIndex),
		LossyCompression:          headerText(ds, tag.LossyImageCompression) == "01",
	}
	if len(di.PixelSpacing) != 2 || !finite(di.PixelSpacing[0]) || !finite(di.PixelSpacing[1]) {
		di.PixelSpacing = nil
	}
	if di.HasPixels {
		di.Frames = max(headerInt(ds, tag.NumberOfFrames, 1), 1)
	}
	di.Identity = DICOMIdentity{
		StudyInstanceUID:       headerUID(ds, tag.StudyInstanceUID),
		SeriesInstanceUID:      headerUID(ds, tag.SeriesInstanceUID),
		SOPInstanceUID:         headerUID(ds, tag.SOPInstanceUID),
		SOPClassUID:            headerUID(ds, tag.SOPClassUID),
		SeriesNumber:           headerIntPtr(ds, tag.SeriesNumber),
		InstanceNumber:         headerIntPtr(ds, tag.InstanceNumber),
		SeriesDescription:      headerText(ds, tag.SeriesDescription),
		StudyDate:              headerText(ds, tag.StudyDate),
		StudyTime:              headerText(ds, tag.StudyTime),
		AccessionNumber:        headerText(ds, tag.AccessionNumber),
		StudyID:                headerText(ds, tag.StudyID),
		ReferringPhysicianName: headerText(ds, tag.ReferringPhysicianName),
	}
	if !g.deflated {
		for _, s := range g.pixelSpans {
			di.PixelSpans = append(di.PixelSpans, PixelSpan{Offset: g.datasetStart + s.Offset, Length: s.Length})
		}
	}
	di.Patient = DICOMPatient{
		Name: headerText(ds, tag.PatientName), ID: headerText(ds, tag.PatientID),
		BirthDate: headerText(ds, tag.PatientBirthDate), Sex: headerText(ds, tag.PatientSex),
	}
	return di
}

// headerUID is a UID element's value when it is a well-formed UID (digits
// and dots, at most 64 characters), or "".
func headerUID(ds *dicom.Dataset, t tag.Tag) string {
	s := strings.TrimRight(headerText(ds, t), "\x00 ")
	if !ValidUID(s) {
		return ""
	}
	return s
}

// ValidUID reports whether s is a DICOM UID: 1 to 64 characters of digit
// components separated by dots, without leading zeros (PS3.5 9.1).
func ValidUID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, part := range strings.Split(s, ".") {
		if part == "" || (len(part) > 1 && part[0] == '0') {
			return false
		}
		for _, r := range part {
			if r < '0' || r > '9' {
				return false
			}
		}
	}
	return true
}

// headerIntPtr is headerInt for an optional element: nil when absent.
func headerIntPtr(ds *dicom.Dataset, t tag.Tag) *int {
	const absent = math.MinInt
	if n := headerInt(ds, t, absent); n != absent {
		return &n
	}
	return nil
}

// headerFloat is the first value of a DS element when it is a finite
// number, or nil.
func headerFloat(ds *dicom.Dataset, t tag.Tag) *float64 {
	if vs := headerFloats(ds, t); len(vs) > 0 && finite(vs[0]) {
		return &vs[0]
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

const maxHeaderText = 64

// headerText returns a top-level text element as clean, short UTF-8.
func headerText(ds *dicom.Dataset, t tag.Tag) string {
	e, err := ds.FindElementByTag(t)
	if err != nil || e.Value == nil || e.Value.ValueType() != dicom.Strings {
		return ""
	}
	vals, _ := e.Value.GetValue().([]string)
	s := strings.ToValidUTF8(strings.Join(vals, `\`), "")
	s = strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || isInvisibleFormat(r) {
			return -1
		}
		return r
	}, s))
	if utf8.RuneCountInString(s) > maxHeaderText {
		s = strings.TrimSpace(string([]rune(s)[:maxHeaderText]))
	}
	return s
}

// headerInt reads the first value of a top-level integer element, whether
// binary (US, UL...) or text (IS), or returns def.
func headerInt(ds *dicom.Dataset, t tag.Tag, def int) int {
	e, err := ds.FindElementByTag(t)
	if err != nil || e.Value == nil {
		return def
	}
	switch v := e.Value.GetValue().(type) {
	case []int:
		if len(v) > 0 {
			return v[0]
		}
	case []string:
		if len(v) > 0 {
			if n, err := strconv.Atoi(strings.TrimSpace(v[0])); err == nil {
				return n
			}
		}
	}
	return def
}

// headerFloats reads a top-level decimal string (DS) element's values.
func headerFloats(ds *dicom.Dataset, t tag.Tag) []float64 {
	e, err := ds.FindElementByTag(t)
	if err != nil || e.Value == nil {
		return nil
	}
	vals, ok := e.Value.GetValue().([]string)
	if !ok {
		return nil
	}
	var out []float64
	for _, s := range vals {
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return out
		}
		out = append(out, f)
	}
	return out
}
