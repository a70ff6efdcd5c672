import { baseApi, imageTag, SHARED_IMAGES } from '@/lib/api';
import { errorStatus } from '@/lib/api-client';
import type { ApiResponse } from '@/types/api';

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

/** A share to revoke, and the image it belongs to (whose card lists it). */
export interface RevokeRequest {
  id: string;
  imageId: string;
}

/** A body that carries only a message. */
export interface MessageResponse {
  message?: string;
}

export const sharingApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    /** POST /api/sharing/request: 201 `{message, data: {id, expiresAt}}`; the recipient gets the code by email. */
    shareImage: build.mutation<ApiResponse<{ id: string; expiresAt: string }>, ShareRequest>({
      query: (body) => ({ url: '/sharing/request', method: 'POST', body }),
      // The image's card lists its shares.
      invalidatesTags: (_result, error, { imagemetadataId }) =>
        error ? [] : [imageTag(imagemetadataId), 'DashboardStats'],
    }),

    /** POST /api/sharing/verify: the recipient opens a share with the emailed code. */
    verifyShare: build.mutation<MessageResponse, VerifyRequest>({
      query: (body) => ({ url: '/sharing/verify', method: 'POST', body }),
      // Opened, or ended meanwhile (gone: 404, expired or void: 410): the shared list is stale either way.
      invalidatesTags: (_result, error) => {
        const status = errorStatus(error);
        return !error || status === 404 || status === 410 ? [SHARED_IMAGES] : [];
      },
    }),

    /** DELETE /api/sharing/{id}: the sharer or an admin ends a share at once. */
    revokeShare: build.mutation<MessageResponse, RevokeRequest>({
      query: ({ id }) => ({ url: `/sharing/${encodeURIComponent(id)}`, method: 'DELETE' }),
      invalidatesTags: (_result, error, { imageId }) => (error ? [] : [imageTag(imageId), 'DashboardStats']),
    }),
  }),
});

export const { useShareImageMutation, useVerifyShareMutation, useRevokeShareMutation } = sharingApi;
