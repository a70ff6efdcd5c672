import type { ApiResponse } from '@/types/api';
import { baseApi } from './api';

/** `data` of GET /api/admin/health (admins). */
export interface Health {
  version: string;
  startedAt: string;
  database: { ok: boolean; latencyMs: number };
  storage: { ok: boolean; kind: string };
  mail: { ok: boolean; kind: string; queued: number };
  auditChain: { ok: boolean; checked: number };
}

// Shared: the admin dashboard's health panel and the audit screen's chain state read it.
export const healthApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    getHealth: build.query<Health, void>({
      query: () => ({ url: '/admin/health' }),
      transformResponse: (body: ApiResponse<Health>) => body.data,
    }),
  }),
});

export const { useGetHealthQuery } = healthApi;
