package service

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/mail"
	"github.com/medishare/medishare/internal/secure"
)

// Limits of S3 and S4.
const (
	codeTTL            = 15 * time.Minute
	maxCodeTries       = 5
	sessionTTL         = 7 * 24 * time.Hour
	loginFailWindow    = 15 * time.Minute
	loginFailsPerEmail = 10
	loginFailsPerIP    = 50
	codeRequestWindow  = time.Hour
	codeRequestsPerKey = 5
)

// Code purposes.
const (
	purposeConfirm   = "confirm"
	purposeReset     = "reset"
	purposeResetLink = "reset_link"
)

// AccountStore is what the account services need from the database.
type AccountStore interface {
	Transactor
	AuditWriter
	CreateUser(ctx context.Context, u domain.User, passwordHash string) (domain.User, error)
	UserByID(ctx context.Context, id string) (domain.User, error)
	UserByEmail(ctx context.Context, email string) (domain.User, string, error)
	PasswordHash(ctx context.Context, id string) (string, error)
	UsernameTaken(ctx context.Context, username string) (bool, error)
	SetVerified(ctx context.Context, id string) error
	SetPassword(ctx context.Context, id, hash string) error
	CreateSession(ctx context.Context, userID string, expires time.Time, meta domain.RequestMeta) (string, error)
	Principal(ctx context.Context, sessionID string) (domain.Principal, error)
	RevokeSession(ctx context.Context, sessionID, reason string) error
	RevokeUserSessions(ctx context.Context, userID, exceptSessionID, reason string) error
	AddRefreshToken(ctx context.Context, sessionID string, tokenHash []byte) error
	UseRefreshToken(ctx context.Context, tokenHash []byte) (sessionID string, replayed bool, err error)
	ReplaceCode(ctx context.Context, userID, purpose string, codeHash []byte, expires time.Time, voids ...string) error
	VoidCodes(ctx context.Context, userID string, purposes ...string) error
	TryCode(ctx context.Context, userID, purpose string, codeHash []byte, maxTries int) (found, matched bool, tries int, err error)
	UseLinkToken(ctx context.Context, tokenHash []byte) (string, error)
	ThrottleHits(ctx context.Context, key string, period time.Duration) (int, time.Time, error)
	HitThrottle(ctx context.Context, key string, period time.Duration) (int, time.Time, error)
	ClearThrottle(ctx context.Context, key string) error
}

// PasswordHasher hashes and checks passwords (secure.Passwords).
type PasswordHasher interface {
	Hash(ctx context.Context, password string) (string, error)
	Verify(ctx context.Context, encoded, password string) (bool, error)
	VerifyDummy(ctx context.Context, password string)
}

// SecretHasher makes the keyed hashes under which codes and tokens are stored (secure.Keys).
type SecretHasher interface {
	CodeHash(purpose, subject, code string) []byte
	TokenHash(token string) []byte
}

// AuthService registers, confirms and signs people in and out.
type AuthService struct {
	store     AccountStore
	passwords PasswordHasher
	secrets   SecretHasher
	tokens    *Tokens
	outbox    *Outbox
	templates mail.Templates
	now       Clock
}

// NewAuthService wires the account use cases.
func NewAuthService(store AccountStore, passwords PasswordHasher, secrets SecretHasher, tokens *Tokens, outbox *Outbox, templates mail.Templates, now Clock) *AuthService {
	return &AuthService{store: store, passwords: passwords, secrets: secrets, tokens: tokens, outbox: outbox, templates: templates, now: now}
}

// Registration is the payload of POST /api/auth/register.
type Registration struct {
	Email, Username, Password, Role string
	Profile                         ProfileInput
}

