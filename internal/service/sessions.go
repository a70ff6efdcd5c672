package service

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/secure"
)

// Session limits (S3, S5).
const (
	sessionTTL      = 7 * 24 * time.Hour
	loginFailWindow = 15 * time.Minute
)

// Failed sign-ins are limited per client address and per account.
var (
	loginFailsPerIP    = limit{prefix: "login-ip:", reason: "sign-in failures", max: 50, window: loginFailWindow}
	loginFailsPerEmail = limit{prefix: "login-email:", reason: "sign-in failures", max: 10, window: loginFailWindow}
)

// SessionStore is what sessions need from the database.
type SessionStore interface {
	Transactor
	AuditWriter
	Throttler
	UserByEmail(ctx context.Context, email string) (domain.User, string, error)
	CreateSession(ctx context.Context, userID string, expires time.Time, meta domain.RequestMeta) (string, error)
	Principal(ctx context.Context, sessionID string) (domain.Principal, error)
	RolePermissions(ctx context.Context, role string) ([]string, error)
	RevokeSession(ctx context.Context, sessionID, reason string) error
	AddRefreshToken(ctx context.Context, sessionID string, tokenHash []byte) error
	UseRefreshToken(ctx context.Context, tokenHash []byte) (sessionID string, replayed bool, err error)
}

// SessionService signs people in and out and authenticates requests.
type SessionService struct {
	store     SessionStore
	passwords PasswordHasher
	secrets   SecretHasher
	tokens    *Tokens
	links     *Links
	mfa       *MFAService
	now       Clock
}

// NewSessionService wires the session use cases.
func NewSessionService(store SessionStore, passwords PasswordHasher, secrets SecretHasher, tokens *Tokens, links *Links, now Clock) *SessionService {
	return &SessionService{store: store, passwords: passwords, secrets: secrets, tokens: tokens, links: links, now: now}
}

// Session is a signed-in session: a short-lived access token for the API and
// a refresh token for renewing it.
type Session struct {
	AccessToken    string
	RefreshToken   string
	RefreshExpires time.Time
	User           domain.User
	// Permissions are what the user's role holds now: the app shows what
	// the server allows from them.
	Permissions []string
	// MFA, when set, is the second step the sign-in waits for; there is
	// no session yet (no tokens).
	MFA *MFAPending
}

// MFAPending is a sign-in waiting for its second factor: the mfaToken
// that continues it and the methods the person may use.
type MFAPending struct {
	Token   string
	Methods []string
}

var errBadLogin = domain.Errorf(domain.EUNAUTHENTICATED, "Invalid email or password.")

