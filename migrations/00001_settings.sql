-- +goose Up
-- Application settings an admin can change at run time; shared by every
-- server instance through the database.
CREATE TABLE settings (
    key         text PRIMARY KEY CHECK (key ~ '^[a-z][a-z0-9_]*$'),
    value       jsonb NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now()
);

INSERT INTO settings (key, value) VALUES
    ('share_lifetime_default_hours', '24'),
    ('share_lifetime_max_hours', '168'),
    ('registration_open', 'true'),
    ('provider_approval_required', 'false'),
    ('analysis_provider', '"builtin"');

-- +goose Down
DROP TABLE settings;