// Register creates an unconfirmed account and mails it a 4-digit code. An
// email that is already registered gets the same answer, and its owner a
// warning by mail (S2). Errors: EVALIDATION, ECONFLICT (username taken).
func (s *AuthService) Register(ctx context.Context, in Registration, meta domain.RequestMeta) (string, error) {
	var errs fieldErrors
	email, ok := normalizeEmail(in.Email)
	if !ok {
		errs.add("email", "must be a valid email address")
	}
	username := strings.TrimSpace(in.Username)
	if !usernamePattern.MatchString(username) {
		errs.add("username", "must be 3 to 30 letters, digits, dots, dashes or underscores")
	}
	if in.Role != domain.RolePatient && in.Role != domain.RoleProvider {
		errs.add("role", "must be patient or healthProvider")
	}
	var profile domain.Profile
	applyProfile(&errs, &profile, in.Profile, in.Role, s.now())
	if err := secure.CheckPasswordPolicy(in.Password, email, username); err != nil {
		var de *domain.Error
		if errors.As(err, &de) {
			errs = append(errs, de.Fields...)
		}
	}
	if err := errs.err(); err != nil {
		return "", err
	}

	// Hash before looking the email up, so both paths take as long.
	hash, err := s.passwords.Hash(ctx, in.Password)
	if err != nil {
		return "", err
	}
	if _, _, err := s.store.UserByEmail(ctx, email); err == nil {
		s.outbox.Send(s.templates.RegistrationAttempt(email))
		return email, s.store.AppendAudit(ctx, audit(meta, "", "register", "users", "", false, "email already registered"))
	} else if domain.ErrorKind(err) != domain.ENOTFOUND {
		return "", err
	}
	if taken, err := s.store.UsernameTaken(ctx, username); err != nil {
		return "", err
	} else if taken {
		return "", usernameTaken()
	}

	code := secure.RandomDigits(4)
	var user domain.User
	err = s.store.InTx(ctx, func(ctx context.Context) error {
		var err error
		user, err = s.store.CreateUser(ctx, withProfile(domain.User{Email: email, Username: username, Role: in.Role}, profile), hash)
		if err != nil {
			return err
		}
		if err := s.store.ReplaceCode(ctx, user.ID, purposeConfirm, s.secrets.CodeHash(purposeConfirm, user.ID, code), s.now().Add(codeTTL)); err != nil {
			return err
		}
		return s.store.AppendAudit(ctx, audit(meta, user.ID, "register", "users", user.ID, true, "role "+in.Role))
	})
	if domain.ErrorKind(err) == domain.ECONFLICT {
		// A concurrent registration took the email or username: answer as if it existed.
		if taken, _ := s.store.UsernameTaken(ctx, username); taken {
			return "", usernameTaken()
		}
		return email, nil
	}
	if err != nil {
		return "", err
	}
	s.outbox.Send(s.templates.ConfirmationCode(email, user.Firstname, code))
	return email, nil
}

func usernameTaken() error {
	return &domain.Error{Kind: domain.ECONFLICT, Message: "This username is already taken.",
		Fields: []domain.FieldError{{Field: "username", Message: "is already taken"}}}
}

var errBadCode = domain.Errorf(domain.EINVALID, "Invalid or expired code. Please request a new one.")

// Confirm checks a confirmation code and marks the account confirmed.
// Errors: EVALIDATION (not 4 digits), EINVALID (wrong, used or expired code,
// with the tries left).
func (s *AuthService) Confirm(ctx context.Context, email, code string, meta domain.RequestMeta) error {
	email, _ = normalizeEmail(email)
	if !isDigits(code, 4) {
		return domain.ValidationError("Please enter the 4-digit code.", domain.FieldError{Field: "code", Message: "must be 4 digits"})
	}
	user, _, err := s.store.UserByEmail(ctx, email)
	if domain.ErrorKind(err) == domain.ENOTFOUND || (err == nil && user.Verified) {
		return errBadCode
	} else if err != nil {
		return err
	}
	return s.spendCode(ctx, user, purposeConfirm, code, meta, "account_confirm", func(ctx context.Context) error {
		return s.store.SetVerified(ctx, user.ID)
	})
}

// spendCode tries a code; on a match it runs onMatch and records success in
// the same transaction. A wrong try is counted (and audited) even though the
// request fails.
func (s *AuthService) spendCode(ctx context.Context, user domain.User, purpose, code string, meta domain.RequestMeta, action string, onMatch func(ctx context.Context) error) error {
	var found, matched bool
	var tries int
	err := s.store.InTx(ctx, func(ctx context.Context) error {
		var err error
		found, matched, tries, err = s.store.TryCode(ctx, user.ID, purpose, s.secrets.CodeHash(purpose, user.ID, code), maxCodeTries)
		if err != nil {
			return err
		}
		if !matched {
			reason := "wrong code"
			if !found {
				reason = "no live code"
			}
			return s.store.AppendAudit(ctx, audit(meta, user.ID, action, "users", user.ID, false, reason))
		}
		if err := onMatch(ctx); err != nil {
			return err
		}
		return s.store.AppendAudit(ctx, audit(meta, user.ID, action, "users", user.ID, true, ""))
	})
	switch {
	case err != nil:
		return err
	case !found:
		return errBadCode
	case !matched && tries >= maxCodeTries:
		return domain.Errorf(domain.EINVALID, "Too many wrong attempts. Please request a new code.")
	case !matched:
		return domain.Errorf(domain.EINVALID, "Invalid code. %d attempts left.", maxCodeTries-tries)
	}
	return nil
}

