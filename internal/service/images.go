package service

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/medishare/medishare/internal/analysis"
	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/medimg"
	"github.com/medishare/medishare/internal/secure"
)

// ImageStore is what the images service needs from the database.
type ImageStore interface {
	Transactor
	AuditWriter
	UserByID(ctx context.Context, id string) (domain.User, error)
	CreateImage(ctx context.Context, im domain.Image) error
	Image(ctx context.Context, id string) (domain.Image, error)
	// ImagesOfUploader and AllImages return a page with each image's shares (not revoked).
	ImagesOfUploader(ctx context.Context, uploaderID string, page domain.Page) ([]domain.Image, int, error)
	AllImages(ctx context.Context, page domain.Page) ([]domain.Image, int, error)
	DeleteImage(ctx context.Context, id string) (string, error)
	// DeletePreview removes an image's preview record, returning its object's key.
	DeletePreview(ctx context.Context, imageID string) (string, error)
	RecipientShare(ctx context.Context, imageID, recipientID string) (domain.Share, error)
	MarkShareExpiryLogged(ctx context.Context, id string) (bool, error)
	ImagesSharedWith(ctx context.Context, recipientID string, now time.Time, page domain.Page) ([]domain.Image, int, error)
	StudyStore
}

// ContentStore keeps the encrypted contents (blob.Store).
type ContentStore interface {
	Put(ctx context.Context, key string, r io.Reader) error
	Get(ctx context.Context, key string) (io.ReadCloser, error)
	GetRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error)
	Delete(ctx context.Context, key string) error
	Walk(ctx context.Context, prefix string, olderThan time.Time, fn func(key string) error) error
}

// KeyWrapper makes and opens per-file content keys (secure.Envelope).
type KeyWrapper interface {
	NewFileKey(fileID string) (key, wrapped []byte, err error)
	Unwrap(wrapped []byte, fileID string) ([]byte, error)
	KeyID() []byte
}

// ImageService stores, lists, serves and deletes medical files. Their
// previews are PreviewService's, the checks of what is stored
// IntegrityService's.
type ImageService struct {
	store  ImageStore
	blobs  ContentStore
	keys   KeyWrapper
	texts  TextSealer // seals what a study's files say of their patient
	logger *slog.Logger
	now    Clock
}

// NewImageService wires the images use cases.
func NewImageService(store ImageStore, blobs ContentStore, keys KeyWrapper, texts TextSealer, logger *slog.Logger, now Clock) *ImageService {
	return &ImageService{store: store, blobs: blobs, keys: keys, texts: texts, logger: logger, now: now}
}

const blobPrefix = "images/"

var (
	errImageNotFound = domain.Errorf(domain.ENOTFOUND, "Image not found.")
	errTooLarge      = domain.Errorf(domain.ETOOLARGE, "File size exceeds 10MB limit.")
	errUnreadable    = domain.Errorf(domain.EINVALID, "The upload could not be read.")
)

// UploadPart is one part of an upload form, in the order the client sent
// it: a text field (Value) or the file (FileName and File, whose reads fail
// with ETOOLARGE past the size limit).
type UploadPart struct {
	Name     string
	Value    string
	FileName string
	File     io.Reader
}

// UploadForm yields the parts of an upload form; Next returns io.EOF after
// the last one.
type UploadForm interface {
	Next() (UploadPart, error)
}

// upload is one upload in progress.
type upload struct {
	caption, patientID string
	image              *domain.Image     // the stored contents, not yet recorded
	dicom              *medimg.DICOMInfo // what a DICOM file says of itself
}

// Upload checks, cleans, encrypts and stores the file of an upload form,
// streaming, then records it for its patient with its audit entry (S19).
// The contents are stored before the record commits, so a crash in between
// leaves at most an unreferenced blob for the janitor (S24); on any failure
// nothing is left. The caption and patient, when they come before the file,
// are checked before the file is read.
// Errors: EFORBIDDEN, EUNSUPPORTED, ETOOLARGE, EVALIDATION, EINVALID, EUNAVAILABLE.
func (s *ImageService) Upload(ctx context.Context, p *domain.Principal, form UploadForm, meta domain.RequestMeta) (domain.Image, error) {
	if err := require(ctx, s.store, p, domain.PermImagesUpload, meta, forbidden("You are not allowed to upload images.")); err != nil {
		return domain.Image{}, err
	}
	var up upload
	err := s.readUpload(ctx, p, form, &up)
	if err == nil && up.image == nil {
		err = domain.ValidationError("Please select a file to upload.", domain.FieldError{Field: "file", Message: "Please select a file to upload."})
	}
	if err != nil {
		if up.image != nil {
			s.removeBlob(up.image.BlobKey)
		}
		return domain.Image{}, err
	}
	im, err := s.record(ctx, p, up, meta)
	if err != nil {
		s.removeBlob(up.image.BlobKey)
		return domain.Image{}, err
	}
	return im, nil
}

