package service

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"time"

	"github.com/medishare/medishare/internal/domain"
)

// SignedLinkTTL is how long a signed content or preview link works (S10).
const SignedLinkTTL = 5 * time.Minute

// What a signed link opens.
const (
	LinkContent = "content"
	LinkPreview = "preview"
	LinkArchive = "archive" // a study's instances as a ZIP
)

// Grant is the proof a signed link carries: it names the caller's session,
// the time it stops working and a signature over both, the image and what
// it opens. The HTTP layer turns it into a URL and back.
type Grant struct {
	SessionID string
	Expires   int64 // Unix seconds
	Signature string
}

// Links signs and checks the grants of signed links, so <img> and <iframe>
// can fetch contents without the bearer token, which never goes into a URL.
type Links struct {
	key []byte
	now Clock
}

// NewLinks returns a signer with its own key.
func NewLinks(key []byte, now Clock) *Links { return &Links{key: key, now: now} }

// Sign grants the caller's session kind (LinkContent or LinkPreview) on an
// image for SignedLinkTTL. Ending the session ends the grant too.
func (l *Links) Sign(p *domain.Principal, imageID, kind string) Grant {
	exp := l.now().Add(SignedLinkTTL).Unix()
	return Grant{SessionID: p.SessionID, Expires: exp, Signature: l.signature(p.SessionID, imageID, kind, exp)}
}

func (l *Links) signature(sessionID, imageID, kind string, exp int64) string {
	mac := hmac.New(sha256.New, l.key)
	fmt.Fprintf(mac, "%s\n%s\n%s\n%d", sessionID, imageID, kind, exp)
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

var errLinkExpired = domain.Errorf(domain.EUNAUTHENTICATED, "This link has expired. Please reload the page.")

// check verifies a grant for an image and kind. Errors: EUNAUTHENTICATED.
func (l *Links) check(g Grant, imageID, kind string) error {
	now := l.now().Unix()
	if now > g.Expires || g.Expires > l.now().Add(SignedLinkTTL+time.Minute).Unix() {
		return errLinkExpired
	}
	if !hmac.Equal([]byte(l.signature(g.SessionID, imageID, kind, g.Expires)), []byte(g.Signature)) {
		return errLinkExpired
	}
	return nil
}
