import { useState } from 'react';
import { useAppDispatch, useAppSelector } from '@/app/hooks';
import { selectUser, updateUser } from '@/lib/session';
import type { MfaState } from '@/types/api';
import { AuthenticatorPanel } from './AuthenticatorPanel';
import { PasskeysPanel } from './PasskeysPanel';
import { RecoveryCodesPanel } from './RecoveryCodesPanel';

const NO_FACTORS: MfaState = { totp: false, passkeys: 0, required: false };

/**
 * Security on /profile: the second factors (an authenticator app, passkeys)
 * and the recovery codes, shown once when made. The session's user keeps
 * `mfa` up to date, which lifts an enrolment-only session at once.
 */
export function SecuritySection() {
  const dispatch = useAppDispatch();
  const mfa = useAppSelector(selectUser)?.mfa ?? NO_FACTORS;
  const [codes, setCodes] = useState<string[] | null>(null);
  const setMfa = (change: Partial<MfaState>) => dispatch(updateUser({ mfa: { ...mfa, ...change } }));

  return (
    <section className="profile-section profile-section--wide security" aria-labelledby="security-title">
      <h2 id="security-title" className="profile-section__title">
        Security
      </h2>
      <p className="access-tokens__intro">
        A second factor keeps your account safe even if someone learns your password: signing in also asks for a code from
        your authenticator app or for a passkey.
        {mfa.required && ' Your role requires one.'}
      </p>

      {codes && <RecoveryCodesPanel codes={codes} onDone={() => setCodes(null)} />}

      <div className="security__factors">
        <AuthenticatorPanel
          on={mfa.totp}
          onEnabled={(recoveryCodes) => {
            setCodes(recoveryCodes);
            setMfa({ totp: true });
          }}
          onDisabled={() => setMfa({ totp: false })}
          onNewCodes={setCodes}
        />
        <PasskeysPanel onCount={(passkeys) => setMfa({ passkeys })} onRecoveryCodes={setCodes} />
      </div>
    </section>
  );
}