// readUpload reads the parts of an upload form, storing the file's contents.
func (s *ImageService) readUpload(ctx context.Context, p *domain.Principal, form UploadForm, up *upload) error {
	for {
		part, err := form.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		switch part.Name {
		case "caption":
			up.caption = part.Value
		case "patientId":
			up.patientID = strings.TrimSpace(part.Value)
		case "file":
			if up.image != nil {
				return domain.ValidationError("Please upload one file at a time.", domain.FieldError{Field: "file", Message: "only one file per upload"})
			}
			if up.caption != "" && up.patientID != "" { // fail fast, before reading the file
				if _, _, err := s.checkUploadFields(ctx, up.caption, up.patientID); err != nil {
					return err
				}
			}
			im, dicom, err := s.receive(ctx, p, part.FileName, part.File)
			if err != nil {
				return err
			}
			up.image, up.dicom = &im, dicom
		}
	}
}

// checkUploadFields validates the caption and patient of an upload.
// Errors: EVALIDATION.
func (s *ImageService) checkUploadFields(ctx context.Context, caption, patientID string) (string, domain.User, error) {
	caption = strings.TrimSpace(caption)
	if caption == "" {
		return "", domain.User{}, domain.ValidationError("Please provide a caption.", domain.FieldError{Field: "caption", Message: "Please provide a caption."})
	}
	if utf8.RuneCountInString(caption) > domain.MaxCaptionLen {
		return "", domain.User{}, domain.ValidationError("The caption is too long.", domain.FieldError{Field: "caption", Message: fmt.Sprintf("must be at most %d characters", domain.MaxCaptionLen)})
	}
	patient, err := s.store.UserByID(ctx, patientID)
	if err != nil && domain.ErrorKind(err) != domain.ENOTFOUND {
		return "", domain.User{}, err
	}
	if err != nil || patient.Role != domain.RolePatient || !patient.Active {
		return "", domain.User{}, domain.ValidationError("Please choose an active patient.", domain.FieldError{Field: "patientId", Message: "must be an active patient"})
	}
	return caption, patient, nil
}

// receive detects the type of a file from its first bytes, then cleans,
// encrypts and stores its contents, streaming.
// A DICOM file's header comes back beside the image, for its study.
func (s *ImageService) receive(ctx context.Context, p *domain.Principal, fileName string, body io.Reader) (domain.Image, *medimg.DICOMInfo, error) {
	head := make([]byte, 132)
	n, err := io.ReadFull(body, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		if domain.ErrorKind(err) == domain.ETOOLARGE {
			return domain.Image{}, nil, errTooLarge
		}
		return domain.Image{}, nil, domain.Wrap(domain.EINVALID, err, errUnreadable.Message)
	}
	head = head[:n]
	contentType, err := medimg.Detect(head, fileName)
	if err != nil {
		return domain.Image{}, nil, err
	}
	im := domain.Image{
		ID: uuid.NewString(), ContentType: contentType, FileName: medimg.CleanName(fileName),
		UploadedBy: domain.PersonOf(p.User), KeyID: s.keys.KeyID(), CreatedAt: s.now(),
	}
	im.BlobKey = blobPrefix + im.ID
	key, wrapped, err := s.keys.NewFileKey(im.ID)
	if err != nil {
		return domain.Image{}, nil, err
	}
	im.WrappedKey = wrapped
	info, size, sum, err := s.storeContents(ctx, im.BlobKey, key, im.ID, io.MultiReader(bytes.NewReader(head), body), contentType)
	if err != nil {
		return domain.Image{}, nil, err
	}
	im.Size, im.SHA256, im.Width, im.Height = size, sum, info.Width, info.Height
	if info.DICOM != nil {
		im.DICOM = &domain.DICOMFacts{
			Modality: info.DICOM.Modality, BodyPart: info.DICOM.BodyPart, StudyDescription: info.DICOM.StudyDescription,
			Rows: info.DICOM.Rows, Columns: info.DICOM.Columns, Frames: info.DICOM.Frames, BurnedInAnnotation: analysis.BurnedInAnnotation(info.DICOM.BurnedInAnnotation),
			BitsStored: info.DICOM.BitsStored, PhotometricInterpretation: info.DICOM.PhotometricInterpretation, PixelSpacing: info.DICOM.PixelSpacing,
			WindowCenter: info.DICOM.WindowCenter, WindowWidth: info.DICOM.WindowWidth, ExposureIndex: info.DICOM.ExposureIndex,
			TargetExposureIndex: info.DICOM.TargetExposureIndex, DeviationIndex: info.DICOM.DeviationIndex, LossyCompression: info.DICOM.LossyCompression,
		}
	}
	return im, info.DICOM, nil
}

