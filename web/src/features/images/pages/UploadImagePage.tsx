import { lazy, Suspense, useEffect, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { Spinner } from '@/components/Spinner';
import { Link } from 'react-router';
import { useAppSelector } from '@/app/hooks';
import { TextField } from '@/components/Field';
import { UserPicker, type UserPickerHandle } from '@/components/UserPicker';
import { can } from '@/lib/access';
import { isCancelled } from '@/lib/api';
import { errorBody, errorStatus, getErrorMessages } from '@/lib/api-client';
import { nameLastFirst } from '@/lib/format';
import { notifyErrors, notifyInfo, notifySuccess } from '@/lib/notify';
import { selectUser } from '@/lib/session';
import type { User } from '@/types/api';
import { useUploadImageMutation } from '../api';
import { ACCEPT, fileProblem, formatBytes, kindOf, PATIENT_PICKER_TEXTS, UPLOAD_TEXTS, type FileKind } from '../file-rules';
import '@/components/forms.css';
import '../images.css';

// Loaded with the page's study part, so the first load stays within its budget.
const StudyUpload = lazy(() => import('../components/StudyUpload').then((m) => ({ default: m.StudyUpload })));

const KIND_LABELS: Record<FileKind, string> = { jpeg: 'JPEG image', png: 'PNG image', pdf: 'PDF document', dicom: 'DICOM file' };
const CAPTION_MAX = 500;
const FILE_ID = 'upload-file';
const CAPTION_ID = 'upload-caption';

interface Errors {
  file?: string;
  caption?: string;
  patient?: string;
}

interface Chosen {
  file: File;
  /** null while the type is being checked, then the kind or 'invalid'. */
  kind: FileKind | 'invalid' | null;
}

interface Uploaded {
  caption: string;
  patient: string;
}

/** A local preview of a JPEG or PNG: an object URL, revoked when the file changes. */
function LocalPreview({ file, alt }: { file: File; alt: string }) {
  const ref = useRef<HTMLImageElement>(null);
  useEffect(() => {
    const url = URL.createObjectURL(file);
    if (ref.current) ref.current.src = url;
    return () => URL.revokeObjectURL(url);
  }, [file]);
  return <img ref={ref} className="upload-preview__image" alt={alt} />;
}

/** Field errors of a failed upload, by form field (api.md: 413, 415, 422). */
function inlineErrors(error: unknown): Errors {
  const status = errorStatus(error);
  const body = errorBody(error) ?? {};
  const errors: Errors = {};
  if ((status === 413 || status === 415) && body.message) errors.file = body.message;
  for (const item of Array.isArray(body.errors) ? body.errors : []) {
    if (!item?.message) continue;
    if (item.field === 'file') errors.file = item.message;
    else if (item.field === 'caption') errors.caption = item.message;
    else if (item.field === 'patientId') errors.patient = item.message;
  }
  return errors;
}

/** /upload (product.md §2): a file, a caption and one target patient. */
export function UploadImagePage() {
  const user = useAppSelector(selectUser);
  const [chosen, setChosen] = useState<Chosen | null>(null);
  const [fileKey, setFileKey] = useState(0);
  const [caption, setCaption] = useState('');
  const [patient, setPatient] = useState<User | null>(null);
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);
  const [progress, setProgress] = useState(0);
  const [uploaded, setUploaded] = useState<Uploaded | null>(null);
  const [uploadImage] = useUploadImageMutation();
  const inFlight = useRef<{ abort: () => void } | null>(null);
  const doneRef = useRef<HTMLDivElement>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const pickerRef = useRef<UserPickerHandle>(null);

  // Leaving the page stops an upload in flight.
  useEffect(() => () => inFlight.current?.abort(), []);

  useEffect(() => {
    if (uploaded) doneRef.current?.focus();
  }, [uploaded]);

  if (!can(user, 'images:upload')) {
    return (
      <div className="upload-page">
        <title>Upload Medical Image · MediShare</title>
        <h1 className="page-title">Upload Medical Image</h1>
        <p className="form-note">
          Images are uploaded by your health provider. The images shared with you are in{' '}
          <Link to="/view-images">View Images</Link>.
        </p>
      </div>
    );
  }

  async function onFileChange(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0] ?? null;
    setUploaded(null);
    if (!file) {
      setChosen(null);
      return;
    }
    setChosen({ file, kind: null });
    setErrors((current) => ({ ...current, file: undefined }));
    const kind = await kindOf(file);
    setChosen((current) => (current?.file === file ? { file, kind: kind ?? 'invalid' } : current));
    const problem = fileProblem(file, kind);
    setErrors((current) => ({ ...current, file: problem ?? undefined }));
  }

  function focusFirstInvalid(found: Errors) {
    const form = formRef.current;
    if (!form) return;
    if (found.file) form.querySelector<HTMLElement>(`#${FILE_ID}`)?.focus();
    else if (found.caption) form.querySelector<HTMLElement>(`#${CAPTION_ID}`)?.focus();
    else if (found.patient) pickerRef.current?.focus();
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    setUploaded(null);
    const file = chosen?.file ?? null;
    const kind = file ? await kindOf(file) : null;
    const found: Errors = {
      file: fileProblem(file, kind) ?? undefined,
      caption: caption.trim() ? undefined : UPLOAD_TEXTS.noCaption,
      patient: patient ? undefined : UPLOAD_TEXTS.noPatient,
    };
    setErrors(found);
    if (found.file || found.caption || found.patient || !file || !patient) {
      focusFirstInvalid(found);
      return;
    }

    setBusy(true);
    setProgress(0);
    const request = uploadImage({ caption: caption.trim(), patientId: patient.id, file, onProgress: setProgress });
    inFlight.current = request;
    try {
      await request.unwrap();
      notifySuccess('Image uploaded successfully!');
      setUploaded({ caption: caption.trim(), patient: nameLastFirst(patient) });
      // A provider often uploads several files in a row: start again, on this page.
      setChosen(null);
      setFileKey((key) => key + 1);
      setCaption('');
      setPatient(null);
      setErrors({});
    } catch (error) {
      if (isCancelled(error)) {
        notifyInfo('Upload cancelled.');
      } else {
        notifyErrors(getErrorMessages(error, 'Something went wrong while uploading.'));
        setErrors(inlineErrors(error));
      }
    } finally {
      inFlight.current = null;
      setBusy(false);
    }
  }

  const file = chosen?.file ?? null;
  const previewable = chosen?.kind === 'jpeg' || chosen?.kind === 'png';
  const kindText = chosen?.kind && chosen.kind !== 'invalid' ? KIND_LABELS[chosen.kind] : null;
  // Announced in steps, not at every percent.
  const spokenProgress = progress >= 100 ? 100 : Math.floor(progress / 25) * 25;

  return (
    <div className="upload-page">
      <title>Upload Medical Image · MediShare</title>
      <h1 className="page-title">Upload Medical Image</h1>

      {uploaded && (
        <div ref={doneRef} className="form-note upload-done" role="status" tabIndex={-1}>
          <p>
            “{uploaded.caption}” was uploaded for {uploaded.patient}.{' '}
            <Link to="/view-images">See it in View Images</Link>, or upload another file below.
          </p>
        </div>
      )}

      <form ref={formRef} className="upload-form" noValidate onSubmit={onSubmit} aria-label="Upload Medical Image">
        <div className="upload-form__file">
          <TextField
            key={fileKey}
            id={FILE_ID}
            label="Medical image file"
            type="file"
            name="file"
            accept={ACCEPT}
            hint="JPEG, PNG, PDF or DICOM (.dcm, .dicom), up to 10 MB."
            error={errors.file}
            disabled={busy}
            onChange={(event) => void onFileChange(event)}
          />
          {file && (
            <p className="upload-form__file-facts">
              <span className="upload-form__file-name">{file.name}</span>
              <span>{[kindText, formatBytes(file.size)].filter(Boolean).join(' · ')}</span>
            </p>
          )}
          {file && previewable && !errors.file && (
            <figure className="upload-preview">
              <LocalPreview file={file} alt={`Preview of ${file.name}`} />
              <figcaption className="visually-hidden">Preview of the chosen image</figcaption>
            </figure>
          )}
          {file && chosen?.kind === 'pdf' && !errors.file && (
            <p className="upload-form__no-preview">PDF documents are shown after the upload.</p>
          )}
          {file && chosen?.kind === 'dicom' && !errors.file && (
            <p className="upload-form__no-preview">The server renders a preview of DICOM files after the upload.</p>
          )}
        </div>

        <div className="upload-form__details">
          <TextField
            id={CAPTION_ID}
            label="Caption"
            name="caption"
            value={caption}
            maxLength={CAPTION_MAX}
            autoComplete="off"
            placeholder="e.g. Chest X-ray, PA view"
            error={errors.caption}
            disabled={busy}
            onChange={(event) => {
              setCaption(event.target.value);
              if (errors.caption && event.target.value.trim()) setErrors((current) => ({ ...current, caption: undefined }));
            }}
          />

          <UserPicker
            ref={pickerRef}
            texts={PATIENT_PICKER_TEXTS}
            onlyRole="patient"
            enabled={file !== null}
            selected={patient}
            error={errors.patient}
            disabled={busy}
            onSelect={(picked) => {
              setPatient(picked);
              setErrors((current) => ({ ...current, patient: undefined }));
            }}
          />

          {busy && (
            <div className="upload-progress">
              <label className="upload-progress__label" htmlFor="upload-progress">
                Upload progress
              </label>
              <progress id="upload-progress" max={100} value={progress} aria-valuenow={progress}>
                {progress}%
              </progress>
              <p className="upload-progress__text" aria-hidden="true">
                {progress < 100 ? `${progress}% sent` : 'Sent; the server is checking the file…'}
              </p>
              <p className="visually-hidden" aria-live="polite">
                {spokenProgress < 100 ? `Uploading, ${spokenProgress}%` : 'Upload sent, processing'}
              </p>
            </div>
          )}

          <div className="upload-form__actions">
            <button type="submit" className="btn btn--primary btn--lg" disabled={busy}>
              {busy ? 'Uploading...' : 'Upload Image'}
            </button>
            {busy && (
              <button type="button" className="btn btn--outline" onClick={() => inFlight.current?.abort()}>
                Cancel upload
              </button>
            )}
          </div>
        </div>
      </form>

      <Suspense fallback={<Spinner label="Loading the study upload…" />}>
        <StudyUpload />
      </Suspense>
    </div>
  );
}
