import { baseApi, USER_LIST, userTag } from '@/lib/api';
import type { ProfilePayload } from '@/lib/profile-fields';
import { updateUser } from '@/lib/session';
import type { ApiResponse, User } from '@/types/api';

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
} = profileApi;
