import type { ProfileMembers } from '@/lib/profile-fields';

/** Role names of api.md; user objects carry the role as a plain string. */
export type RoleName = 'patient' | 'healthProvider' | 'admin';

/**
 * The user object of api.md ("Users"): the account's members and the
 * profile's (lib/profile-fields.ts; optional ones may be null or absent).
 */
export interface User extends ProfileMembers {
  id: string;
  email: string;
  username: string;
  role: RoleName | (string & {});
  active: boolean;
  verified: boolean;
  /** False for a provider waiting for an admin's approval (absent from older answers: approved). */
  approved?: boolean;
  createdAt?: string;
  /**
   * What the user may do: on the caller's own record only (sign-in, renewal,
   * the profile). The menu, guards and actions follow it (lib/access.ts);
   * absent from a record kept from before the server stated it.
   */
  permissions?: string[];
  /** The second factors (docs: MFA contract); absent from answers of a server without them. */
  mfa?: MfaState;
}

/**
 * `mfa` of the user object: whether the authenticator is on, how many
 * passkeys there are, and whether the user's role must have a second factor.
 */
export interface MfaState {
  totp: boolean;
  passkeys: number;
  /** Absent from the user objects of others (the admin's list may omit it). */
  required?: boolean;
}

/** A field error of the error body. */
export interface FieldError {
  field: string;
  message: string;
}

/** The error body every /api error uses (api.md "Conventions"). */
export interface ApiErrorBody {
  message?: string;
  error?: string;
  errors?: FieldError[];
  /** A password reset that also needs a second factor's code. */
  mfaRequired?: boolean;
}

/** The success envelope: `{message, data}`. */
export interface ApiResponse<T> {
  message?: string;
  data: T;
}

/** `data` of the login and refresh answers. */
export interface SessionData {
  token: string;
  user: User;
}

/** The second factors that can finish a sign-in. */
export type MfaMethod = 'totp' | 'recovery' | 'webauthn';

/** `data` of a sign-in that needs a second step: no token yet. */
export interface MfaChallenge {
  mfaRequired: true;
  mfaToken: string;
  methods: MfaMethod[];
}

/** The pagination block of paged lists (api.md "Conventions"). */
export interface Pagination {
  currentPage: number;
  pageSize: number;
  totalPages: number;
  totalItems: number;
  hasPrevPage: boolean;
  hasNextPage: boolean;
  /** totalItems is a lower bound: a search matching many people stops counting them. */
  totalAtLeast?: boolean;
}

/** A paged list: `{message, data: [...], pagination}`. */
export interface PagedResponse<T> {
  message?: string;
  data: T[];
  pagination: Pagination;
}
