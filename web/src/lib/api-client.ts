import axios, { AxiosHeaders, isAxiosError, type InternalAxiosRequestConfig } from 'axios';
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
  /**
   * Asks the server for a new access token (the refresh token is an HttpOnly
   * cookie), stores it and resolves with it; rejects when the session cannot
   * be renewed. Without it a 401 ends the session at once.
   */
  refresh?: () => Promise<string>;
  /** The session is lost for good: clear it and go to /login. */
  onUnauthorized: () => void;
}

/**
 * A 401 from these calls means "wrong credentials" or "no session to renew",
 * which the calling screen reports itself; it must not bounce the user around
 * nor start a renewal.
 */
const CREDENTIAL_ENDPOINTS = ['/auth/login', '/auth/refresh', '/auth/logout'];

function isCredentialCall(url: string | undefined): boolean {
  if (!url) return false;
  const path = url.replace(/^\/api(?=\/)/, '').split('?')[0];
  return CREDENTIAL_ENDPOINTS.includes(path);
}

/** The two 401 bodies of api.md that mean "no usable access token". */
const SESSION_TEXTS = ['Unauthenticated.', 'Invalid or expired token'];

/**
 * Whether a 401 means the session (not, say, a password typed into a form)
 * was refused: the body is one of api.md's 401 bodies, or carries no text.
 */
function isSessionFailure(error: unknown): boolean {
  const body = errorBody(error);
  const texts = [body?.message, body?.error].filter(
    (text): text is string => typeof text === 'string' && text.trim() !== '',
  );
  return texts.length === 0 || texts.some((text) => SESSION_TEXTS.includes(text));
}

type RetriableConfig = InternalAxiosRequestConfig & { _sessionRetried?: boolean };

let activeRefresh: (() => Promise<string>) | null = null;
let inflightRenewal: Promise<string> | null = null;

/**
 * Renews the access token once for every caller that asks while a renewal is
 * running: the server rotates the refresh token on each use and treats a
 * replayed one as theft, so two parallel renewals would end the session.
 */
export function renewSession(): Promise<string> {
  if (!activeRefresh) {
    return Promise.reject(new Error('The API client is not connected to a session.'));
  }
  inflightRenewal ??= activeRefresh().finally(() => {
    inflightRenewal = null;
  });
  return inflightRenewal;
}

function bearerOf(config: InternalAxiosRequestConfig): string | null {
  const value = AxiosHeaders.from(config.headers).get('Authorization');
  return typeof value === 'string' && value.startsWith('Bearer ') ? value.slice(7) : null;
}

/**
 * Wires the client to the session. The store is injected rather than imported
 * so that lib/ never depends on app/ (and no import cycle appears).
 * Returns a function that removes the interceptors again.
 */
export function setupApiClient({ getToken, refresh, onUnauthorized }: ApiClientHooks): () => void {
  activeRefresh = refresh ?? null;

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
    async (error: unknown) => {
      if (
        !isAxiosError(error) ||
        error.response?.status !== 401 ||
        isCredentialCall(error.config?.url) ||
        !isSessionFailure(error)
      ) {
        throw error;
      }
      const config = error.config as RetriableConfig | undefined;
      if (!config || config._sessionRetried || !refresh) {
        onUnauthorized();
        throw error;
      }
      // One renewal and one retry per request; a second 401 ends the session.
      config._sessionRetried = true;
      let token: string;
      try {
        // A request sent with a token that has since been replaced (another
        // call renewed it meanwhile) only needs to go again.
        const held = getToken();
        token = held && held !== bearerOf(config) ? held : await renewSession();
      } catch {
        onUnauthorized();
        throw error;
      }
      config.headers = AxiosHeaders.from(config.headers);
      config.headers.set('Authorization', `Bearer ${token}`);
      return api.request(config);
    },
  );

  return () => {
    api.interceptors.request.eject(requestId);
    api.interceptors.response.eject(responseId);
    if (activeRefresh === (refresh ?? null)) activeRefresh = null;
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