// Login checks an email and password and starts a session.
// Errors: EVALIDATION (a field missing), EUNAUTHENTICATED (wrong email or
// password, the same for both), EFORBIDDEN (not confirmed; deactivated),
// ETHROTTLED.
func (s *SessionService) Login(ctx context.Context, email, password string, meta domain.RequestMeta) (Session, error) {
	if strings.TrimSpace(email) == "" || password == "" {
		return Session{}, domain.ValidationError("Please enter your email and password.",
			domain.FieldError{Field: "email", Message: "is required"}, domain.FieldError{Field: "password", Message: "is required"})
	}
	email, _ = normalizeEmail(email)
	ipKey, emailKey := meta.IP, email
	for _, t := range []struct {
		limit limit
		key   string
	}{{loginFailsPerIP, ipKey}, {loginFailsPerEmail, emailKey}} {
		hits, start, err := s.store.ThrottleHits(ctx, t.limit.prefix+t.key, t.limit.window)
		if err != nil {
			return Session{}, err
		}
		if hits >= t.limit.max {
			_ = record(ctx, s.store, meta, Event{Action: domain.ActionLogin, Table: domain.TableUsers, Reason: "throttled"})
			return Session{}, throttled(start.Add(t.limit.window).Sub(s.now()), "Too many failed sign-in attempts. Please try again later.")
		}
	}

	user, hash, err := s.store.UserByEmail(ctx, email)
	if err != nil && domain.ErrorKind(err) != domain.ENOTFOUND {
		return Session{}, err
	}
	ok := false
	if err == nil {
		if ok, err = s.passwords.Verify(ctx, hash, password); err != nil && domain.ErrorKind(err) == domain.EUNAVAILABLE {
			return Session{}, err
		}
	} else {
		s.passwords.VerifyDummy(ctx, password) // same time for unknown emails (S2)
	}
	failed := Event{Actor: user.ID, Action: domain.ActionLogin, Table: domain.TableUsers, RecordID: user.ID}
	if !ok {
		for _, key := range []string{loginFailsPerIP.prefix + ipKey, loginFailsPerEmail.prefix + emailKey} {
			if _, _, err := s.store.HitThrottle(ctx, key, loginFailWindow); err != nil {
				return Session{}, err
			}
		}
		failed.Reason = "unknown email"
		if user.ID != "" {
			failed.Reason = "wrong password"
		}
		if err := record(ctx, s.store, meta, failed); err != nil {
			return Session{}, err
		}
		return Session{}, errBadLogin
	}
	if !user.Active {
		failed.Reason = "account deactivated"
		_ = record(ctx, s.store, meta, failed)
		return Session{}, &domain.Error{Kind: domain.EFORBIDDEN, Message: "This account is deactivated. Please contact your clinic.", Code: "account_inactive"}
	}
	if !user.Verified {
		failed.Reason = "account not verified"
		_ = record(ctx, s.store, meta, failed)
		return Session{}, &domain.Error{Kind: domain.EFORBIDDEN, Message: "Please verify your account before logging in.", Code: "account_not_verified"}
	}
	if user.AwaitingApproval {
		failed.Reason = "account awaiting approval"
		_ = record(ctx, s.store, meta, failed)
		return Session{}, &domain.Error{Kind: domain.EFORBIDDEN, Message: "Your account is waiting for an administrator's approval.", Code: "account_not_approved"}
	}
	if err := s.store.ClearThrottle(ctx, loginFailsPerEmail.prefix+emailKey); err != nil {
		return Session{}, err
	}

	if user, err = s.mfa.WithStatus(ctx, user); err != nil {
		return Session{}, err
	}
	if user.MFA.Any() {
		return s.beginSecondStep(ctx, user, meta)
	}
	return s.begin(ctx, user, "", meta)
}

// begin starts a session for a person whose sign-in is complete; method
// names the second factor used, if any.
func (s *SessionService) begin(ctx context.Context, user domain.User, method string, meta domain.RequestMeta) (Session, error) {
	var sess Session
	err := s.store.InTx(ctx, func(ctx context.Context) error {
		sessionID, err := s.store.CreateSession(ctx, user.ID, s.now().Add(sessionTTL), meta)
		if err != nil {
			return err
		}
		enrolOnly := user.MFA != nil && user.MFA.EnrolmentOnly()
		if enrolOnly {
			if err := s.mfa.store.SetSessionEnrolmentOnly(ctx, sessionID); err != nil {
				return err
			}
		}
		perms, err := s.store.RolePermissions(ctx, user.Role)
		if err != nil {
			return err
		}
		if sess, err = s.startSession(ctx, domain.Principal{User: user, SessionID: sessionID, Permissions: perms, EnrolmentOnly: enrolOnly}); err != nil {
			return err
		}
		reason := ""
		switch {
		case method != "":
			reason = "second factor: " + method
		case enrolOnly:
			reason = "second factor required: enrolment only"
		}
		return record(ctx, s.store, meta, Event{Actor: user.ID, Action: domain.ActionLogin, Table: domain.TableSessions, RecordID: sessionID, Success: true, Reason: reason})
	})
	return sess, err
}

// beginSecondStep answers a right password of a person with a second
// factor: an mfaToken, stored as its keyed hash, and no session yet.
func (s *SessionService) beginSecondStep(ctx context.Context, user domain.User, meta domain.RequestMeta) (Session, error) {
	if err := s.mfa.checkThrottle(ctx, user, meta); err != nil {
		return Session{}, err
	}
	now := s.now()
	// Old challenges are swept here, where new ones are made.
	if err := s.mfa.store.DeleteOldMFAChallenges(ctx, now.Add(-time.Hour)); err != nil {
		return Session{}, err
	}
	token := secure.RandomToken(32)
	if err := s.mfa.store.CreateMFAChallenge(ctx, user.ID, s.secrets.TokenHash(token), now.Add(mfaChallengeTTL)); err != nil {
		return Session{}, err
	}
	var methods []string
	if user.MFA.TOTP {
		methods = append(methods, "totp")
	}
	methods = append(methods, "recovery")
	if user.MFA.Passkeys > 0 {
		methods = append(methods, "webauthn")
	}
	return Session{User: user, MFA: &MFAPending{Token: token, Methods: methods}}, nil
}

