import axios, { AxiosHeaders, isAxiosError } from 'axios';
import type { ApiErrorBody, FieldError } from '@/types/api';

/** The one HTTP client of the app: every call goes under /api (api.md). */
export const api = axios.create({
  baseURL: '/api',
  withCredentials: true,
  headers: { Accept: 'application/json' },
});

export interface ApiClientHooks {
  /** The access token held in memory, or null when signed out. */
  getToken: () => string | null;
  /** Called once per 401 answer: clear the session and go to /login. */
  onUnauthorized: () => void;
}

/**
 * A 401 from these calls means "wrong credentials" or "no session to renew",
 * which the calling screen reports itself; it must not bounce the user around.
 */
const CREDENTIAL_ENDPOINTS = ['/auth/login', '/auth/refresh'];

function isCredentialCall(url: string | undefined): boolean {
  if (!url) return false;
  const path = url.replace(/^\/api(?=\/)/, '').split('?')[0];
  return CREDENTIAL_ENDPOINTS.includes(path);
}

/**
 * Wires the client to the session. The store is injected rather than imported
 * so that lib/ never depends on app/ (and no import cycle appears).
 * Returns a function that removes the interceptors again.
 */
export function setupApiClient({ getToken, onUnauthorized }: ApiClientHooks): () => void {
  const requestId = api.interceptors.request.use((config) => {
    const token = getToken();
    if (token) {
      config.headers = AxiosHeaders.from(config.headers);
      config.headers.set('Authorization', `Bearer ${token}`);
    }
    return config;
  });

  const responseId = api.interceptors.response.use(
    (response) => response,
    (error: unknown) => {
      if (
        isAxiosError(error) &&
        error.response?.status === 401 &&
        !isCredentialCall(error.config?.url)
      ) {
        onUnauthorized();
      }
      return Promise.reject(error);
    },
  );

  return () => {
    api.interceptors.request.eject(requestId);
    api.interceptors.response.eject(responseId);
  };
}

function errorBody(error: unknown): ApiErrorBody | undefined {
  if (!isAxiosError(error)) return undefined;
  const data: unknown = error.response?.data;
  return data && typeof data === 'object' ? (data as ApiErrorBody) : undefined;
}

function nonEmpty(value: unknown): string | undefined {
  if (typeof value === 'string' && value.trim() !== '') return value;
  // Some servers nest the text: {error: {message}}.
  if (value && typeof value === 'object' && 'message' in value) {
    return nonEmpty((value as { message: unknown }).message);
  }
  return undefined;
}

function fieldErrors(body: ApiErrorBody | undefined): string[] {
  if (!Array.isArray(body?.errors)) return [];
  return body.errors
    .filter((item): item is FieldError => Boolean(item && nonEmpty(item.message)))
    .map((item) => (item.field ? `${item.field}: ${item.message}` : item.message));
}

/**
 * The one text to show for a failed call: the server's `message`, else its
 * `error`, else its field errors ("field: message", joined), else `fallback`.
 */
export function getErrorMessage(
  error: unknown,
  fallback = 'Something went wrong. Please try again.',
): string {
  const body = errorBody(error);
  const fields = fieldErrors(body);
  return nonEmpty(body?.message) ?? nonEmpty(body?.error) ?? (fields.length ? fields.join('\n') : fallback);
}

/**
 * The texts to show as separate toasts (product.md §8, registration and
 * profile): one per field error when the server lists them, else the single
 * message of getErrorMessage.
 */
export function getErrorMessages(
  error: unknown,
  fallback = 'An error occurred. Please try again.',
): string[] {
  const fields = fieldErrors(errorBody(error));
  return fields.length ? fields : [getErrorMessage(error, fallback)];
}
