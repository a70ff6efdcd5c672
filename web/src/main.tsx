import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { connectApiClient } from './app/connect-api-client';
import { createAppRouter } from './app/router';
import { makeStore } from './app/store';
import { connectMessageStream } from './features/messages/stream/connect';
import './styles/global.css';

const { store, persistor } = makeStore();
const router = createAppRouter();
connectApiClient(store, (to, options) => router.navigate(to, options));
// One message stream per browser while signed in; it feeds the API cache.
connectMessageStream(store);

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

createRoot(root).render(
  <StrictMode>
    <App store={store} persistor={persistor} router={router} />
  </StrictMode>,
);
