import { api } from '@/lib/api-client';
import type { ApiResponse } from '@/types/api';

/** `data` of GET /api/dashboard/stats. */
export interface DashboardStats {
  totalImages: number;
  sharedImages: number;
  totalUsers: number;
}

export async function deleteUser(id: string): Promise<ApiResponse<unknown>> {
  const response = await api.delete<ApiResponse<unknown>>(`/users/${encodeURIComponent(id)}`);
  return response.data;
}
