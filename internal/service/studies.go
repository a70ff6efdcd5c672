package service

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/medimg"
)

// StudyStore is what studies need from the database.
type StudyStore interface {
	SettingsReader
	// StartStudy records a study with its first instance, or, with join,
	// finds the one the instance joins (locked); made says which.
	StartStudy(ctx context.Context, im domain.Image, join bool) (id string, made bool, err error)
	// AddInstance records an instance and returns the study's bytes after
	// it; added is false when the study already held it.
	AddInstance(ctx context.Context, in domain.Instance) (added bool, bytes int64, err error)
	Instances(ctx context.Context, imageID, seriesUID, sopUID string) ([]domain.Instance, error)
	Series(ctx context.Context, imageID string) ([]domain.Series, error)
	DeleteInstances(ctx context.Context, imageID string) ([]string, error)
	AssignPatient(ctx context.Context, imageID, patientID string) error
	SetCaption(ctx context.Context, imageID, caption string) error
	UnassignedImages(ctx context.Context, uploaderID string) ([]domain.Image, error)
	ImagesOfStudy(ctx context.Context, studyUID string) ([]string, error)
	SearchStudies(ctx context.Context, scope domain.StudyScope, q domain.StudyKeys, limit int) ([]domain.Image, error)
}

var (
	errNoStudyUIDs    = domain.Errorf(domain.EVALIDATION, "The DICOM file does not say which study, series and instance it belongs to.")
	errNotDICOM       = domain.Errorf(domain.EUNSUPPORTED, "Only DICOM files can join a study.")
	errShareNoPatient = domain.Errorf(domain.EVALIDATION, "Please choose a patient for this study before sharing it.")
)

func errInstanceTooLarge(mb int) error {
	return domain.Errorf(domain.ETOOLARGE, "The DICOM instance exceeds the %d MB limit.", mb)
}

func errStudyTooLarge(mb int) error {
	return domain.Errorf(domain.ETOOLARGE, "The study exceeds the %d MB limit.", mb)
}

// inStudy reports whether a DICOM file names the study, series and
// instance it belongs to: such a file is an instance of a study, stored
// with its study; one that does not stays a file of its own.
func inStudy(di *medimg.DICOMInfo) bool {
	return di != nil && di.Identity.StudyInstanceUID != "" && di.Identity.SeriesInstanceUID != "" && di.Identity.SOPInstanceUID != ""
}

// Limits are the sizes an upload may reach.
type Limits struct {
	UploadBytes, InstanceBytes, StudyBytes int64
	InstanceMegabytes, StudyMegabytes      int
}

// Limits returns the limits in force (settings change them at run time).
func (s *ImageService) Limits(ctx context.Context) (Limits, error) {
	v, err := s.store.Settings(ctx)
	if err != nil {
		return Limits{}, err
	}
	return Limits{
		UploadBytes: domain.MaxUploadBytes, InstanceBytes: int64(v.MaxInstanceMegabytes) << 20, StudyBytes: int64(v.MaxStudyMegabytes) << 20,
		InstanceMegabytes: v.MaxInstanceMegabytes, StudyMegabytes: v.MaxStudyMegabytes,
	}, nil
}

// StoredInstance is the outcome of storing one instance: the study it is
// part of now, and whether it was there already.
type StoredInstance struct {
	Study                          domain.Image
	SOPClassUID, SOPUID, SeriesUID string
	AlreadyStored                  bool
}

// PrepareStow checks, before any instance is read, that the caller may
// upload and that the patient named (if any) is an active patient, and
// returns the limits in force. Errors: EFORBIDDEN, EVALIDATION.
func (s *ImageService) PrepareStow(ctx context.Context, p *domain.Principal, patientID string, meta domain.RequestMeta) (Limits, error) {
	if err := require(ctx, s.store, p, domain.PermImagesUpload, meta, forbidden("You are not allowed to upload images.")); err != nil {
		return Limits{}, err
	}
	if patientID != "" {
		if _, err := s.checkPatient(ctx, patientID); err != nil {
			return Limits{}, err
		}
	}
	return s.Limits(ctx)
}

