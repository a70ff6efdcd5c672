import axios, { AxiosHeaders, isAxiosError, isCancel, type InternalAxiosRequestConfig } from 'axios';
import type { ApiErrorBody, ApiResponse, FieldError, SessionData } from '@/types/api';

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
  /**
   * A call answered 403 `mfa_enrollment_required`: the session may only set
   * up a second factor, so the app leads the user to where that is done.
   */
  onMfaEnrolmentRequired?: () => void;
}

/** The 403 `error` of a call made by a session that may only enrol a second factor. */
export const MFA_ENROLMENT_REQUIRED = 'mfa_enrollment_required';

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

/**
 * The `error` codes of a 401 that mean "no usable access token": api.md's
 * bad, expired or revoked token, and the server's no-token code. Any other
 * 401 (a wrong password typed into a form...) is the screen's to report.
 */
const SESSION_ERROR_CODES = ['Invalid or expired token', 'unauthenticated'];

function isSessionFailure(error: unknown): boolean {
  const code = errorBody(error)?.error;
  return typeof code === 'string' && SESSION_ERROR_CODES.includes(code);
}

type RetriableConfig = InternalAxiosRequestConfig & { _sessionRetried?: boolean };

let activeHooks: ApiClientHooks | null = null;
let inflightRenewal: Promise<string> | null = null;

/**
 * Renews the access token once for every caller that asks while a renewal is
 * running: the server rotates the refresh token on each use and treats a
 * replayed one as theft, so two parallel renewals would end the session.
 */
export function renewSession(): Promise<string> {
  const refresh = activeHooks?.refresh;
  if (!refresh) {
    return Promise.reject(new Error('The API client is not connected to a session.'));
  }
  inflightRenewal ??= refresh().finally(() => {
    inflightRenewal = null;
  });
  return inflightRenewal;
}

/**
 * The token to repeat a request with after a session 401, or a rejection once
 * the session is over (then `onUnauthorized` has run). One renewal and one
 * retry per request: a second 401 (`retried`) ends the session.
 */
async function tokenForRetry(hooks: ApiClientHooks, sentToken: string | null, retried: boolean): Promise<string> {
  if (retried || !hooks.refresh) {
    hooks.onUnauthorized();
    throw new Error('The session has ended.');
  }
  // A request sent with a token that has since been replaced (another call
  // renewed it meanwhile) only needs to go again.
  const held = hooks.getToken();
  if (held && held !== sentToken) return held;
  try {
    return await renewSession();
  } catch (error) {
    hooks.onUnauthorized();
    throw error;
  }
}

/** The access token the API client sends, or null when signed out or not connected. */
export function currentToken(): string | null {
  return activeHooks?.getToken() ?? null;
}

/**
 * For the calls made outside axios (the message stream reads with fetch):
 * the same handling of a 401 as the client's own. Resolves with the token to
 * try again with; rejects when the 401 is not about the session, or when the
 * session is over (renewal failed, or `retried`: a 401 again after a renewal),
 * in which case the session has been cleared and the app sent to /login.
 */
export function tokenAfterUnauthorized(sentToken: string | null, body: unknown, retried = false): Promise<string> {
  if (!activeHooks || !isSessionFailure({ status: 401, data: body })) {
    return Promise.reject(new Error('The answer is not a session failure.'));
  }
  return tokenForRetry(activeHooks, sentToken, retried);
}

/**
 * POST /api/auth/refresh: a new access token for the HttpOnly refresh
 * cookie. Sent by the session renewal itself, below the data layer.
 */
export async function requestSessionRenewal(): Promise<SessionData> {
  const response = await api.post<ApiResponse<SessionData>>('/auth/refresh');
  return response.data.data;
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
export function setupApiClient(hooks: ApiClientHooks): () => void {
  const { getToken } = hooks;
  activeHooks = hooks;

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
      if (isAxiosError(error) && error.response?.status === 403 && errorBody(error)?.error === MFA_ENROLMENT_REQUIRED) {
        hooks.onMfaEnrolmentRequired?.();
        throw error;
      }
      if (
        !isAxiosError(error) ||
        error.response?.status !== 401 ||
        isCredentialCall(error.config?.url) ||
        !isSessionFailure(error)
      ) {
        throw error;
      }
      const config = error.config as RetriableConfig | undefined;
      let token: string;
      try {
        token = await tokenForRetry(hooks, config ? bearerOf(config) : null, !config || Boolean(config._sessionRetried));
      } catch {
        throw error;
      }
      if (!config) throw error;
      config._sessionRetried = true;
      config.headers = AxiosHeaders.from(config.headers);
      config.headers.set('Authorization', `Bearer ${token}`);
      return api.request(config);
    },
  );

  return () => {
    api.interceptors.request.eject(requestId);
    api.interceptors.response.eject(responseId);
    if (activeHooks === hooks) activeHooks = null;
  };
}

/**
 * A failed call as the data layer (RTK Query) keeps it: plain data, unlike an
 * AxiosError. No status means no answer came (network failure or cancelled).
 */
export interface ApiError {
  status?: number;
  /** The body of the answer, when there was one. */
  data?: unknown;
  cancelled?: boolean;
  /** Whether the request went out (an AxiosError); with no status, no answer came. */
  sent?: boolean;
  /** What went wrong, in the words of the code that failed. */
  message?: string;
}

export function toApiError(error: unknown): ApiError {
  if (isCancel(error)) return { cancelled: true };
  if (isAxiosError(error)) return { status: error.response?.status, data: error.response?.data, sent: true, message: error.message };
  return { message: error instanceof Error ? error.message : undefined };
}

/**
 * A failed load as the audit screens show it inline (product.md /audit-logs):
 * `Error data: ` and the server's message when it answered, `Error request: `
 * when no answer came, `Error message: ` for anything else.
 */
export function describeLoadError(error: unknown): string {
  const failure = (error ?? {}) as ApiError;
  if (failure.data !== undefined && failure.data !== '') {
    const body = failure.data as { message?: unknown };
    return `Error data: ${typeof body?.message === 'string' ? body.message : JSON.stringify(failure.data)}`;
  }
  if (failure.sent && failure.status === undefined) return 'Error request: the server did not answer. Please check your connection.';
  return `Error message: ${failure.message || 'Something went wrong. Please try again.'}`;
}

function isApiError(error: unknown): error is ApiError {
  return Boolean(error && typeof error === 'object' && !isAxiosError(error) && ('status' in error || 'data' in error));
}

/** The HTTP status of a failed call (an AxiosError or an ApiError), if an answer came. */
export function errorStatus(error: unknown): number | undefined {
  if (isAxiosError(error)) return error.response?.status;
  return isApiError(error) ? error.status : undefined;
}

/** The JSON error body of a failed call (an AxiosError or an ApiError). */
export function errorBody(error: unknown): ApiErrorBody | undefined {
  let data: unknown;
  if (isAxiosError(error)) data = error.response?.data;
  else if (isApiError(error)) data = error.data;
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

/** A failed call's field errors by field name (the first for each field). */
export function fieldErrorMap(error: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  const errors = errorBody(error)?.errors;
  for (const item of Array.isArray(errors) ? errors : []) {
    if (item?.field && item.message && !(item.field in out)) out[item.field] = item.message;
  }
  return out;
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
