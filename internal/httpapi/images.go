package httpapi

import (
	"bufio"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/service"
)

type personJSON struct {
	ID        string `json:"id"`
	Firstname string `json:"firstname"`
	Lastname  string `json:"lastname"`
}

// personOrNull writes a person, or null for nobody.
func personOrNull(p domain.Person) *personJSON {
	if p.ID == "" {
		return nil
	}
	out := personJSON(p)
	return &out
}

// imageJSON is the image object of api.md, with the image's shares for its
// uploader and admins. What a sealed image (a share not verified yet) does
// not show is null.
type imageJSON struct {
	ID               string             `json:"id"`
	Caption          *string            `json:"caption"`
	ContentType      string             `json:"contentType"`
	FileName         *string            `json:"fileName"`
	Size             *int64             `json:"size"`
	CreatedAt        *time.Time         `json:"createdAt"`
	ImageURL         *string            `json:"image_url"`
	PreviewURL       *string            `json:"preview_url"`
	IsShared         bool               `json:"isShared"`
	IsVerified       bool               `json:"isVerified"`
	SharingRequestID *string            `json:"sharingRequestId"`
	SharedAt         *time.Time         `json:"sharedAt"`
	ExpiresAt        *time.Time         `json:"expiresAt"`
	SharedBy         *personJSON        `json:"sharedBy"`
	UploadedBy       *personJSON        `json:"uploadedBy"`
	Patient          *personJSON        `json:"patient"`
	DICOM            *domain.DICOMFacts `json:"dicom"`
	Study            *domain.StudyFacts `json:"study"`
	Shares           []imageShareJSON   `json:"shares"`
}

// imageShareJSON is one share on the uploader's card.
type imageShareJSON struct {
	ID         string     `json:"id"`
	SharedBy   personJSON `json:"sharedBy"`
	SharedWith personJSON `json:"sharedWith"`
	Status     string     `json:"status"`
	CreatedAt  time.Time  `json:"createdAt"`
	ExpiresAt  time.Time  `json:"expiresAt"`
}

func (a *api) toImageJSON(p *domain.Principal, im domain.Image) imageJSON {
	now := a.Now()
	out := imageJSON{ID: im.ID, ContentType: im.ContentType, IsVerified: true, Shares: []imageShareJSON{}}
	if !im.Sealed {
		created := im.CreatedAt.UTC()
		out.Caption, out.FileName, out.Size, out.CreatedAt = &im.Caption, &im.FileName, &im.Size, &created
		out.UploadedBy, out.Patient, out.DICOM, out.Study = personOrNull(im.UploadedBy), personOrNull(im.Patient), im.DICOM, im.Study
	}
	for _, sh := range im.Shares {
		status := sh.Status(now)
		out.Shares = append(out.Shares, imageShareJSON{ID: sh.ID, SharedBy: personJSON(sh.SharedBy), SharedWith: personJSON(sh.SharedWith),
			Status: status, CreatedAt: sh.CreatedAt.UTC(), ExpiresAt: sh.ExpiresAt.UTC()})
		out.IsShared = out.IsShared || status == domain.SharePending || status == domain.ShareVerified
	}
	if sh := im.ViaShare; sh != nil {
		shared, expires := sh.CreatedAt.UTC(), sh.ExpiresAt.UTC()
		out.IsShared, out.IsVerified, out.SharingRequestID = true, sh.VerifiedAt != nil, &sh.ID
		out.SharedAt, out.ExpiresAt, out.SharedBy = &shared, &expires, personOrNull(sh.SharedBy)
	}
	if im.Sealed || !im.Opens(now) {
		return out // image_url and preview_url stay null until the share is verified
	}
	out.ImageURL = a.signedLink(p, im.ID, service.LinkContent)
	if im.HasPixels() {
		out.PreviewURL = a.signedLink(p, im.ID, service.LinkPreview)
	}
	return out
}

