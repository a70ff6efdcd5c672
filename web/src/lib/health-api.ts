import type { ApiResponse } from '@/types/api';
import { baseApi } from './api';

/** A check of the audit log's hash chain (`AuditChainCheck`): GET /api/audit/verify, and the latest on the health panel. */
export interface AuditChainCheck {
  ok: boolean;
  checked: number;
  /** When the check ended; null before the first check. */
  checkedAt: string | null;
  firstBrokenId: number | null;
  problem: string | null;
}

/** What a check of the chain says, in words. */
export function describeChainCheck(check: AuditChainCheck): string {
  if (check.checkedAt === null) return 'Not checked yet';
  if (check.ok) return `Intact — ${check.checked.toLocaleString('en-PK')} entries checked`;
  const where = check.firstBrokenId ? `Broken at entry ${check.firstBrokenId}` : 'Broken';
  return check.problem ? `${where}: ${check.problem}` : where;
}

/** `data` of GET /api/admin/health (admins). */
export interface Health {
  version: string;
  startedAt: string;
  database: { ok: boolean; latencyMs: number };
  storage: { ok: boolean; kind: string };
  mail: { ok: boolean; kind: string; queued: number };
  auditChain: AuditChainCheck;
}

// Shared: the admin dashboard's health panel and the audit screen's chain state read it.
export const healthApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    getHealth: build.query<Health, void>({
      query: () => ({ url: '/admin/health' }),
      transformResponse: (body: ApiResponse<Health>) => body.data,
    }),
  }),
});

export const { useGetHealthQuery } = healthApi;
