import { baseApi } from '@/lib/api';
import type { AuthenticationResponseJSON, RequestOptions } from '@/lib/webauthn';
import type { ApiResponse, SessionData } from '@/types/api';

const post = (url: string, body: unknown) => ({ url, method: 'POST' as const, body });

// The second step of a sign-in (MFA contract, "Sign-in"). Injected by the
// lazily loaded second step, so none of it is in the first load.
export const mfaSignInApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    /** POST /api/auth/login/mfa: an authenticator code or a recovery code; the login answer. */
    loginWithCode: build.mutation<ApiResponse<SessionData>, { mfaToken: string; code: string }>({
      query: (body) => post('/auth/login/mfa', body),
    }),
    /** POST /api/auth/login/webauthn/begin: the challenge for a passkey. */
    beginPasskeyLogin: build.mutation<ApiResponse<RequestOptions>, { mfaToken: string }>({
      query: (body) => post('/auth/login/webauthn/begin', body),
    }),
    /** POST /api/auth/login/webauthn/finish: the signed challenge; the login answer. */
    finishPasskeyLogin: build.mutation<
      ApiResponse<SessionData>,
      { mfaToken: string; credential: AuthenticationResponseJSON }
    >({
      query: (body) => post('/auth/login/webauthn/finish', body),
    }),
  }),
});

export const { useLoginWithCodeMutation, useBeginPasskeyLoginMutation, useFinishPasskeyLoginMutation } = mfaSignInApi;
