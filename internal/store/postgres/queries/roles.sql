-- name: ListRolesWithPermissions :many
SELECT r.name, array(SELECT rp.permission FROM role_permissions rp WHERE rp.role = r.name ORDER BY 1)::text[] AS permissions
FROM roles r ORDER BY r.name;

-- name: ListPermissions :many
SELECT name, description FROM permissions ORDER BY name;

-- name: RolePermissions :many
SELECT permission FROM role_permissions WHERE role = $1 ORDER BY 1;
