import { skipToken } from '@reduxjs/toolkit/query/react';
import { useEffect, useId, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useAppDispatch } from '@/app/hooks';
import { TextField } from '@/components/Field';
import { UserPicker, type UserPickerHandle } from '@/components/UserPicker';
import { UPLOADED_IMAGES } from '@/lib/api';
import { formatDate, nameLastFirst } from '@/lib/format';
import { notifyError, notifyInfo, notifySuccess } from '@/lib/notify';
import type { User } from '@/types/api';
import type { UploadLimits } from '@/types/images';
import { imagesApi, useGetUploadLimitsQuery, useUpdateImageMutation } from '../api';
import { storeInstance } from '../dicomweb';
import { formatBytes, PATIENT_PICKER_TEXTS, UPLOAD_TEXTS } from '../file-rules';
import { dicomDate, studyCounts } from '../media';
import type { FoundStudy, ReadResult } from '../study-files';
import { uploadStudies, type StudyToSend, type UploadOutcome } from '../study-upload';

/** The server's defaults, used while (or if) GET /api/upload/limits gives none. */
const DEFAULT_LIMITS: UploadLimits = {
  maxUploadBytes: 10 * 1024 * 1024,
  maxInstanceBytes: 50 * 1024 * 1024,
  maxStudyBytes: 2 * 1024 * 1024 * 1024,
};
const CAPTION_MAX = 500;

interface StudyChoice {
  include: boolean;
  caption: string;
  patient: User | null;
  errors: { caption?: string; patient?: string };
}

type Phase =
  | { step: 'choose' }
  | { step: 'reading'; read: number; total: number }
  | { step: 'ready'; found: ReadResult }
  | { step: 'uploading'; found: ReadResult; done: number; total: number }
  | { step: 'done'; found: ReadResult; outcome: UploadOutcome };

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** The words for what the files say about a study. */
function studyTitle(study: FoundStudy): string {
  return study.description || 'Study without a description';
}

function namesDiffer(inFiles: string, patient: User): boolean {
  const written = inFiles.toLowerCase();
  return ![patient.lastname, patient.firstname].every((part) => !part || written.includes(part.toLowerCase()));
}

interface FoundStudyProps {
  study: FoundStudy;
  choice: StudyChoice;
  limits: UploadLimits;
  disabled: boolean;
  onChange: (change: Partial<StudyChoice>) => void;
  pickerRef: (handle: UserPickerHandle | null) => void;
  captionId: string;
}