// record checks the upload's caption and patient and records the stored
// file for them, with its audit entry in the same transaction.
func (s *ImageService) record(ctx context.Context, p *domain.Principal, up upload, meta domain.RequestMeta) (domain.Image, error) {
	caption, patient, err := s.checkUploadFields(ctx, up.caption, up.patientID)
	if err != nil {
		return domain.Image{}, err
	}
	im := *up.image
	im.Caption, im.Patient = caption, domain.PersonOf(patient)
	if inStudy(up.dicom) {
		study, _, err := s.recordInstance(ctx, p, im, up.dicom, false, meta)
		return study, err
	}
	err = s.store.InTx(ctx, func(ctx context.Context) error {
		if err := s.store.CreateImage(ctx, im); err != nil {
			return err
		}
		return record(ctx, s.store, meta, Event{Actor: p.User.ID, Action: domain.ActionUpload, Table: domain.TableImages,
			RecordID: im.ID, Success: true, Reason: im.ContentType})
	})
	return im, err
}

// storeContents streams src through the cleaner and the encryption into the
// blob store. On any failure nothing is left behind.
func (s *ImageService) storeContents(ctx context.Context, blobKey string, key []byte, fileID string, src io.Reader, contentType string) (medimg.Info, int64, []byte, error) {
	pr, pw := io.Pipe()
	stored := make(chan error, 1)
	go func() {
		err := s.blobs.Put(ctx, blobKey, pr)
		pr.CloseWithError(err) // unblock the writer if the store gave up
		stored <- err
	}()
	enc, err := secure.NewEncryptWriter(pw, key, fileID)
	if err != nil {
		pw.CloseWithError(err)
		<-stored //nolint:errcheck // waits for the store to give up; err is the one to report
		return medimg.Info{}, 0, nil, err
	}
	info, cleanErr := medimg.Clean(enc, src, contentType)
	if cleanErr == nil {
		cleanErr = enc.Close()
	}
	pw.CloseWithError(cleanErr)
	putErr := <-stored
	if cleanErr != nil || putErr != nil {
		// A store that failed the put keeps nothing (a single put, an
		// aborted multipart upload, a removed temporary file); asking it
		// again would only delay the answer while it is down. The janitor
		// removes whatever a failure stranded anyway (S24).
		if putErr == nil {
			s.removeBlob(blobKey)
		}
		if cleanErr != nil {
			if domain.ErrorKind(cleanErr) == domain.ETOOLARGE {
				return medimg.Info{}, 0, nil, errTooLarge
			}
			return medimg.Info{}, 0, nil, cleanErr
		}
		return medimg.Info{}, 0, nil, putErr
	}
	return info, enc.PlainSize(), enc.PlainSHA256(), nil
}

func (s *ImageService) removeBlob(key string) { removeBlob(s.blobs, s.logger, key) }

// removeBlob removes an object that no record names (or will), whatever
// the request's context says; a failure is left to the janitor.
func removeBlob(blobs ContentStore, logger *slog.Logger, key string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := blobs.Delete(ctx, key); err != nil {
		logger.Warn("could not remove contents; the janitor will", "key", key, "err", err)
	}
}

// Get returns an image the caller may see: its uploader and whoever may
// open every image (images:read-all) may, and so may the recipient of an
// open, unexpired share (ViaShare is then set).
// Until that share is verified the image comes sealed (domain.Image.Seal).
// Errors: ENOTFOUND.
func (s *ImageService) Get(ctx context.Context, p *domain.Principal, id string, meta domain.RequestMeta) (domain.Image, error) {
	im, err := s.reach(ctx, p, id, meta)
	if err != nil {
		return domain.Image{}, err
	}
	return im.SealedUnlessOpen(s.now()), nil
}

