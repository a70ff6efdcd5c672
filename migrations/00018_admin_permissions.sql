-- +goose Up
-- What only admins could do is decided by permissions too, like everything
-- else: the services ask for a permission or an ownership rule, never for a
-- role's name. images:share and images:delete now cover one's own uploads;
-- images:manage-all adds every other image.
INSERT INTO permissions (name, description) VALUES
    ('images:read-all', 'List every image, and open any image and its contents without verifying a share'),
    ('images:manage-all', 'Share, revoke and delete any image, not only your own uploads'),
    ('audit:read-all', 'Read, export and verify the whole audit log'),
    ('system:monitor', 'See the health panel, the activity, the whole system''s counts and the checks of stored files');

INSERT INTO role_permissions (role, permission) VALUES
    ('admin', 'images:read-all'),
    ('admin', 'images:manage-all'),
    ('admin', 'audit:read-all'),
    ('admin', 'system:monitor');

UPDATE permissions SET description = 'Share your own uploads' WHERE name = 'images:share';
UPDATE permissions SET description = 'Delete your own uploads' WHERE name = 'images:delete';
UPDATE permissions SET description = 'Approve, deactivate and delete users, change their roles, and see their full profiles'
    WHERE name = 'users:manage';
UPDATE permissions SET description = 'Read the audit log of your uploads and your own actions, or of the images about you'
    WHERE name = 'audit:read';

-- +goose Down
DELETE FROM permissions WHERE name IN ('images:read-all', 'images:manage-all', 'audit:read-all', 'system:monitor');
UPDATE permissions SET description = 'Share own uploads (admin: any image)' WHERE name = 'images:share';
UPDATE permissions SET description = 'Delete own uploads (admin: any image)' WHERE name = 'images:delete';
UPDATE permissions SET description = 'Approve, deactivate, delete users and change roles' WHERE name = 'users:manage';
UPDATE permissions SET description = 'Read the audit log (scoped by role)' WHERE name = 'audit:read';
