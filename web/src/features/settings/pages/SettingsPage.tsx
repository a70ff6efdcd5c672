import { useState, type FormEvent } from 'react';
import { SelectField, TextField } from '@/components/Field';
import { Spinner } from '@/components/Spinner';
import { describeLoadError, fieldErrorMap, getErrorMessage } from '@/lib/api-client';
import { roleLabel } from '@/lib/format';
import { notifyError, notifySuccess } from '@/lib/notify';
import { type Settings, type SettingsData, useGetSettingsQuery, useListRoleNamesQuery, useSaveSettingsMutation } from '../api';
import '@/components/forms.css';
import '../settings.css';

/** The longest a share can last: thirty days (api.md). */
const MAX_HOURS = 720;

/** The bounds of the studies' size settings (api.md "Studies"). */
const MAX_INSTANCE_MB = 1024;
const MAX_STUDY_MB = 102400;

const PROVIDER_LABELS: Record<string, string> = {
  builtin: 'Built-in (no data leaves the server)',
  openai: 'OpenAI-compatible vision model (images leave the server)',
};

/** /appsettings (admins): the settings, saved all together. */
export function SettingsPage() {
  const { data, error, isError, isLoading } = useGetSettingsQuery();
  return (
    <div className="settings-page">
      <title>Settings · MediShare</title>
      <h1 className="page-title">Settings</h1>
      {isLoading && <Spinner label="Loading the settings…" />}
      {isError && !data && (
        <p className="form-error" role="alert">
          {describeLoadError(error)}
        </p>
      )}
      {/* Keyed by the stored values, so the form starts again from what was saved. */}
      {data && <SettingsForm key={JSON.stringify(data)} saved={data} />}
    </div>
  );
}

/** The form holds numbers as typed, so a field can be empty while edited. */
interface Draft {
  shareLifetimeDefaultHours: string;
  shareLifetimeMaxHours: string;
  registrationOpen: boolean;
  providerApprovalRequired: boolean;
  analysisProvider: string;
  analysisSendUnscreened: boolean;
  maxInstanceMegabytes: string;
  maxStudyMegabytes: string;
  mfaRequiredRoles: string[];
}