// StoreInstance stores one DICOM instance sent over DICOMweb (STOW-RS) as
// part of its study, for patientID or, without one, unassigned until its
// uploader chooses a patient. It passes the checks of an upload (the bytes
// say DICOM, the preamble is zeroed, encrypted under a key of its own),
// streaming; body's reads must fail with ETOOLARGE past the instance limit.
// Errors: EFORBIDDEN, EVALIDATION, EUNSUPPORTED, ETOOLARGE, EINVALID, EUNAVAILABLE.
func (s *ImageService) StoreInstance(ctx context.Context, p *domain.Principal, patientID string, limits Limits, body io.Reader, meta domain.RequestMeta) (StoredInstance, error) {
	if err := require(ctx, s.store, p, domain.PermImagesUpload, meta, forbidden("You are not allowed to upload images.")); err != nil {
		return StoredInstance{}, err
	}
	var patient domain.User
	if patientID != "" {
		var err error
		if patient, err = s.checkPatient(ctx, patientID); err != nil {
			return StoredInstance{}, err
		}
	}
	im, di, err := s.receive(ctx, p, "", body)
	if err == errTooLarge {
		return StoredInstance{}, errInstanceTooLarge(limits.InstanceMegabytes)
	}
	if err != nil {
		return StoredInstance{}, err
	}
	if im.ContentType != domain.TypeDICOM || !inStudy(di) {
		s.removeBlob(im.BlobKey)
		if im.ContentType != domain.TypeDICOM {
			return StoredInstance{}, errNotDICOM
		}
		return StoredInstance{}, errNoStudyUIDs
	}
	im.FileName = di.Identity.SOPInstanceUID + ".dcm"
	if patientID != "" {
		im.Patient = domain.PersonOf(patient)
	}
	study, added, err := s.recordInstance(ctx, p, im, di, true, meta)
	if err != nil {
		s.removeBlob(im.BlobKey)
		return StoredInstance{}, err
	}
	return StoredInstance{Study: study, SOPClassUID: di.Identity.SOPClassUID, SOPUID: di.Identity.SOPInstanceUID,
		SeriesUID: di.Identity.SeriesInstanceUID, AlreadyStored: !added}, nil
}

// checkPatient finds an active patient. Errors: EVALIDATION.
func (s *ImageService) checkPatient(ctx context.Context, patientID string) (domain.User, error) {
	patient, err := s.store.UserByID(ctx, strings.TrimSpace(patientID))
	if err != nil && domain.ErrorKind(err) != domain.ENOTFOUND {
		return domain.User{}, err
	}
	if err != nil || patient.Role != domain.RolePatient || !patient.Active {
		return domain.User{}, domain.ValidationError("Please choose an active patient.", domain.FieldError{Field: "patientId", Message: "must be an active patient"})
	}
	return patient, nil
}

// defaultCaption names a study that came without one: its description.
func defaultCaption(di *medimg.DICOMInfo) string {
	if di.StudyDescription != "" {
		return di.StudyDescription
	}
	return "DICOM study"
}

// recordInstance records a stored instance as a study: with join, in the
// study the uploader has already for this patient, if any; without, as a
// study of one. Its audit entry goes with it; an instance the study holds
// already is not recorded twice (its new copy is removed). It returns the
// study as it is now and whether the instance was added. On an error the
// caller removes the contents.
func (s *ImageService) recordInstance(ctx context.Context, p *domain.Principal, im domain.Image, di *medimg.DICOMInfo, join bool, meta domain.RequestMeta) (domain.Image, bool, error) {
	limits, err := s.Limits(ctx)
	if err != nil {
		return domain.Image{}, false, err
	}
	id := di.Identity
	if im.Caption == "" {
		im.Caption = defaultCaption(di)
	}
	im.Study = &domain.StudyFacts{StudyInstanceUID: id.StudyInstanceUID, Description: di.StudyDescription, Date: id.StudyDate, Modalities: []string{}}
	facts, err := json.Marshal(domain.StudyPatient{
		Name: di.Patient.Name, ID: di.Patient.ID, BirthDate: di.Patient.BirthDate, Sex: di.Patient.Sex,
		Accession: id.AccessionNumber, StudyID: id.StudyID, StudyTime: id.StudyTime, Referring: id.ReferringPhysicianName,
	})
	if err != nil {
		return domain.Image{}, false, err
	}
	im.StudySealed = s.texts.Seal(studySealID(im.ID), string(facts))
	inst := domain.Instance{
		ID: im.ID, SeriesUID: id.SeriesInstanceUID, SOPUID: id.SOPInstanceUID, SOPClassUID: id.SOPClassUID,
		TransferSyntax: di.TransferSyntax, SeriesNumber: id.SeriesNumber, InstanceNumber: id.InstanceNumber,
		Modality: di.Modality, SeriesDescription: id.SeriesDescription, BodyPart: di.BodyPart,
		BlobKey: im.BlobKey, WrappedKey: im.WrappedKey, KeyID: im.KeyID, Size: im.Size, SHA256: im.SHA256,
	}
	if im.DICOM != nil {
		inst.DICOM = *im.DICOM
	}
	var added bool
	err = s.store.InTx(ctx, func(ctx context.Context) error {
		studyID, made, err := s.store.StartStudy(ctx, im, join)
		if err != nil {
			return err
		}
		inst.ImageID = studyID
		var bytes int64
		if added, bytes, err = s.store.AddInstance(ctx, inst); err != nil {
			return err
		}
		if bytes > limits.StudyBytes {
			return errStudyTooLarge(limits.StudyMegabytes)
		}
		if !added {
			return nil
		}
		reason := im.ContentType
		if !made {
			reason = "instance " + inst.ID + " joins the study"
		}
		return record(ctx, s.store, meta, Event{Actor: p.User.ID, Action: domain.ActionUpload, Table: domain.TableImages,
			RecordID: studyID, Success: true, Reason: reason})
	})
	if err != nil {
		return domain.Image{}, false, err
	}
	if !added {
		s.removeBlob(im.BlobKey)
	}
	study, err := s.store.Image(ctx, inst.ImageID)
	return study, added, err
}

