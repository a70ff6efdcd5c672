package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

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
	spans := []domain.Span{}
	spans = append(spans, in.PixelSpans...)
	spansJSON, err := json.Marshal(spans)
	if err != nil {
		return false, 0, err
	}
	_, err = s.q(ctx).AddStudyInstance(ctx, db.AddStudyInstanceParams{
		ID: id, ImageID: image, SeriesUid: in.SeriesUID, SopUid: in.SOPUID, SopClassUid: in.SOPClassUID,
		TransferSyntax: in.TransferSyntax, SeriesNumber: optionalInt(in.SeriesNumber), InstanceNumber: optionalInt(in.InstanceNumber),
		Modality: in.Modality, SeriesDescription: in.SeriesDescription, BodyPart: in.BodyPart, Dicom: facts,
		PixelSpans: spansJSON, BlobKey: in.BlobKey, WrappedKey: in.WrappedKey, KeyID: in.KeyID, Size: in.Size, Sha256: in.SHA256,
	})
	added := err == nil
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return false, 0, translate(err)
	}
	if added && in.Modality != "" {
		if err := s.q(ctx).AddStudyModality(ctx, db.AddStudyModalityParams{Modality: in.Modality, ImageID: image}); err != nil {
			return false, 0, translate(err)
		}
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
		_ = json.Unmarshal(r.Dicom, &out[i].DICOM)           // written by AddInstance; an unreadable one reads as empty facts
		_ = json.Unmarshal(r.PixelSpans, &out[i].PixelSpans) // likewise: no spans, no frames
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

// imageColumns are the columns of db.Image, in its order.
const imageColumns = `i.id, i.uploader_id, i.patient_id, i.caption, i.content_type, i.file_name, i.size, i.sha256,
       i.blob_key, i.wrapped_key, i.key_id, i.width, i.height, i.dicom, i.created_at, i.study_uid, i.study,
       i.study_sealed, i.study_joins`

// SearchStudies returns up to limit studies the scope reaches that match
// the query's keys kept in the clear: newest first, or by study date when
// a date is asked for. Its keys combine freely, so it is built here rather
// than by sqlc (as the audit log's views are): each combination is its own
// statement text with its own plan, read through the index that suits it
// (migrations/00023_studies.sql): the scope's studies newest first, by
// date, by UID, or those with a modality (study_modalities) newest first.
func (s *Store) SearchStudies(ctx context.Context, scope domain.StudyScope, q domain.StudyKeys, limit int) ([]domain.Image, error) {
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	from := "images i"
	conds := []string{"i.study_uid IS NOT NULL"}
	uploader := "" // the uploader's parameter, in the uploaded scope
	switch {
	case scope.ReadAll:
	case scope.Uploaded:
		caller, err := parseID(scope.CallerID)
		if err != nil {
			return nil, err
		}
		uploader = arg(caller)
		conds = append(conds, "i.uploader_id = "+uploader)
	default:
		caller, err := parseID(scope.CallerID)
		if err != nil {
			return nil, err
		}
		from = "shares s JOIN images i ON i.id = s.image_id"
		conds = append(conds, "s.shared_with = "+arg(caller), "s.revoked_at IS NULL", "s.voided_at IS NULL",
			"s.verified_at IS NOT NULL", "s.expires_at > "+arg(scope.Now))
	}
	order := "i.created_at DESC, i.id"
	if len(q.StudyUIDs) > 0 {
		conds = append(conds, "i.study_uid = ANY("+arg(q.StudyUIDs)+"::text[])")
	}
	if q.DateFrom != "" {
		conds = append(conds, "(i.study->>'date') >= "+arg(q.DateFrom)+"::text")
	}
	if q.DateTo != "" {
		conds = append(conds, "(i.study->>'date') <= "+arg(q.DateTo)+"::text")
	}
	if (q.DateFrom != "" || q.DateTo != "") && len(q.StudyUIDs) == 0 {
		order = "(i.study->>'date') DESC, i.created_at DESC, i.id"
	}
	switch {
	case q.Modality == "":
	case order == "i.created_at DESC, i.id" && len(q.StudyUIDs) == 0 && !scope.ReadAll && !scope.Uploaded:
		// A recipient's few studies: checked one by one.
		conds = append(conds, "(i.study->'modalities') @> jsonb_build_array("+arg(q.Modality)+"::text)")
	case order == "i.created_at DESC, i.id" && len(q.StudyUIDs) == 0:
		// Walk the studies that have the modality, newest first.
		from = "study_modalities m JOIN images i ON i.id = m.image_id"
		conds = append(conds, "m.modality = "+arg(q.Modality))
		if uploader != "" {
			conds = append(conds, "m.uploader_id = "+uploader)
		}
		order = "m.created_at DESC, m.image_id"
	default:
		// A date range or UIDs narrow it first; the modality is checked on what they find.
		conds = append(conds, "(i.study->'modalities') @> jsonb_build_array("+arg(q.Modality)+"::text)")
	}
	sql := "SELECT " + imageColumns + " FROM " + from + " WHERE " + strings.Join(conds, " AND ") +
		" ORDER BY " + order + " LIMIT " + arg(limit)
	rows, err := s.conn(ctx).Query(ctx, sql, args...)
	if err != nil {
		return nil, translate(err)
	}
	images, err := pgx.CollectRows(rows, pgx.RowToStructByPos[db.Image])
	if err != nil {
		return nil, translate(err)
	}
	out := make([]domain.Image, len(images))
	for i, r := range images {
		out[i] = toImage(r, "", "", "", "")
	}
	return out, nil
}
