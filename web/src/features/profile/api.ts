import { baseApi, USER_LIST, userTag } from '@/lib/api';
import { updateUser } from '@/lib/session';
import type { ApiResponse, User } from '@/types/api';

/** The fields of the profile form (product.md §7, api.md "Users"). */
export interface ProfileUpdate {
  firstname: string;
  lastname: string;
  phone: string;
  dob: string | null;
  gender: string | null;
  taxid: string;
  city: string;
  country: string;
  state: string;
  address: string;
  zipcode: string;
  bio: string;
  bloodgroup: string;
  insurancenumber: string;
  licensenumber: string;
  /** patients only */
  primphysician?: string;
  /** health providers only */
  specialization?: string;
}

export const profileApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    /** GET /api/users/profile: the caller. */
    getOwnProfile: build.query<User, void>({
      query: () => ({ url: '/users/profile' }),
      transformResponse: (body: ApiResponse<User>) => body.data,
      providesTags: ['Profile'],
    }),

    /**
     * PUT /api/users/profile. The answer is the saved user: it replaces the
     * cached profile and is merged into the session's user (product.md §4).
     */
    updateProfile: build.mutation<ApiResponse<User>, ProfileUpdate>({
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
