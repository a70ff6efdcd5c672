package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/store/postgres/db"
)

// Preview returns an image's preview record. Errors: ENOTFOUND (none yet).
func (s *Store) Preview(ctx context.Context, imageID string) (domain.Preview, error) {
	id, err := parseID(imageID)
	if err != nil {
		return domain.Preview{}, err
	}
	p, err := s.q(ctx).GetPreview(ctx, id)
	if err != nil {
		return domain.Preview{}, translate(err)
	}
	return domain.Preview{
		ImageID: p.ImageID.String(), State: p.State, BlobKey: p.BlobKey.String, WrappedKey: p.WrappedKey,
		KeyID: p.KeyID, Size: p.Size.Int64, SHA256: p.Sha256,
	}, nil
}

// CreatePreview records a rendered preview (or PreviewNone) unless the
// image has one already; it reports whether this one was recorded.
// Errors: EINVALID (the image is gone).
func (s *Store) CreatePreview(ctx context.Context, p domain.Preview) (bool, error) {
	id, err := parseID(p.ImageID)
	if err != nil {
		return false, err
	}
	params := db.CreatePreviewParams{ImageID: id, State: p.State}
	if p.State == domain.PreviewReady {
		params.BlobKey, params.WrappedKey, params.KeyID = textOf(p.BlobKey), p.WrappedKey, p.KeyID
		params.Size, params.Sha256 = pgtype.Int8{Int64: p.Size, Valid: true}, p.SHA256
	}
	n, err := s.q(ctx).CreatePreview(ctx, params)
	return n == 1, translate(err)
}

// DeletePreview removes an image's preview record and returns the key of
// its stored object ("" when there is none), which the caller deletes
// afterwards (S24).
func (s *Store) DeletePreview(ctx context.Context, imageID string) (string, error) {
	id, err := parseID(imageID)
	if err != nil {
		return "", err
	}
	keys, err := s.q(ctx).DeletePreview(ctx, id)
	if err != nil || len(keys) == 0 {
		return "", translate(err)
	}
	return keys[0].String, nil
}

// PreviewReferenced reports whether a preview record points at the blob key.
func (s *Store) PreviewReferenced(ctx context.Context, key string) (bool, error) {
	ok, err := s.q(ctx).PreviewKeyReferenced(ctx, textOf(key))
	return ok, translate(err)
}

// PreviewKeysNotUnder returns up to 500 stored previews whose key is wrapped
// by another master key than currentKeyID.
func (s *Store) PreviewKeysNotUnder(ctx context.Context, currentKeyID []byte) ([]domain.Preview, error) {
	rows, err := s.q(ctx).ListPreviewWrappedKeys(ctx, currentKeyID)
	if err != nil {
		return nil, translate(err)
	}
	out := make([]domain.Preview, len(rows))
	for i, r := range rows {
		out[i] = domain.Preview{ImageID: r.ImageID.String(), State: domain.PreviewReady, BlobKey: r.BlobKey.String, WrappedKey: r.WrappedKey}
	}
	return out, nil
}

// SetPreviewWrappedKey stores a preview's re-wrapped key.
func (s *Store) SetPreviewWrappedKey(ctx context.Context, imageID string, wrapped, keyID []byte) error {
	id, err := parseID(imageID)
	if err != nil {
		return err
	}
	return translate(s.q(ctx).SetPreviewWrappedKey(ctx, db.SetPreviewWrappedKeyParams{ImageID: id, WrappedKey: wrapped, KeyID: keyID}))
}

// ClaimContentCheck takes, for lease, the image whose contents were checked
// longest ago, if that was more than recheck ago; no other claim gets it
// until the lease ends or the check is recorded.
// Errors: ENOTFOUND when no image is due.
func (s *Store) ClaimContentCheck(ctx context.Context, lease, recheck time.Duration) (string, error) {
	id, err := s.q(ctx).ClaimContentCheck(ctx, db.ClaimContentCheckParams{LeaseSeconds: lease.Seconds(), RecheckSeconds: recheck.Seconds()})
	if err != nil {
		return "", translate(err)
	}
	return id.String(), nil
}

// RecordContentCheck records a check of an image's contents (failure empty
// when they passed) and reports whether the image has just started failing.
// Errors: ENOTFOUND (the image is gone).
func (s *Store) RecordContentCheck(ctx context.Context, imageID, failure string) (bool, error) {
	id, err := parseID(imageID)
	if err != nil {
		return false, err
	}
	newly, err := s.q(ctx).RecordContentCheck(ctx, db.RecordContentCheckParams{ImageID: id, Failure: failure})
	return newly, translate(err)
}

// ScrubStatus summarises the checks of stored contents, with the (at most
// 100 latest) failing images.
func (s *Store) ScrubStatus(ctx context.Context) (domain.ScrubStatus, error) {
	sum, err := s.q(ctx).ContentCheckSummary(ctx)
	if err != nil {
		return domain.ScrubStatus{}, translate(err)
	}
	out := domain.ScrubStatus{Images: int(sum.Images), Checked: int(sum.Checked), Failing: int(sum.Failing)}
	if sum.LastChecked.Valid {
		out.LastChecked = sum.LastChecked.Time
	}
	rows, err := s.q(ctx).ListContentFailures(ctx)
	if err != nil {
		return domain.ScrubStatus{}, translate(err)
	}
	for _, r := range rows {
		out.Failures = append(out.Failures, domain.ContentFailure{ImageID: r.ImageID.String(), FailedAt: r.FailedAt, CheckedAt: r.CheckedAt, Reason: r.Failure})
	}
	return out, nil
}

// ImageIDsAfter returns up to 500 image ids greater than after ("" for the
// first), in order, for a pass over every image.
func (s *Store) ImageIDsAfter(ctx context.Context, after string) ([]string, error) {
	var from [16]byte
	if after != "" {
		id, err := parseID(after)
		if err != nil {
			return nil, err
		}
		from = id
	}
	ids, err := s.q(ctx).ListImageIDsAfter(ctx, from)
	if err != nil {
		return nil, translate(err)
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.String()
	}
	return out, nil
}
