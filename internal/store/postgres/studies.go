package postgres

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/store/postgres/db"
)

// StartStudy records a study's row with its first instance's contents as
// its own, unless join is set and the uploader already has the study for
// this patient (or unassigned) to join; either way it returns the study's
// id, locked for the rest of the transaction, and whether this call made it.
func (s *Store) StartStudy(ctx context.Context, im domain.Image, join bool) (string, bool, error) {
	id, err := parseID(im.ID)
	if err != nil {
		return "", false, err
	}
	uploader, err := parseID(im.UploadedBy.ID)
	if err != nil {
		return "", false, err
	}
	var facts, study []byte
	if im.DICOM != nil {
		if facts, err = json.Marshal(im.DICOM); err != nil {
			return "", false, err
		}
	}
	if study, err = json.Marshal(im.Study); err != nil {
		return "", false, err
	}
	patient := optionalID(im.Patient.ID)
	uid := pgtype.Text{String: im.Study.StudyInstanceUID, Valid: true}
	made, err := s.q(ctx).CreateStudyImage(ctx, db.CreateStudyImageParams{
		ID: id, UploaderID: uploader, PatientID: patient, Caption: im.Caption,
		FileName: im.FileName, Size: im.Size, Sha256: im.SHA256, BlobKey: im.BlobKey, WrappedKey: im.WrappedKey,
		KeyID: im.KeyID, Width: int32(im.Width), Height: int32(im.Height), Dicom: facts,
		StudyUid: uid, Study: study, StudySealed: im.StudySealed, StudyJoins: join,
	})
	if err == nil {
		return made.String(), true, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return "", false, translate(err)
	}
	existing, err := s.q(ctx).StudyImageFor(ctx, db.StudyImageForParams{UploaderID: uploader, PatientID: patient, StudyUid: uid})
	if err != nil {
		return "", false, translate(err)
	}
	return existing.String(), false, nil
}

// AddInstance records an instance of a study and returns the study's bytes
// after it; added is false when the study already held the instance.
func (s *Store) AddInstance(ctx context.Context, in domain.Instance) (bool, int64, error) {
	id, err := parseID(in.ID)
	if err != nil {
		return false, 0, err
	}
	image, err := parseID(in.ImageID)
	if err != nil {
		return false, 0, err
	}
	facts, err := json.Marshal(in.DICOM)
	if err != nil {
		return false, 0, err
	}
	_, err = s.q(ctx).AddStudyInstance(ctx, db.AddStudyInstanceParams{
		ID: id, ImageID: image, SeriesUid: in.SeriesUID, SopUid: in.SOPUID, SopClassUid: in.SOPClassUID,
		TransferSyntax: in.TransferSyntax, SeriesNumber: optionalInt(in.SeriesNumber), InstanceNumber: optionalInt(in.InstanceNumber),
		Modality: in.Modality, SeriesDescription: in.SeriesDescription, BodyPart: in.BodyPart, Dicom: facts,
		BlobKey: in.BlobKey, WrappedKey: in.WrappedKey, KeyID: in.KeyID, Size: in.Size, Sha256: in.SHA256,
	})
	added := err == nil
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return false, 0, translate(err)
	}
	bytes, err := s.q(ctx).RefreshStudy(ctx, image)
	return added, bytes, translate(err)
}

func optionalInt(n *int) pgtype.Int4 {
	if n == nil {
		return pgtype.Int4{}
	}
	return pgtype.Int4{Int32: int32(*n), Valid: true}
}

func intOf(n pgtype.Int4) *int {
	if !n.Valid {
		return nil
	}
	v := int(n.Int32)
	return &v
}

