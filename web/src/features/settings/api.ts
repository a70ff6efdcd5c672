import { baseApi } from '@/lib/api';
import type { ApiResponse } from '@/types/api';

/** The settings an admin can change (api.md "Settings and the admin dashboard"). */
export interface Settings {
  shareLifetimeDefaultHours: number;
  shareLifetimeMaxHours: number;
  registrationOpen: boolean;
  providerApprovalRequired: boolean;
  analysisProvider: string;
  /** An external model also receives images its screen cannot vouch for (photographs, ultrasound...). */
  analysisSendUnscreened: boolean;
  /** The largest DICOM instance of a study, and the largest study, in MB. */
  maxInstanceMegabytes: number;
  maxStudyMegabytes: number;
  /** Role names whose users must have a second factor (MFA contract, "Admin"). */
  mfaRequiredRoles: string[];
}

/** GET /api/settings adds the providers the server is configured with. */
export interface SettingsData extends Settings {
  analysisProviders: string[];
  /** For each provider that sends images out of the server: the host they go to. */
  analysisSendsTo: Record<string, string>;
}

export const settingsApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    getSettings: build.query<SettingsData, void>({
      query: () => ({ url: '/settings' }),
      transformResponse: (body: ApiResponse<SettingsData>) => body.data,
      providesTags: ['Settings'],
    }),

    /** GET /api/roles, by name: the roles a second factor can be required of. */
    listRoleNames: build.query<string[], void>({
      query: () => ({ url: '/roles' }),
      transformResponse: (body: ApiResponse<{ name: string }[]>) => body.data.map((role) => role.name),
    }),

    saveSettings: build.mutation<ApiResponse<SettingsData>, Partial<Settings>>({
      query: (body) => ({ url: '/settings', method: 'PUT', body }),
      invalidatesTags: (_result, error) => (error ? [] : ['Settings']),
    }),
  }),
});

export const { useGetSettingsQuery, useSaveSettingsMutation, useListRoleNamesQuery } = settingsApi;