// ResendConfirmation mails a new confirmation code to an unconfirmed account.
// The answer is the same whether or not the account exists (S2).
// Errors: ETHROTTLED.
func (s *AuthService) ResendConfirmation(ctx context.Context, email string, meta domain.RequestMeta) error {
	email, ok := normalizeEmail(email)
	if !ok {
		return domain.ValidationError("Please enter a valid email.", domain.FieldError{Field: "email", Message: "must be a valid email address"})
	}
	if err := s.throttleCodeRequest(ctx, "confirm:"+email, meta); err != nil {
		return err
	}
	user, _, err := s.store.UserByEmail(ctx, email)
	if err != nil || user.Verified || !user.Active {
		if err != nil && domain.ErrorKind(err) != domain.ENOTFOUND {
			return err
		}
		return nil
	}
	code := secure.RandomDigits(4)
	err = s.store.InTx(ctx, func(ctx context.Context) error {
		if err := s.store.ReplaceCode(ctx, user.ID, purposeConfirm, s.secrets.CodeHash(purposeConfirm, user.ID, code), s.now().Add(codeTTL)); err != nil {
			return err
		}
		return s.store.AppendAudit(ctx, audit(meta, user.ID, "code_request", "users", user.ID, true, "confirmation code"))
	})
	if err != nil {
		return err
	}
	s.outbox.Send(s.templates.ConfirmationCode(email, user.Firstname, code))
	return nil
}

// throttleCodeRequest allows about five code requests an hour for one key.
// Keys are built from the email as typed, so unknown addresses are throttled
// exactly like known ones (S2, S3).
func (s *AuthService) throttleCodeRequest(ctx context.Context, key string, meta domain.RequestMeta) error {
	hits, start, err := s.store.HitThrottle(ctx, "code:"+key, codeRequestWindow)
	if err != nil {
		return err
	}
	if hits > codeRequestsPerKey {
		_ = s.store.AppendAudit(ctx, audit(meta, "", "throttled", "", "", false, "code requests"))
		return throttled(start.Add(codeRequestWindow).Sub(s.now()), "Too many code requests. Please try again later.")
	}
	return nil
}

func throttled(wait time.Duration, message string) error {
	secs := int(wait.Round(time.Second) / time.Second)
	if secs < 1 {
		secs = 1
	}
	return &domain.Error{Kind: domain.ETHROTTLED, Message: message, RetryAfterSeconds: secs}
}

// Session is a signed-in session: a short-lived access token for the API and
// a refresh token for renewing it.
type Session struct {
	AccessToken    string
	RefreshToken   string
	RefreshExpires time.Time
	User           domain.User
}

var errBadLogin = domain.Errorf(domain.EUNAUTHENTICATED, "Invalid email or password.")

