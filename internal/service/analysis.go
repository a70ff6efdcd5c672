package service

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/medishare/medishare/internal/analysis"
	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/medimg"
)

// AnalysisStore is what analyses need from the database.
type AnalysisStore interface {
	AuditWriter
	Throttler
	SettingsReader
	AddAnalysis(ctx context.Context, a domain.StoredAnalysis) error
	LatestAnalysis(ctx context.Context, imageID string) (domain.StoredAnalysis, error)
}

// analysesPerUser: at most 20 new analyses an hour per person (api.md).
var analysesPerUser = limit{prefix: "analysis:", reason: "analyses", max: 20, window: time.Hour,
	message: "Too many analyses in a short time. Please try again later."}

var (
	errAnalysisImagesOnly = domain.ValidationError("AI analysis is available for images only.")
	errAnalysisDown       = domain.Errorf(domain.EUNAVAILABLE, "The analysis service is not available right now. Please try again later.")
	errNoAnalysisRight    = forbidden("You are not allowed to run AI analyses.")
)

// discloser is an analyzer that sends images out of the server, and says
// for which and to where.
type discloser interface {
	Discloses(in analysis.Input) analysis.Disclosure
}

// Analysis is an image's analysis as the caller reads it.
type Analysis struct {
	analysis.Result
	ImageID   string
	CreatedAt time.Time
}

// AnalysisService runs the analysis of an image with the provider the
// settings choose, keeps each result sealed (one current per image, the
// earlier ones as its history) and answers with the current one.
type AnalysisService struct {
	store     AnalysisStore
	images    *ImageService
	previews  *PreviewService
	texts     TextSealer
	analyzers map[string]analysis.Analyzer
	now       Clock
	logger    *slog.Logger
}

// NewAnalysisService wires analyses; the built-in analyser is always among
// the analyzers.
func NewAnalysisService(store AnalysisStore, images *ImageService, previews *PreviewService, texts TextSealer, now Clock, logger *slog.Logger,
	analyzers ...analysis.Analyzer) *AnalysisService {
	byName := map[string]analysis.Analyzer{domain.AnalysisBuiltin: analysis.Builtin{}}
	for _, a := range analyzers {
		byName[a.Name()] = a
	}
	return &AnalysisService{store: store, images: images, previews: previews, texts: texts, analyzers: byName, now: now, logger: logger}
}

// Get returns an image's current analysis, running one when it has none.
// Errors: EFORBIDDEN (no analysis:run, or a share not verified), ENOTFOUND
// (an image the caller may not see), EVALIDATION (a PDF), ETHROTTLED,
// EUNAVAILABLE (the analyser failed).
func (s *AnalysisService) Get(ctx context.Context, p *domain.Principal, imageID string, meta domain.RequestMeta) (Analysis, error) {
	im, err := s.readable(ctx, p, imageID, meta)
	if err != nil {
		return Analysis{}, err
	}
	stored, err := s.store.LatestAnalysis(ctx, im.ID)
	switch {
	case err == nil:
		return s.open(stored)
	case domain.ErrorKind(err) != domain.ENOTFOUND:
		return Analysis{}, err
	}
	return s.run(ctx, p, im, meta)
}

// Run analyses the image again with the current provider and keeps the
// result as its current analysis; the earlier ones stay as its history.
// Errors: those of Get.
func (s *AnalysisService) Run(ctx context.Context, p *domain.Principal, imageID string, meta domain.RequestMeta) (Analysis, error) {
	im, err := s.readable(ctx, p, imageID, meta)
	if err != nil {
		return Analysis{}, err
	}
	return s.run(ctx, p, im, meta)
}

// readable checks that the caller may run analyses and see the image's
// contents, and that it is an image.
func (s *AnalysisService) readable(ctx context.Context, p *domain.Principal, imageID string, meta domain.RequestMeta) (domain.Image, error) {
	if err := require(ctx, s.store, p, domain.PermAnalysisRun, meta, errNoAnalysisRight); err != nil {
		return domain.Image{}, err
	}
	im, err := s.images.reachOpen(ctx, p, imageID, meta)
	if err != nil {
		return domain.Image{}, err
	}
	if im.ContentType == domain.TypePDF {
		return domain.Image{}, refuse(ctx, s.store, meta, Event{Actor: p.User.ID, Table: domain.TableImages, RecordID: im.ID, Reason: "analysis: not an image"},
			errAnalysisImagesOnly)
	}
	return im, nil
}