// reach finds an image the caller may see, unsealed; a refusal is recorded.
// An image that does not exist is refused, and recorded, as one the caller
// may not see: their own audit log must not tell the two apart.
// Errors: ENOTFOUND.
func (s *ImageService) reach(ctx context.Context, p *domain.Principal, id string, meta domain.RequestMeta) (domain.Image, error) {
	im, err := s.store.Image(ctx, id)
	if err != nil && domain.ErrorKind(err) != domain.ENOTFOUND {
		return domain.Image{}, err
	}
	found := err == nil
	if readAll := p.Can(domain.PermImagesReadAll); found && (readAll || im.UploadedBy.ID == p.User.ID) {
		im.ReadAll = readAll
		return im, nil
	}
	denied := Event{Actor: p.User.ID, Table: domain.TableImages, RecordID: auditID(id)}
	if !p.Can(domain.PermImagesViewShared) {
		denied.Reason = "not the uploader"
		return domain.Image{}, refuse(ctx, s.store, meta, denied, errImageNotFound)
	}
	if !found {
		denied.Reason = "not the uploader, no open share"
		return domain.Image{}, refuse(ctx, s.store, meta, denied, errImageNotFound)
	}
	sh, err := s.store.RecipientShare(ctx, im.ID, p.User.ID)
	if domain.ErrorKind(err) == domain.ENOTFOUND {
		denied.Reason = "not the uploader, no open share"
		return domain.Image{}, refuse(ctx, s.store, meta, denied, errImageNotFound)
	} else if err != nil {
		return domain.Image{}, err
	}
	if sh.Status(s.now()) == domain.ShareExpired {
		if err := logShareExpiry(ctx, s.store, sh, p.User.ID, meta); err != nil {
			return domain.Image{}, err
		}
		denied.Reason = "share " + sh.ID + " expired"
		return domain.Image{}, refuse(ctx, s.store, meta, denied, errImageNotFound)
	}
	im.ViaShare = &sh
	return im, nil
}

// reachOpen is reach for the contents: a share must be verified first.
// Errors: ENOTFOUND, EFORBIDDEN.
func (s *ImageService) reachOpen(ctx context.Context, p *domain.Principal, id string, meta domain.RequestMeta) (domain.Image, error) {
	im, err := s.reach(ctx, p, id, meta)
	if err != nil {
		return domain.Image{}, err
	}
	if !im.Opens(s.now()) {
		return domain.Image{}, refuse(ctx, s.store, meta,
			Event{Actor: p.User.ID, Table: domain.TableImages, RecordID: id, Reason: "share " + im.ViaShare.ID + " not verified"},
			forbidden("Please verify this share before viewing the image."))
	}
	return im, nil
}

// ListShared returns the images shared with the caller through open,
// unexpired shares, newest share first; those not verified yet come sealed,
// unless the caller may open every image (images:read-all).
// Errors: EFORBIDDEN.
func (s *ImageService) ListShared(ctx context.Context, p *domain.Principal, page domain.Page, meta domain.RequestMeta) ([]domain.Image, domain.PageOf, error) {
	if err := require(ctx, s.store, p, domain.PermImagesViewShared, meta, forbidden("You are not allowed to see shared images.")); err != nil {
		return nil, domain.PageOf{}, err
	}
	images, total, err := s.store.ImagesSharedWith(ctx, p.User.ID, s.now(), page)
	now, readAll := s.now(), p.Can(domain.PermImagesReadAll)
	for i := range images {
		images[i].ReadAll = readAll
		images[i] = images[i].SealedUnlessOpen(now)
	}
	return images, domain.PageOf{Page: page.Page, Limit: page.Limit, TotalItems: total}, err
}

// ListUploaded returns the images the caller uploaded, newest first.
// Errors: EFORBIDDEN.
func (s *ImageService) ListUploaded(ctx context.Context, p *domain.Principal, page domain.Page, meta domain.RequestMeta) ([]domain.Image, domain.PageOf, error) {
	if err := require(ctx, s.store, p, domain.PermImagesUpload, meta, forbidden("Only providers and admins upload images.")); err != nil {
		return nil, domain.PageOf{}, err
	}
	images, total, err := s.store.ImagesOfUploader(ctx, p.User.ID, page)
	return images, domain.PageOf{Page: page.Page, Limit: page.Limit, TotalItems: total}, err
}

