// Public face of the auth feature for the rest of the app.
export {
  clearUser,
  selectIsSignedIn,
  selectToken,
  selectUser,
  setUser,
  updateUser,
  type SessionState,
} from './session-slice';
export { useLogout } from './use-logout';
export { homeRouteFor } from './home-route';
