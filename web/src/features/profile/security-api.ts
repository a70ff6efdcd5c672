import { baseApi } from '@/lib/api';
import type { CreationOptions, RegistrationResponseJSON } from '@/lib/webauthn';
import type { ApiResponse } from '@/types/api';

/** A passkey as its owner sees it (MFA contract, "Passkeys"). */
export interface Passkey {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
}

/** `data` of POST /api/auth/mfa/totp/setup: not in force until enabled. */
export interface TotpSetup {
  secret: string;
  otpauthUrl: string;
}

interface RecoveryCodes {
  recoveryCodes: string[];
}

type MessageResponse = ApiResponse<unknown>;

const PASSKEYS = 'Passkey' as const;

// The caller's second factors. Injected by the lazily loaded Security
// section. A change also refreshes the profile, whose user carries `mfa`.
export const securityApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    setupTotp: build.mutation<ApiResponse<TotpSetup>, void>({
      query: () => ({ url: '/auth/mfa/totp/setup', method: 'POST' }),
    }),
    /** The first code of the new secret turns it on; the answer holds the recovery codes, shown once. */
    enableTotp: build.mutation<ApiResponse<RecoveryCodes>, { code: string }>({
      query: (body) => ({ url: '/auth/mfa/totp/enable', method: 'POST', body }),
      invalidatesTags: (_result, error) => (error ? [] : ['Profile']),
    }),
    /** `code`: an authenticator or recovery code. */
    disableTotp: build.mutation<MessageResponse, { password: string; code: string }>({
      query: (body) => ({ url: '/auth/mfa/totp', method: 'DELETE', body }),
      invalidatesTags: (_result, error) => (error ? [] : ['Profile']),
    }),
    /** A new set of recovery codes replaces the old one. */
    regenerateRecoveryCodes: build.mutation<ApiResponse<RecoveryCodes>, { code: string }>({
      query: (body) => ({ url: '/auth/mfa/recovery-codes', method: 'POST', body }),
    }),

    listPasskeys: build.query<Passkey[], void>({
      query: () => ({ url: '/auth/webauthn' }),
      transformResponse: (body: ApiResponse<Passkey[]>) => body.data,
      providesTags: [PASSKEYS],
    }),
    beginPasskeyRegistration: build.mutation<ApiResponse<CreationOptions>, void>({
      query: () => ({ url: '/auth/webauthn/register/begin', method: 'POST' }),
    }),
    /** The first passkey (with no authenticator) also brings the recovery codes. */
    finishPasskeyRegistration: build.mutation<
      ApiResponse<{ passkey: Passkey; recoveryCodes?: string[] }>,
      { name: string; credential: RegistrationResponseJSON }
    >({
      query: (body) => ({ url: '/auth/webauthn/register/finish', method: 'POST', body }),
      invalidatesTags: (_result, error) => (error ? [] : [PASSKEYS, 'Profile']),
    }),
    renamePasskey: build.mutation<ApiResponse<Passkey>, { id: string; name: string }>({
      query: ({ id, name }) => ({ url: `/auth/webauthn/${encodeURIComponent(id)}`, method: 'PATCH', body: { name } }),
      invalidatesTags: (_result, error) => (error ? [] : [PASSKEYS]),
    }),
    removePasskey: build.mutation<MessageResponse, string>({
      query: (id) => ({ url: `/auth/webauthn/${encodeURIComponent(id)}`, method: 'DELETE' }),
      invalidatesTags: (_result, error) => (error ? [] : [PASSKEYS, 'Profile']),
    }),
  }),
});

export const {
  useSetupTotpMutation,
  useEnableTotpMutation,
  useDisableTotpMutation,
  useRegenerateRecoveryCodesMutation,
  useListPasskeysQuery,
  useBeginPasskeyRegistrationMutation,
  useFinishPasskeyRegistrationMutation,
  useRenamePasskeyMutation,
  useRemovePasskeyMutation,
} = securityApi;