// signedLink is the URL of an image's content or preview that works for a
// few minutes, for this caller's session only (S10).
func (a *api) signedLink(p *domain.Principal, imageID, kind string) *string {
	g := a.Links.Sign(p, imageID, kind)
	q := url.Values{}
	q.Set("s", g.SessionID)
	q.Set("exp", strconv.FormatInt(g.Expires, 10))
	q.Set("sig", g.Signature)
	link := "/api/upload/image/" + url.PathEscape(imageID) + "/" + kind + "?" + q.Encode()
	return &link
}

func (a *api) mountImages(r chi.Router) {
	r.Post("/upload/image", a.uploadImage)
	r.Get("/upload/my-images", a.listMyImages)
	r.Get("/upload/shared-images", a.listSharedImages)
	r.Get("/upload/images", a.listAllImages)
	r.Get("/upload/image/{id}", a.getImage)
	r.Patch("/upload/image/{id}", a.updateImage)
	r.Delete("/upload/image/{id}", a.deleteImage)
	r.Get("/upload/image/{id}/series", a.listSeries)
	r.Get("/upload/unassigned", a.listUnassigned)
	r.Get("/upload/limits", a.uploadLimits)
}

// mountImageContent serves contents to a bearer token or a signed link.
func (a *api) mountImageContent(r chi.Router) {
	r.With(a.bearerOrSignedLink(service.LinkContent)).Get("/upload/image/{id}/content", a.imageContent)
	r.With(a.bearerOrSignedLink(service.LinkPreview)).Get("/upload/image/{id}/preview", a.imagePreview)
}

// bearerOrSignedLink lets <img> and <iframe> fetch contents with a
// short-lived signed link instead of a bearer token, which never goes into
// a URL (S10).
func (a *api) bearerOrSignedLink(kind string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		bearer := a.requireAuth(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			if r.Header.Get("Authorization") != "" || q.Get("sig") == "" {
				bearer.ServeHTTP(w, r)
				return
			}
			exp, _ := strconv.ParseInt(q.Get("exp"), 10, 64)
			grant := service.Grant{SessionID: q.Get("s"), Expires: exp, Signature: q.Get("sig")}
			p, err := a.Sessions.AuthenticateLink(r.Context(), grant, chi.URLParam(r, "id"), kind)
			if err != nil {
				writeError(w, r, err)
				return
			}
			next.ServeHTTP(w, withPrincipal(r, p))
		})
	}
}

// An upload is the file plus a little form overhead (api.md).
const maxUploadBody = domain.MaxUploadBytes + 64<<10

// maxUploadField bounds a text field of the upload form.
const maxUploadField = 4 << 10

// contentPolicy sandboxes whatever a stored file holds (S16).
const contentPolicy = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox"

var (
	errFileTooLarge = domain.Errorf(domain.ETOOLARGE, "File size exceeds 10MB limit.")
	errBadUpload    = domain.Errorf(domain.EINVALID, "The upload could not be read.")
)

// fileLimit refuses a file part over the upload limit (S11), and reports the
// body limit's error in the product's words too.
type fileLimit struct {
	r    io.Reader
	left int64
}

func (f *fileLimit) Read(b []byte) (int, error) {
	if f.left < 0 {
		return 0, errFileTooLarge
	}
	if int64(len(b)) > f.left+1 {
		b = b[:f.left+1]
	}
	n, err := f.r.Read(b)
	f.left -= int64(n)
	if f.left < 0 {
		return n, errFileTooLarge
	}
	if errors.As(err, new(*http.MaxBytesError)) {
		return n, errFileTooLarge
	}
	return n, err
}

// multipartUpload hands the parts of a multipart/form-data body to the
// service one by one: text fields read and checked, the file as a stream.
// The body is opened at the first part, after the service has checked that
// the caller may upload at all.
type multipartUpload struct {
	w    http.ResponseWriter
	r    *http.Request
	mr   *multipart.Reader
	part *multipart.Part
}

