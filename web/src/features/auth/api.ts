import { baseApi } from '@/lib/api';
import type { ProfilePayload } from '@/lib/profile-fields';
import type { ApiResponse, MfaChallenge, SessionData } from '@/types/api';

/** Roles a person may pick at registration (api.md: never admin). */
export type RegistrableRole = 'patient' | 'healthProvider';

/** The registration payload of product.md §3: the account, and the chosen role's profile fields. */
export interface RegistrationPayload extends ProfilePayload {
  email: string;
  username: string;
  active: true;
  password: string;
  role: RegistrableRole;
}

/** A body that carries only a message. */
type MessageResponse = ApiResponse<unknown>;

const post = (url: string, body?: unknown) => ({ url, method: 'POST' as const, body });

// Sign-in and account calls. They change no cached data: a new session
// starts with an empty cache (app/store.ts).
export const authApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    /** The session, or a second step to take first (MFA contract, "Sign-in"). */
    login: build.mutation<ApiResponse<SessionData | MfaChallenge>, { email: string; password: string }>({
      query: (credentials) => post('/auth/login', credentials),
    }),
    logout: build.mutation<MessageResponse, void>({
      query: () => post('/auth/logout'),
    }),
    register: build.mutation<ApiResponse<{ email?: string }>, RegistrationPayload>({
      query: (payload) => post('/auth/register', payload),
    }),
    confirmAccount: build.mutation<MessageResponse, { email: string; code: string }>({
      query: (body) => post('/auth/confirm', body),
    }),
    resendConfirmation: build.mutation<MessageResponse, { email: string }>({
      query: (body) => post('/auth/resend-confirmation', body),
    }),
    requestPasswordReset: build.mutation<MessageResponse, { email: string }>({
      query: (body) => post('/auth/forgot-password', body),
    }),
    /** `mfaCode`: an authenticator or recovery code, for an account with a second factor. */
    resetPasswordWithCode: build.mutation<
      MessageResponse,
      { email: string; otp: string; newPassword: string; mfaCode?: string }
    >({
      query: (body) => post('/auth/reset-password', body),
    }),
    resetPasswordWithToken: build.mutation<MessageResponse, { token: string; password: string; mfaCode?: string }>({
      query: (body) => post('/auth/reset-password', body),
    }),
  }),
});

export const {
  useLoginMutation,
  useLogoutMutation,
  useRegisterMutation,
  useConfirmAccountMutation,
  useResendConfirmationMutation,
  useRequestPasswordResetMutation,
  useResetPasswordWithCodeMutation,
  useResetPasswordWithTokenMutation,
} = authApi;
