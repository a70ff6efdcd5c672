package service

import (
	"cmp"
	"context"
	"regexp"
	"slices"
	"strings"

	"github.com/medishare/medishare/internal/domain"
)

var errStudyNotFound = domain.Errorf(domain.ENOTFOUND, "Study not found.")

// StudyQuery is a DICOMweb (QIDO-RS) study search: the keys kept in the
// clear, matched by the database, and those sealed at rest (patient name
// with * and ? wildcards, patient id, accession number), matched here.
type StudyQuery struct {
	domain.StudyKeys
	PatientName, PatientID, Accession string
	Limit, Offset                     int
}

func (q StudyQuery) sealedKeys() bool {
	return q.PatientName != "" || q.PatientID != "" || q.Accession != ""
}

// MaxSealedScan is how many of the newest studies matching the keys kept
// in the clear a search on sealed keys (patient name or id, accession
// number) looks through, per way the caller reaches studies.
const MaxSealedScan = 2000

// StudyMatch is a study a search found, with what its files say of their
// patient.
type StudyMatch struct {
	Image   domain.Image
	Patient domain.StudyPatient
}

// SearchStudies finds the studies the caller may open that match q, newest
// first: those they uploaded, those shared with them through a verified
// share, or every study for whoever may read every image.
func (s *ImageService) SearchStudies(ctx context.Context, p *domain.Principal, q StudyQuery) ([]StudyMatch, error) {
	var scopes []domain.StudyScope
	now := s.now()
	switch {
	case p.Can(domain.PermImagesReadAll):
		scopes = append(scopes, domain.StudyScope{ReadAll: true})
	default:
		if p.Can(domain.PermImagesUpload) {
			scopes = append(scopes, domain.StudyScope{Uploaded: true, CallerID: p.User.ID})
		}
		if p.Can(domain.PermImagesViewShared) {
			scopes = append(scopes, domain.StudyScope{CallerID: p.User.ID, Now: now})
		}
	}
	fetch := q.Offset + q.Limit
	if q.sealedKeys() {
		fetch = MaxSealedScan
	}
	seen := map[string]bool{}
	var found []StudyMatch
	for _, scope := range scopes {
		images, err := s.store.SearchStudies(ctx, scope, q.StudyKeys, fetch)
		if err != nil {
			return nil, err
		}
		for _, im := range images {
			if seen[im.ID] {
				continue
			}
			seen[im.ID] = true
			m := StudyMatch{Image: im, Patient: s.StudyPatient(im)}
			if q.matchesSealed(m.Patient) {
				found = append(found, m)
			}
		}
	}
	slices.SortFunc(found, func(a, b StudyMatch) int {
		return cmp.Or(b.Image.CreatedAt.Compare(a.Image.CreatedAt), strings.Compare(a.Image.ID, b.Image.ID))
	})
	if q.Offset >= len(found) {
		return []StudyMatch{}, nil
	}
	return found[q.Offset:min(len(found), q.Offset+q.Limit)], nil
}

// matchesSealed matches the sealed keys: the patient name by its pattern,
// case-insensitively; the patient id and accession number exactly.
func (q StudyQuery) matchesSealed(pt domain.StudyPatient) bool {
	if q.PatientID != "" && q.PatientID != pt.ID {
		return false
	}
	if q.Accession != "" && q.Accession != pt.Accession {
		return false
	}
	return q.PatientName == "" || wildcard(q.PatientName).MatchString(pt.Name)
}

// wildcard compiles a DICOM wildcard pattern (* any run, ? one character).
func wildcard(pattern string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("(?is)^")
	for _, r := range pattern {
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// ReachStudy returns the studies of one StudyInstanceUID that the caller
// may open (each uploader and patient has its own), or ENOTFOUND, recorded
// once, when there is none: a study the caller may not see is one that
// does not exist.
func (s *ImageService) ReachStudy(ctx context.Context, p *domain.Principal, studyUID string, meta domain.RequestMeta) ([]domain.Image, error) {
	ids, err := s.store.ImagesOfStudy(ctx, studyUID)
	if err != nil {
		return nil, err
	}
	var out []domain.Image
	for _, id := range ids {
		im, ok, err := s.opens(ctx, p, id)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, im)
		}
	}
	if len(out) == 0 {
		return nil, refuse(ctx, s.store, meta, Event{Actor: p.User.ID, Table: domain.TableImages, Reason: "dicomweb: no study of this UID the caller may open"}, errStudyNotFound)
	}
	return out, nil
}