// Instances returns a study's instances in order, of one series or one
// instance when seriesUID or sopUID is set.
func (s *Store) Instances(ctx context.Context, imageID, seriesUID, sopUID string) ([]domain.Instance, error) {
	image, err := parseID(imageID)
	if err != nil {
		return nil, err
	}
	rows, err := s.q(ctx).StudyInstances(ctx, db.StudyInstancesParams{ImageID: image, SeriesUid: optionalText(seriesUID), SopUid: optionalText(sopUID)})
	if err != nil {
		return nil, translate(err)
	}
	out := make([]domain.Instance, len(rows))
	for i, r := range rows {
		out[i] = domain.Instance{
			ID: r.ID.String(), ImageID: imageID, SeriesUID: r.SeriesUid, SOPUID: r.SopUid, SOPClassUID: r.SopClassUid,
			TransferSyntax: r.TransferSyntax, SeriesNumber: intOf(r.SeriesNumber), InstanceNumber: intOf(r.InstanceNumber),
			Modality: r.Modality, SeriesDescription: r.SeriesDescription, BodyPart: r.BodyPart,
			BlobKey: r.BlobKey, WrappedKey: r.WrappedKey, KeyID: r.KeyID, Size: r.Size, SHA256: r.Sha256, CreatedAt: r.CreatedAt,
		}
		_ = json.Unmarshal(r.Dicom, &out[i].DICOM) // written by AddInstance; an unreadable one reads as empty facts
	}
	return out, nil
}

func optionalText(s string) pgtype.Text { return pgtype.Text{String: s, Valid: s != ""} }

// Series returns a study's series in order.
func (s *Store) Series(ctx context.Context, imageID string) ([]domain.Series, error) {
	image, err := parseID(imageID)
	if err != nil {
		return nil, err
	}
	rows, err := s.q(ctx).StudySeries(ctx, image)
	if err != nil {
		return nil, translate(err)
	}
	out := make([]domain.Series, len(rows))
	for i, r := range rows {
		out[i] = domain.Series{SeriesUID: r.SeriesUid, Modality: r.Modality, Description: r.SeriesDescription,
			BodyPart: r.BodyPart, Instances: int(r.Instances), First: r.FirstInstance.String()}
		if r.HasSeriesNumber {
			n := int(r.SeriesNumber)
			out[i].SeriesNumber = &n
		}
	}
	return out, nil
}

// DeleteInstances removes a study's instances and returns their contents'
// keys.
func (s *Store) DeleteInstances(ctx context.Context, imageID string) ([]string, error) {
	image, err := parseID(imageID)
	if err != nil {
		return nil, err
	}
	keys, err := s.q(ctx).DeleteStudyInstances(ctx, image)
	return keys, translate(err)
}

// AssignPatient gives an unassigned study its patient. Errors: ENOTFOUND
// (no such study waiting), ECONFLICT (the uploader already has this study
// for that patient).
func (s *Store) AssignPatient(ctx context.Context, imageID, patientID string) error {
	image, err := parseID(imageID)
	if err != nil {
		return err
	}
	patient, err := parseID(patientID)
	if err != nil {
		return err
	}
	n, err := s.q(ctx).AssignStudyPatient(ctx, db.AssignStudyPatientParams{ID: image, PatientID: pgtype.UUID{Bytes: patient, Valid: true}})
	if err != nil {
		return translate(err)
	}
	if n == 0 {
		return domain.Errorf(domain.ENOTFOUND, "Image not found.")
	}
	return nil
}

// SetCaption changes an image's caption.
func (s *Store) SetCaption(ctx context.Context, imageID, caption string) error {
	image, err := parseID(imageID)
	if err != nil {
		return err
	}
	return translate(s.q(ctx).SetImageCaption(ctx, db.SetImageCaptionParams{ID: image, Caption: caption}))
}

// UnassignedImages returns an uploader's studies that wait for a patient.
func (s *Store) UnassignedImages(ctx context.Context, uploaderID string) ([]domain.Image, error) {
	uploader, err := parseID(uploaderID)
	if err != nil {
		return nil, err
	}
	rows, err := s.q(ctx).ListUnassignedImages(ctx, uploader)
	if err != nil {
		return nil, translate(err)
	}
	out := make([]domain.Image, len(rows))
	for i, r := range rows {
		out[i] = toImage(r.Image, r.UploaderFirstname, r.UploaderLastname, "", "")
		out[i].Shares = []domain.Share{}
	}
	return out, nil
}

// ImagesOfStudy returns the ids of the studies of one StudyInstanceUID.
func (s *Store) ImagesOfStudy(ctx context.Context, studyUID string) ([]string, error) {
	ids, err := s.q(ctx).ImagesOfStudy(ctx, pgtype.Text{String: studyUID, Valid: true})
	if err != nil {
		return nil, translate(err)
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.String()
	}
	return out, nil
}