// ListAll returns every image (images:read-all). Errors: EFORBIDDEN.
func (s *ImageService) ListAll(ctx context.Context, p *domain.Principal, page domain.Page, meta domain.RequestMeta) ([]domain.Image, domain.PageOf, error) {
	if err := require(ctx, s.store, p, domain.PermImagesReadAll, meta, forbidden("Only admins see every image.")); err != nil {
		return nil, domain.PageOf{}, err
	}
	images, total, err := s.store.AllImages(ctx, page)
	return images, domain.PageOf{Page: page.Page, Limit: page.Limit, TotalItems: total}, err
}

// Contents are an image's contents the caller may read, their access
// already recorded: whole (Open) or a byte range (OpenRange).
type Contents struct {
	Image domain.Image
	key   []byte
	blobs ContentStore
}

// Contents checks access and writes the access entry; only then can the
// contents be opened (S19). kind is ActionView or ActionPreview.
// Errors: ENOTFOUND, EFORBIDDEN (a share not verified), EUNAVAILABLE.
func (s *ImageService) Contents(ctx context.Context, p *domain.Principal, id string, kind domain.AuditAction, meta domain.RequestMeta) (*Contents, error) {
	im, err := s.reachOpen(ctx, p, id, meta)
	if err != nil {
		return nil, err
	}
	reason := ""
	if im.ViaShare != nil {
		reason = "via share " + im.ViaShare.ID
	}
	if err := record(ctx, s.store, meta, Event{Actor: p.User.ID, Action: kind, Table: domain.TableImages, RecordID: id, Success: true, Reason: reason}); err != nil {
		return nil, err
	}
	key, err := s.keys.Unwrap(im.WrappedKey, im.ID)
	if err != nil {
		return nil, err
	}
	return &Contents{Image: im, key: key, blobs: s.blobs}, nil
}

// Open returns the whole contents as a stream of authenticated plaintext,
// read once: every 64 KiB chunk is checked before any of its bytes is
// returned (its tag binds it to this file, its place and the end, under a
// key only this file has), and the first before Open returns, so a file
// damaged from the start fails here, before an answer begins. A damaged
// later chunk fails the read that reaches it; the caller must then break
// off what it sent. The whole file's SHA-256 is the scrub's to check
// (CheckImage). Errors: EINTERNAL (damaged), ENOTFOUND, EUNAVAILABLE;
// reads fail with EINTERNAL or EUNAVAILABLE.
func (c *Contents) Open(ctx context.Context) (io.ReadCloser, error) {
	rc, err := c.decrypting(ctx)
	if err != nil {
		return nil, err
	}
	if err := rc.Start(); err != nil {
		_ = rc.Close() // read only: the check's error is the one that counts
		return nil, err
	}
	return rc, nil
}

// OpenRange returns plaintext bytes [offset, offset+length), fetching and
// decrypting only the chunks that hold them; each chunk is authenticated
// before any of its bytes are returned.
// Errors: EINVALID (outside the file), EUNAVAILABLE; reads fail with
// EINTERNAL on a damaged file.
func (c *Contents) OpenRange(ctx context.Context, offset, length int64) (io.ReadCloser, error) {
	fetch := func(off, n int64) (io.ReadCloser, error) { return c.blobs.GetRange(ctx, c.Image.BlobKey, off, n) }
	return secure.OpenRange(fetch, c.key, c.Image.ID, c.Image.Size, offset, length)
}

// minSkippedSpan is the smallest run of pixel bytes worth the two range
// requests that skipping it costs: smaller ones are read as they are.
const minSkippedSpan = secure.ChunkSize

// OpenWithoutPixels returns the file with the bytes of the given spans (its
// pixel data, from domain.Instance.PixelSpans) read as zeros: what a reader
// of its attributes needs, without fetching or decrypting the pixels. The
// spans' element headers and item tags are read as stored, so a parser
// walks the same structure; ranges are opened only when reached.
func (c *Contents) OpenWithoutPixels(ctx context.Context, spans []domain.Span) io.ReadCloser {
	r := &sparseReader{}
	pos := int64(0)
	keep := func(end int64) {
		if end > pos {
			r.parts = append(r.parts, &lazyRange{open: c.OpenRange, ctx: ctx, offset: pos, length: end - pos})
		}
	}
	for _, s := range spans {
		if s.Length < minSkippedSpan || s.Offset < pos || s.Offset+s.Length > c.Image.Size {
			continue
		}
		keep(s.Offset)
		r.parts = append(r.parts, &lazyZeros{left: s.Length})
		pos = s.Offset + s.Length
	}
	keep(c.Image.Size)
	return r
}

