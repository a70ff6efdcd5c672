import { skipToken } from '@reduxjs/toolkit/query/react';
import { useState } from 'react';
import { describeLoadError, getErrorMessage } from '@/lib/api-client';
import { useGetHealthQuery } from '@/lib/health-api';
import { notifyError } from '@/lib/notify';
import { downloadAuditCsv, type AuditFilters, useVerifyAuditChainMutation } from '../api';

/** What the chain check says, in words. */
function chainText(ok: boolean, checked: number, firstBrokenId?: number | null): string {
  if (ok) return `Intact — ${checked.toLocaleString('en-PK')} entries checked`;
  return firstBrokenId ? `Broken at entry ${firstBrokenId}` : 'Broken';
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
            <p className={full.ok ? 'audit-chain__ok' : 'audit-chain__broken'} role={full.ok ? 'status' : 'alert'}>
              {chainText(full.ok, full.checked, full.firstBrokenId)}
            </p>
          ) : chain ? (
            <p className={chain.ok ? 'audit-chain__ok' : 'audit-chain__broken'} role={chain.ok ? 'status' : 'alert'}>
              {chainText(chain.ok, chain.checked)}
            </p>
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
