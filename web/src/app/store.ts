import { combineReducers, configureStore, createListenerMiddleware, isAnyOf } from '@reduxjs/toolkit';
import {
  FLUSH,
  PAUSE,
  PERSIST,
  persistReducer,
  persistStore,
  PURGE,
  REGISTER,
  REHYDRATE,
} from 'redux-persist';
// The ES build: the CommonJS one loses its default export in the production bundle.
import storage from 'redux-persist/es/storage';
import { baseApi } from '@/lib/api';
import { clearUser, sessionReducer, setUser, type SessionState } from '@/lib/session';

/**
 * product.md §3 and §9: only the user record is persisted, in localStorage
 * under the key 'root' (stored as `persist:root`). The access token stays in
 * memory and is renewed through /api/auth/refresh after a reload.
 */
export const sessionPersistConfig = {
  key: 'root',
  storage,
  whitelist: ['user'] satisfies (keyof SessionState)[],
};

const rootReducer = combineReducers({
  session: persistReducer(sessionPersistConfig, sessionReducer),
  // The server's data: in memory only, never persisted.
  [baseApi.reducerPath]: baseApi.reducer,
});

export type RootState = ReturnType<typeof rootReducer>;

/**
 * Empties the API cache when the session ends or another user signs in, so
 * that one person's data never shows to the next.
 */
function resetCacheOnUserChange() {
  const listener = createListenerMiddleware<RootState>();
  listener.startListening({
    matcher: isAnyOf(clearUser, setUser),
    effect: (action, { dispatch, getOriginalState }) => {
      const before = getOriginalState().session.user;
      if (setUser.match(action) && (before === null || before.id === action.payload.user.id)) return;
      dispatch(baseApi.util.resetApiState());
    },
  });
  return listener.middleware;
}

/** Builds the store and starts persistence; main.tsx makes the one the app uses. */
export function makeStore(preloadedState?: Partial<RootState>) {
  const store = configureStore({
    reducer: rootReducer,
    preloadedState,
    middleware: (getDefaultMiddleware) =>
      getDefaultMiddleware({
        serializableCheck: {
          // redux-persist's own actions carry functions.
          ignoredActions: [FLUSH, REHYDRATE, PAUSE, PERSIST, PURGE, REGISTER],
        },
      })
        .prepend(resetCacheOnUserChange())
        .concat(baseApi.middleware),
  });
  const persistor = persistStore(store);
  return { store, persistor };
}

export type AppStore = ReturnType<typeof makeStore>['store'];
export type AppDispatch = AppStore['dispatch'];
export type AppPersistor = ReturnType<typeof makeStore>['persistor'];
