import { api } from '@/lib/api-client';
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

export async function fetchOwnProfile(signal?: AbortSignal): Promise<User> {
  const response = await api.get<ApiResponse<User>>('/users/profile', { signal });
  return response.data.data;
}

export async function updateProfile(update: ProfileUpdate): Promise<ApiResponse<User>> {
  const response = await api.put<ApiResponse<User>>('/users/profile', update);
  return response.data;
}

export async function deleteOwnAccount(password: string): Promise<ApiResponse<unknown>> {
  const response = await api.delete<ApiResponse<unknown>>('/users/profile', { data: { password } });
  return response.data;
}
