import { isAxiosError } from 'axios';
import MockAdapter from 'axios-mock-adapter';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  api,
  currentToken,
  errorBody,
  errorStatus,
  getErrorMessage,
  getErrorMessages,
  renewSession,
  requestSessionRenewal,
  setupApiClient,
  toApiError,
  tokenAfterUnauthorized,
  describeLoadError,
  fieldErrorMap,
} from './api-client';

let mock: MockAdapter;
let teardown: (() => void) | undefined;

beforeEach(() => {
  mock = new MockAdapter(api);
});

afterEach(() => {
  teardown?.();
  teardown = undefined;
  mock.restore();
});

/** The error axios rejects with for the given reply. */
async function failWith(status: number, body?: unknown): Promise<unknown> {
  mock.onGet('/fails').reply(status, body);
  return api.get('/fails').then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error,
  );
}

describe('api client', () => {
  it('calls under /api with credentials', () => {
    expect(api.defaults.baseURL).toBe('/api');
    expect(api.defaults.withCredentials).toBe(true);
  });

  it('adds the bearer header when a token is held', async () => {
    teardown = setupApiClient({ getToken: () => 'tok-123', onUnauthorized: vi.fn() });
    mock.onGet('/users/profile').reply(200, { data: {} });

    await api.get('/users/profile');

    expect(mock.history.get[0].headers?.Authorization).toBe('Bearer tok-123');
  });

  it('sends no Authorization header when no token is held', async () => {
    teardown = setupApiClient({ getToken: () => null, onUnauthorized: vi.fn() });
    mock.onGet('/users/profile').reply(200, { data: {} });

    await api.get('/users/profile');

    expect(mock.history.get[0].headers?.Authorization).toBeUndefined();
  });

  it('reads the token at request time', async () => {
    let token: string | null = null;
    teardown = setupApiClient({ getToken: () => token, onUnauthorized: vi.fn() });
    mock.onGet('/ping').reply(200);

    await api.get('/ping');
    token = 'later';
    await api.get('/ping');

    expect(mock.history.get[0].headers?.Authorization).toBeUndefined();
    expect(mock.history.get[1].headers?.Authorization).toBe('Bearer later');
  });

  it('reports a 401 and still rejects the call', async () => {
    const onUnauthorized = vi.fn();
    teardown = setupApiClient({ getToken: () => 'expired', onUnauthorized });

    const error = await failWith(401, { message: 'Invalid or expired token', error: 'Invalid or expired token' });

    expect(onUnauthorized).toHaveBeenCalledTimes(1);
    expect(isAxiosError(error)).toBe(true);
  });

  it('does not treat other failures as a lost session', async () => {
    const onUnauthorized = vi.fn();
    teardown = setupApiClient({ getToken: () => 'tok', onUnauthorized });

    await failWith(403, { message: 'Forbidden.' });
    await failWith(500, { message: 'Internal server error.' });

    expect(onUnauthorized).not.toHaveBeenCalled();
  });

  it('leaves a 401 from the login call to the login screen', async () => {
    const onUnauthorized = vi.fn();
    teardown = setupApiClient({ getToken: () => null, onUnauthorized });
    mock.onPost('/auth/login').reply(401, { message: 'Invalid email or password.' });

    await expect(api.post('/auth/login', {})).rejects.toMatchObject({ response: { status: 401 } });
    expect(onUnauthorized).not.toHaveBeenCalled();
  });

  it('stops intercepting after teardown', async () => {
    const onUnauthorized = vi.fn();
    setupApiClient({ getToken: () => 'tok', onUnauthorized })();
    mock.onGet('/ping').reply(401);

    await expect(api.get('/ping')).rejects.toMatchObject({ response: { status: 401 } });
    expect(mock.history.get[0].headers?.Authorization).toBeUndefined();
    expect(onUnauthorized).not.toHaveBeenCalled();
  });
});

