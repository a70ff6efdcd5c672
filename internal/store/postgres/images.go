package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/store/postgres/db"
)

// CreateImage records an uploaded file; call it after its contents are stored (S24).
// Errors: EINVALID, ECONFLICT.
func (s *Store) CreateImage(ctx context.Context, im domain.Image) error {
	id, err := parseID(im.ID)
	if err != nil {
		return err
	}
	uploader, err := parseID(im.UploadedBy.ID)
	if err != nil {
		return err
	}
	patient, err := parseID(im.Patient.ID)
	if err != nil {
		return err
	}
	var facts []byte
	if im.DICOM != nil {
		if facts, err = json.Marshal(im.DICOM); err != nil {
			return err
		}
	}
	return translate(s.q(ctx).CreateImage(ctx, db.CreateImageParams{
		ID: id, UploaderID: uploader, PatientID: pgtype.UUID{Bytes: patient, Valid: true}, Caption: im.Caption, ContentType: im.ContentType,
		FileName: im.FileName, Size: im.Size, Sha256: im.SHA256, BlobKey: im.BlobKey, WrappedKey: im.WrappedKey,
		KeyID: im.KeyID, Width: int32(im.Width), Height: int32(im.Height), Dicom: facts,
	}))
}

func toImage(i db.Image, upFirst, upLast, paFirst, paLast string) domain.Image {
	im := domain.Image{
		ID: i.ID.String(), Caption: i.Caption, ContentType: i.ContentType, FileName: i.FileName, Size: i.Size,
		SHA256: i.Sha256, BlobKey: i.BlobKey, WrappedKey: i.WrappedKey, KeyID: i.KeyID,
		Width: int(i.Width), Height: int(i.Height), CreatedAt: i.CreatedAt,
		UploadedBy: domain.Person{ID: i.UploaderID.String(), Firstname: upFirst, Lastname: upLast},
	}
	if i.PatientID.Valid {
		im.Patient = domain.Person{ID: uuid.UUID(i.PatientID.Bytes).String(), Firstname: paFirst, Lastname: paLast}
	}
	if i.StudyUid.Valid && len(i.Study) > 0 {
		var study domain.StudyFacts
		if json.Unmarshal(i.Study, &study) == nil {
			study.StudyInstanceUID = i.StudyUid.String
			if study.Modalities == nil {
				study.Modalities = []string{}
			}
			im.Study = &study
		}
		im.StudySealed = i.StudySealed
	}
	if len(i.Dicom) > 0 {
		var facts domain.DICOMFacts
		if json.Unmarshal(i.Dicom, &facts) == nil {
			im.DICOM = &facts
		}
	}
	return im
}

// Image returns one image. Errors: ENOTFOUND.
func (s *Store) Image(ctx context.Context, id string) (domain.Image, error) {
	uid, err := parseID(id)
	if err != nil {
		return domain.Image{}, err
	}
	r, err := s.q(ctx).GetImage(ctx, uid)
	if err != nil {
		return domain.Image{}, translate(err)
	}
	return toImage(r.Image, r.UploaderFirstname, r.UploaderLastname, r.PatientFirstname, r.PatientLastname), nil
}

// ImagesOfUploader returns one page of the images a user uploaded, newest
// first, each with its shares that are not revoked, and the total count.
func (s *Store) ImagesOfUploader(ctx context.Context, uploaderID string, page domain.Page) ([]domain.Image, int, error) {
	uid, err := parseID(uploaderID)
	if err != nil {
		return nil, 0, err
	}
	rows, err := s.q(ctx).ListImagesOfUploader(ctx, db.ListImagesOfUploaderParams{UploaderID: uid, PageLimit: int32(page.Limit), PageOffset: int32(page.Offset())})
	if err != nil {
		return nil, 0, translate(err)
	}
	out, total := make([]domain.Image, len(rows)), int64(0)
	for i, r := range rows {
		out[i], total = toImage(r.Image, r.UploaderFirstname, r.UploaderLastname, r.PatientFirstname, r.PatientLastname), r.Total
		if out[i].Shares, err = sharesOf(out[i], r.Shares); err != nil {
			return nil, 0, err
		}
	}
	if len(rows) == 0 { // past the last page: no row carries the total
		if total, err = s.q(ctx).CountImagesOfUploader(ctx, uid); err != nil {
			return nil, 0, translate(err)
		}
	}
	return out, int(total), nil
}

// AllImages returns one page of every image, newest first, each with its
// shares that are not revoked, and the total count.
func (s *Store) AllImages(ctx context.Context, page domain.Page) ([]domain.Image, int, error) {
	rows, err := s.q(ctx).ListAllImages(ctx, db.ListAllImagesParams{PageLimit: int32(page.Limit), PageOffset: int32(page.Offset())})
	if err != nil {
		return nil, 0, translate(err)
	}
	out, total := make([]domain.Image, len(rows)), int64(0)
	for i, r := range rows {
		out[i], total = toImage(r.Image, r.UploaderFirstname, r.UploaderLastname, r.PatientFirstname, r.PatientLastname), r.Total
		if out[i].Shares, err = sharesOf(out[i], r.Shares); err != nil {
			return nil, 0, err
		}
	}
	if len(rows) == 0 {
		if total, err = s.q(ctx).CountAllImages(ctx); err != nil {
			return nil, 0, translate(err)
		}
	}
	return out, int(total), nil
}

