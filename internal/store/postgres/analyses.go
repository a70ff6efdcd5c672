package postgres

import (
	"context"

	"github.com/google/uuid"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/store/postgres/db"
)

// AddAnalysis stores one analysis of an image. Errors: EUNAVAILABLE.
func (s *Store) AddAnalysis(ctx context.Context, a domain.StoredAnalysis) error {
	id, err := parseID(a.ID)
	if err != nil {
		return err
	}
	imageID, err := parseID(a.ImageID)
	if err != nil {
		return err
	}
	return translate(s.q(ctx).AddAnalysis(ctx, db.AddAnalysisParams{
		ID: id, ImageID: imageID, RequestedBy: optionalID(a.RequestedBy), Provider: a.Provider, Model: a.Model,
		Sealed: a.Sealed, CreatedAt: a.CreatedAt,
	}))
}

// LatestAnalysis returns an image's current analysis. Errors: ENOTFOUND.
func (s *Store) LatestAnalysis(ctx context.Context, imageID string) (domain.StoredAnalysis, error) {
	id, err := parseID(imageID)
	if err != nil {
		return domain.StoredAnalysis{}, err
	}
	r, err := s.q(ctx).LatestAnalysis(ctx, id)
	if err != nil {
		return domain.StoredAnalysis{}, translate(err)
	}
	return domain.StoredAnalysis{ID: r.ID.String(), ImageID: r.ImageID.String(), Provider: r.Provider, Model: r.Model,
		Sealed: r.Sealed, CreatedAt: r.CreatedAt.UTC()}, nil
}

// AnalysesNotUnder returns up to 500 analyses sealed under another key than keyID.
func (s *Store) AnalysesNotUnder(ctx context.Context, keyID []byte) ([]domain.SealedText, error) {
	rows, err := s.q(ctx).AnalysesNotUnder(ctx, keyID)
	out := make([]domain.SealedText, len(rows))
	for i, r := range rows {
		out[i] = domain.SealedText{ID: r.ID.String(), Sealed: r.Sealed}
	}
	return out, translate(err)
}

// SetAnalysisSealed replaces an analysis's sealed result.
func (s *Store) SetAnalysisSealed(ctx context.Context, id string, sealed []byte) error {
	return translate(s.q(ctx).SetAnalysisSealed(ctx, db.SetAnalysisSealedParams{ID: uuid.MustParse(id), Sealed: sealed}))
}
