import { useEffect, useRef } from 'react';
import { notifyError, notifySuccess } from '@/lib/notify';

interface RecoveryCodesPanelProps {
  codes: string[];
  onDone: () => void;
}

const FILE_NAME = 'medishare-recovery-codes.txt';

function fileText(codes: string[]): string {
  return [
    'MediShare recovery codes',
    '',
    'Each code signs you in once when you cannot use your authenticator app or passkey.',
    'Keep them somewhere safe. A new set replaces these.',
    '',
    ...codes,
    '',
  ].join('\n');
}

/**
 * The ten recovery codes, shown this once: a .txt download, a Copy button and
 * Done, which hides them for good.
 */
export function RecoveryCodesPanel({ codes, onDone }: RecoveryCodesPanelProps) {
  const title = useRef<HTMLHeadingElement>(null);
  const text = fileText(codes);

  useEffect(() => {
    title.current?.focus();
  }, [codes]);

  async function copy() {
    try {
      await navigator.clipboard.writeText(codes.join('\n'));
      notifySuccess('Recovery codes copied.');
    } catch {
      notifyError('The codes could not be copied. Please download them or write them down.');
    }
  }

  return (
    <div className="security__codes" aria-labelledby="recovery-codes-title" role="group">
      <h3 id="recovery-codes-title" className="access-tokens__subtitle" ref={title} tabIndex={-1}>
        Your recovery codes
      </h3>
      <p className="access-tokens__warning" id="recovery-codes-warning">
        Save these codes now. Each works once, when you cannot use your authenticator app or passkey. You will not be able to
        see them again.
      </p>
      <ol className="security__code-list" aria-describedby="recovery-codes-warning">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <div className="security__actions">
        <a className="btn btn--primary" href={`data:text/plain;charset=utf-8,${encodeURIComponent(text)}`} download={FILE_NAME}>
          Download
        </a>
        <button type="button" className="btn btn--outline" onClick={() => void copy()}>
          Copy
        </button>
        <button type="button" className="btn btn--outline" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}