// run analyses im with the provider of the settings. A failure leaves the
// last good analysis as it was.
func (s *AnalysisService) run(ctx context.Context, p *domain.Principal, im domain.Image, meta domain.RequestMeta) (Analysis, error) {
	if err := analysesPerUser.hit(ctx, s.store, s.store, s.now, p.User.ID, meta, p.User.ID); err != nil {
		return Analysis{}, err
	}
	settings, err := s.store.Settings(ctx)
	if err != nil {
		return Analysis{}, err
	}
	analyzer, ok := s.analyzers[settings.AnalysisProvider]
	if !ok { // a provider this instance is not configured with: the built-in one
		analyzer = s.analyzers[domain.AnalysisBuiltin]
	}
	// A failure is recorded in plain words, for the image's patient reads
	// the entry; what went wrong, which can name addresses and internals,
	// goes to the operator's log.
	failed := func(plain string, err error) error {
		s.logger.Warn("analysis failed", "image", im.ID, "provider", analyzer.Name(), "err", err)
		_ = record(ctx, s.store, meta, Event{Actor: p.User.ID, Action: domain.ActionAnalyze, Table: domain.TableImages, RecordID: im.ID,
			Reason: truncate(fmt.Sprintf("provider %s: %s", analyzer.Name(), plain), 500)})
		return errAnalysisDown
	}
	preview, err := s.previews.Preview(ctx, p, im.ID, meta)
	if errors.Is(err, medimg.ErrNoPreview) { // a DICOM file without pixels
		return Analysis{}, errAnalysisImagesOnly
	}
	if err != nil {
		return Analysis{}, err
	}
	pngBytes, err := preview.Bytes(ctx)
	if err != nil {
		return Analysis{}, err
	}
	pixels, err := png.Decode(bytes.NewReader(pngBytes))
	if err != nil {
		return Analysis{}, failed("The image could not be prepared for analysis.", err)
	}
	facts := factsOf(im)
	if r, ok := s.previews.storedRange(ctx, im); ok {
		used := r.UsedShare()
		facts.StoredBitDepthUsed = &used
	}
	in := analysis.Input{Pixels: pixels, Facts: facts, SendUnscreened: settings.AnalysisSendUnscreened}
	if d, ok := analyzer.(discloser); ok {
		if out := d.Discloses(in); out.Sent {
			reason := "de-identified pixels sent to " + out.To + " for analysis by " + analyzer.Name()
			if out.Unscreened != "" {
				reason += ", unscreened as an administrator allows (" + out.Unscreened + ")"
			}
			// Recorded before the send: a disclosure that could not be
			// recorded does not happen.
			if err := record(ctx, s.store, meta, Event{Actor: p.User.ID, Action: domain.ActionDisclose, Table: domain.TableImages, RecordID: im.ID,
				Success: true, Reason: truncate(reason, 500)}); err != nil {
				return Analysis{}, err
			}
		}
	}
	result, err := analyzer.Analyze(ctx, in)
	if err != nil {
		return Analysis{}, failed(analysis.FailureReason(err), err)
	}
	// Whichever analyser wrote it, nothing longer than the bounds is kept.
	result = result.Bounded()
	out := Analysis{Result: result, ImageID: im.ID, CreatedAt: s.now().UTC().Truncate(time.Microsecond)} // as stored
	sealedJSON, err := json.Marshal(result)
	if err != nil {
		return Analysis{}, err
	}
	stored := domain.StoredAnalysis{ID: uuid.NewString(), ImageID: im.ID, RequestedBy: p.User.ID, Provider: result.Provider,
		Model: result.Model, CreatedAt: out.CreatedAt}
	stored.Sealed = s.texts.Seal(stored.ID, string(sealedJSON))
	if err := s.store.AddAnalysis(ctx, stored); err != nil {
		return Analysis{}, err
	}
	if err := record(ctx, s.store, meta, Event{Actor: p.User.ID, Action: domain.ActionAnalyze, Table: domain.TableImages, RecordID: im.ID,
		Success: true, Reason: truncate("provider "+result.Provider+", model "+result.Model, 500)}); err != nil {
		return Analysis{}, err
	}
	return out, nil
}

// open unseals a stored analysis.
func (s *AnalysisService) open(stored domain.StoredAnalysis) (Analysis, error) {
	text, err := s.texts.Open(stored.ID, stored.Sealed)
	if err != nil {
		return Analysis{}, err
	}
	var result analysis.Result
	if err := json.Unmarshal([]byte(text), &result); err != nil {
		return Analysis{}, domain.Wrap(domain.EINTERNAL, err, "Internal server error.")
	}
	return Analysis{Result: result, ImageID: stored.ImageID, CreatedAt: stored.CreatedAt}, nil
}

// factsOf are the facts of an image an analyser may see: its type and the
// allow-listed DICOM fields, never its caption, names or dates.
func factsOf(im domain.Image) analysis.Facts {
	f := analysis.Facts{ContentType: im.ContentType}
	if d := im.DICOM; d != nil {
		f.Modality, f.BodyPart, f.StudyDescription = d.Modality, d.BodyPart, d.StudyDescription
		f.Rows, f.Columns, f.Frames = d.Rows, d.Columns, d.Frames
		f.BurnedInAnnotation = d.BurnedInAnnotation
		f.BitsStored, f.PhotometricInterpretation, f.PixelSpacing = d.BitsStored, d.PhotometricInterpretation, d.PixelSpacing
		f.WindowCenter, f.WindowWidth = d.WindowCenter, d.WindowWidth
		f.ExposureIndex, f.TargetExposureIndex, f.DeviationIndex = d.ExposureIndex, d.TargetExposureIndex, d.DeviationIndex
		f.LossyCompression = d.LossyCompression
	}
	return f
}
