package postgres

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/store/postgres/db"
)

// OpenShare records a share with the keyed hash of its code, revoking the recipient's earlier open share of
// the same image. Shares of one image take turns on the image's row lock, so
// call it inside a transaction. Errors: ENOTFOUND (no such image).
func (s *Store) OpenShare(ctx context.Context, n domain.Share, codeHash []byte) (revokedEarlier bool, err error) {
	ids, err := parseIDs(n.ID, n.ImageID, n.SharedBy.ID, n.SharedWith.ID)
	if err != nil {
		return false, err
	}
	q := s.q(ctx)
	if _, err := q.LockImageForSharing(ctx, ids[1]); err != nil {
		return false, translate(err)
	}
	revoked, err := q.RevokeOpenShares(ctx, db.RevokeOpenSharesParams{Now: n.CreatedAt, ImageID: ids[1], SharedWith: ids[3]})
	if err != nil {
		return false, translate(err)
	}
	err = q.CreateShare(ctx, db.CreateShareParams{
		ID: ids[0], ImageID: ids[1], SharedBy: ids[2], SharedWith: ids[3],
		CodeHash: codeHash, CreatedAt: n.CreatedAt, ExpiresAt: n.ExpiresAt,
	})
	return revoked > 0, translate(err)
}

func parseIDs(ids ...string) ([]uuid.UUID, error) {
	out := make([]uuid.UUID, len(ids))
	for i, id := range ids {
		u, err := parseID(id)
		if err != nil {
			return nil, err
		}
		out[i] = u
	}
	return out, nil
}

// TryShareCode spends one try of an open, unexpired, unverified share of the
// recipient's and says whether the code matched and how many tries are used.
// found is false when there is no such share.
func (s *Store) TryShareCode(ctx context.Context, shareID, recipientID string, codeHash []byte, now time.Time, maxTries int) (found, matched bool, tries int, err error) {
	ids, err := parseIDs(shareID, recipientID)
	if err != nil {
		return false, false, 0, nil
	}
	row, err := s.q(ctx).TryShareCode(ctx, db.TryShareCodeParams{
		CodeHash: codeHash, Now: now, MaxTries: int32(maxTries), ID: ids[0], SharedWith: ids[1],
	})
	if isNoRows(err) {
		return false, false, 0, nil
	}
	if err != nil {
		return false, false, 0, translate(err)
	}
	return true, row.Matched, int(row.Tries), nil
}

func timePtr(t pgtype.Timestamptz) *time.Time {
	if !t.Valid {
		return nil
	}
	return &t.Time
}

func toShare(r db.GetShareRow) domain.Share {
	return domain.Share{
		ID: r.ID.String(), ImageID: r.ImageID.String(), Caption: r.Caption,
		SharedBy:   domain.Person{ID: r.SharedBy.String(), Firstname: r.SharerFirstname, Lastname: r.SharerLastname},
		SharedWith: domain.Person{ID: r.SharedWith.String(), Firstname: r.RecipientFirstname, Lastname: r.RecipientLastname},
		CreatedAt:  r.CreatedAt, ExpiresAt: r.ExpiresAt,
		VerifiedAt: timePtr(r.VerifiedAt), VoidedAt: timePtr(r.VoidedAt), RevokedAt: timePtr(r.RevokedAt),
	}
}

// Share returns one share. Errors: ENOTFOUND.
func (s *Store) Share(ctx context.Context, id string) (domain.Share, error) {
	uid, err := parseID(id)
	if err != nil {
		return domain.Share{}, err
	}
	r, err := s.q(ctx).GetShare(ctx, uid)
	if err != nil {
		return domain.Share{}, translate(err)
	}
	return toShare(r), nil
}

// RevokeShare marks a share revoked at now; revoking twice changes nothing.
func (s *Store) RevokeShare(ctx context.Context, id string, now time.Time) (bool, error) {
	uid, err := parseID(id)
	if err != nil {
		return false, err
	}
	n, err := s.q(ctx).RevokeShare(ctx, db.RevokeShareParams{Now: now, ID: uid})
	return n > 0, translate(err)
}

// ExtendShare gives an open (not revoked, not voided) share a new expiry,
// reporting whether there was one.
func (s *Store) ExtendShare(ctx context.Context, id string, expires time.Time) (bool, error) {
	uid, err := parseID(id)
	if err != nil {
		return false, err
	}
	n, err := s.q(ctx).ExtendShare(ctx, db.ExtendShareParams{ExpiresAt: expires, ID: uid})
	return n > 0, translate(err)
}

// MarkShareExpiryLogged reports true the first time it is called for a share,
// so its expiry is audited once.
func (s *Store) MarkShareExpiryLogged(ctx context.Context, id string) (bool, error) {
	uid, err := parseID(id)
	if err != nil {
		return false, err
	}
	n, err := s.q(ctx).MarkShareExpiryLogged(ctx, uid)
	return n > 0, translate(err)
}

// OpenShares returns recipientID's open shares (neither revoked nor void)
// of the images imageIDs.
func (s *Store) OpenShares(ctx context.Context, recipientID string, imageIDs []string) ([]domain.Share, error) {
	ids := make([]uuid.UUID, len(imageIDs))
	for i, id := range imageIDs {
		ids[i] = uuid.MustParse(id)
	}
	rows, err := s.q(ctx).OpenSharesOfImages(ctx, db.OpenSharesOfImagesParams{ImageIds: ids, SharedWith: uuid.MustParse(recipientID)})
	if err != nil {
		return nil, translate(err)
	}
	out := make([]domain.Share, len(rows))
	for i, r := range rows {
		out[i] = domain.Share{
			ID: r.ID.String(), ImageID: r.ImageID.String(),
			SharedBy: domain.Person{ID: r.SharedBy.String()}, SharedWith: domain.Person{ID: recipientID},
			CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt, VerifiedAt: timePtr(r.VerifiedAt),
		}
	}
	return out, nil
}

