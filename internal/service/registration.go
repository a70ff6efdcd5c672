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

// Registration limits (S3): one client address may register a few accounts
// an hour (a family on one connection, not a script), and the owner of an
// email that someone tries to register again hears of it once a day at most.
var (
	registrations = limit{prefix: "register-ip:", reason: "registrations", max: 20, window: time.Hour,
		message: "Too many registrations from this network. Please try again later."}
	registrationNoticeWindow = 24 * time.Hour
)

// RegistrationStore is what registration needs from the database.
type RegistrationStore interface {
	CodeStore
	SettingsReader
	CreateUser(ctx context.Context, u domain.User, passwordHash string) (domain.User, error)
	UserByEmail(ctx context.Context, email string) (domain.User, string, error)
	UsernameTaken(ctx context.Context, username string) (bool, error)
	SetVerified(ctx context.Context, id string) error
}

// PasswordHasher hashes and checks passwords (secure.Passwords).
type PasswordHasher interface {
	Hash(ctx context.Context, password string) (string, error)
	Verify(ctx context.Context, encoded, password string) (bool, error)
	VerifyDummy(ctx context.Context, password string)
}

// RegistrationService registers and confirms accounts.
type RegistrationService struct {
	store     RegistrationStore
	passwords PasswordHasher
	codes     codes
	outbox    *Outbox
	templates mail.Templates
	now       Clock
}

// NewRegistrationService wires registration.
func NewRegistrationService(store RegistrationStore, passwords PasswordHasher, secrets SecretHasher, background *Background, outbox *Outbox, templates mail.Templates, now Clock) *RegistrationService {
	return &RegistrationService{store: store, passwords: passwords, codes: codes{store: store, secrets: secrets, background: background, now: now},
		outbox: outbox, templates: templates, now: now}
}

// Registration is the payload of POST /api/auth/register.
type Registration struct {
	Email, Username, Password, Role string
	Profile                         domain.Profile
}

