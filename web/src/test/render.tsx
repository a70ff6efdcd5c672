import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import MockAdapter from 'axios-mock-adapter';
import { Provider } from 'react-redux';
import { createMemoryRouter, type RouteObject } from 'react-router';
import { RouterProvider } from 'react-router/dom';
import { ToastContainer } from 'react-toastify/unstyled';
import { afterEach } from 'vitest';
import { connectApiClient } from '@/app/connect-api-client';
import { routes as appRoutes } from '@/app/router';
import { makeStore } from '@/app/store';
import { setUser } from '@/lib/session';
import { api } from '@/lib/api-client';
import type { User } from '@/types/api';

const cleanups: (() => void)[] = [];

afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

/** A mock of the one axios instance, removed after the test. */
export function mockApi(): MockAdapter {
  const mock = new MockAdapter(api);
  cleanups.push(() => mock.restore());
  return mock;
}

interface RenderOptions {
  user?: User;
  token?: string;
  routes?: RouteObject[];
}

/**
 * Renders the app's routes (or the given ones) at `path` with a fresh store,
 * the API client connected to it, and the toast container.
 */
export function renderRoute(path: string, { user, token, routes = appRoutes }: RenderOptions = {}) {
  const store = freshStore({ user, token });
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  cleanups.push(connectApiClient(store, (to, options) => router.navigate(to, options)));
  const view = render(
    <Provider store={store}>
      <RouterProvider router={router} />
      <ToastContainer position="bottom-left" autoClose={5000} />
    </Provider>,
  );
  return { ...view, store, router };
}

/**
 * Renders one component with a fresh store (its API cache included), the API
 * client connected to it, and the toast container; a 401 that ends the
 * session calls `navigate`.
 */
export function renderWithStore(
  ui: ReactNode,
  { user, token, navigate = () => {} }: Omit<RenderOptions, 'routes'> & { navigate?: (to: string) => unknown } = {},
) {
  const store = freshStore({ user, token });
  cleanups.push(connectApiClient(store, navigate));
  const view = render(
    <Provider store={store}>
      {ui}
      <ToastContainer position="bottom-left" autoClose={5000} />
    </Provider>,
  );
  return { ...view, store };
}

function freshStore({ user, token }: Omit<RenderOptions, 'routes'>) {
  const { store } = makeStore();
  if (user) store.dispatch(setUser({ user, token }));
  return store;
}
