package mail

import (
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode"

	"github.com/medishare/medishare/internal/domain"
)

// Templates writes the product's mails. Plain text only: they carry codes
// and links, never medical details.
type Templates struct {
	PublicURL string           // "https://medishare.example.org", no trailing slash needed
	Now       func() time.Time // nil means time.Now; tests fix the clock
}

// maxNameRunes keeps a hostile first name from filling the mail.
const maxNameRunes = 64

// ConfirmationCode is the mail with the code that confirms a new account.
// It greets nobody by name: whoever registered the address typed the name,
// and it may not be the owner of the mailbox.
func (t Templates) ConfirmationCode(to, code string) Message {
	return Message{
		To:      to,
		Subject: "Your MediShare confirmation code",
		Text: greeting("") +
			"Your confirmation code is " + code + ".\n\n" +
			"Enter it on the confirmation page to activate your MediShare account. " +
			"The code expires in 15 minutes.\n\n" +
			"If you did not create a MediShare account, you can ignore this email.\n" +
			signature,
	}
}

// ResetCode is the mail with the code and the link that reset a password.
func (t Templates) ResetCode(to, firstname, code, token string) Message {
	return Message{
		To:      to,
		Subject: "Your MediShare password reset code",
		Text: greeting(firstname) +
			"Your password reset code is " + code + ".\n\n" +
			"You can also choose a new password with this link:\n" +
			t.link("/reset-password?token="+url.QueryEscape(token)) + "\n\n" +
			"The code and the link expire in 15 minutes.\n\n" +
			"If you did not ask to reset your password, you can ignore this email; " +
			"your password stays as it is.\n" +
			signature,
	}
}

// RegistrationAttempt tells the owner of an address that someone tried to
// register it again. The registration page answers the same either way, so
// only the mailbox owner learns that the account exists (S2).
func (t Templates) RegistrationAttempt(to string) Message {
	return Message{
		To:      to,
		Subject: "Someone tried to register with your email",
		Text: greeting("") +
			"Someone tried to create a MediShare account with this email address, " +
			"but an account already exists for it.\n\n" +
			"If it was you, sign in with your password. If you forgot it, reset it here:\n" +
			t.link("/forgot-password") + "\n\n" +
			"If it was not you, you can ignore this email. Nothing has changed in your account.\n" +
			signature,
	}
}

// when is the present moment as a mail says it.
func (t Templates) when() string {
	now := time.Now
	if t.Now != nil {
		now = t.Now
	}
	return now().UTC().Format("2006-01-02 at 15:04 UTC")
}

// PasswordChanged tells the owner that the password was changed, so a
// takeover does not go unnoticed.
func (t Templates) PasswordChanged(to, firstname string) Message {
	when := t.when()
	return Message{
		To:      to,
		Subject: "Your MediShare password was changed",
		Text: greeting(firstname) +
			"The password of your MediShare account was changed on " + when + ". " +
			"All your other sessions were signed out.\n\n" +
			"If you did not change it, reset your password at once here:\n" +
			t.link("/forgot-password") + "\n" +
			"and contact support.\n" +
			signature,
	}
}

// MFAReset tells a person that an administrator removed their second
// factors (authenticator, passkeys, recovery codes), so a reset they did
// not ask for does not go unnoticed.
func (t Templates) MFAReset(to, firstname string) Message {
	when := t.when()
	return Message{
		To:      to,
		Subject: "Your MediShare second factors were reset",
		Text: greeting(firstname) +
			"An administrator removed the authenticator app, passkeys and recovery codes of your MediShare account on " + when + ". " +
			"All your sessions were signed out. Sign in with your password and set up a second factor again:\n" +
			t.link("/login") + "\n\n" +
			"If you did not ask for this, contact support at once.\n" +
			signature,
	}
}

// ShareCode tells a recipient that an image was shared with them, with the
// sharing id and code that open it. It names the sharer only: the caption,
// the patient and anything read from the file are health information that
// stays behind the code, and a mailbox is not the place for them.
func (t Templates) ShareCode(to, firstname, sharer, shareID, code string, expires time.Time) Message {
	return Message{
		To:      to,
		Subject: "A medical image was shared with you on MediShare",
		Text: greeting(firstname) +
			plainName(sharer) + " shared an image with you on MediShare.\n\n" +
			"To see it, sign in, open View Images and choose Verify on the image, then enter:\n\n" +
			"Sharing id: " + shareID + "\n" +
			"Code: " + code + "\n\n" +
			"The share expires on " + expiryText(expires) + ". " +
			"The code works for you only, and five wrong codes void the share.\n" +
			t.link("/view-images") + "\n\n" +
			"If you did not expect this, you can ignore this email.\n" +
			signature,
	}
}

func expiryText(t time.Time) string {
	return t.UTC().Format("2006-01-02 at 15:04 UTC") + " (" + t.In(domain.Zone).Format("15:04 on 2 Jan") + " in Pakistan)"
}

const signature = "\nMediShare\n"

func (t Templates) link(path string) string {
	return strings.TrimRight(t.PublicURL, "/") + path
}

func greeting(firstname string) string {
	if name := plainName(firstname); name != "" {
		return fmt.Sprintf("Hello %s,\n\n", name)
	}
	return "Hello,\n\n"
}

// plainName keeps a name to one short line of text, so it cannot add lines
// of its own ("Your code is ...") to the mail.
func plainName(s string) string { return plainText(s, maxNameRunes) }

// plainText keeps s to one line of at most limit runes.
func plainText(s string, limit int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > limit {
		s = strings.TrimSpace(string(r[:limit]))
	}
	return s
}
