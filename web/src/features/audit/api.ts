import { api as httpClient } from '@/lib/api-client';
import { baseApi } from '@/lib/api';
import type { AuditChainCheck } from '@/lib/health-api';
import type { ApiResponse, PagedResponse } from '@/types/api';

/** An entry of GET /api/audit/logs (api.md "Audit log"). */
export interface AuditEntry {
  id: number;
  createAt: string;
  user: { firstname: string; lastname: string; username: string } | null;
  actiontype: string;
  tablename: string;
  recordId: string;
  ipaddress: string;
  userAgent: string;
  status: 'success' | 'failure';
  reason: string;
}

/** The filters of the audit log; empty ones are not sent. */
export interface AuditFilters {
  search?: string;
  action?: string;
  status?: string;
  from?: string;
  to?: string;
  /** Entries about one image or a share of it ("Who has seen this"). */
  imageId?: string;
  /** 'images': entries about any image (a patient's access history). */
  about?: 'images';
}

export interface AuditQuery extends AuditFilters {
  page: number;
  limit: number;
}


function paramsOf(query: AuditFilters & Partial<AuditQuery>): Record<string, string | number> {
  const params: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== '') params[key] = value;
  }
  return params;
}

export const auditApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    listAudit: build.query<PagedResponse<AuditEntry>, AuditQuery>({
      query: (query) => ({ url: '/audit/logs', params: paramsOf(query) }),
    }),

    /** Recomputes the whole chain: seconds at a million entries, so only on demand. */
    verifyAuditChain: build.mutation<AuditChainCheck, void>({
      query: () => ({ url: '/audit/verify' }),
      transformResponse: (body: ApiResponse<AuditChainCheck>) => body.data,
    }),
  }),
});

export const { useListAuditQuery, useVerifyAuditChainMutation } = auditApi;

/**
 * Downloads the CSV export with the current filters. It needs the bearer
 * token, so it goes through the app's HTTP client (not a plain link) and is
 * handed to the browser as a file; the data layer's cache has no use for it.
 */
export async function downloadAuditCsv(filters: AuditFilters): Promise<void> {
  const response = await httpClient.get<Blob>('/audit/logs/export', { params: paramsOf(filters), responseType: 'blob' });
  const url = URL.createObjectURL(response.data);
  const link = document.createElement('a');
  link.href = url;
  link.download = 'audit-log.csv';
  document.body.append(link);
  link.click();
  link.remove();
  URL.revokeObjectURL(url);
}

/** How the screens name each action the log records. */
export const ACTION_LABELS: Record<string, string> = {
  login: 'Signed in',
  logout: 'Signed out',
  register: 'Registered',
  account_confirm: 'Confirmed the account',
  code_request: 'Asked for a code',
  refresh_reuse: 'Reused a sign-in token',
  password_reset: 'Reset the password',
  password_change: 'Changed the password',
  profile_update: 'Updated the profile',
  account_delete: 'Deleted the account',
  user_create: 'Created a user',
  user_update: 'Changed a user',
  user_approve: 'Approved a provider',
  upload: 'Uploaded',
  view: 'Viewed',
  preview: 'Previewed',
  delete: 'Deleted',
  share: 'Shared',
  share_verify: 'Verified the share',
  share_void: 'Share voided',
  share_revoke: 'Revoked the share',
  share_extend: 'Extended the share',
  share_expired: 'Share expired',
  access_denied: 'Was refused access',
  throttled: 'Was slowed down',
  integrity_failure: 'Damage found',
  message_send: 'Sent a message',
  audit_export: 'Exported the audit log',
  settings_update: 'Changed settings',
  analyze: 'Analysed',
  disclose: 'Sent to an outside AI service',
  image_update: 'Changed an image',
  token_create: 'Created an access token',
  token_revoke: 'Revoked an access token',
  token_use: 'Used an access token',
};

export function actionLabel(action: string): string {
  return ACTION_LABELS[action] ?? action;
}