// LoginMFA completes a sign-in with its second factor: a TOTP code or a
// recovery code. An mfaToken lives 5 minutes, allows 5 tries, and works
// once. Errors: EUNAUTHENTICATED (wrong code; the sign-in expired),
// ETHROTTLED.
func (s *SessionService) LoginMFA(ctx context.Context, mfaToken, code string, meta domain.RequestMeta) (Session, error) {
	user, hash, err := s.tryChallenge(ctx, mfaToken, meta)
	if err != nil {
		return Session{}, err
	}
	var sess Session
	err = s.mfa.withSecondFactor(ctx, user, code, meta, func(ctx context.Context, method string) error {
		var err error
		sess, err = s.completeSecondStep(ctx, user, hash, method, meta)
		return err
	})
	if domain.ErrorKind(err) == domain.EUNAUTHENTICATED {
		_, _, _ = s.store.HitThrottle(ctx, loginFailsPerIP.prefix+meta.IP, loginFailWindow)
	}
	return sess, err
}

// tryChallenge counts a try of a live mfaToken and returns whom it is for.
func (s *SessionService) tryChallenge(ctx context.Context, mfaToken string, meta domain.RequestMeta) (domain.User, []byte, error) {
	user, hash, _, err := s.tryChallengeWith(ctx, mfaToken, meta, s.mfa.store.TryMFAChallenge)
	return user, hash, err
}

// tryChallengeWith is tryChallenge counting the try with try, and
// returning the challenge too.
func (s *SessionService) tryChallengeWith(ctx context.Context, mfaToken string, meta domain.RequestMeta,
	try func(ctx context.Context, tokenHash []byte, now time.Time, maxTries int) (domain.MFAChallenge, error)) (domain.User, []byte, domain.MFAChallenge, error) {
	hits, start, err := s.store.ThrottleHits(ctx, loginFailsPerIP.prefix+meta.IP, loginFailsPerIP.window)
	if err != nil {
		return domain.User{}, nil, domain.MFAChallenge{}, err
	}
	if hits >= loginFailsPerIP.max {
		_ = record(ctx, s.store, meta, Event{Action: domain.ActionMFAChallengeFailed, Table: domain.TableUsers, Reason: "throttled"})
		return domain.User{}, nil, domain.MFAChallenge{}, throttled(start.Add(loginFailsPerIP.window).Sub(s.now()), "Too many failed sign-in attempts. Please try again later.")
	}
	if mfaToken == "" {
		return domain.User{}, nil, domain.MFAChallenge{}, errMFAExpired
	}
	hash := s.secrets.TokenHash(mfaToken)
	ch, err := try(ctx, hash, s.now(), mfaMaxTries)
	if err != nil {
		return domain.User{}, nil, domain.MFAChallenge{}, notFound(err, errMFAExpired)
	}
	user, err := s.mfa.store.UserByID(ctx, ch.UserID)
	if err != nil {
		return domain.User{}, nil, domain.MFAChallenge{}, notFound(err, errMFAExpired)
	}
	if !user.Active || !user.Verified || user.AwaitingApproval {
		return domain.User{}, nil, domain.MFAChallenge{}, errMFAExpired
	}
	if user, err = s.mfa.WithStatus(ctx, user); err != nil {
		return domain.User{}, nil, domain.MFAChallenge{}, err
	}
	return user, hash, ch, nil
}

// completeSecondStep ends the challenge and starts the session, in ctx's transaction.
func (s *SessionService) completeSecondStep(ctx context.Context, user domain.User, challengeHash []byte, method string, meta domain.RequestMeta) (Session, error) {
	if err := s.mfa.store.UseMFAChallenge(ctx, challengeHash, s.now()); err != nil {
		return Session{}, notFound(err, errMFAExpired)
	}
	if err := record(ctx, s.store, meta, Event{Actor: user.ID, Action: domain.ActionMFAChallengeSucceeded, Table: domain.TableUsers, RecordID: user.ID,
		Success: true, Reason: "method: " + method}); err != nil {
		return Session{}, err
	}
	return s.begin(ctx, user, method, meta)
}