// RecipientShare returns the open share (neither revoked nor void, maybe
// expired or unverified) of an image with a recipient. Errors: ENOTFOUND.
func (s *Store) RecipientShare(ctx context.Context, imageID, recipientID string) (domain.Share, error) {
	ids, err := parseIDs(imageID, recipientID)
	if err != nil {
		return domain.Share{}, err
	}
	r, err := s.q(ctx).RecipientShareOfImage(ctx, db.RecipientShareOfImageParams{ImageID: ids[0], SharedWith: ids[1]})
	if err != nil {
		return domain.Share{}, translate(err)
	}
	return domain.Share{
		ID: r.ID.String(), ImageID: r.ImageID.String(),
		SharedBy:   domain.Person{ID: r.SharedBy.String(), Firstname: r.SharerFirstname, Lastname: r.SharerLastname},
		SharedWith: domain.Person{ID: r.SharedWith.String()},
		CreatedAt:  r.CreatedAt, ExpiresAt: r.ExpiresAt,
		VerifiedAt: timePtr(r.VerifiedAt), VoidedAt: timePtr(r.VoidedAt), RevokedAt: timePtr(r.RevokedAt),
	}, nil
}

// ImagesSharedWith returns one page of the images shared with a recipient
// through open shares that have not expired at now, each with its share.
func (s *Store) ImagesSharedWith(ctx context.Context, recipientID string, now time.Time, page domain.Page) ([]domain.Image, int, error) {
	uid, err := parseID(recipientID)
	if err != nil {
		return nil, 0, err
	}
	rows, err := s.q(ctx).ListSharedWith(ctx, db.ListSharedWithParams{
		SharedWith: uid, Now: now, PageLimit: int32(page.Limit), PageOffset: int32(page.Offset()),
	})
	if err != nil {
		return nil, 0, translate(err)
	}
	out := make([]domain.Image, len(rows))
	total := int64(0)
	for i, r := range rows {
		im := toImage(r.Image, r.UploaderFirstname, r.UploaderLastname, r.PatientFirstname, r.PatientLastname)
		im.ViaShare = &domain.Share{
			ID: r.ShareID.String(), ImageID: im.ID, Caption: im.Caption,
			SharedBy:   domain.Person{ID: r.SharedBy.String(), Firstname: r.SharerFirstname, Lastname: r.SharerLastname},
			SharedWith: domain.Person{ID: recipientID},
			CreatedAt:  r.ShareCreatedAt, ExpiresAt: r.ExpiresAt, VerifiedAt: timePtr(r.VerifiedAt),
		}
		out[i], total = im, r.Total
	}
	if len(rows) == 0 { // past the last page: no row carries the total
		if total, err = s.q(ctx).CountSharedWith(ctx, db.CountSharedWithParams{SharedWith: uid, Now: now}); err != nil {
			return nil, 0, translate(err)
		}
	}
	return out, int(total), nil
}

// SentShares returns one page of the shares a user made, newest first.
func (s *Store) SentShares(ctx context.Context, sharerID string, page domain.Page) ([]domain.Share, int, error) {
	uid, err := parseID(sharerID)
	if err != nil {
		return nil, 0, err
	}
	rows, err := s.q(ctx).ListSentShares(ctx, db.ListSentSharesParams{SharedBy: uid, PageLimit: int32(page.Limit), PageOffset: int32(page.Offset())})
	if err != nil {
		return nil, 0, translate(err)
	}
	out := make([]domain.Share, len(rows))
	total := int64(0)
	for i, r := range rows {
		out[i] = toShare(db.GetShareRow{
			ID: r.ID, ImageID: r.ImageID, SharedBy: r.SharedBy, SharedWith: r.SharedWith, CreatedAt: r.CreatedAt,
			ExpiresAt: r.ExpiresAt, VerifiedAt: r.VerifiedAt, VoidedAt: r.VoidedAt, RevokedAt: r.RevokedAt, Caption: r.Caption,
			SharerFirstname: r.SharerFirstname, SharerLastname: r.SharerLastname,
			RecipientFirstname: r.RecipientFirstname, RecipientLastname: r.RecipientLastname,
		})
		total = r.Total
	}
	if len(rows) == 0 {
		if total, err = s.q(ctx).CountSentShares(ctx, uid); err != nil {
			return nil, 0, translate(err)
		}
	}
	return out, int(total), nil
}

// CountSharedImages counts images with an open, unexpired share made by
// sharerID, or by anyone when it is empty.
func (s *Store) CountSharedImages(ctx context.Context, sharerID string, now time.Time) (int, error) {
	if sharerID == "" {
		n, err := s.q(ctx).CountSharedImages(ctx, now)
		return int(n), translate(err)
	}
	uid, err := parseID(sharerID)
	if err != nil {
		return 0, err
	}
	n, err := s.q(ctx).CountImagesSharedBy(ctx, db.CountImagesSharedByParams{SharedBy: uid, Now: now})
	return int(n), translate(err)
}

// ProviderCaresFor reports whether a provider uploaded an image for a patient
// or shared one with them (a revoked share does not count).
func (s *Store) ProviderCaresFor(ctx context.Context, providerID, patientID string) (bool, error) {
	ids, err := parseIDs(providerID, patientID)
	if err != nil {
		return false, nil
	}
	ok, err := s.q(ctx).ProviderCaresFor(ctx, db.ProviderCaresForParams{ProviderID: ids[0], PatientID: ids[1]})
	return ok, translate(err)
}