/** One study the files make up: what they say, and the provider's patient and caption for it. */
function FoundStudyPanel({ study, choice, limits, disabled, onChange, pickerRef, captionId }: FoundStudyProps) {
  const titleId = useId();
  const date = dicomDate(study.date);
  const tooLarge = study.instances.filter((instance) => instance.file.size > limits.maxInstanceBytes);
  const overStudyLimit = study.bytes > limits.maxStudyBytes;
  const title = studyTitle(study);

  return (
    <article className="study-found" aria-labelledby={titleId}>
      <h3 id={titleId} className="study-found__title">
        {title}
      </h3>
      <dl className="study-found__facts">
        <div>
          <dt>Patient in the files</dt>
          <dd>{study.patientName || 'Not given'}</dd>
        </div>
        <div>
          <dt>Date</dt>
          <dd>{date ? <time dateTime={date}>{formatDate(date)}</time> : 'N/A'}</dd>
        </div>
        <div>
          <dt>Modalities</dt>
          <dd>{study.modalities.join(', ') || 'N/A'}</dd>
        </div>
        <div>
          <dt>Contents</dt>
          <dd>{studyCounts(study.series.length, study.instances.length)}</dd>
        </div>
        <div>
          <dt>Size</dt>
          <dd>{formatBytes(study.bytes)}</dd>
        </div>
      </dl>
      <ul className="study-found__series" aria-label={`Series of ${title}`}>
        {study.series.map((series) => (
          <li key={series.seriesInstanceUid}>
            {[
              series.seriesNumber === null ? 'Series' : `Series ${series.seriesNumber}`,
              series.modality,
              series.description,
              plural(series.instances, 'instance'),
            ]
              .filter(Boolean)
              .join(' · ')}
          </li>
        ))}
      </ul>
      {tooLarge.length > 0 && (
        <div className="study-found__warning">
          <p>
            {`${plural(tooLarge.length, 'file is', 'files are')} over the ${formatBytes(limits.maxInstanceBytes)} limit for one instance and will not be sent:`}
          </p>
          <ul>
            {tooLarge.map((instance) => (
              <li key={instance.file.path}>{`${instance.file.path} (${formatBytes(instance.file.size)})`}</li>
            ))}
          </ul>
        </div>
      )}
      {overStudyLimit ? (
        <p className="study-found__warning">
          {`This study is ${formatBytes(study.bytes)}, over the ${formatBytes(limits.maxStudyBytes)} limit for one study; it cannot be uploaded.`}
        </p>
      ) : (
        <>
          <label className="study-found__include">
            <input
              type="checkbox"
              checked={choice.include}
              disabled={disabled}
              onChange={(event) => onChange({ include: event.target.checked, errors: {} })}
            />
            Upload this study
          </label>
          {choice.include && (
            <div className="study-found__choices">
              <TextField
                id={captionId}
                label="Caption"
                value={choice.caption}
                maxLength={CAPTION_MAX}
                autoComplete="off"
                hint="Prefilled with the study description."
                error={choice.errors.caption}
                disabled={disabled}
                onChange={(event) =>
                  onChange({
                    caption: event.target.value,
                    errors: { ...choice.errors, caption: event.target.value.trim() ? undefined : choice.errors.caption },
                  })
                }
              />
              <UserPicker
                ref={pickerRef}
                texts={PATIENT_PICKER_TEXTS}
                onlyRole="patient"
                selected={choice.patient}
                error={choice.errors.patient}
                disabled={disabled}
                onSelect={(patient) => onChange({ patient, errors: { ...choice.errors, patient: undefined } })}
              />
              {choice.patient && study.patientName && namesDiffer(study.patientName, choice.patient) && (
                <p className="study-found__warning" role="status">
                  {`The files name ${study.patientName}; you chose ${nameLastFirst(choice.patient)}. Check that this is the same person.`}
                </p>
              )}
            </div>
          )}
        </>
      )}
    </article>
  );
}

/** The summary of an upload: what was stored, what failed and why, what was not sent. */
function UploadSummary({
  found,
  outcome,
  choices,
  limits,
}: {
  found: ReadResult;
  outcome: UploadOutcome;
  choices: Record<string, StudyChoice>;
  limits: UploadLimits;
}) {
  return (
    <ul className="study-summary">
      {outcome.studies.map((result) => {
        const study = found.studies.find((one) => one.studyInstanceUid === result.studyInstanceUid);
        const choice = choices[result.studyInstanceUid];
        const tooLarge = study?.instances.filter((instance) => instance.file.size > limits.maxInstanceBytes) ?? [];
        const count = study?.instances.length ?? 0;
        return (
          <li key={result.studyInstanceUid}>
            <p>
              {`“${result.caption}” for ${nameLastFirst(choice?.patient) || 'the patient'}: ${result.stored} of ${plural(count, 'file')} stored.`}
            </p>
            {result.failed.length + tooLarge.length > 0 && (
              <ul className="study-summary__failures" aria-label={`Files of “${result.caption}” not stored`}>
                {result.failed.map((failure) => (
                  <li key={failure.path}>{`${failure.path}: ${failure.message}`}</li>
                ))}
                {tooLarge.map((instance) => (
                  <li key={instance.file.path}>{`${instance.file.path}: over the ${formatBytes(limits.maxInstanceBytes)} limit for one instance, not sent.`}</li>
                ))}
              </ul>
            )}
            {result.notSent > 0 && <p>{`${plural(result.notSent, 'file was', 'files were')} not sent: the upload was cancelled.`}</p>}
            {result.captionError && <p>{`The caption could not be set (${result.captionError}); the study keeps its description.`}</p>}
          </li>
        );
      })}
    </ul>
  );
}

