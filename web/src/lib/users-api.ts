import type { ApiResponse, PagedResponse, RoleName, User } from '@/types/api';
import { baseApi, USER_LIST, userTag } from './api';

/** A search of the user directory (GET /api/users); unset fields are not sent. */
export interface UserSearch {
  /** First or last name, or email. */
  search?: string;
  role?: RoleName;
  page?: number;
  limit?: number;
}

function searchParams({ search, role, page, limit }: UserSearch): Record<string, string | number> {
  const params: Record<string, string | number> = {};
  if (role) params.role = role;
  if (page !== undefined) params.page = page;
  if (limit !== undefined) params.limit = limit;
  if (search) params.search = search;
  return params;
}

// The directory is shared code: the user picker (upload, share, new chat),
// the dashboard's user table, a user's page and a conversation's header read it.
export const usersApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    listUsers: build.query<PagedResponse<User>, UserSearch>({
      query: (search) => ({ url: '/users', params: searchParams(search) }),
      providesTags: (result) => [USER_LIST, ...(result?.data ?? []).map((user) => userTag(user.id))],
    }),

    /** GET /api/users/{id}: someone in the caller's directory. */
    getUser: build.query<User, string>({
      query: (id) => ({ url: `/users/${encodeURIComponent(id)}` }),
      transformResponse: (body: ApiResponse<User>) => body.data,
      providesTags: (_result, _error, id) => [userTag(id)],
    }),
  }),
});

export const { useListUsersQuery, useGetUserQuery } = usersApi;