// InstanceKeysNotUnder returns up to 500 instances whose key is wrapped by
// another master key than currentKeyID.
func (s *Store) InstanceKeysNotUnder(ctx context.Context, currentKeyID []byte) ([]domain.WrappedKey, error) {
	rows, err := s.q(ctx).ListInstanceKeys(ctx, currentKeyID)
	if err != nil {
		return nil, translate(err)
	}
	out := make([]domain.WrappedKey, len(rows))
	for i, r := range rows {
		out[i] = domain.WrappedKey{ImageID: r.ID.String(), Wrapped: r.WrappedKey, KeyID: r.KeyID}
	}
	return out, nil
}

// SetInstanceWrappedKey stores an instance's re-wrapped content key.
func (s *Store) SetInstanceWrappedKey(ctx context.Context, instanceID string, wrapped, keyID []byte) error {
	id, err := parseID(instanceID)
	if err != nil {
		return err
	}
	return translate(s.q(ctx).SetInstanceWrappedKey(ctx, db.SetInstanceWrappedKeyParams{ID: id, WrappedKey: wrapped, KeyID: keyID}))
}

// StudiesNotUnder returns up to 500 studies whose patient facts are sealed
// under another key than keyID.
func (s *Store) StudiesNotUnder(ctx context.Context, keyID []byte) ([]domain.SealedText, error) {
	rows, err := s.q(ctx).StudiesNotUnder(ctx, keyID)
	out := make([]domain.SealedText, len(rows))
	for i, r := range rows {
		out[i] = domain.SealedText{ID: r.ID.String(), Sealed: r.StudySealed}
	}
	return out, translate(err)
}

// SetStudySealed replaces a study's sealed patient facts.
func (s *Store) SetStudySealed(ctx context.Context, imageID string, sealed []byte) error {
	id, err := parseID(imageID)
	if err != nil {
		return err
	}
	return translate(s.q(ctx).SetStudySealed(ctx, db.SetStudySealedParams{ID: id, StudySealed: sealed}))
}

// SearchStudies returns up to limit studies the scope reaches that match
// the query's keys kept in the clear, newest first.
func (s *Store) SearchStudies(ctx context.Context, scope domain.StudyScope, q domain.StudyKeys, limit int) ([]domain.Image, error) {
	var rows []db.Image
	var err error
	switch {
	case scope.ReadAll:
		var rs []db.SearchAllStudiesRow
		rs, err = s.q(ctx).SearchAllStudies(ctx, db.SearchAllStudiesParams{StudyUids: q.StudyUIDs, DateFrom: q.DateFrom, DateTo: q.DateTo, Modality: q.Modality, RowLimit: int32(limit)})
		for _, r := range rs {
			rows = append(rows, r.Image)
		}
	default:
		caller, perr := parseID(scope.CallerID)
		if perr != nil {
			return nil, perr
		}
		if scope.Uploaded {
			var rs []db.SearchStudiesOfUploaderRow
			rs, err = s.q(ctx).SearchStudiesOfUploader(ctx, db.SearchStudiesOfUploaderParams{Caller: caller, StudyUids: q.StudyUIDs, DateFrom: q.DateFrom, DateTo: q.DateTo, Modality: q.Modality, RowLimit: int32(limit)})
			for _, r := range rs {
				rows = append(rows, r.Image)
			}
		} else {
			var rs []db.SearchStudiesSharedWithRow
			rs, err = s.q(ctx).SearchStudiesSharedWith(ctx, db.SearchStudiesSharedWithParams{Caller: caller, Now: scope.Now, StudyUids: q.StudyUIDs, DateFrom: q.DateFrom, DateTo: q.DateTo, Modality: q.Modality, RowLimit: int32(limit)})
			for _, r := range rs {
				rows = append(rows, r.Image)
			}
		}
	}
	if err != nil {
		return nil, translate(err)
	}
	out := make([]domain.Image, len(rows))
	for i, r := range rows {
		out[i] = toImage(r, "", "", "", "")
	}
	return out, nil
}