func (u *multipartUpload) open() error {
	if u.r.ContentLength > maxUploadBody {
		return errFileTooLarge
	}
	// multipart reads 4 KiB at a time; a larger buffer underneath turns
	// those into a few large socket reads.
	body := u.r.Body
	u.r.Body = http.MaxBytesReader(u.w, bufferedBody{bufio.NewReaderSize(body, 64<<10), body}, maxUploadBody)
	mr, err := u.r.MultipartReader()
	if err != nil {
		return domain.Errorf(domain.EINVALID, "Please send the upload as multipart/form-data.")
	}
	u.mr = mr
	return nil
}

func (u *multipartUpload) Next() (service.UploadPart, error) {
	if u.mr == nil {
		if err := u.open(); err != nil {
			return service.UploadPart{}, err
		}
	}
	if u.part != nil {
		_ = u.part.Close() // skips the rest of the part; a broken body shows at the next NextPart
	}
	part, err := u.mr.NextPart()
	u.part = part
	switch {
	case errors.Is(err, io.EOF):
		return service.UploadPart{}, io.EOF
	case errors.As(err, new(*http.MaxBytesError)):
		return service.UploadPart{}, errFileTooLarge
	case err != nil:
		return service.UploadPart{}, errBadUpload
	}
	name := part.FormName()
	if name == "file" {
		return service.UploadPart{Name: name, FileName: part.FileName(), File: &fileLimit{r: part, left: domain.MaxUploadBytes}}, nil
	}
	b, err := io.ReadAll(io.LimitReader(part, maxUploadField))
	if err != nil {
		return service.UploadPart{}, errBadUpload
	}
	if err := checkText(name, string(b)); err != nil {
		return service.UploadPart{}, err
	}
	return service.UploadPart{Name: name, Value: string(b)}, nil
}

type bufferedBody struct {
	*bufio.Reader
	io.Closer
}

// uploadImage streams the multipart form: the file part goes straight through
// cleaning and encryption into the store, never whole into memory (S11).
func (a *api) uploadImage(w http.ResponseWriter, r *http.Request) {
	p := principal(r)
	im, err := a.Images.Upload(r.Context(), p, &multipartUpload{w: w, r: r}, meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusCreated, "Image uploaded successfully!", a.toImageJSON(p, im))
}

// writeImages writes one page of images from list.
func (a *api) writeImages(w http.ResponseWriter, r *http.Request, list func(context.Context, *domain.Principal, domain.Page, domain.RequestMeta) ([]domain.Image, domain.PageOf, error)) {
	p := principal(r)
	writePage(w, r, func(page domain.Page) ([]domain.Image, domain.PageOf, error) {
		return list(r.Context(), p, page, meta(r))
	}, func(im domain.Image) imageJSON { return a.toImageJSON(p, im) })
}

func (a *api) listMyImages(w http.ResponseWriter, r *http.Request) {
	a.writeImages(w, r, a.Images.ListUploaded)
}

func (a *api) listAllImages(w http.ResponseWriter, r *http.Request) {
	a.writeImages(w, r, a.Images.ListAll)
}

// listSharedImages lists images shared with the caller through open, unexpired shares.
func (a *api) listSharedImages(w http.ResponseWriter, r *http.Request) {
	a.writeImages(w, r, a.Images.ListShared)
}

func (a *api) getImage(w http.ResponseWriter, r *http.Request) {
	p := principal(r)
	im, err := a.Images.Get(r.Context(), p, chi.URLParam(r, "id"), meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "", a.toImageJSON(p, im))
}

func (a *api) deleteImage(w http.ResponseWriter, r *http.Request) {
	if err := a.Images.Delete(r.Context(), principal(r), chi.URLParam(r, "id"), meta(r)); err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "Image deleted successfully.", nil)
}

