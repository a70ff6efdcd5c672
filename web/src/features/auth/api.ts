import { api } from '@/lib/api-client';
import type { ApiResponse, SessionData } from '@/types/api';

/** Roles a person may pick at registration (api.md: never admin). */
export type RegistrableRole = 'patient' | 'healthProvider';

/** The registration payload of product.md §3. */
export interface RegistrationPayload {
  email: string;
  username: string;
  active: true;
  password: string;
  role: RegistrableRole;
  firstname: string;
  lastname: string;
  phone: string;
  dob: string | null;
  gender: string | null;
  address: string;
  city: string;
  state: string;
  country: string;
  zipcode: string;
  bio: string;
  // healthProvider only
  licensenumber?: string;
  insurancenumber?: string;
  taxid?: string;
  specialization?: string;
  // patient only
  primphysician?: string;
  bloodgroup?: string;
}

export async function login(email: string, password: string): Promise<ApiResponse<SessionData>> {
  const response = await api.post<ApiResponse<SessionData>>('/auth/login', { email, password });
  return response.data;
}

export async function logout(): Promise<ApiResponse<unknown>> {
  const response = await api.post<ApiResponse<unknown>>('/auth/logout');
  return response.data;
}

export async function register(payload: RegistrationPayload): Promise<ApiResponse<{ email?: string }>> {
  const response = await api.post<ApiResponse<{ email?: string }>>('/auth/register', payload);
  return response.data;
}

export async function confirmAccount(email: string, code: string): Promise<ApiResponse<unknown>> {
  const response = await api.post<ApiResponse<unknown>>('/auth/confirm', { email, code });
  return response.data;
}

export async function resendConfirmation(email: string): Promise<ApiResponse<unknown>> {
  const response = await api.post<ApiResponse<unknown>>('/auth/resend-confirmation', { email });
  return response.data;
}

export async function requestPasswordReset(email: string): Promise<ApiResponse<unknown>> {
  const response = await api.post<ApiResponse<unknown>>('/auth/forgot-password', { email });
  return response.data;
}

export async function resetPasswordWithCode(
  email: string,
  otp: string,
  newPassword: string,
): Promise<ApiResponse<unknown>> {
  const response = await api.post<ApiResponse<unknown>>('/auth/reset-password', { email, otp, newPassword });
  return response.data;
}

export async function resetPasswordWithToken(token: string, password: string): Promise<ApiResponse<unknown>> {
  const response = await api.post<ApiResponse<unknown>>('/auth/reset-password', { token, password });
  return response.data;
}
