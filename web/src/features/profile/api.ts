import { baseApi, USER_LIST, userTag } from '@/lib/api';
import type { ProfilePayload } from '@/lib/profile-fields';
import { updateUser } from '@/lib/session';
import type { ApiResponse, User } from '@/types/api';

/** A personal access token as its owner sees it: never its secret (api.md "Personal access tokens"). */
export interface AccessToken {
  id: string;
  name: string;
  createdAt: string;
  expiresAt: string;
  lastUsedAt: string | null;
}

/** A new token with its secret, which the server shows only this once. */
export interface CreatedAccessToken {
  id: string;
  name: string;
  token: string;
  createdAt: string;
  expiresAt: string;
}

export interface NewAccessToken {
  name: string;
  expiresInDays: number;
}

const ACCESS_TOKENS = 'AccessToken' as const;

export const profileApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    /** GET /api/users/profile: the caller. */
    getOwnProfile: build.query<User, void>({
      query: () => ({ url: '/users/profile' }),
      transformResponse: (body: ApiResponse<User>) => body.data,
      providesTags: ['Profile'],
    }),

    /**
     * PUT /api/users/profile with the fields of the user's role
     * (lib/profile-fields.ts). The answer is the saved user: it replaces the
     * cached profile and is merged into the session's user (product.md §4).
     */
    updateProfile: build.mutation<ApiResponse<User>, ProfilePayload>({
      query: (body) => ({ url: '/users/profile', method: 'PUT', body }),
      async onQueryStarted(_update, { dispatch, queryFulfilled }) {
        try {
          const { data: saved } = (await queryFulfilled).data;
          dispatch(profileApi.util.upsertQueryData('getOwnProfile', undefined, saved));
          dispatch(updateUser(saved));
        } catch {
          // The form reports the failure.
        }
      },
      // Names show in the directory and on the user's own page.
      invalidatesTags: (result, error) => (error || !result ? [] : [USER_LIST, userTag(result.data.id)]),
    }),

    /** GET /api/tokens: the caller's live personal access tokens, newest first. */
    listAccessTokens: build.query<AccessToken[], void>({
      query: () => ({ url: '/tokens' }),
      transformResponse: (body: ApiResponse<AccessToken[]>) => body.data,
      providesTags: [ACCESS_TOKENS],
    }),

    /** POST /api/tokens: the answer holds the secret, shown once. */
    createAccessToken: build.mutation<ApiResponse<CreatedAccessToken>, NewAccessToken>({
      query: (body) => ({ url: '/tokens', method: 'POST', body }),
      invalidatesTags: (_result, error) => (error ? [] : [ACCESS_TOKENS]),
    }),

    /** DELETE /api/tokens/{id}: the token stops working at once. */
    revokeAccessToken: build.mutation<ApiResponse<unknown>, string>({
      query: (id) => ({ url: `/tokens/${encodeURIComponent(id)}`, method: 'DELETE' }),
      invalidatesTags: (_result, error) => (error ? [] : [ACCESS_TOKENS]),
    }),

    /** DELETE /api/users/profile with the password: the account is deactivated and signed out. */
    deleteOwnAccount: build.mutation<ApiResponse<unknown>, string>({
      query: (password) => ({ url: '/users/profile', method: 'DELETE', body: { password } }),
    }),
  }),
});

export const {
  useGetOwnProfileQuery,
  useUpdateProfileMutation,
  useDeleteOwnAccountMutation,
  useListAccessTokensQuery,
  useCreateAccessTokenMutation,
  useRevokeAccessTokenMutation,
} = profileApi;