// imageContent streams the original bytes, decrypted on the fly, honouring
// a single Range by decrypting only the chunks it covers (S16).
func (a *api) imageContent(w http.ResponseWriter, r *http.Request) {
	c, err := a.Images.Contents(r.Context(), principal(r), chi.URLParam(r, "id"), domain.ActionView, meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	size := c.Image.Size
	start, length, ok := parseRange(r.Header.Get("Range"), size)
	if !ok {
		w.Header().Set("Content-Range", fmt.Sprintf("bytes */%d", size))
		w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
		return
	}
	partial := length != size
	var body io.ReadCloser
	if partial {
		body, err = c.OpenRange(r.Context(), start, length)
	} else {
		body, err = c.Open(r.Context())
	}
	if err != nil {
		writeError(w, r, err)
		return
	}
	defer body.Close()
	h := w.Header()
	h.Set("Content-Type", c.Image.ContentType)
	h.Set("Content-Disposition", mime.FormatMediaType("inline", map[string]string{"filename": c.Image.FileName}))
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", contentPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Accept-Ranges", "bytes")
	h.Set("Content-Length", strconv.FormatInt(length, 10))
	status := http.StatusOK
	if partial {
		h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, start+length-1, size))
		status = http.StatusPartialContent
	}
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return
	}
	// The decrypting reader writes its chunks straight out.
	if sent, err := io.Copy(w, body); err != nil || sent != length {
		// The status is sent; a broken stream must not look complete, so abort the connection.
		panic(http.ErrAbortHandler)
	}
}

// parseRange reads a single "bytes=a-b", "bytes=a-" or "bytes=-n" range.
// No header, or several ranges, means the whole file; ok is false when the
// range cannot be satisfied.
func parseRange(header string, size int64) (start, length int64, ok bool) {
	spec, found := strings.CutPrefix(header, "bytes=")
	if !found || strings.Contains(spec, ",") {
		return 0, size, true
	}
	from, to, _ := strings.Cut(spec, "-")
	switch from {
	case "":
		n, err := strconv.ParseInt(to, 10, 64)
		if err != nil || n <= 0 {
			return 0, 0, false
		}
		n = min(n, size)
		return size - n, n, size > 0
	default:
		a, err := strconv.ParseInt(from, 10, 64)
		if err != nil || a < 0 || a >= size {
			return 0, 0, false
		}
		b := size - 1
		if to != "" {
			if b, err = strconv.ParseInt(to, 10, 64); err != nil || b < a {
				return 0, 0, false
			}
			b = min(b, size-1)
		}
		return a, b - a + 1, true
	}
}

// imagePreview serves an image's preview, rendered once and then kept
// (service.PreviewService.Preview), with its SHA-256 as the ETag: the browser
// revalidates each time (private, no-cache) and an If-None-Match that
// matches gets 304 without anything being decrypted. The access check and
// the audit entry come first either way (S19).
func (a *api) imagePreview(w http.ResponseWriter, r *http.Request) {
	pv, err := a.Previews.Preview(r.Context(), principal(r), chi.URLParam(r, "id"), meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	etag := `"` + hex.EncodeToString(pv.SHA256) + `"`
	if etagMatches(r.Header.Get("If-None-Match"), etag) {
		previewHeaders(w.Header(), etag)
		w.WriteHeader(http.StatusNotModified)
		return
	}
	png, err := pv.Bytes(r.Context())
	if err != nil {
		writeError(w, r, err)
		return
	}
	h := w.Header()
	previewHeaders(h, etag)
	h.Set("Content-Type", "image/png")
	h.Set("Content-Length", strconv.Itoa(len(png)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(png) // a client that left gets nothing either way
}

// previewHeaders are a preview's S16 headers, on its 200 and its 304.
func previewHeaders(h http.Header, etag string) {
	h.Set("ETag", etag)
	h.Set("Cache-Control", "private, no-cache")
	h.Set("Content-Security-Policy", contentPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
}

// etagMatches applies If-None-Match (RFC 9110 13.1.2): "*", or a list of
// tags compared weakly.
func etagMatches(header, etag string) bool {
	for _, tag := range strings.Split(header, ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == "*" || tag == etag {
			return true
		}
	}
	return false
}
