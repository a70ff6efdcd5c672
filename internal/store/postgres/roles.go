package postgres

import (
	"context"

	"github.com/medishare/medishare/internal/domain"
)

// Roles lists every role with its permissions.
func (s *Store) Roles(ctx context.Context) ([]domain.RoleInfo, error) {
	rows, err := s.q(ctx).ListRolesWithPermissions(ctx)
	if err != nil {
		return nil, translate(err)
	}
	out := make([]domain.RoleInfo, len(rows))
	for i, r := range rows {
		out[i] = domain.RoleInfo{Name: r.Name, Permissions: r.Permissions}
	}
	return out, nil
}

// Permissions lists every permission.
func (s *Store) Permissions(ctx context.Context) ([]domain.PermissionInfo, error) {
	rows, err := s.q(ctx).ListPermissions(ctx)
	if err != nil {
		return nil, translate(err)
	}
	out := make([]domain.PermissionInfo, len(rows))
	for i, r := range rows {
		out[i] = domain.PermissionInfo{Name: r.Name, Description: r.Description}
	}
	return out, nil
}

// RolePermissions lists the permissions a role holds (none for a role
// that does not exist).
func (s *Store) RolePermissions(ctx context.Context, role string) ([]string, error) {
	perms, err := s.q(ctx).RolePermissions(ctx, role)
	if err != nil {
		return nil, translate(err)
	}
	if perms == nil {
		perms = []string{}
	}
	return perms, nil
}
