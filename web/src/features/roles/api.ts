import { baseApi } from '@/lib/api';
import type { ApiResponse } from '@/types/api';

/** A role of GET /api/roles with the names of its permissions. */
export interface Role {
  name: string;
  permissions: string[];
}

/** A permission of GET /api/roles/permissions. */
export interface Permission {
  name: string;
  description: string;
}

export const rolesApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    listRoles: build.query<Role[], void>({
      query: () => ({ url: '/roles' }),
      transformResponse: (body: ApiResponse<Role[]>) => body.data,
    }),
    listPermissions: build.query<Permission[], void>({
      query: () => ({ url: '/roles/permissions' }),
      transformResponse: (body: ApiResponse<Permission[]>) => body.data,
    }),
  }),
});

export const { useListRolesQuery, useListPermissionsQuery } = rolesApi;