// sparseReader reads its parts one after the other.
type sparseReader struct {
	parts []io.ReadCloser
}

func (r *sparseReader) Read(p []byte) (int, error) {
	for len(r.parts) > 0 {
		n, err := r.parts[0].Read(p)
		if err == io.EOF {
			_ = r.parts[0].Close() // read to its end
			r.parts = r.parts[1:]
			err = nil
		}
		if n > 0 || err != nil {
			return n, err
		}
	}
	return 0, io.EOF
}

func (r *sparseReader) Close() error {
	for _, part := range r.parts {
		_ = part.Close() // read only
	}
	r.parts = nil
	return nil
}

// lazyRange opens its range of the file when first read.
type lazyRange struct {
	open           func(ctx context.Context, offset, length int64) (io.ReadCloser, error)
	ctx            context.Context
	offset, length int64
	rc             io.ReadCloser
}

func (l *lazyRange) Read(p []byte) (int, error) {
	if l.rc == nil {
		rc, err := l.open(l.ctx, l.offset, l.length)
		if err != nil {
			return 0, err
		}
		l.rc = rc
	}
	return l.rc.Read(p)
}

func (l *lazyRange) Close() error {
	if l.rc == nil {
		return nil
	}
	return l.rc.Close()
}

// lazyZeros reads as left zero bytes.
type lazyZeros struct{ left int64 }

func (z *lazyZeros) Read(p []byte) (int, error) {
	if z.left == 0 {
		return 0, io.EOF
	}
	n := min(int64(len(p)), z.left)
	clear(p[:n])
	z.left -= n
	return int(n), nil
}

func (z *lazyZeros) Close() error { return nil }

// decryptingReader is a decrypting stream over a stored object.
type decryptingReader struct {
	*secure.DecryptReader
	io.Closer
}

func (c *Contents) decrypting(ctx context.Context) (decryptingReader, error) {
	return openDecrypting(ctx, c.blobs, c.Image.BlobKey, c.key, c.Image.ID)
}

// openDecrypting opens a stored object as a decrypting stream.
func openDecrypting(ctx context.Context, blobs ContentStore, blobKey string, key []byte, fileID string) (decryptingReader, error) {
	rc, err := blobs.Get(ctx, blobKey)
	if err != nil {
		return decryptingReader{}, err
	}
	plain, err := secure.NewDecryptReader(rc, key, fileID)
	if err != nil {
		_ = rc.Close() // read only
		return decryptingReader{}, err
	}
	return decryptingReader{DecryptReader: plain, Closer: rc}, nil
}

// Delete removes an image: the record (with its audit entry) first, then the
// contents. The caller needs images:delete, and to have uploaded the image
// unless they hold images:manage-all. Errors: ENOTFOUND, EFORBIDDEN.
func (s *ImageService) Delete(ctx context.Context, p *domain.Principal, id string, meta domain.RequestMeta) error {
	im, err := s.reach(ctx, p, id, meta)
	if err != nil {
		return err
	}
	if !p.Manages(im, domain.PermImagesDelete) {
		return refuse(ctx, s.store, meta, Event{Actor: p.User.ID, Table: domain.TableImages, RecordID: id, Reason: "delete: not the uploader"},
			forbidden("Only the uploader or an admin can delete an image."))
	}
	var key, previewKey string
	var instanceKeys []string
	err = s.store.InTx(ctx, func(ctx context.Context) error {
		// Recorded first, while the image is there to say whose it was (the
		// entry joins its patient's access history).
		if err := record(ctx, s.store, meta, Event{Actor: p.User.ID, Action: domain.ActionDelete, Table: domain.TableImages, RecordID: im.ID, Success: true}); err != nil {
			return err
		}
		if previewKey, err = s.store.DeletePreview(ctx, im.ID); err != nil {
			return err
		}
		if instanceKeys, err = s.store.DeleteInstances(ctx, im.ID); err != nil {
			return err
		}
		key, err = s.store.DeleteImage(ctx, im.ID)
		return err
	})
	if err != nil {
		return err
	}
	s.removeBlob(key)
	if previewKey != "" {
		s.removeBlob(previewKey)
	}
	for _, k := range instanceKeys {
		if k != key { // the first instance's contents are the image's own
			s.removeBlob(k)
		}
	}
	return nil
}
