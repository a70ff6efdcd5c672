-- +goose Up
-- Medical files. Contents live in the blob store, encrypted under a per-file
-- key that is stored here only wrapped by the master key (S14).
CREATE TABLE images (
    id           uuid PRIMARY KEY,
    uploader_id  uuid NOT NULL REFERENCES users (id),
    patient_id   uuid NOT NULL REFERENCES users (id),
    caption      text NOT NULL CHECK (length(caption) BETWEEN 1 AND 500),
    content_type text NOT NULL CHECK (content_type IN ('image/jpeg', 'image/png', 'application/pdf', 'application/dicom')),
    file_name    text NOT NULL,
    size         bigint NOT NULL CHECK (size >= 0),
    sha256       bytea NOT NULL,
    blob_key     text NOT NULL UNIQUE,
    wrapped_key  bytea NOT NULL,
    key_id       bytea NOT NULL,
    width        integer NOT NULL DEFAULT 0,
    height       integer NOT NULL DEFAULT 0,
    -- Allow-listed DICOM header fields only (modality, body part, study
    -- description, rows, columns, frames); never patient identifiers (S17).
    dicom        jsonb,
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX images_uploader_idx ON images (uploader_id, created_at DESC, id);
CREATE INDEX images_patient_idx ON images (patient_id, created_at DESC, id);
CREATE INDEX images_created_idx ON images (created_at DESC, id);

-- +goose Down
DROP TABLE images;
