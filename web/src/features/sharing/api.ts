import { api } from '@/lib/api-client';
import type { ApiResponse } from '@/types/api';

/** A person as a share names them. */
export interface SharePerson {
  id: string;
  firstname: string;
  lastname: string;
}

/**
 * The state of a share: waiting for the recipient's code, open to them,
 * past its lifetime, or void after five wrong codes. Revoked shares are
 * left out of image objects.
 */
export type ShareStatus = 'pending' | 'verified' | 'expired' | 'voided';

/** One entry of `shares` on an image the caller uploaded (admins: any image), newest first. */
export interface ImageShare {
  id: string;
  /** Who made the share: only they (or an admin) may revoke it. */
  sharedBy?: SharePerson;
  sharedWith: SharePerson;
  status: ShareStatus | (string & {});
  createdAt: string;
  expiresAt: string;
}

/** The lifetimes the Share dialog offers; product.md §4, §9: 24 hours by default. */
export const SHARE_LIFETIMES: readonly { hours: number; label: string }[] = [
  { hours: 1, label: '1 hour' },
  { hours: 12, label: '12 hours' },
  { hours: 24, label: '24 hours' },
  { hours: 72, label: '3 days' },
  { hours: 168, label: '7 days' },
];

export const DEFAULT_SHARE_HOURS = 24;

/** The sharing request of product.md §3. */
export interface ShareRequest {
  imagemetadataId: string;
  createdfor: string;
  expiresInHours: number;
}

/** The verification of product.md §3. */
export interface VerifyRequest {
  sharingRequestId: string;
  verificationCode: string;
}

/** A body that carries only a message. */
export interface MessageResponse {
  message?: string;
}

/** POST /api/sharing/request: 201 `{message, data: {id, expiresAt}}`; the recipient gets the code by email. */
export async function shareImage(body: ShareRequest): Promise<ApiResponse<{ id: string; expiresAt: string }>> {
  const response = await api.post<ApiResponse<{ id: string; expiresAt: string }>>('/sharing/request', body);
  return response.data;
}

/** POST /api/sharing/verify: the recipient opens a share with the emailed code. */
export async function verifyShare(body: VerifyRequest): Promise<MessageResponse> {
  const response = await api.post<MessageResponse>('/sharing/verify', body);
  return response.data;
}

/** DELETE /api/sharing/{id}: the sharer or an admin ends a share at once. */
export async function revokeShare(id: string): Promise<MessageResponse> {
  const response = await api.delete<MessageResponse>(`/sharing/${encodeURIComponent(id)}`);
  return response.data;
}