// Register creates an unconfirmed account and mails it a 4-digit code. An
// email that is already registered gets the same answer, and its owner a
// notice by mail at most once a day (S2).
// Errors: EVALIDATION, ECONFLICT (username taken), ETHROTTLED.
func (s *RegistrationService) Register(ctx context.Context, in Registration, meta domain.RequestMeta) (string, error) {
	settings, err := s.store.Settings(ctx)
	if err != nil {
		return "", err
	}
	if !settings.RegistrationOpen {
		_ = record(ctx, s.store, meta, Event{Action: domain.ActionRegister, Reason: "registration closed"})
		return "", forbidden("Registration is closed. Please contact the administrator.")
	}
	email, username, profile, err := s.checkRegistration(in)
	if err != nil {
		return "", err
	}
	if err := registrations.hit(ctx, s.store, s.store, s.now, meta.IP, meta, ""); err != nil {
		return "", err
	}
	// Hash before looking the email up, so both paths take as long.
	hash, err := s.passwords.Hash(ctx, in.Password)
	if err != nil {
		return "", err
	}
	if _, _, err := s.store.UserByEmail(ctx, email); err == nil {
		return email, s.noticeRegistrationAttempt(ctx, email, meta)
	} else if domain.ErrorKind(err) != domain.ENOTFOUND {
		return "", err
	}
	if taken, err := s.store.UsernameTaken(ctx, username); err != nil {
		return "", err
	} else if taken {
		return "", usernameTaken()
	}

	code := secure.RandomDigits(4)
	err = s.store.InTx(ctx, func(ctx context.Context) error {
		awaiting := in.Role == domain.RoleProvider && settings.ProviderApprovalRequired
		user, err := s.store.CreateUser(ctx, domain.User{Email: email, Username: username, Role: in.Role, AwaitingApproval: awaiting, Profile: profile}, hash)
		if err != nil {
			return err
		}
		if err := s.codes.issue(ctx, user.ID, purposeConfirm, code); err != nil {
			return err
		}
		reason := "role " + in.Role
		if awaiting {
			reason += ", awaiting approval"
		}
		if err := s.outbox.Queue(ctx, s.templates.ConfirmationCode(email, code)); err != nil {
			return err
		}
		return record(ctx, s.store, meta, Event{Actor: user.ID, Action: domain.ActionRegister, Table: domain.TableUsers,
			RecordID: user.ID, Success: true, Reason: reason})
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
	return email, nil
}

// checkRegistration validates a registration and returns its normalised fields.
func (s *RegistrationService) checkRegistration(in Registration) (email, username string, profile domain.Profile, err error) {
	var errs fieldErrors
	email, ok := normalizeEmail(in.Email)
	if !ok {
		errs.add("email", "must be a valid email address")
	}
	username = strings.TrimSpace(in.Username)
	if !usernamePattern.MatchString(username) {
		errs.add("username", "must be 3 to 30 letters, digits, dots, dashes or underscores")
	}
	if in.Role != domain.RolePatient && in.Role != domain.RoleProvider {
		errs.add("role", "must be patient or healthProvider")
	}
	profile = normalizeProfile(&errs, in.Profile, in.Role, s.now())
	if err := secure.CheckPasswordPolicy(in.Password, email, username); err != nil {
		var de *domain.Error
		if errors.As(err, &de) {
			errs = append(errs, de.Fields...)
		}
	}
	return email, username, profile, errs.err()
}

// noticeRegistrationAttempt tells the owner of an email that someone tried
// to register it again: once a day at most, so nobody can flood a mailbox
// through the registration form.
func (s *RegistrationService) noticeRegistrationAttempt(ctx context.Context, email string, meta domain.RequestMeta) error {
	hits, _, err := s.store.HitThrottle(ctx, "register-notice:"+email, registrationNoticeWindow)
	if err != nil {
		return err
	}
	reason := "email already registered"
	return s.store.InTx(ctx, func(ctx context.Context) error {
		if hits == 1 {
			if err := s.outbox.Queue(ctx, s.templates.RegistrationAttempt(email)); err != nil {
				return err
			}
			reason += "; owner notified"
		}
		return record(ctx, s.store, meta, Event{Action: domain.ActionRegister, Table: domain.TableUsers, Reason: reason})
	})
}

func usernameTaken() error {
	return &domain.Error{Kind: domain.ECONFLICT, Message: "This username is already taken.",
		Fields: []domain.FieldError{{Field: "username", Message: "is already taken"}}}
}

// Confirm checks a confirmation code and marks the account confirmed.
// Errors: EVALIDATION (not 4 digits), EINVALID (wrong, used or expired code,
// with the tries left).
func (s *RegistrationService) Confirm(ctx context.Context, email, code string, meta domain.RequestMeta) error {
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
	return s.codes.spend(ctx, user, purposeConfirm, code, meta, domain.ActionAccountConfirm, func(ctx context.Context) error {
		return s.store.SetVerified(ctx, user.ID)
	})
}

// ResendConfirmation mails a new confirmation code to an unconfirmed
// account. The answer, and its timing, are the same whether or not the
// account exists (S2): the lookup and the new code happen after the
// response. Errors: EVALIDATION, ETHROTTLED.
func (s *RegistrationService) ResendConfirmation(ctx context.Context, email string, meta domain.RequestMeta) error {
	return s.codes.request(ctx, purposeConfirm, email, meta, func(ctx context.Context, email string) error {
		return s.mailConfirmationCode(ctx, email, meta)
	})
}

func (s *RegistrationService) mailConfirmationCode(ctx context.Context, email string, meta domain.RequestMeta) error {
	user, _, err := s.store.UserByEmail(ctx, email)
	if err != nil || user.Verified || !user.Active {
		return notFound(err, nil)
	}
	code := secure.RandomDigits(4)
	return s.store.InTx(ctx, func(ctx context.Context) error {
		if err := s.codes.issue(ctx, user.ID, purposeConfirm, code); err != nil {
			return err
		}
		if err := s.outbox.Queue(ctx, s.templates.ConfirmationCode(email, code)); err != nil {
			return err
		}
		return record(ctx, s.store, meta, Event{Actor: user.ID, Action: domain.ActionCodeRequest, Table: domain.TableUsers,
			RecordID: user.ID, Success: true, Reason: "confirmation code"})
	})
}

// CreateAccount makes a confirmed account directly (the admin command and the
// development demo accounts). Errors: EVALIDATION, ECONFLICT.
func (s *RegistrationService) CreateAccount(ctx context.Context, email, username, password, role, firstname, lastname string) (domain.User, error) {
	var errs fieldErrors
	email, ok := normalizeEmail(email)
	if !ok {
		errs.add("email", "must be a valid email address")
	}
	if !usernamePattern.MatchString(username) {
		errs.add("username", "must be 3 to 30 letters, digits, dots, dashes or underscores")
	}
	if !domain.IsRole(role) {
		errs.add("role", "must be patient, healthProvider or admin")
	}
	profile := normalizeProfile(&errs, domain.Profile{Firstname: firstname, Lastname: lastname}, role, s.now())
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
		if user, err = s.store.CreateUser(ctx, domain.User{Email: email, Username: username, Role: role, Verified: true, Profile: profile}, hash); err != nil {
			return err
		}
		return record(ctx, s.store, domain.RequestMeta{IP: "local", UserAgent: "medishare cli"}, Event{
			Action: domain.ActionUserCreate, Table: domain.TableUsers, RecordID: user.ID, Success: true,
			Reason: fmt.Sprintf("role %s, created from the command line", role)})
	})
	if domain.ErrorKind(err) == domain.ECONFLICT {
		return domain.User{}, domain.Errorf(domain.ECONFLICT, "An account with this email or username already exists.")
	}
	return user, err
}
