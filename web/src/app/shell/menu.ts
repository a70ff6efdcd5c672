import { auditView, can, mayUseDashboard } from '@/lib/access';
import type { User } from '@/types/api';

export interface MenuItem {
  to: string;
  label: string;
}

type Someone = User | null | undefined;

interface MenuRule extends MenuItem {
  /** Whether the user sees the item: from the permissions the server states, never the role's name. */
  shownTo: (user: Someone) => boolean;
}

const everyone = () => true;

// product.md §2 "Side menu by role", in its order, and the admin dashboard.
// Each item shows to who may use its screen (docs/security.md, "Who may do
// what"): Dashboard (admin, healthProvider); Profile; Upload Image (hidden
// for patient); View Images; Messages; Audit Logs (admin, healthProvider);
// Roles (admin only); Settings (admin only); Admin Dashboard (admin only);
// Home.
const MENU: MenuRule[] = [
  { to: '/dashboard', label: 'Dashboard', shownTo: mayUseDashboard },
  { to: '/profile', label: 'Profile', shownTo: everyone },
  { to: '/upload', label: 'Upload Image', shownTo: (user) => can(user, 'images:upload') },
  { to: '/view-images', label: 'View Images', shownTo: everyone },
  { to: '/messages', label: 'Messages', shownTo: (user) => can(user, 'messages:send') },
  { to: '/audit-logs', label: 'Audit Logs', shownTo: (user) => auditView(user) === 'log' },
  { to: '/roles-permissions', label: 'Roles', shownTo: (user) => can(user, 'roles:read') },
  { to: '/appsettings', label: 'Settings', shownTo: (user) => can(user, 'settings:manage') },
  { to: '/admin-dashboard', label: 'Admin Dashboard', shownTo: (user) => can(user, 'system:monitor') },
  { to: '/', label: 'Home', shownTo: everyone },
];

/** The side menu's entries for a user. */
export function menuFor(user: Someone): MenuItem[] {
  return MENU.filter((item) => item.shownTo(user)).map(({ to, label }) => ({ to, label }));
}