// Login checks an email and password and starts a session.
// Errors: EUNAUTHENTICATED (wrong email or password, the same for both),
// EFORBIDDEN (not confirmed; deactivated), ETHROTTLED.
func (s *AuthService) Login(ctx context.Context, email, password string, meta domain.RequestMeta) (Session, error) {
	email, _ = normalizeEmail(email)
	ipKey, emailKey := "login-ip:"+meta.IP, "login-email:"+email
	for _, t := range []struct {
		key   string
		limit int
	}{{ipKey, loginFailsPerIP}, {emailKey, loginFailsPerEmail}} {
		hits, start, err := s.store.ThrottleHits(ctx, t.key, loginFailWindow)
		if err != nil {
			return Session{}, err
		}
		if hits >= t.limit {
			_ = s.store.AppendAudit(ctx, audit(meta, "", "login", "users", "", false, "throttled"))
			return Session{}, throttled(start.Add(loginFailWindow).Sub(s.now()), "Too many failed sign-in attempts. Please try again later.")
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
	if !ok {
		for _, key := range []string{ipKey, emailKey} {
			if _, _, err := s.store.HitThrottle(ctx, key, loginFailWindow); err != nil {
				return Session{}, err
			}
		}
		reason := "unknown email"
		if user.ID != "" {
			reason = "wrong password"
		}
		if err := s.store.AppendAudit(ctx, audit(meta, user.ID, "login", "users", user.ID, false, reason)); err != nil {
			return Session{}, err
		}
		return Session{}, errBadLogin
	}
	if !user.Active {
		_ = s.store.AppendAudit(ctx, audit(meta, user.ID, "login", "users", user.ID, false, "account deactivated"))
		return Session{}, &domain.Error{Kind: domain.EFORBIDDEN, Message: "This account is deactivated. Please contact your clinic.", Code: "account_inactive"}
	}
	if !user.Verified {
		_ = s.store.AppendAudit(ctx, audit(meta, user.ID, "login", "users", user.ID, false, "account not verified"))
		return Session{}, &domain.Error{Kind: domain.EFORBIDDEN, Message: "Please verify your account before logging in.", Code: "account_not_verified"}
	}
	if err := s.store.ClearThrottle(ctx, emailKey); err != nil {
		return Session{}, err
	}

	var sess Session
	err = s.store.InTx(ctx, func(ctx context.Context) error {
		sessionID, err := s.store.CreateSession(ctx, user.ID, s.now().Add(sessionTTL), meta)
		if err != nil {
			return err
		}
		if sess, err = s.startSession(ctx, user, sessionID); err != nil {
			return err
		}
		return s.store.AppendAudit(ctx, audit(meta, user.ID, "login", "sessions", sessionID, true, ""))
	})
	return sess, err
}

// startSession hands out a fresh access token and refresh token for a session.
func (s *AuthService) startSession(ctx context.Context, user domain.User, sessionID string) (Session, error) {
	refresh := secure.RandomToken(32)
	if err := s.store.AddRefreshToken(ctx, sessionID, s.secrets.TokenHash(refresh)); err != nil {
		return Session{}, err
	}
	access, err := s.tokens.Issue(user.ID, sessionID, user.Role)
	if err != nil {
		return Session{}, err
	}
	return Session{AccessToken: access, RefreshToken: refresh, RefreshExpires: s.now().Add(sessionTTL), User: user}, nil
}

// Refresh trades a refresh token for a new pair. A refresh token used twice
// means it was stolen: the whole session ends (S6).
// Errors: EUNAUTHENTICATED.
func (s *AuthService) Refresh(ctx context.Context, refreshToken string, meta domain.RequestMeta) (Session, error) {
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
			return s.store.AppendAudit(ctx, audit(meta, "", "refresh_reuse", "sessions", sessionID, false, "refresh token replayed; session revoked"))
		}
		p, err := s.store.Principal(ctx, sessionID)
		if err != nil {
			return err
		}
		sess, err = s.startSession(ctx, p.User, sessionID)
		return err
	})
	if replayed || domain.ErrorKind(err) == domain.ENOTFOUND {
		return Session{}, errInvalidToken
	}
	return sess, err
}

