import { configureStore } from '@reduxjs/toolkit';
import MockAdapter from 'axios-mock-adapter';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { baseApi, isCancelled, USER_LIST } from './api';
import { api as httpClient, setupApiClient } from './api-client';

// Endpoints of the kinds the features declare, against the real base query.
const testApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    readThing: build.query<{ data: string }, { page: number }>({
      query: ({ page }) => ({ url: '/things', params: { page, limit: 10 } }),
      providesTags: [USER_LIST],
    }),
    writeThing: build.mutation<{ message: string }, { name: string }>({
      query: (body) => ({ url: '/things', method: 'POST', body }),
      invalidatesTags: [USER_LIST],
    }),
    sendFile: build.mutation<unknown, { onProgress: (loaded: number) => void }>({
      query: ({ onProgress }) => ({
        url: '/files',
        method: 'POST',
        body: new FormData(),
        onUploadProgress: (event) => onProgress(event.loaded),
      }),
    }),
  }),
});

let mock: MockAdapter;
let disconnect: () => void = () => {};

function makeTestStore() {
  return configureStore({
    reducer: { [baseApi.reducerPath]: baseApi.reducer },
    middleware: (getDefaultMiddleware) => getDefaultMiddleware().concat(baseApi.middleware),
  });
}

beforeEach(() => {
  mock = new MockAdapter(httpClient);
});

afterEach(() => {
  disconnect();
  mock.restore();
});

describe('the RTK Query base query', () => {
  it('calls through the one axios client, with its token and the params', async () => {
    disconnect = setupApiClient({ getToken: () => 'tok', onUnauthorized: vi.fn() });
    mock.onGet('/things').reply(200, { data: 'first page' });
    const store = makeTestStore();

    const result = await store.dispatch(testApi.endpoints.readThing.initiate({ page: 1 }));

    expect(result.data).toEqual({ data: 'first page' });
    expect(mock.history.get[0].params).toEqual({ page: 1, limit: 10 });
    expect(mock.history.get[0].headers?.Authorization).toBe('Bearer tok');
  });

  it('keeps a failure as plain data: the status and the body', async () => {
    disconnect = setupApiClient({ getToken: () => 'tok', onUnauthorized: vi.fn() });
    mock.onPost('/things').reply(409, { message: 'Taken.' });
    const store = makeTestStore();

    const failure = await store
      .dispatch(testApi.endpoints.writeThing.initiate({ name: 'x' }))
      .unwrap()
      .catch((error: unknown) => error);

    expect(failure).toMatchObject({ status: 409, data: { message: 'Taken.' }, sent: true });
  });

  it('lets the client renew the session on a 401 and gives the query the repeated answer', async () => {
    let token = 'old';
    const refresh = vi.fn(async () => {
      token = 'new';
      return token;
    });
    disconnect = setupApiClient({ getToken: () => token, refresh, onUnauthorized: vi.fn() });
    mock.onGet('/things').reply((config) =>
      config.headers?.Authorization === 'Bearer new'
        ? [200, { data: 'renewed' }]
        : [401, { message: 'Invalid or expired token', error: 'Invalid or expired token' }],
    );
    const store = makeTestStore();

    const result = await store.dispatch(testApi.endpoints.readThing.initiate({ page: 1 }));

    expect(result.data).toEqual({ data: 'renewed' });
    expect(refresh).toHaveBeenCalledTimes(1);
  });

  it('reports upload progress through axios', async () => {
    disconnect = setupApiClient({ getToken: () => 'tok', onUnauthorized: vi.fn() });
    mock.onPost('/files').reply((config) => {
      config.onUploadProgress?.({ loaded: 42, total: 100, bytes: 42, upload: true, lengthComputable: true });
      return [201, {}];
    });
    const onProgress = vi.fn();
    const store = makeTestStore();

    await store.dispatch(testApi.endpoints.sendFile.initiate({ onProgress })).unwrap();

    expect(onProgress).toHaveBeenCalledWith(42);
  });

  it('cancels a call in flight when its promise is aborted', async () => {
    disconnect = setupApiClient({ getToken: () => 'tok', onUnauthorized: vi.fn() });
    let signal: AbortSignal | undefined;
    mock.onPost('/files').reply(
      (config) =>
        new Promise((_, reject) => {
          signal = config.signal as AbortSignal;
          signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
        }),
    );
    const store = makeTestStore();

    const request = store.dispatch(testApi.endpoints.sendFile.initiate({ onProgress: vi.fn() }));
    await vi.waitFor(() => expect(signal).toBeDefined());
    request.abort();
    const failure = await request.unwrap().catch((error: unknown) => error);

    expect(isCancelled(failure)).toBe(true);
    expect(signal?.aborted).toBe(true);
  });

  it('refetches a query whose tag a mutation invalidates', async () => {
    disconnect = setupApiClient({ getToken: () => 'tok', onUnauthorized: vi.fn() });
    mock.onGet('/things').replyOnce(200, { data: 'before' });
    mock.onGet('/things').reply(200, { data: 'after' });
    mock.onPost('/things').reply(201, { message: 'Saved.' });
    const store = makeTestStore();
    store.dispatch(testApi.endpoints.readThing.initiate({ page: 1 }));
    await vi.waitFor(() =>
      expect(testApi.endpoints.readThing.select({ page: 1 })(store.getState()).data).toEqual({ data: 'before' }),
    );

    await store.dispatch(testApi.endpoints.writeThing.initiate({ name: 'x' })).unwrap();

    await vi.waitFor(() =>
      expect(testApi.endpoints.readThing.select({ page: 1 })(store.getState()).data).toEqual({ data: 'after' }),
    );
    expect(mock.history.get).toHaveLength(2);
  });
});

describe('isCancelled', () => {
  it('knows an aborted call from a failed one', () => {
    expect(isCancelled({ name: 'AbortError', message: 'Aborted' })).toBe(true);
    expect(isCancelled({ cancelled: true })).toBe(true);
    expect(isCancelled({ status: 500 })).toBe(false);
    expect(isCancelled(undefined)).toBe(false);
  });
});