describe('session renewal on a 401', () => {
  const expired = { message: 'Invalid or expired token', error: 'Invalid or expired token' };
  const noToken = { message: 'Unauthenticated.', error: 'unauthenticated' };

  /** A token held in memory that the refresh hook replaces, like the store does. */
  function session(initial: string | null = 'old') {
    let token = initial;
    const refresh = vi.fn(async () => {
      token = 'new';
      return token;
    });
    return { getToken: () => token, refresh };
  }

  /** Answers 200 only to the renewed token; returns the headers seen, in order. */
  function profileNeedsNewToken(): unknown[] {
    const seen: unknown[] = [];
    mock.onGet('/users/profile').reply((config) => {
      seen.push(config.headers?.Authorization);
      return config.headers?.Authorization === 'Bearer new' ? [200, { data: { id: 'me' } }] : [401, expired];
    });
    return seen;
  }

  it('renews once for concurrent 401s and repeats every call with the new token', async () => {
    const onUnauthorized = vi.fn();
    let refreshes = 0;
    let release: () => void = () => {};
    const refreshed = new Promise<void>((resolve) => {
      release = resolve;
    });
    let token = 'old';
    teardown = setupApiClient({
      getToken: () => token,
      refresh: async () => {
        refreshes += 1;
        await refreshed;
        token = 'new';
        return token;
      },
      onUnauthorized,
    });
    const seen = profileNeedsNewToken();

    const calls = [api.get('/users/profile'), api.get('/users/profile'), api.get('/users/profile')];
    await vi.waitFor(() => expect(refreshes).toBe(1));
    release();
    const answers = await Promise.all(calls);

    expect(refreshes).toBe(1);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(onUnauthorized).not.toHaveBeenCalled();
    expect(seen).toEqual(['Bearer old', 'Bearer old', 'Bearer old', 'Bearer new', 'Bearer new', 'Bearer new']);
  });

  it('repeats without renewing when another call already replaced the token', async () => {
    let token = 'old';
    const refresh = vi.fn(async () => 'unused');
    teardown = setupApiClient({ getToken: () => token, refresh, onUnauthorized: vi.fn() });
    mock.onGet('/users/profile').reply((config) => {
      // The token changes while this request is on its way.
      token = 'new';
      return config.headers?.Authorization === 'Bearer new' ? [200, {}] : [401, expired];
    });

    await expect(api.get('/users/profile')).resolves.toMatchObject({ status: 200 });
    expect(refresh).not.toHaveBeenCalled();
  });

  it('ends the session when the renewal fails', async () => {
    const onUnauthorized = vi.fn();
    const refresh = vi.fn(() => Promise.reject(new Error('refresh refused')));
    teardown = setupApiClient({ getToken: () => 'old', refresh, onUnauthorized });
    mock.onGet('/users/profile').reply(401, expired);

    await expect(api.get('/users/profile')).rejects.toMatchObject({ response: { status: 401 } });
    expect(refresh).toHaveBeenCalledTimes(1);
    expect(onUnauthorized).toHaveBeenCalledTimes(1);
    expect(mock.history.get).toHaveLength(1);
  });

  it('ends the session when the repeated call is refused again, without a second renewal', async () => {
    const onUnauthorized = vi.fn();
    const { getToken, refresh } = session();
    teardown = setupApiClient({ getToken, refresh, onUnauthorized });
    mock.onGet('/users/profile').reply(401, noToken);

    await expect(api.get('/users/profile')).rejects.toMatchObject({ response: { status: 401 } });
    expect(refresh).toHaveBeenCalledTimes(1);
    expect(onUnauthorized).toHaveBeenCalledTimes(1);
    expect(mock.history.get).toHaveLength(2);
  });

  it.each([
    ['the bad-token code', expired],
    ['the no-token code', noToken],
  ])('renews on a 401 carrying %s', async (_name, body) => {
    const onUnauthorized = vi.fn();
    const { getToken, refresh } = session();
    teardown = setupApiClient({ getToken, refresh, onUnauthorized });
    mock.onGet('/users/profile').reply((config) =>
      config.headers?.Authorization === 'Bearer new' ? [200, { data: { id: 'me' } }] : [401, body],
    );

    await expect(api.get('/users/profile')).resolves.toMatchObject({ status: 200 });
    expect(refresh).toHaveBeenCalledTimes(1);
    expect(onUnauthorized).not.toHaveBeenCalled();
  });

  it.each([
    ['the no-token text without its code', { message: 'Unauthenticated.' }],
    ['the bad-token text only as a message', { message: 'Invalid or expired token' }],
    ['another code', { message: 'Invalid or expired token', error: 'wrong_password' }],
    ['no body', undefined],
  ])('decides by the error code, not the text: a 401 with %s is left to the screen', async (_name, body) => {
    const onUnauthorized = vi.fn();
    const { getToken, refresh } = session();
    teardown = setupApiClient({ getToken, refresh, onUnauthorized });
    mock.onGet('/users/profile').reply(401, body);

    await expect(api.get('/users/profile')).rejects.toMatchObject({ response: { status: 401 } });
    expect(refresh).not.toHaveBeenCalled();
    expect(onUnauthorized).not.toHaveBeenCalled();
  });

  it.each(['/auth/login', '/auth/refresh', '/auth/logout'])('never renews for %s', async (url) => {
    const onUnauthorized = vi.fn();
    const { getToken, refresh } = session();
    teardown = setupApiClient({ getToken, refresh, onUnauthorized });
    mock.onPost(url).reply(401, expired);

    await expect(api.post(url)).rejects.toMatchObject({ response: { status: 401 } });
    expect(refresh).not.toHaveBeenCalled();
    expect(onUnauthorized).not.toHaveBeenCalled();
  });

  it('leaves a 401 about something else than the session to the screen', async () => {
    const onUnauthorized = vi.fn();
    const { getToken, refresh } = session();
    teardown = setupApiClient({ getToken, refresh, onUnauthorized });
    mock.onDelete('/users/profile').reply(401, { message: 'The password is not correct.' });

    await expect(api.delete('/users/profile', { data: { password: 'x' } })).rejects.toMatchObject({
      response: { status: 401 },
    });
    expect(refresh).not.toHaveBeenCalled();
    expect(onUnauthorized).not.toHaveBeenCalled();
  });

  it('renewSession shares one renewal between callers and allows a new one afterwards', async () => {
    const { getToken, refresh } = session();
    teardown = setupApiClient({ getToken, refresh, onUnauthorized: vi.fn() });

    const [first, second] = await Promise.all([renewSession(), renewSession()]);
    expect([first, second]).toEqual(['new', 'new']);
    expect(refresh).toHaveBeenCalledTimes(1);

    await renewSession();
    expect(refresh).toHaveBeenCalledTimes(2);
  });

  it('renewSession fails when no session is connected', async () => {
    await expect(renewSession()).rejects.toThrow(/not connected/);
  });

  it('requestSessionRenewal posts to /auth/refresh and gives the new token and user', async () => {
    mock.onPost('/auth/refresh').reply(200, { data: { token: 'fresh', user: { id: 'me' } } });
    await expect(requestSessionRenewal()).resolves.toEqual({ token: 'fresh', user: { id: 'me' } });
  });
});

