import { baseApi, USER_LIST, userTag } from '@/lib/api';
import type { ApiResponse } from '@/types/api';

/** `data` of GET /api/dashboard/stats. */
export interface DashboardStats {
  totalImages: number;
  sharedImages: number;
  totalUsers: number;
}

export const dashboardApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    getDashboardStats: build.query<DashboardStats, void>({
      query: () => ({ url: '/dashboard/stats' }),
      transformResponse: (body: ApiResponse<DashboardStats>) => body.data,
      providesTags: ['DashboardStats'],
    }),

    /** DELETE /api/users/{id} (admin): the directory and the user count change. */
    deleteUser: build.mutation<ApiResponse<unknown>, string>({
      query: (id) => ({ url: `/users/${encodeURIComponent(id)}`, method: 'DELETE' }),
      invalidatesTags: (_result, error, id) => (error ? [] : [USER_LIST, userTag(id), 'DashboardStats']),
    }),
  }),
});

export const { useGetDashboardStatsQuery, useDeleteUserMutation } = dashboardApi;