// startSession hands out a fresh access token and refresh token for a session.
func (s *SessionService) startSession(ctx context.Context, p domain.Principal) (Session, error) {
	refresh := secure.RandomToken(32)
	if err := s.store.AddRefreshToken(ctx, p.SessionID, s.secrets.TokenHash(refresh)); err != nil {
		return Session{}, err
	}
	access, err := s.tokens.Issue(p.User.ID, p.SessionID, p.User.Role)
	if err != nil {
		return Session{}, err
	}
	return Session{AccessToken: access, RefreshToken: refresh, RefreshExpires: s.now().Add(sessionTTL), User: p.User, Permissions: p.Permissions}, nil
}

// Refresh trades a refresh token for a new pair. A refresh token used twice
// means it was stolen: the whole session ends (S6).
// Errors: EUNAUTHENTICATED.
func (s *SessionService) Refresh(ctx context.Context, refreshToken string, meta domain.RequestMeta) (Session, error) {
	if refreshToken == "" {
		return Session{}, errInvalidToken
	}
	var sess Session
	var replayed bool
	err := s.store.InTx(ctx, func(ctx context.Context) error {
		sessionID, reused, err := s.store.UseRefreshToken(ctx, s.secrets.TokenHash(refreshToken))
		if err != nil {
			return err
		}
		if reused {
			replayed = true
			if err := s.store.RevokeSession(ctx, sessionID, "refresh token reused"); err != nil {
				return err
			}
			return record(ctx, s.store, meta, Event{Action: domain.ActionRefreshReuse, Table: domain.TableSessions, RecordID: sessionID,
				Reason: "refresh token replayed; session revoked"})
		}
		p, err := s.store.Principal(ctx, sessionID)
		if err != nil {
			return err
		}
		if p.User, err = s.mfa.WithStatus(ctx, p.User); err != nil {
			return err
		}
		sess, err = s.startSession(ctx, p)
		return err
	})
	if replayed || domain.ErrorKind(err) == domain.ENOTFOUND {
		return Session{}, errInvalidToken
	}
	return sess, err
}

// RefuseCrossSite records a cookie-authenticated request that a browser
// says came from another site, and returns the refusal (EFORBIDDEN).
func (s *SessionService) RefuseCrossSite(ctx context.Context, meta domain.RequestMeta, origin string) error {
	return refuse(ctx, s.store, meta, Event{Table: domain.TableSessions, Reason: "cross-site request from " + truncate(origin, 100)},
		domain.Errorf(domain.EFORBIDDEN, "This request must come from the MediShare app itself."))
}

// Authenticate turns an access token into its caller, checking the session
// and the account on every call (S5). Errors: EUNAUTHENTICATED.
func (s *SessionService) Authenticate(ctx context.Context, accessToken string) (*domain.Principal, error) {
	userID, sessionID, err := s.tokens.Parse(accessToken)
	if err != nil {
		return nil, err
	}
	p, err := s.store.Principal(ctx, sessionID)
	if domain.ErrorKind(err) == domain.ENOTFOUND || (err == nil && p.User.ID != userID) {
		return nil, errInvalidToken
	}
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// AuthenticateLink returns the caller behind a signed link to an image's
// content or preview, if its grant is good and its session alive.
// Errors: EUNAUTHENTICATED.
func (s *SessionService) AuthenticateLink(ctx context.Context, g Grant, imageID, kind string) (*domain.Principal, error) {
	if err := s.links.check(g, imageID, kind); err != nil {
		return nil, err
	}
	p, err := s.store.Principal(ctx, g.SessionID)
	if err != nil {
		return nil, notFound(err, errInvalidToken)
	}
	return &p, nil
}

// Logout ends the caller's session at once.
func (s *SessionService) Logout(ctx context.Context, p *domain.Principal, meta domain.RequestMeta) error {
	return s.store.InTx(ctx, func(ctx context.Context) error {
		if err := s.store.RevokeSession(ctx, p.SessionID, "logout"); err != nil {
			return err
		}
		return record(ctx, s.store, meta, Event{Actor: p.User.ID, Action: domain.ActionLogout, Table: domain.TableSessions, RecordID: p.SessionID, Success: true})
	})
}

// truncate keeps at most n bytes of s, cut at a character boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
