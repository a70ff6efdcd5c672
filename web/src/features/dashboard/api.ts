import { baseApi, USER_LIST, userTag } from '@/lib/api';
import type { ApiResponse, User } from '@/types/api';

/** `data` of GET /api/dashboard/stats. */
export interface DashboardStats {
  totalImages: number;
  sharedImages: number;
  totalUsers: number;
}

/** One day of GET /api/admin/activity. */
export interface DayActivity {
  day: string;
  signIns: number;
  failedSignIns: number;
  uploads: number;
  shares: number;
  verifications: number;
  views: number;
  messages: number;
}

export const dashboardApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    getDashboardStats: build.query<DashboardStats, void>({
      query: () => ({ url: '/dashboard/stats' }),
      transformResponse: (body: ApiResponse<DashboardStats>) => body.data,
      providesTags: ['DashboardStats'],
    }),

    getActivity: build.query<DayActivity[], number>({
      query: (days) => ({ url: '/admin/activity', params: { days } }),
      transformResponse: (body: ApiResponse<DayActivity[]>) => body.data,
    }),

    /** PATCH /api/users/{id} {approved: true}: a provider waiting for approval may sign in. */
    approveUser: build.mutation<ApiResponse<User>, string>({
      query: (id) => ({ url: `/users/${encodeURIComponent(id)}`, method: 'PATCH', body: { approved: true } }),
      invalidatesTags: (_result, error, id) => (error ? [] : [USER_LIST, userTag(id)]),
    }),

    /** DELETE /api/users/{id}/mfa (admin): the user's authenticator, passkeys and recovery codes go. */
    resetUserMfa: build.mutation<ApiResponse<unknown>, string>({
      query: (id) => ({ url: `/users/${encodeURIComponent(id)}/mfa`, method: 'DELETE' }),
      invalidatesTags: (_result, error, id) => (error ? [] : [USER_LIST, userTag(id)]),
    }),

    /** DELETE /api/users/{id} (admin): the directory and the user count change. */
    deleteUser: build.mutation<ApiResponse<unknown>, string>({
      query: (id) => ({ url: `/users/${encodeURIComponent(id)}`, method: 'DELETE' }),
      invalidatesTags: (_result, error, id) => (error ? [] : [USER_LIST, userTag(id), 'DashboardStats']),
    }),
  }),
});

export const {
  useGetDashboardStatsQuery,
  useDeleteUserMutation,
  useGetActivityQuery,
  useApproveUserMutation,
  useResetUserMfaMutation,
} = dashboardApi;
