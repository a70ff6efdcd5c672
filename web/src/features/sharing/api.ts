import { baseApi, imageTag, SHARED_IMAGES } from '@/lib/api';
import { errorStatus } from '@/lib/api-client';
import type { ApiResponse } from '@/types/api';

/**
 * The admin's share lifetimes (GET /api/sharing/limits, the settings'
 * shareLifetime*Hours): the dialog preselects the default and offers
 * nothing beyond the maximum, which the server enforces.
 */
export interface ShareLimits {
  shareLifetimeDefaultHours: number;
  shareLifetimeMaxHours: number;
}

/** The usual lifetimes, in hours, up to the server's longest (30 days). */
const LIFETIME_STEPS = [1, 12, 24, 72, 168, 336, 720];

/** A lifetime in words: '1 hour', '12 hours', '24 hours', '3 days'. */
export function lifetimeLabel(hours: number): string {
  if (hours === 1) return '1 hour';
  if (hours > 24 && hours % 24 === 0) return `${hours / 24} days`;
  return `${hours} hours`;
}

/**
 * The lifetimes the Share dialog offers: the usual ones up to the maximum,
 * the maximum itself and the default, shortest first.
 */
export function lifetimeChoices({ shareLifetimeDefaultHours, shareLifetimeMaxHours }: ShareLimits): number[] {
  const hours = new Set(LIFETIME_STEPS.filter((step) => step <= shareLifetimeMaxHours));
  hours.add(shareLifetimeMaxHours);
  hours.add(Math.min(shareLifetimeDefaultHours, shareLifetimeMaxHours));
  return [...hours].sort((a, b) => a - b);
}

/** The sharing request of product.md §3. */
export interface ShareRequest {
  imagemetadataId: string;
  createdfor: string;
  /** Absent: the server's default lifetime. */
  expiresInHours?: number;
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

/** A share given more time, and the image whose card lists it. */
export interface ExtendRequest {
  id: string;
  imageId: string;
  hours: number;
}

/** A body that carries only a message. */
export interface MessageResponse {
  message?: string;
}

export const sharingApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    /** GET /api/sharing/limits: the lifetimes a share may have (for those who may share). */
    getShareLimits: build.query<ShareLimits, void>({
      query: () => ({ url: '/sharing/limits' }),
      transformResponse: (body: ApiResponse<ShareLimits>) => body.data,
      // An admin who saves the settings sees the new limits at once.
      providesTags: ['Settings'],
    }),

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

    /** POST /api/sharing/{id}/extend: the sender gives a share more hours, within the admin's maximum. */
    extendShare: build.mutation<MessageResponse, ExtendRequest>({
      query: ({ id, hours }) => ({ url: `/sharing/${encodeURIComponent(id)}/extend`, method: 'POST', body: { hours } }),
      invalidatesTags: (_result, error, { imageId }) => (error ? [] : [imageTag(imageId), 'DashboardStats']),
    }),
  }),
});

export const {
  useGetShareLimitsQuery,
  useShareImageMutation,
  useVerifyShareMutation,
  useRevokeShareMutation,
  useExtendShareMutation,
} = sharingApi;
