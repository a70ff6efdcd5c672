/** product.md §9: redirect delays. */
export const LOGIN_REDIRECT_MS = 2000;
export const REGISTER_REDIRECT_MS = 1000;
export const VERIFY_REDIRECT_MS = 1000;