// shareJSON is a share as a list's statement writes it (json_build_object).
type shareJSON struct {
	ID                 uuid.UUID  `json:"id"`
	SharedBy           uuid.UUID  `json:"sharedBy"`
	SharedWith         uuid.UUID  `json:"sharedWith"`
	CreatedAt          time.Time  `json:"createdAt"`
	ExpiresAt          time.Time  `json:"expiresAt"`
	VerifiedAt         *time.Time `json:"verifiedAt"`
	VoidedAt           *time.Time `json:"voidedAt"`
	SharerFirstname    string     `json:"sharerFirstname"`
	SharerLastname     string     `json:"sharerLastname"`
	RecipientFirstname string     `json:"recipientFirstname"`
	RecipientLastname  string     `json:"recipientLastname"`
}

// sharesOf reads an image's shares from its list row (null: none).
func sharesOf(im domain.Image, raw []byte) ([]domain.Share, error) {
	out := []domain.Share{}
	if len(raw) == 0 {
		return out, nil
	}
	var shares []shareJSON
	if err := json.Unmarshal(raw, &shares); err != nil {
		return nil, fmt.Errorf("shares of image %s: %w", im.ID, err)
	}
	for _, sh := range shares {
		out = append(out, domain.Share{
			ID: sh.ID.String(), ImageID: im.ID, Caption: im.Caption,
			SharedBy:   domain.Person{ID: sh.SharedBy.String(), Firstname: sh.SharerFirstname, Lastname: sh.SharerLastname},
			SharedWith: domain.Person{ID: sh.SharedWith.String(), Firstname: sh.RecipientFirstname, Lastname: sh.RecipientLastname},
			CreatedAt:  sh.CreatedAt, ExpiresAt: sh.ExpiresAt, VerifiedAt: sh.VerifiedAt, VoidedAt: sh.VoidedAt,
		})
	}
	return out, nil
}

// DeleteImage removes an image's record and returns the key of its contents,
// which the caller deletes afterwards (S24). Errors: ENOTFOUND.
func (s *Store) DeleteImage(ctx context.Context, id string) (string, error) {
	uid, err := parseID(id)
	if err != nil {
		return "", err
	}
	key, err := s.q(ctx).DeleteImage(ctx, uid)
	return key, translate(err)
}

// BlobReferenced reports whether an image record points at the blob key.
func (s *Store) BlobReferenced(ctx context.Context, key string) (bool, error) {
	ok, err := s.q(ctx).BlobKeyReferenced(ctx, key)
	return ok, translate(err)
}

// KeysNotUnder returns up to 500 images whose key is wrapped by another master key than currentKeyID.
func (s *Store) KeysNotUnder(ctx context.Context, currentKeyID []byte) ([]domain.WrappedKey, error) {
	rows, err := s.q(ctx).ListWrappedKeys(ctx, currentKeyID)
	if err != nil {
		return nil, translate(err)
	}
	out := make([]domain.WrappedKey, len(rows))
	for i, r := range rows {
		out[i] = domain.WrappedKey{ImageID: r.ID.String(), Wrapped: r.WrappedKey, KeyID: r.KeyID}
	}
	return out, nil
}

// SetWrappedKey stores an image's re-wrapped content key.
func (s *Store) SetWrappedKey(ctx context.Context, imageID string, wrapped, keyID []byte) error {
	uid, err := parseID(imageID)
	if err != nil {
		return err
	}
	return translate(s.q(ctx).SetWrappedKey(ctx, db.SetWrappedKeyParams{ID: uid, WrappedKey: wrapped, KeyID: keyID}))
}

// CountImages counts the images uploadedBy uploaded, or all images when it is empty.
func (s *Store) CountImages(ctx context.Context, uploadedBy string) (int, error) {
	if uploadedBy == "" {
		n, err := s.q(ctx).CountAllImages(ctx)
		return int(n), translate(err)
	}
	uid, err := parseID(uploadedBy)
	if err != nil {
		return 0, err
	}
	n, err := s.q(ctx).CountImagesOfUploader(ctx, uid)
	return int(n), translate(err)
}

// CountPatientsOf counts the patients a provider uploaded images for.
func (s *Store) CountPatientsOf(ctx context.Context, uploaderID string) (int, error) {
	uid, err := parseID(uploaderID)
	if err != nil {
		return 0, err
	}
	n, err := s.q(ctx).CountPatientsOfUploader(ctx, uid)
	return int(n), translate(err)
}
