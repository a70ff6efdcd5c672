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