describe('tokenAfterUnauthorized (calls made with fetch: the message stream)', () => {
  const expired = { message: 'Invalid or expired token', error: 'Invalid or expired token' };

  function connect(options: { refreshFails?: boolean } = {}) {
    let token: string | null = 'old';
    const refresh = vi.fn(async () => {
      if (options.refreshFails) throw new Error('no refresh cookie');
      token = 'new';
      return token;
    });
    const onUnauthorized = vi.fn();
    teardown = setupApiClient({ getToken: () => token, refresh, onUnauthorized });
    return { refresh, onUnauthorized };
  }

  it('gives the token the client sends', () => {
    expect(currentToken()).toBeNull();
    connect();
    expect(currentToken()).toBe('old');
  });

  it('renews the session through the shared renewal and gives the new token', async () => {
    const { refresh, onUnauthorized } = connect();
    const [first, second] = await Promise.all([
      tokenAfterUnauthorized('old', expired),
      // An axios call failing at the same moment joins the same renewal.
      renewSession(),
    ]);
    expect([first, second]).toEqual(['new', 'new']);
    expect(refresh).toHaveBeenCalledTimes(1);
    expect(onUnauthorized).not.toHaveBeenCalled();
  });

  it('gives the held token without renewing when it has changed since the call went out', async () => {
    const { refresh } = connect();
    await expect(tokenAfterUnauthorized('older', expired)).resolves.toBe('old');
    expect(refresh).not.toHaveBeenCalled();
  });

  it('ends the session when the renewal fails, or on a second 401 after one', async () => {
    const failing = connect({ refreshFails: true });
    await expect(tokenAfterUnauthorized('old', expired)).rejects.toThrow();
    expect(failing.onUnauthorized).toHaveBeenCalledTimes(1);
    teardown?.();

    const renewed = connect();
    await expect(tokenAfterUnauthorized('new', expired, true)).rejects.toThrow();
    expect(renewed.refresh).not.toHaveBeenCalled();
    expect(renewed.onUnauthorized).toHaveBeenCalledTimes(1);
  });

  it('leaves a 401 that is not about the session alone', async () => {
    const { refresh, onUnauthorized } = connect();
    await expect(tokenAfterUnauthorized('old', { message: 'Wrong password.' })).rejects.toThrow(/not a session failure/);
    expect(refresh).not.toHaveBeenCalled();
    expect(onUnauthorized).not.toHaveBeenCalled();
  });
});