// opens is reachOpen without recording a refusal: DICOMweb asks about a
// study by its UID, which several uploaders may hold.
func (s *ImageService) opens(ctx context.Context, p *domain.Principal, id string) (domain.Image, bool, error) {
	im, err := s.store.Image(ctx, id)
	if domain.ErrorKind(err) == domain.ENOTFOUND {
		return domain.Image{}, false, nil
	} else if err != nil {
		return domain.Image{}, false, err
	}
	if p.Can(domain.PermImagesReadAll) || im.UploadedBy.ID == p.User.ID {
		im.ReadAll = p.Can(domain.PermImagesReadAll)
		return im, true, nil
	}
	if !p.Can(domain.PermImagesViewShared) {
		return domain.Image{}, false, nil
	}
	sh, err := s.store.RecipientShare(ctx, im.ID, p.User.ID)
	if domain.ErrorKind(err) == domain.ENOTFOUND {
		return domain.Image{}, false, nil
	} else if err != nil {
		return domain.Image{}, false, err
	}
	im.ViaShare = &sh
	return im, im.Opens(s.now()), nil
}

// StudyInstances returns the instances of the studies reached (of one
// series, or one instance, when seriesUID or sopUID is set), each SOP
// Instance UID once, in order; reading them is recorded for each study
// (kind is ActionView or ActionPreview). Errors: ENOTFOUND.
func (s *ImageService) StudyInstances(ctx context.Context, p *domain.Principal, studies []domain.Image, seriesUID, sopUID string, kind domain.AuditAction, meta domain.RequestMeta) ([]domain.Instance, error) {
	seen := map[string]bool{}
	var out []domain.Instance
	for _, im := range studies {
		instances, err := s.store.Instances(ctx, im.ID, seriesUID, sopUID)
		if err != nil {
			return nil, err
		}
		if len(instances) == 0 {
			continue
		}
		reason := "dicomweb"
		if im.ViaShare != nil {
			reason += " via share " + im.ViaShare.ID
		}
		if err := record(ctx, s.store, meta, Event{Actor: p.User.ID, Action: kind, Table: domain.TableImages, RecordID: im.ID, Success: true, Reason: reason}); err != nil {
			return nil, err
		}
		for _, in := range instances {
			if !seen[in.SOPUID] {
				seen[in.SOPUID] = true
				out = append(out, in)
			}
		}
	}
	if len(out) == 0 {
		return nil, domain.Errorf(domain.ENOTFOUND, "Not found.")
	}
	return out, nil
}

// ListInstances returns the instances of a study reached (of one series,
// or one instance, when seriesUID or sopUID is set), for a search: their
// identifiers only, so their reading is not recorded.
func (s *ImageService) ListInstances(ctx context.Context, study domain.Image, seriesUID, sopUID string) ([]domain.Instance, error) {
	return s.store.Instances(ctx, study.ID, seriesUID, sopUID)
}

// StudySeries returns the series of the studies reached, each once.
func (s *ImageService) StudySeries(ctx context.Context, studies []domain.Image) ([]domain.Series, error) {
	seen := map[string]bool{}
	var out []domain.Series
	for _, im := range studies {
		series, err := s.store.Series(ctx, im.ID)
		if err != nil {
			return nil, err
		}
		for _, sr := range series {
			if !seen[sr.SeriesUID] {
				seen[sr.SeriesUID] = true
				out = append(out, sr)
			}
		}
	}
	return out, nil
}

// InstanceContents are the contents of an instance whose access is
// recorded (StudyInstances): Open them as a stream of plaintext.
func (s *ImageService) InstanceContents(in domain.Instance) (*Contents, error) {
	key, err := s.keys.Unwrap(in.WrappedKey, in.ID)
	if err != nil {
		return nil, err
	}
	facts := in.DICOM
	im := domain.Image{ID: in.ID, BlobKey: in.BlobKey, Size: in.Size, ContentType: domain.TypeDICOM, DICOM: &facts}
	return &Contents{Image: im, key: key, blobs: s.blobs}, nil
}
