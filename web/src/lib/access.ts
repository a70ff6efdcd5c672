import type { User } from '@/types/api';
import type { MedicalImage } from '@/types/images';

// What the signed-in person may see and do, read from the permissions the
// server states on their own user record (api.md "Roles and permissions").
// The app mirrors the server, which decides: nothing here asks for a role by
// name, so a change of role_permissions shows in the app at the next
// sign-in or renewal. docs/security.md ("Who may do what") maps each menu
// item, screen and action to the permission the server enforces for it.

/** The permissions of api.md and migrations/00018_admin_permissions.sql. */
export type Permission =
  | 'images:upload'
  | 'images:share'
  | 'images:delete'
  | 'images:view-shared'
  | 'images:read-all'
  | 'images:manage-all'
  | 'analysis:run'
  | 'users:list'
  | 'users:manage'
  | 'audit:read'
  | 'audit:read-all'
  | 'roles:read'
  | 'settings:manage'
  | 'messages:send'
  | 'system:monitor';

type Someone = (Pick<User, 'id' | 'permissions'> & Pick<Partial<User>, 'mfa'>) | null | undefined;

/** Whether the user holds the permission; a record without permissions holds none. */
export function can(user: Someone, permission: Permission): boolean {
  return Array.isArray(user?.permissions) && user.permissions.includes(permission);
}

/**
 * Whether the record states permissions at all: one kept from before the
 * server stated them does not, and must be renewed before it is trusted.
 */
export function statesPermissions(user: Someone): boolean {
  return Array.isArray(user?.permissions);
}

/**
 * Share or delete an image (`own`: images:share or images:delete): one's own
 * uploads with that permission, any image with images:manage-all besides
 * (the server's `Principal.Manages`).
 */
export function manages(user: Someone, image: Pick<MedicalImage, 'uploadedBy'>, own: 'images:share' | 'images:delete'): boolean {
  if (!user || !can(user, own)) return false;
  return image.uploadedBy?.id === user.id || can(user, 'images:manage-all');
}

/**
 * /dashboard and GET /api/dashboard/stats: the whole system's counts with
 * system:monitor, one's own uploads' with images:upload.
 */
export function mayUseDashboard(user: Someone): boolean {
  return can(user, 'system:monitor') || can(user, 'images:upload');
}

/**
 * How the user reads the audit log (the scope the server gives them): the
 * whole log (audit:read-all) or that of one's uploads and own actions
 * (images:upload) on the Audit Logs screen; otherwise the access history of
 * the images about them, on their profile.
 */
export function auditView(user: Someone): 'log' | 'history' | null {
  if (!can(user, 'audit:read')) return null;
  return can(user, 'audit:read-all') || can(user, 'images:upload') ? 'log' : 'history';
}

/**
 * An enrolment-only session: the user's role requires a second factor and
 * they have none yet, so the server answers nothing but the enrolment calls
 * until they set one up (on /profile).
 */
export function needsMfaEnrolment(user: Pick<User, 'mfa'> | null | undefined): boolean {
  const mfa = user?.mfa;
  return Boolean(mfa?.required && !mfa.totp && mfa.passkeys === 0);
}

/** Where an enrolment-only session is kept, on the Security section. */
export const MFA_ENROLMENT_ROUTE = '/profile';

/**
 * Where a person lands after signing in (product.md §2 and §6): their
 * dashboard, or their images; the Security section of their profile while
 * their role requires a second factor they do not have.
 */
export function homeRouteFor(user: Someone): string {
  if (needsMfaEnrolment(user)) return MFA_ENROLMENT_ROUTE;
  return mayUseDashboard(user) ? '/dashboard' : '/view-images';
}
