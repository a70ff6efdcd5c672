import { Provider } from 'react-redux';
import { RouterProvider } from 'react-router/dom';
import { ToastContainer } from 'react-toastify/unstyled';
import { PersistGate } from 'redux-persist/integration/react';
import { Spinner } from '@/components/Spinner';
import type { AppRouter } from './router';
import { renewStoredSession } from './session-renewal';
import type { AppPersistor, AppStore } from './store';
// The unstyled entry never injects a <style> element (the server's CSP forbids
// inline styles); its stylesheet is bundled like any other CSS file instead.
import 'react-toastify/ReactToastify.css';

interface AppProps {
  store: AppStore;
  persistor: AppPersistor;
  router: AppRouter;
}

export function App({ store, persistor, router }: AppProps) {
  return (
    <Provider store={store}>
      <PersistGate
        loading={<Spinner label="Loading MediShare…" />}
        persistor={persistor}
        onBeforeLift={() => renewStoredSession(store)}
      >
        <RouterProvider router={router} />
      </PersistGate>
      <ToastContainer position="bottom-left" autoClose={5000} newestOnTop />
    </Provider>
  );
}