describe('errors as the data layer keeps them', () => {
  it('toApiError keeps the status and the body, as plain data', async () => {
    const error = await failWith(409, { message: 'Username already taken.' });
    expect(toApiError(error)).toEqual({
      status: 409,
      data: { message: 'Username already taken.' },
      sent: true,
      message: 'Request failed with status code 409',
    });
  });

  it('toApiError marks a cancelled call and a call without an answer', async () => {
    const controller = new AbortController();
    controller.abort();
    mock.onGet('/slow').reply(200);
    const cancelled = await api.get('/slow', { signal: controller.signal }).catch((e: unknown) => e);
    expect(toApiError(cancelled)).toEqual({ cancelled: true });
    mock.onGet('/offline').networkError();
    const offline = await api.get('/offline').catch((e: unknown) => e);
    expect(toApiError(offline)).toEqual({ status: undefined, data: undefined, sent: true, message: 'Network Error' });
    expect(toApiError(new Error('boom'))).toEqual({ message: 'boom' });
  });

  it('describes a failed load with the three inline texts of the audit screens', async () => {
    expect(describeLoadError(toApiError(await failWith(422, { message: 'Please check the filters.' })))).toBe(
      'Error data: Please check the filters.',
    );
    mock.onGet('/offline').networkError();
    const offline = await api.get('/offline').catch((e: unknown) => e);
    expect(describeLoadError(toApiError(offline))).toMatch(/^Error request: /);
    expect(describeLoadError(toApiError(new Error('boom')))).toBe('Error message: boom');
  });

  it('keeps the field errors of a failed call by field', () => {
    const error = { status: 422, data: { errors: [{ field: 'to', message: 'must be after from' }, { field: 'to', message: 'second' }] } };
    expect(fieldErrorMap(error)).toEqual({ to: 'must be after from' });
    expect(fieldErrorMap({ status: 500 })).toEqual({});
  });

  it('reads the status, the body and the texts of an ApiError like those of an AxiosError', () => {
    const error = { status: 422, data: { message: 'Validation failed.', errors: [{ field: 'phone', message: 'is too long' }] } };
    expect(errorStatus(error)).toBe(422);
    expect(errorBody(error)?.message).toBe('Validation failed.');
    expect(getErrorMessage(error, 'fb')).toBe('Validation failed.');
    expect(getErrorMessages(error)).toEqual(['phone: is too long']);
    expect(getErrorMessage({ status: 500 }, 'fb')).toBe('fb');
    expect(getErrorMessage({ cancelled: true }, 'fb')).toBe('fb');
    // RTK Query's own (serialized) errors carry no answer.
    expect(errorStatus({ name: 'AbortError', message: 'Aborted' })).toBeUndefined();
    expect(getErrorMessage({ name: 'AbortError', message: 'Aborted' }, 'fb')).toBe('fb');
  });
});

describe('getErrorMessage', () => {
  it('prefers the message of the body', async () => {
    const error = await failWith(400, { message: 'Please enter a valid email.', error: 'bad_request' });
    expect(getErrorMessage(error, 'fallback')).toBe('Please enter a valid email.');
  });

  it('uses error when there is no message', async () => {
    const error = await failWith(401, { error: 'Invalid or expired token' });
    expect(getErrorMessage(error, 'fallback')).toBe('Invalid or expired token');
  });

  it('reads a nested error message', async () => {
    const error = await failWith(400, { error: { message: 'Code expired.' } });
    expect(getErrorMessage(error, 'fallback')).toBe('Code expired.');
  });

  it('falls back to the field errors', async () => {
    const error = await failWith(422, {
      errors: [
        { field: 'email', message: 'is required' },
        { field: 'username', message: 'is taken' },
      ],
    });
    expect(getErrorMessage(error, 'fallback')).toBe('email: is required\nusername: is taken');
  });

  it('uses the fallback without a usable body', async () => {
    expect(getErrorMessage(await failWith(500), 'Login failed. Please try again.')).toBe(
      'Login failed. Please try again.',
    );
    expect(getErrorMessage(await failWith(502, '<html>Bad gateway</html>'), 'fb')).toBe('fb');
    expect(getErrorMessage(await failWith(400, { message: '   ' }), 'fb')).toBe('fb');
    expect(getErrorMessage(new Error('boom'), 'fb')).toBe('fb');
    expect(getErrorMessage(undefined)).toBe('Something went wrong. Please try again.');
  });

  it('uses the fallback for a network error', async () => {
    mock.onGet('/offline').networkError();
    const error = await api.get('/offline').catch((e: unknown) => e);
    expect(getErrorMessage(error, 'An error occurred. Please try again.')).toBe(
      'An error occurred. Please try again.',
    );
  });
});

describe('getErrorMessages', () => {
  it('gives one text per field error', async () => {
    const error = await failWith(422, {
      message: 'Validation failed.',
      errors: [
        { field: 'email', message: 'is required' },
        { field: 'phone', message: 'is too long' },
      ],
    });
    expect(getErrorMessages(error)).toEqual(['email: is required', 'phone: is too long']);
  });

  it('gives the single message otherwise', async () => {
    expect(getErrorMessages(await failWith(409, { message: 'Username already taken.' }))).toEqual([
      'Username already taken.',
    ]);
    expect(getErrorMessages(await failWith(500))).toEqual(['An error occurred. Please try again.']);
  });
});
