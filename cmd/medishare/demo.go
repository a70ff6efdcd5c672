package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/secure"
	"github.com/medishare/medishare/internal/service"
)

type demoAccount struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

var demoPeople = []struct {
	role, username, firstname, lastname string
}{
	{domain.RolePatient, "demo.patient", "Ayesha", "Khan"},
	{domain.RoleProvider, "demo.provider", "Imran", "Siddiqui"},
	{domain.RoleAdmin, "demo.admin", "Sara", "Ahmed"},
}

// ensureDemoAccounts gives development a patient, a provider and an admin.
// Their random passwords are made once, kept in the data folder and printed
// at every start; production never calls this.
func ensureDemoAccounts(ctx context.Context, auth *service.RegistrationService, dataDir string, logger *slog.Logger) (map[string]demoAccount, error) {
	path := filepath.Join(dataDir, "demo-accounts.json")
	accounts := map[string]demoAccount{}
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &accounts); err != nil {
			return nil, fmt.Errorf("%s: %w (delete it to make new demo accounts)", path, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	changed := false
	for _, p := range demoPeople {
		acct, ok := accounts[p.role]
		if !ok {
			acct = demoAccount{Email: p.username + "@medishare.example", Password: secure.RandomToken(12)}
			accounts[p.role] = acct
			changed = true
		}
		_, err := auth.CreateAccount(ctx, acct.Email, p.username, acct.Password, p.role, p.firstname, p.lastname)
		if err != nil && domain.ErrorKind(err) != domain.ECONFLICT {
			return nil, fmt.Errorf("demo %s: %w", p.role, err)
		}
	}
	if changed {
		b, _ := json.MarshalIndent(accounts, "", "  ")
		if err := os.WriteFile(path, b, 0o600); err != nil {
			return nil, err
		}
	}
	for _, p := range demoPeople {
		a := accounts[p.role]
		logger.Info("demo account (development only)", "role", p.role, "email", a.Email, "password", a.Password)
	}
	return accounts, nil
}
