import { skipToken } from '@reduxjs/toolkit/query/react';
import { useState } from 'react';
import { describeLoadError, getErrorMessage } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import { type AuditChainCheck, describeChainCheck, useGetHealthQuery } from '@/lib/health-api';
import { notifyError } from '@/lib/notify';
import { downloadAuditCsv, type AuditFilters, useVerifyAuditChainMutation } from '../api';

/** One check of the chain: intact as a status, broken as an alert, with when it ran. */
function ChainCheck({ check }: { check: AuditChainCheck }) {
  const broken = check.checkedAt !== null && !check.ok;
  return (
    <p className={broken ? 'audit-chain__broken' : 'audit-chain__ok'} role={broken ? 'alert' : 'status'}>
      <span>{describeChainCheck(check)}</span>
      {check.checkedAt && (
        <>
          {' '}
          <span className="audit-chain__when">
            (checked <time dateTime={check.checkedAt}>{formatDateTime(check.checkedAt)}</time>)
          </span>
        </>
      )}
    </p>
  );
}

interface AuditToolsProps {
  filters: AuditFilters;
  /** The hash chain (S20) and its check: for readers of the whole log (audit:read-all). */
  checksChain: boolean;
  /** The chain's state as the health panel keeps it (system:monitor). */
  monitors: boolean;
}

/**
 * The tools above the audit log: the CSV export of what the filters keep
 * (the same entries as the list), and for readers of the whole log the
 * state of the hash chain (S20) with a check of all of it.
 */
export function AuditTools({ filters, checksChain, monitors }: AuditToolsProps) {
  const [exporting, setExporting] = useState(false);
  const health = useGetHealthQuery(checksChain && monitors ? undefined : skipToken);
  const [verify, verification] = useVerifyAuditChainMutation();
  const chain = health.data?.auditChain;
  const full = verification.data;

  async function exportCsv() {
    setExporting(true);
    try {
      await downloadAuditCsv(filters);
    } catch (error) {
      notifyError(getErrorMessage(error, 'The audit log could not be exported. Please try again.'));
    } finally {
      setExporting(false);
    }
  }

  return (
    <section className="audit-tools" aria-label="Audit log tools">
      <button type="button" className="btn btn--primary" onClick={() => void exportCsv()} disabled={exporting} aria-busy={exporting}>
        {exporting ? 'Exporting...' : 'Export CSV'}
      </button>
      {checksChain && (
        <div className="audit-chain">
          <h2 className="audit-chain__title">Audit chain</h2>
          {full ? (
            <ChainCheck check={full} />
          ) : chain ? (
            <ChainCheck check={chain} />
          ) : !monitors ? (
            <p>Not checked yet.</p>
          ) : (
            <p>{health.isError ? describeLoadError(health.error) : 'Checking...'}</p>
          )}
          {verification.isError && (
            <p className="form-error" role="alert">
              {describeLoadError(verification.error)}
            </p>
          )}
          <button type="button" className="btn btn--outline btn--small" onClick={() => void verify()} disabled={verification.isLoading}>
            {verification.isLoading ? 'Checking the whole chain...' : 'Check whole chain'}
          </button>
        </div>
      )}
    </section>
  );
}
