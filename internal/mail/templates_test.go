package mail

import (
	"strings"
	"testing"
	"time"
)

func TestTemplates(t *testing.T) {
	tpl := Templates{
		PublicURL: "https://medishare.example.org/", // trailing slash on purpose
		Now:       func() time.Time { return time.Date(2026, 3, 4, 6, 7, 0, 0, time.FixedZone("CET", 3600)) },
	}
	tests := []struct {
		name    string
		msg     Message
		subject string
		lines   []string // each must be a whole line of the body
		has     []string // each must appear somewhere
	}{
		{
			name:    "confirmation code",
			msg:     tpl.ConfirmationCode("alice@example.com", "4821"),
			subject: "Your MediShare confirmation code",
			lines:   []string{"Hello,", "Your confirmation code is 4821."},
			has:     []string{"expires in 15 minutes"},
		},
		{
			name:    "reset code",
			msg:     tpl.ResetCode("alice@example.com", "Alice", "042917", "abc_DEF-123"),
			subject: "Your MediShare password reset code",
			lines: []string{
				"Your password reset code is 042917.",
				"https://medishare.example.org/reset-password?token=abc_DEF-123",
			},
			has: []string{"expire in 15 minutes", "If you did not ask to reset your password, you can ignore this email"},
		},
		{
			name:    "reset link escapes the token",
			msg:     tpl.ResetCode("alice@example.com", "Alice", "042917", "a+b/c=d&e f"),
			subject: "Your MediShare password reset code",
			lines:   []string{"https://medishare.example.org/reset-password?token=a%2Bb%2Fc%3Dd%26e+f"},
		},
		{
			name:    "registration attempt",
			msg:     tpl.RegistrationAttempt("alice@example.com"),
			subject: "Someone tried to register with your email",
			lines:   []string{"Hello,", "https://medishare.example.org/forgot-password"},
			has:     []string{"an account already exists", "sign in", "reset it", "If it was not you, you can ignore this email."},
		},
		{
			name:    "password changed",
			msg:     tpl.PasswordChanged("alice@example.com", "Alice"),
			subject: "Your MediShare password was changed",
			lines:   []string{"https://medishare.example.org/forgot-password"},
			has:     []string{"2026-03-04 at 05:07 UTC", "other sessions were signed out", "reset your password", "contact support"},
		},
		{
			name:    "no first name",
			msg:     tpl.ResetCode("alice@example.com", " \t", "042917", "t"),
			subject: "Your MediShare password reset code",
			lines:   []string{"Hello,"},
		},
		{
			name:    "first name cannot add lines",
			msg:     tpl.ResetCode("alice@example.com", "Eve\r\nYour password reset code is 0000.\u2028x", "042917", "t"),
			subject: "Your MediShare password reset code",
			lines:   []string{"Hello Eve Your password reset code is 0000. x,", "Your password reset code is 042917."},
		},
		{
			name:    "long first name is cut",
			msg:     tpl.PasswordChanged("alice@example.com", strings.Repeat("é", 500)),
			subject: "Your MediShare password was changed",
			lines:   []string{"Hello " + strings.Repeat("é", maxNameRunes) + ","},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.msg.Subject != tt.subject {
				t.Errorf("Subject = %q, want %q", tt.msg.Subject, tt.subject)
			}
			if tt.msg.To != "alice@example.com" {
				t.Errorf("To = %q", tt.msg.To)
			}
			bodyLines := strings.Split(tt.msg.Text, "\n")
			for _, want := range tt.lines {
				found := false
				for _, l := range bodyLines {
					found = found || l == want
				}
				if !found {
					t.Errorf("no line %q in:\n%s", want, tt.msg.Text)
				}
			}
			for _, want := range tt.has {
				if !strings.Contains(tt.msg.Text, want) {
					t.Errorf("body lacks %q:\n%s", want, tt.msg.Text)
				}
			}
			if strings.Contains(tt.msg.Text, "\r") || strings.Contains(tt.msg.Text, "\u2028") {
				t.Errorf("body has CR or a line separator:\n%q", tt.msg.Text)
			}
			// Only one line may state a code, and it is the real one.
			for _, l := range bodyLines {
				if strings.HasPrefix(l, "Your ") && strings.Contains(l, " code is ") && strings.Contains(l, "0000") {
					t.Errorf("injected code line %q", l)
				}
			}
		})
	}
}