// Authenticate turns an access token into its caller, checking the session
// and the account on every call (S5). Errors: EUNAUTHENTICATED.
func (s *AuthService) Authenticate(ctx context.Context, accessToken string) (*domain.Principal, error) {
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

// Logout ends the caller's session at once.
func (s *AuthService) Logout(ctx context.Context, p *domain.Principal, meta domain.RequestMeta) error {
	return s.store.InTx(ctx, func(ctx context.Context) error {
		if err := s.store.RevokeSession(ctx, p.SessionID, "logout"); err != nil {
			return err
		}
		return s.store.AppendAudit(ctx, audit(meta, p.User.ID, "logout", "sessions", p.SessionID, true, ""))
	})
}

// ForgotPassword mails a 6-digit code and a reset link to an active account.
// The answer is the same whether or not the account exists (S2).
// Errors: EVALIDATION, ETHROTTLED.
func (s *AuthService) ForgotPassword(ctx context.Context, email string, meta domain.RequestMeta) error {
	email, ok := normalizeEmail(email)
	if !ok {
		return domain.ValidationError("Please enter a valid email.", domain.FieldError{Field: "email", Message: "must be a valid email address"})
	}
	if err := s.throttleCodeRequest(ctx, "reset:"+email, meta); err != nil {
		return err
	}
	user, _, err := s.store.UserByEmail(ctx, email)
	if err != nil || !user.Active {
		if err != nil && domain.ErrorKind(err) != domain.ENOTFOUND {
			return err
		}
		return nil
	}
	code, link := secure.RandomDigits(6), secure.RandomToken(32)
	err = s.store.InTx(ctx, func(ctx context.Context) error {
		expires := s.now().Add(codeTTL)
		if err := s.store.ReplaceCode(ctx, user.ID, purposeReset, s.secrets.CodeHash(purposeReset, user.ID, code), expires); err != nil {
			return err
		}
		if err := s.store.ReplaceCode(ctx, user.ID, purposeResetLink, s.secrets.TokenHash(link), expires); err != nil {
			return err
		}
		return s.store.AppendAudit(ctx, audit(meta, user.ID, "code_request", "users", user.ID, true, "password reset"))
	})
	if err != nil {
		return err
	}
	s.outbox.Send(s.templates.ResetCode(email, user.Firstname, code, link))
	return nil
}

// PasswordReset is one of the two forms of POST /api/auth/reset-password:
// email, code and new password, or link token and new password.
type PasswordReset struct {
	Email, Code, Token, NewPassword string
}

// ResetPassword sets a new password after a code or link check, and ends
// every session of the account. Errors: EVALIDATION, EINVALID (bad code or link).
func (s *AuthService) ResetPassword(ctx context.Context, in PasswordReset, meta domain.RequestMeta) error {
	if in.Token == "" && !isDigits(in.Code, 6) {
		return domain.ValidationError("Please enter a valid 6-digit OTP.", domain.FieldError{Field: "otp", Message: "must be 6 digits"})
	}
	var user domain.User
	var err error
	if in.Token != "" {
		user, err = s.resetWithLink(ctx, in, meta)
	} else {
		user, err = s.resetWithCode(ctx, in, meta)
	}
	if err != nil {
		return err
	}
	s.outbox.Send(s.templates.PasswordChanged(user.Email, user.Firstname))
	return nil
}

func (s *AuthService) resetWithCode(ctx context.Context, in PasswordReset, meta domain.RequestMeta) (domain.User, error) {
	email, _ := normalizeEmail(in.Email)
	user, _, err := s.store.UserByEmail(ctx, email)
	if domain.ErrorKind(err) == domain.ENOTFOUND || (err == nil && !user.Active) {
		return domain.User{}, errBadCode
	} else if err != nil {
		return domain.User{}, err
	}
	hash, err := s.newPasswordHash(ctx, in.NewPassword, user)
	if err != nil {
		return domain.User{}, err
	}
	return user, s.spendCode(ctx, user, purposeReset, in.Code, meta, "password_reset", func(ctx context.Context) error {
		return s.setPassword(ctx, user.ID, hash, "", "password reset")
	})
}

func (s *AuthService) resetWithLink(ctx context.Context, in PasswordReset, meta domain.RequestMeta) (domain.User, error) {
	var user domain.User
	err := s.store.InTx(ctx, func(ctx context.Context) error {
		userID, err := s.store.UseLinkToken(ctx, s.secrets.TokenHash(in.Token))
		if domain.ErrorKind(err) == domain.ENOTFOUND {
			return domain.Errorf(domain.EINVALID, "This reset link is invalid or has expired. Please request a new one.")
		} else if err != nil {
			return err
		}
		if user, err = s.store.UserByID(ctx, userID); err != nil {
			return err
		}
		hash, err := s.newPasswordHash(ctx, in.NewPassword, user)
		if err != nil {
			return err
		}
		if err := s.setPassword(ctx, user.ID, hash, "", "password reset"); err != nil {
			return err
		}
		return s.store.AppendAudit(ctx, audit(meta, user.ID, "password_reset", "users", user.ID, true, "reset link"))
	})
	return user, err
}

func (s *AuthService) newPasswordHash(ctx context.Context, password string, user domain.User) (string, error) {
	if err := secure.CheckPasswordPolicy(password, user.Email, user.Username); err != nil {
		return "", renameField(err, "password", "newPassword")
	}
	return s.passwords.Hash(ctx, password)
}

// setPassword stores a hash, voids outstanding reset codes and ends every
// session but keep (S5).
func (s *AuthService) setPassword(ctx context.Context, userID, hash, keepSessionID, reason string) error {
	if err := s.store.SetPassword(ctx, userID, hash); err != nil {
		return err
	}
	if err := s.store.VoidCodes(ctx, userID, purposeReset, purposeResetLink); err != nil {
		return err
	}
	return s.store.RevokeUserSessions(ctx, userID, keepSessionID, reason)
}

// ChangePassword replaces the caller's password after checking the current
// one, and ends the caller's other sessions.
// Errors: EVALIDATION, EUNAUTHENTICATED (wrong current password).
func (s *AuthService) ChangePassword(ctx context.Context, p *domain.Principal, current, next string, meta domain.RequestMeta) error {
	stored, err := s.store.PasswordHash(ctx, p.User.ID)
	if err != nil {
		return err
	}
	if ok, err := s.passwords.Verify(ctx, stored, current); err != nil || !ok {
		_ = s.store.AppendAudit(ctx, audit(meta, p.User.ID, "password_change", "users", p.User.ID, false, "wrong current password"))
		return domain.ValidationError("Your current password is not correct.", domain.FieldError{Field: "currentPassword", Message: "is not correct"})
	}
	hash, err := s.newPasswordHash(ctx, next, p.User)
	if err != nil {
		return err
	}
	err = s.store.InTx(ctx, func(ctx context.Context) error {
		if err := s.setPassword(ctx, p.User.ID, hash, p.SessionID, "password change"); err != nil {
			return err
		}
		return s.store.AppendAudit(ctx, audit(meta, p.User.ID, "password_change", "users", p.User.ID, true, ""))
	})
	if err != nil {
		return err
	}
	s.outbox.Send(s.templates.PasswordChanged(p.User.Email, p.User.Firstname))
	return nil
}

// renameField reports a policy error under the field name the request used.
func renameField(err error, from, to string) error {
	var de *domain.Error
	if !errors.As(err, &de) {
		return err
	}
	out := *de
	out.Fields = nil
	for _, f := range de.Fields {
		if f.Field == from {
			f.Field = to
		}
		out.Fields = append(out.Fields, f)
	}
	return &out
}

// CreateAccount makes a confirmed account directly (the admin command and the
// development demo accounts). Errors: EVALIDATION, ECONFLICT.
func (s *AuthService) CreateAccount(ctx context.Context, email, username, password, role, firstname, lastname string) (domain.User, error) {
	var errs fieldErrors
	email, ok := normalizeEmail(email)
	if !ok {
		errs.add("email", "must be a valid email address")
	}
	if !usernamePattern.MatchString(username) {
		errs.add("username", "must be 3 to 30 letters, digits, dots, dashes or underscores")
	}
	var profile domain.Profile
	applyProfile(&errs, &profile, ProfileInput{Firstname: &firstname, Lastname: &lastname}, role, s.now())
	if err := secure.CheckPasswordPolicy(password, email, username); err != nil {
		return domain.User{}, err
	}
	if err := errs.err(); err != nil {
		return domain.User{}, err
	}
	hash, err := s.passwords.Hash(ctx, password)
	if err != nil {
		return domain.User{}, err
	}
	var user domain.User
	err = s.store.InTx(ctx, func(ctx context.Context) error {
		u := withProfile(domain.User{Email: email, Username: username, Role: role}, profile)
		u.Verified = true
		if user, err = s.store.CreateUser(ctx, u, hash); err != nil {
			return err
		}
		return s.store.AppendAudit(ctx, audit(domain.RequestMeta{IP: "local", UserAgent: "medishare cli"}, "", "user_create", "users", user.ID, true, fmt.Sprintf("role %s, created from the command line", role)))
	})
	if domain.ErrorKind(err) == domain.ECONFLICT {
		return domain.User{}, domain.Errorf(domain.ECONFLICT, "An account with this email or username already exists.")
	}
	return user, err
}

// SessionPrincipal returns the caller behind a live session, for requests
// that prove their session another way than a bearer token (signed URLs).
// Errors: EUNAUTHENTICATED.
func (s *AuthService) SessionPrincipal(ctx context.Context, sessionID string) (*domain.Principal, error) {
	p, err := s.store.Principal(ctx, sessionID)
	if domain.ErrorKind(err) == domain.ENOTFOUND {
		return nil, errInvalidToken
	}
	if err != nil {
		return nil, err
	}
	return &p, nil
}