// studySealID binds a study's sealed patient facts to the study.
func studySealID(imageID string) string { return "study/" + imageID }

// StudyPatient opens what a study's files say of their patient.
func (s *ImageService) StudyPatient(im domain.Image) domain.StudyPatient {
	var out domain.StudyPatient
	if len(im.StudySealed) == 0 {
		return out
	}
	text, err := s.texts.Open(studySealID(im.ID), im.StudySealed)
	if err != nil {
		s.logger.Warn("a study's sealed facts do not open", "image", im.ID, "err", err)
		return out
	}
	_ = json.Unmarshal([]byte(text), &out) // sealed by recordInstance; anything else reads as empty
	return out
}

// ImageChange is a PATCH of an image: the fields sent, nil for the others.
type ImageChange struct {
	Caption   *string
	PatientID *string
}

// Update changes an image's caption, or gives a study that waits for one
// its patient. Only its uploader (or whoever manages every image) may.
// Errors: ENOTFOUND, EFORBIDDEN, EVALIDATION, ECONFLICT.
func (s *ImageService) Update(ctx context.Context, p *domain.Principal, id string, in ImageChange, meta domain.RequestMeta) (domain.Image, error) {
	im, err := s.reach(ctx, p, id, meta)
	if err != nil {
		return domain.Image{}, err
	}
	if !p.Manages(im, domain.PermImagesUpload) {
		return domain.Image{}, refuse(ctx, s.store, meta, Event{Actor: p.User.ID, Table: domain.TableImages, RecordID: id, Reason: "update: not the uploader"},
			forbidden("Only the uploader or an admin can change an image."))
	}
	var caption string
	var changes []string
	if in.Caption != nil {
		caption = strings.TrimSpace(*in.Caption)
		switch {
		case caption == "":
			return domain.Image{}, domain.ValidationError("Please provide a caption.", domain.FieldError{Field: "caption", Message: "Please provide a caption."})
		case utf8.RuneCountInString(caption) > domain.MaxCaptionLen:
			return domain.Image{}, domain.ValidationError("The caption is too long.", domain.FieldError{Field: "caption", Message: fmt.Sprintf("must be at most %d characters", domain.MaxCaptionLen)})
		}
		changes = append(changes, "caption")
	}
	var patient domain.User
	if in.PatientID != nil {
		if im.Patient.ID != "" {
			return domain.Image{}, domain.ValidationError("This image already has its patient.", domain.FieldError{Field: "patientId", Message: "already set"})
		}
		if patient, err = s.checkPatient(ctx, *in.PatientID); err != nil {
			return domain.Image{}, err
		}
		changes = append(changes, "patient "+patient.ID)
	}
	if len(changes) == 0 {
		return s.Get(ctx, p, id, meta)
	}
	err = s.store.InTx(ctx, func(ctx context.Context) error {
		if in.Caption != nil {
			if err := s.store.SetCaption(ctx, id, caption); err != nil {
				return err
			}
		}
		if in.PatientID != nil {
			if err := s.store.AssignPatient(ctx, id, patient.ID); err != nil {
				if domain.ErrorKind(err) == domain.ECONFLICT {
					return domain.Errorf(domain.ECONFLICT, "This patient already has this study from you; its instances cannot be merged here.")
				}
				return err
			}
		}
		return record(ctx, s.store, meta, Event{Actor: p.User.ID, Action: domain.ActionImageUpdate, Table: domain.TableImages,
			RecordID: id, Success: true, Reason: strings.Join(changes, ", ")})
	})
	if err != nil {
		return domain.Image{}, err
	}
	return s.Get(ctx, p, id, meta)
}

// ListUnassigned returns the caller's studies that wait for a patient.
// Errors: EFORBIDDEN.
func (s *ImageService) ListUnassigned(ctx context.Context, p *domain.Principal, meta domain.RequestMeta) ([]domain.Image, error) {
	if err := require(ctx, s.store, p, domain.PermImagesUpload, meta, forbidden("Only providers and admins upload images.")); err != nil {
		return nil, err
	}
	return s.store.UnassignedImages(ctx, p.User.ID)
}

// Series returns the series of a study the caller may open.
// Errors: ENOTFOUND, EFORBIDDEN.
func (s *ImageService) Series(ctx context.Context, p *domain.Principal, id string, meta domain.RequestMeta) ([]domain.Series, error) {
	im, err := s.reachOpen(ctx, p, id, meta)
	if err != nil {
		return nil, err
	}
	if im.Study == nil {
		return []domain.Series{}, nil
	}
	return s.store.Series(ctx, im.ID)
}
