import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { User } from '@/types/api';

// The signed-in session (product.md §3): shared by every feature and by the
// API client's renewal, so it lives in lib/ rather than in a feature.

export interface SessionState {
  /** Access token: kept in memory only, never persisted. */
  token: string | null;
  user: User | null;
}

const initialState: SessionState = { token: null, user: null };

export const sessionSlice = createSlice({
  name: 'session',
  initialState,
  reducers: {
    /** Stores the user, and the token when one is given. */
    setUser(state, action: PayloadAction<{ user: User; token?: string | null }>) {
      state.user = action.payload.user;
      if (action.payload.token !== undefined) {
        state.token = action.payload.token;
      }
    },
    /** Merges the given fields into the user, or sets them as the user if none is held. */
    updateUser(state, action: PayloadAction<Partial<User>>) {
      state.user = state.user
        ? { ...state.user, ...action.payload }
        : (action.payload as User);
    },
    clearUser(state) {
      state.token = null;
      state.user = null;
    },
  },
  selectors: {
    selectToken: (state) => state.token,
    selectUser: (state) => state.user,
    selectIsSignedIn: (state) => state.user !== null,
  },
});

export const { setUser, updateUser, clearUser } = sessionSlice.actions;
export const { selectToken, selectUser, selectIsSignedIn } = sessionSlice.selectors;
export const sessionReducer = sessionSlice.reducer;