/**
 * A whole DICOM study from many files, a folder or a ZIP (a patient's CD):
 * the files are read in the browser and grouped by study, then each study
 * is sent instance by instance over STOW-RS to the patient chosen for it.
 */
export function StudyUpload() {
  const dispatch = useAppDispatch();
  const sectionTitleId = useId();
  const filesId = useId();
  const folderId = useId();
  const captionIdBase = useId();
  const [phase, setPhase] = useState<Phase>({ step: 'choose' });
  const [inputKey, setInputKey] = useState(0);
  const [choices, setChoices] = useState<Record<string, StudyChoice>>({});
  const [readError, setReadError] = useState<string | null>(null);
  const limitsQuery = useGetUploadLimitsQuery(phase.step === 'choose' ? skipToken : undefined);
  const limits = limitsQuery.data ?? DEFAULT_LIMITS;
  const [updateImage] = useUpdateImageMutation();
  const controller = useRef<AbortController | null>(null);
  const pickers = useRef(new Map<string, UserPickerHandle>());
  const summaryRef = useRef<HTMLDivElement>(null);
  const foundRef = useRef<HTMLDivElement>(null);

  // Leaving the page stops an upload in flight.
  useEffect(() => () => controller.current?.abort(), []);

  useEffect(() => {
    if (phase.step === 'done') summaryRef.current?.focus();
    if (phase.step === 'ready') foundRef.current?.focus();
  }, [phase.step]);

  const busy = phase.step === 'reading' || phase.step === 'uploading';

  async function onChoose(event: ChangeEvent<HTMLInputElement>) {
    const files = Array.from(event.target.files ?? []);
    if (files.length === 0) return;
    setReadError(null);
    setPhase({ step: 'reading', read: 0, total: files.length });
    try {
      // The DICOM parser and the unzipper are loaded only now.
      const { readStudyFiles } = await import('../study-files');
      const found = await readStudyFiles(files, (read, total) => setPhase({ step: 'reading', read, total }));
      setChoices(
        Object.fromEntries(
          found.studies.map((study) => [
            study.studyInstanceUid,
            { include: study.bytes <= limits.maxStudyBytes, caption: study.description, patient: null, errors: {} },
          ]),
        ),
      );
      setPhase({ step: 'ready', found });
    } catch (failure) {
      console.error('Failed to read the study files', failure);
      setReadError('The files could not be read. Please choose them again.');
      setPhase({ step: 'choose' });
    }
  }

  function startOver() {
    setPhase({ step: 'choose' });
    setChoices({});
    setInputKey((key) => key + 1);
  }

  function change(uid: string, update: Partial<StudyChoice>) {
    setChoices((current) => ({ ...current, [uid]: { ...current[uid], ...update } }));
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (phase.step !== 'ready') return;
    const { found } = phase;
    const chosen = found.studies.filter((study) => choices[study.studyInstanceUid]?.include && study.bytes <= limits.maxStudyBytes);
    let firstInvalid: (() => void) | null = null;
    const checked = { ...choices };
    for (const study of chosen) {
      const uid = study.studyInstanceUid;
      const choice = choices[uid];
      const errors = {
        caption: choice.caption.trim() ? undefined : UPLOAD_TEXTS.noCaption,
        patient: choice.patient ? undefined : UPLOAD_TEXTS.noPatient,
      };
      checked[uid] = { ...choice, errors };
      if (!firstInvalid && errors.caption) {
        const id = `${captionIdBase}-${found.studies.indexOf(study)}`;
        firstInvalid = () => document.getElementById(id)?.focus();
      } else if (!firstInvalid && errors.patient) {
        firstInvalid = () => pickers.current.get(uid)?.focus();
      }
    }
    setChoices(checked);
    if (firstInvalid) {
      firstInvalid();
      return;
    }
    if (chosen.length === 0) {
      notifyError('Please choose at least one study to upload.');
      return;
    }

    const studies: StudyToSend[] = chosen.map((study) => {
      const choice = choices[study.studyInstanceUid];
      return {
        studyInstanceUid: study.studyInstanceUid,
        patientId: choice.patient?.id ?? '',
        caption: choice.caption.trim(),
        instances: study.instances
          .filter((instance) => instance.file.size <= limits.maxInstanceBytes)
          .map(({ file }) => ({ path: file.path, size: file.size, read: file.read })),
      };
    });
    const abort = new AbortController();
    controller.current = abort;
    setPhase({ step: 'uploading', found, done: 0, total: 1 });
    const outcome = await uploadStudies(studies, {
      send: storeInstance,
      setCaption: (id, caption) => updateImage({ id, caption }).unwrap(),
      signal: abort.signal,
      onProgress: (done, total) => setPhase({ step: 'uploading', found, done, total }),
    });
    controller.current = null;
    if (outcome.studies.some((study) => study.stored > 0)) {
      // Stored instances are on the server whatever happened next: the lists show them.
      dispatch(imagesApi.util.invalidateTags([UPLOADED_IMAGES, 'DashboardStats']));
    }
    const failed = outcome.studies.reduce((sum, study) => sum + study.failed.length, 0);
    if (outcome.cancelled) notifyInfo('Upload cancelled.');
    else if (failed > 0) notifyError(`${plural(failed, 'file')} could not be uploaded.`);
    else notifySuccess(chosen.length === 1 ? 'Study uploaded successfully!' : 'Studies uploaded successfully!');
    setPhase({ step: 'done', found, outcome });
  }

  const found = phase.step === 'ready' || phase.step === 'uploading' || phase.step === 'done' ? phase.found : null;
  const percent = phase.step === 'uploading' && phase.total > 0 ? Math.round((phase.done / phase.total) * 100) : 0;
  // Announced in steps, not at every percent.
  const spoken = percent >= 100 ? 100 : Math.floor(percent / 25) * 25;
  const included = found?.studies.filter((study) => choices[study.studyInstanceUid]?.include).length ?? 0;

  return (
    <section className="study-upload" aria-labelledby={sectionTitleId}>
      <h2 id={sectionTitleId} className="study-upload__title">
        Upload a whole DICOM study
      </h2>
      <p className="study-upload__note">
        Many DICOM files at once, a folder, or a ZIP of a patient’s CD (with its DICOMDIR). The files are read in your
        browser and grouped by study; each study becomes one item to share.
      </p>

      {phase.step === 'done' && (
        <div ref={summaryRef} className="form-note study-upload__done" role="status" tabIndex={-1}>
          <p className="study-upload__done-title">{phase.outcome.cancelled ? 'Upload cancelled.' : 'Upload finished.'}</p>
          <UploadSummary found={phase.found} outcome={phase.outcome} choices={choices} limits={limits} />
          <div className="upload-form__actions">
            <Link className="btn btn--primary btn--small" to="/view-images">
              See the studies in View Images
            </Link>
            <button type="button" className="btn btn--outline btn--small" onClick={startOver}>
              Upload more files
            </button>
          </div>
        </div>
      )}

      {(phase.step === 'choose' || phase.step === 'reading') && (
        <div className="study-upload__pickers">
          <div className="field">
            <label className="field__label" htmlFor={filesId}>
              DICOM files or a ZIP
            </label>
            <p className="field__hint" id={`${filesId}-hint`}>
              Choose several files at once (Ctrl or Shift), or one ZIP.
            </p>
            <input
              key={`files-${inputKey}`}
              id={filesId}
              className="field__control"
              type="file"
              multiple
              disabled={busy}
              aria-describedby={`${filesId}-hint`}
              onChange={(event) => void onChoose(event)}
            />
          </div>
          <div className="field">
            <label className="field__label" htmlFor={folderId}>
              A folder
            </label>
            <p className="field__hint" id={`${folderId}-hint`}>
              Every file inside it, subfolders included.
            </p>
            <input
              key={`folder-${inputKey}`}
              id={folderId}
              className="field__control"
              type="file"
              webkitdirectory=""
              multiple
              disabled={busy}
              aria-describedby={`${folderId}-hint`}
              onChange={(event) => void onChoose(event)}
            />
          </div>
          {readError && (
            <p className="field__error" role="alert">
              {readError}
            </p>
          )}
        </div>
      )}

      <p className="visually-hidden" aria-live="polite">
        {phase.step === 'reading' ? `Reading files: ${phase.read} of ${phase.total}` : ''}
      </p>
      {phase.step === 'reading' && (
        <p className="study-upload__reading" aria-hidden="true">{`Reading files: ${phase.read} of ${phase.total}…`}</p>
      )}

      {found && phase.step !== 'done' && (
        <form className="study-upload__form" noValidate onSubmit={(event) => void onSubmit(event)} aria-label="Upload DICOM studies">
          <div ref={foundRef} className="study-upload__found" tabIndex={-1}>
            <p className="study-upload__found-summary">
              {found.studies.length === 0
                ? 'No DICOM study was found in the files chosen.'
                : `Found ${plural(found.studies.length, 'study', 'studies')}: ${plural(
                    found.studies.reduce((sum, study) => sum + study.series.length, 0),
                    'series',
                    'series',
                  )}, ${plural(
                    found.studies.reduce((sum, study) => sum + study.instances.length, 0),
                    'instance',
                  )}.`}
            </p>
          </div>
          {found.studies.map((study, index) => (
            <FoundStudyPanel
              key={study.studyInstanceUid}
              study={study}
              choice={choices[study.studyInstanceUid]}
              limits={limits}
              disabled={phase.step === 'uploading'}
              captionId={`${captionIdBase}-${index}`}
              onChange={(update) => change(study.studyInstanceUid, update)}
              pickerRef={(handle) => {
                if (handle) pickers.current.set(study.studyInstanceUid, handle);
                else pickers.current.delete(study.studyInstanceUid);
              }}
            />
          ))}
          {found.skipped.length > 0 && (
            <div className="study-upload__skipped">
              <h3 className="study-upload__skipped-title">{`Skipped: ${plural(found.skipped.length, 'file')}`}</h3>
              <ul aria-label="Skipped files">
                {found.skipped.map((skipped) => (
                  <li key={skipped.path}>
                    <span className="study-upload__path">{skipped.path}</span>
                    {` — ${skipped.reason}`}
                  </li>
                ))}
              </ul>
            </div>
          )}

          {phase.step === 'uploading' && (
            <div className="upload-progress">
              <label className="upload-progress__label" htmlFor={`${sectionTitleId}-progress`}>
                Study upload progress
              </label>
              <progress id={`${sectionTitleId}-progress`} max={100} value={percent} aria-valuenow={percent}>
                {percent}%
              </progress>
              <p className="upload-progress__text" aria-hidden="true">
                {`${formatBytes(phase.done)} of ${formatBytes(phase.total)} sent (${percent}%)`}
              </p>
              <p className="visually-hidden" aria-live="polite">
                {spoken < 100 ? `Uploading, ${spoken}%` : 'Upload sent, finishing'}
              </p>
            </div>
          )}

          <div className="upload-form__actions">
            {found.studies.length > 0 && (
              <button type="submit" className="btn btn--primary btn--lg" disabled={phase.step === 'uploading' || included === 0}>
                {phase.step === 'uploading' ? 'Uploading...' : included > 1 ? `Upload ${included} studies` : 'Upload study'}
              </button>
            )}
            {phase.step === 'uploading' ? (
              <button type="button" className="btn btn--outline" onClick={() => controller.current?.abort()}>
                Cancel upload
              </button>
            ) : (
              <button type="button" className="btn btn--outline" onClick={startOver}>
                Choose other files
              </button>
            )}
          </div>
        </form>
      )}
    </section>
  );
}