function SettingsForm({ saved }: { saved: SettingsData }) {
  const [draft, setDraft] = useState<Draft>({
    shareLifetimeDefaultHours: String(saved.shareLifetimeDefaultHours),
    shareLifetimeMaxHours: String(saved.shareLifetimeMaxHours),
    registrationOpen: saved.registrationOpen,
    providerApprovalRequired: saved.providerApprovalRequired,
    analysisProvider: saved.analysisProvider,
    analysisSendUnscreened: saved.analysisSendUnscreened,
    maxInstanceMegabytes: String(saved.maxInstanceMegabytes),
    maxStudyMegabytes: String(saved.maxStudyMegabytes),
    mfaRequiredRoles: saved.mfaRequiredRoles ?? [],
  });
  const { data: roleNames } = useListRoleNamesQuery();
  // A role kept in the setting shows even if the roles list lacks it.
  const roles = [...new Set([...(roleNames ?? []), ...draft.mfaRequiredRoles])];
  const toggleRole = (role: string, on: boolean) =>
    setDraft((current) => ({
      ...current,
      mfaRequiredRoles: on
        ? [...current.mfaRequiredRoles.filter((name) => name !== role), role]
        : current.mfaRequiredRoles.filter((name) => name !== role),
    }));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [save, { isLoading: saving }] = useSaveSettingsMutation();
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((current) => ({ ...current, [key]: value }));

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    const settings: Settings = {
      ...draft,
      shareLifetimeDefaultHours: Number(draft.shareLifetimeDefaultHours),
      shareLifetimeMaxHours: Number(draft.shareLifetimeMaxHours),
      maxInstanceMegabytes: Number(draft.maxInstanceMegabytes),
      maxStudyMegabytes: Number(draft.maxStudyMegabytes),
    };
    setErrors({});
    try {
      const result = await save(settings).unwrap();
      notifySuccess(result.message || 'Settings saved.');
    } catch (failure) {
      setErrors(fieldErrorMap(failure));
      notifyError(getErrorMessage(failure, 'The settings could not be saved. Please try again.'));
    }
  }

  return (
    <form className="card settings-form" onSubmit={(event) => void onSubmit(event)} noValidate aria-busy={saving}>
      <fieldset>
        <legend>Sharing</legend>
        <HoursField
          id="share-default"
          label="Default share lifetime (hours)"
          hint={`How long a share lasts when the sharer does not choose: 1 to ${MAX_HOURS} hours, at most the maximum.`}
          value={draft.shareLifetimeDefaultHours}
          error={errors.shareLifetimeDefaultHours}
          onChange={(value) => set('shareLifetimeDefaultHours', value)}
        />
        <HoursField
          id="share-max"
          label="Maximum share lifetime (hours)"
          hint={`The longest a sharer may choose: 1 to ${MAX_HOURS} hours (30 days).`}
          value={draft.shareLifetimeMaxHours}
          error={errors.shareLifetimeMaxHours}
          onChange={(value) => set('shareLifetimeMaxHours', value)}
        />
      </fieldset>
      <fieldset>
        <legend>Studies</legend>
        <TextField
          id="max-instance"
          label="Largest DICOM instance of a study (MB)"
          hint={`10 to ${MAX_INSTANCE_MB} MB. A single upload keeps its 10 MB limit; an instance of a study may be larger, as uncompressed radiographs are.`}
          type="number"
          inputMode="numeric"
          min={10}
          max={MAX_INSTANCE_MB}
          step={1}
          required
          value={draft.maxInstanceMegabytes}
          error={errors.maxInstanceMegabytes}
          onChange={(event) => set('maxInstanceMegabytes', event.target.value)}
        />
        <TextField
          id="max-study"
          label="Largest study (MB)"
          hint={`All of a study's instances together: at least the instance limit, at most ${MAX_STUDY_MB} MB.`}
          type="number"
          inputMode="numeric"
          min={10}
          max={MAX_STUDY_MB}
          step={1}
          required
          value={draft.maxStudyMegabytes}
          error={errors.maxStudyMegabytes}
          onChange={(event) => set('maxStudyMegabytes', event.target.value)}
        />
      </fieldset>
      <fieldset>
        <legend>Accounts</legend>
        <label className="settings-check">
          <input type="checkbox" checked={draft.registrationOpen} onChange={(event) => set('registrationOpen', event.target.checked)} />
          Registration open
        </label>
        <p className="field__hint">When closed, nobody can create an account from the registration page.</p>
        <label className="settings-check">
          <input
            type="checkbox"
            checked={draft.providerApprovalRequired}
            onChange={(event) => set('providerApprovalRequired', event.target.checked)}
          />
          New providers need an administrator&apos;s approval
        </label>
        <p className="field__hint">
          A provider who registers while this is on can confirm the account but cannot sign in until an administrator approves
          it in the user table of the dashboard.
        </p>
      </fieldset>
      <fieldset aria-describedby="mfa-roles-hint">
        <legend>Require a second factor for</legend>
        <p className="field__hint" id="mfa-roles-hint">
          People of these roles must set up an authenticator app or a passkey: until they do, signing in only lets them set one
          up on their profile.
        </p>
        {roles.map((role) => (
          <label key={role} className="settings-check">
            <input
              type="checkbox"
              checked={draft.mfaRequiredRoles.includes(role)}
              onChange={(event) => toggleRole(role, event.target.checked)}
            />
            {roleLabel(role)}
          </label>
        ))}
        {errors.mfaRequiredRoles && <p className="field__error">{errors.mfaRequiredRoles}</p>}
      </fieldset>
      <fieldset>
        <legend>AI analysis</legend>
        <SelectField
          id="analysis-provider"
          label="Analysis provider"
          hint="The built-in analyser measures image quality on this server and never diagnoses. An external model receives de-identified pixels at the configured address: a data-processing agreement (a BAA in the US) must be in place first."
          value={draft.analysisProvider}
          error={errors.analysisProvider}
          onChange={(event) => set('analysisProvider', event.target.value)}
        >
          {saved.analysisProviders.map((name) => (
            <option key={name} value={name}>
              {PROVIDER_LABELS[name] ?? name}
            </option>
          ))}
        </SelectField>
        {saved.analysisSendsTo?.[draft.analysisProvider] && (
          <p className="settings-warning" role="alert">
            With this provider, de-identified images leave this server for {saved.analysisSendsTo[draft.analysisProvider]}. A
            data-processing agreement (a BAA in the US) with whoever runs it must be in place before you choose it.
          </p>
        )}
        <label className="settings-check">
          <input
            type="checkbox"
            checked={draft.analysisSendUnscreened}
            aria-describedby="analysis-send-unscreened-hint"
            onChange={(event) => set('analysisSendUnscreened', event.target.checked)}
          />
          Also send images that cannot be screened
        </label>
        <p className="field__hint" id="analysis-send-unscreened-hint">
          Off, an external model receives only DICOM images whose pixels carry no text as a rule (CT, MR, X-ray, mammography,
          PET, nuclear medicine, fluoroscopy, angiography); photographs, ultrasound and the rest get the built-in analysis.
          On, those leave the server too, and their pixels may show a patient&apos;s name, a date or a face. Images whose
          header says they carry text never leave.
        </p>
      </fieldset>
      <div className="settings-form__actions">
        <button type="submit" className="btn btn--primary" disabled={saving}>
          {saving ? 'Saving...' : 'Save settings'}
        </button>
      </div>
    </form>
  );
}

interface HoursFieldProps {
  id: string;
  label: string;
  hint: string;
  value: string;
  error?: string;
  onChange: (value: string) => void;
}

/** A whole number of hours, 1 to MAX_HOURS. */
function HoursField({ onChange, ...field }: HoursFieldProps) {
  return (
    <TextField
      {...field}
      type="number"
      inputMode="numeric"
      min={1}
      max={MAX_HOURS}
      step={1}
      required
      onChange={(event) => onChange(event.target.value)}
    />
  );
}
