-- +goose Up
-- DICOM studies. A study (one StudyInstanceUID for one uploader and one
-- patient) is one images row, which lists, shares, audits and deletes like
-- any image; its contents are its instances, each stored encrypted under a
-- key of its own (S14). The images row's own blob is the study's first
-- instance, its representative for previews and analysis: that instance's
-- row has the image's id, blob key and key.
--
-- A DICOM file uploaded on its own stays an item of its own (a study of
-- one) with its own caption, even when its study is stored already; the
-- instances sent as a study (DICOMweb, the app's study upload) join their
-- study's row, which says so in study_joins.
--
-- A study sent over DICOMweb without a patient waits, unassigned (no
-- patient), in its uploader's list until they choose one.
ALTER TABLE images ALTER COLUMN patient_id DROP NOT NULL;
ALTER TABLE images ADD COLUMN study_uid text CHECK (study_uid ~ '^[0-9.]{1,64}$');
-- What the lists show of a study (description, date, modalities, counts,
-- bytes), kept current as instances join; no patient identifiers (S17).
ALTER TABLE images ADD COLUMN study jsonb;
-- What the files say of their patient and the study's date and accession
-- (DICOMweb answers and matches on them): sealed with the master key's
-- text key like a message's text, so the database holds no readable
-- patient identifiers.
ALTER TABLE images ADD COLUMN study_sealed bytea;
ALTER TABLE images ADD COLUMN study_joins boolean NOT NULL DEFAULT false;
ALTER TABLE images ADD CONSTRAINT images_study_joins CHECK (NOT study_joins OR study_uid IS NOT NULL);
ALTER TABLE images ADD CONSTRAINT images_study_dicom CHECK (study_uid IS NULL OR content_type = 'application/dicom');
ALTER TABLE images ADD CONSTRAINT images_patient_of_file CHECK (patient_id IS NOT NULL OR study_uid IS NOT NULL);

-- Instances of one study for one uploader and one patient (or none) join
-- one row.
CREATE UNIQUE INDEX images_study_key ON images (uploader_id, coalesce(patient_id, '00000000-0000-0000-0000-000000000000'), study_uid)
    WHERE study_joins;
-- DICOMweb finds a study by its UID among those a caller may see.
CREATE INDEX images_study_uid_idx ON images (study_uid) WHERE study_uid IS NOT NULL;
-- DICOMweb searches (postgres.SearchStudies): every study or an uploader's,
-- newest first or by study date, and by modality.
CREATE INDEX images_study_recent_idx ON images (created_at DESC, id) WHERE study_uid IS NOT NULL;
CREATE INDEX images_study_uploader_idx ON images (uploader_id, created_at DESC, id) WHERE study_uid IS NOT NULL;
CREATE INDEX images_study_date_idx ON images ((study->>'date') DESC, created_at DESC, id) WHERE study_uid IS NOT NULL;
CREATE INDEX images_study_uploader_date_idx ON images (uploader_id, (study->>'date') DESC, created_at DESC, id) WHERE study_uid IS NOT NULL;
-- A study's modalities, a row each, so a search by modality walks only the
-- studies that have it, newest first, however common or rare it is (a GIN
-- index on the JSON gives every match unordered, to be sorted: 2.4 s at
-- p99 for a modality half of 100,000 studies have).
CREATE TABLE study_modalities (
    image_id    uuid NOT NULL REFERENCES images (id) ON DELETE CASCADE,
    modality    text NOT NULL,
    uploader_id uuid NOT NULL,
    created_at  timestamptz NOT NULL,
    PRIMARY KEY (image_id, modality)
);
CREATE INDEX study_modalities_recent_idx ON study_modalities (modality, created_at DESC, image_id);
CREATE INDEX study_modalities_uploader_idx ON study_modalities (uploader_id, modality, created_at DESC, image_id);
-- The uploader's studies waiting for a patient.
CREATE INDEX images_unassigned_idx ON images (uploader_id, created_at DESC, id) WHERE patient_id IS NULL;

CREATE TABLE study_instances (
    id                 uuid PRIMARY KEY, -- what the instance's key and chunks are bound to
    image_id           uuid NOT NULL REFERENCES images (id) ON DELETE CASCADE,
    series_uid         text NOT NULL CHECK (series_uid ~ '^[0-9.]{1,64}$'),
    sop_uid            text NOT NULL CHECK (sop_uid ~ '^[0-9.]{1,64}$'),
    sop_class_uid      text NOT NULL,
    transfer_syntax    text NOT NULL,
    series_number      integer,
    instance_number    integer,
    modality           text NOT NULL,
    series_description text NOT NULL,
    body_part          text NOT NULL,
    -- The allow-listed facts of the instance (rows, columns, frames, ...).
    dicom              jsonb NOT NULL,
    -- Where its pixel data lies in the file (medimg.PixelSpan: offsets
    -- and lengths), for serving frames without reading the rest.
    pixel_spans        jsonb NOT NULL DEFAULT '[]',
    blob_key           text NOT NULL UNIQUE,
    wrapped_key        bytea NOT NULL,
    key_id             bytea NOT NULL,
    size               bigint NOT NULL CHECK (size >= 0),
    sha256             bytea NOT NULL,
    created_at         timestamptz NOT NULL DEFAULT now(),
    UNIQUE (image_id, sop_uid)
);
-- A study's series and their instances in order.
CREATE INDEX study_instances_series_idx ON study_instances (image_id, series_uid, instance_number, id);
-- Key rotation finds the instances still wrapped by an old key.
CREATE INDEX study_instances_key_idx ON study_instances (key_id, id);

-- Settings for studies: the size of one instance and of a whole study.
INSERT INTO settings (key, value) VALUES
    ('max_instance_megabytes', '50'),
    ('max_study_megabytes', '2048')
ON CONFLICT (key) DO NOTHING;

-- Counting an uploader's patients skips unassigned studies, and follows a
-- study to the patient chosen for it.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION count_images() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO image_counts AS c (uploader_id, images) VALUES (NEW.uploader_id, 1)
        ON CONFLICT (uploader_id) DO UPDATE SET images = c.images + 1;
    ELSIF TG_OP = 'DELETE' THEN
        UPDATE image_counts SET images = images - 1 WHERE uploader_id = OLD.uploader_id;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.patient_id IS NOT NULL THEN
        UPDATE uploader_patients SET images = images - 1 WHERE uploader_id = OLD.uploader_id AND patient_id = OLD.patient_id AND images > 1;
        IF NOT FOUND THEN
            DELETE FROM uploader_patients WHERE uploader_id = OLD.uploader_id AND patient_id = OLD.patient_id;
        END IF;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.patient_id IS NOT NULL THEN
        INSERT INTO uploader_patients AS p (uploader_id, patient_id, images) VALUES (NEW.uploader_id, NEW.patient_id, 1)
        ON CONFLICT (uploader_id, patient_id) DO UPDATE SET images = p.images + 1;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER images_count_patient AFTER UPDATE OF patient_id ON images
    FOR EACH ROW WHEN (OLD.patient_id IS DISTINCT FROM NEW.patient_id) EXECUTE FUNCTION count_images();

-- +goose Down
DROP TRIGGER images_count_patient ON images;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION count_images() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO image_counts AS c (uploader_id, images) VALUES (NEW.uploader_id, 1)
        ON CONFLICT (uploader_id) DO UPDATE SET images = c.images + 1;
        INSERT INTO uploader_patients AS p (uploader_id, patient_id, images) VALUES (NEW.uploader_id, NEW.patient_id, 1)
        ON CONFLICT (uploader_id, patient_id) DO UPDATE SET images = p.images + 1;
    ELSE
        UPDATE image_counts SET images = images - 1 WHERE uploader_id = OLD.uploader_id;
        UPDATE uploader_patients SET images = images - 1 WHERE uploader_id = OLD.uploader_id AND patient_id = OLD.patient_id AND images > 1;
        IF NOT FOUND THEN
            DELETE FROM uploader_patients WHERE uploader_id = OLD.uploader_id AND patient_id = OLD.patient_id;
        END IF;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
DELETE FROM settings WHERE key IN ('max_instance_megabytes', 'max_study_megabytes');
DROP TABLE study_instances;
DELETE FROM images WHERE patient_id IS NULL;
DROP INDEX images_unassigned_idx;
DROP TABLE study_modalities;
DROP INDEX images_study_uploader_date_idx;
DROP INDEX images_study_date_idx;
DROP INDEX images_study_uploader_idx;
DROP INDEX images_study_recent_idx;
DROP INDEX images_study_uid_idx;
DROP INDEX images_study_key;
ALTER TABLE images DROP CONSTRAINT images_patient_of_file;
ALTER TABLE images DROP CONSTRAINT images_study_dicom;
ALTER TABLE images DROP CONSTRAINT images_study_joins;
ALTER TABLE images DROP COLUMN study_joins;
ALTER TABLE images DROP COLUMN study_sealed;
ALTER TABLE images DROP COLUMN study;
ALTER TABLE images DROP COLUMN study_uid;
ALTER TABLE images ALTER COLUMN patient_id SET NOT NULL;
