import { createApi, type BaseQueryFn } from '@reduxjs/toolkit/query/react';
import type { AxiosProgressEvent, Method } from 'axios';
import { api as httpClient, toApiError, type ApiError } from './api-client';

/** One call as an endpoint describes it; the URL is under /api. */
export interface ApiRequest {
  url: string;
  method?: Method;
  /** JSON, or FormData for uploads. */
  body?: unknown;
  params?: Record<string, string | number>;
  onUploadProgress?: (event: AxiosProgressEvent) => void;
}

/**
 * Every endpoint goes through the one axios instance, so its interceptors
 * stay the single place that adds the token and renews the session. Errors
 * become plain data (status and body) that the cache can keep.
 */
const axiosBaseQuery: BaseQueryFn<ApiRequest, unknown, ApiError> = async (
  { url, method = 'GET', body, params, onUploadProgress },
  { signal },
) => {
  try {
    const response = await httpClient.request({ url, method, data: body, params, signal, onUploadProgress });
    return { data: response.data };
  } catch (error) {
    return { error: toApiError(error) };
  }
};

/**
 * The cache tags. 'Image' ids are image ids plus the two lists; 'User' ids
 * are user ids plus the directory list; 'Profile' is the caller's own;
 * 'Chat' ids are the other person's user id (a conversation) plus the chat list;
 * 'AccessToken' is the caller's list of personal access tokens; 'Passkey' their passkeys.
 */
export const TAG_TYPES = ['Image', 'User', 'Profile', 'DashboardStats', 'Chat', 'Settings', 'Analysis', 'AccessToken', 'Passkey'] as const;

/** The lists behind 'Uploaded Images' (own uploads; admins: every image). */
export const UPLOADED_IMAGES = { type: 'Image', id: 'UPLOADED_LIST' } as const;
/** The list behind 'Shared Images' (shared with the caller). */
export const SHARED_IMAGES = { type: 'Image', id: 'SHARED_LIST' } as const;
/** Every page and search of the user directory (GET /api/users). */
export const USER_LIST = { type: 'User', id: 'LIST' } as const;

/** The chat list of GET /api/message/chat-list. */
export const CHAT_LIST = { type: 'Chat', id: 'LIST' } as const;

export const imageTag = (id: string) => ({ type: 'Image', id }) as const;
export const userTag = (id: string) => ({ type: 'User', id }) as const;
/** The conversation with one person, by their user id. */
export const chatTag = (userId: string) => ({ type: 'Chat', id: userId }) as const;

/**
 * The app's one RTK Query API. Features add their endpoints with
 * `baseApi.injectEndpoints` in their own api.ts. Mounting a screen asks the
 * server again (as the screens did before the cache), while the cached answer
 * shows at once; writes refresh what they change through the tags.
 */
export const baseApi = createApi({
  reducerPath: 'api',
  baseQuery: axiosBaseQuery,
  tagTypes: TAG_TYPES,
  refetchOnMountOrArgChange: true,
  endpoints: () => ({}),
});

/** A call stopped on purpose (an upload cancelled, a page left): not an error to report. */
export function isCancelled(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  // RTK Query rejects an aborted call with a serialized AbortError.
  return ('cancelled' in error && error.cancelled === true) || ('name' in error && error.name === 'AbortError');
}
