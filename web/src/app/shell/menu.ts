export interface MenuItem {
  to: string;
  label: string;
}

interface MenuRule extends MenuItem {
  /** Whether a role sees the item. */
  shownTo: (role: string) => boolean;
}

const everyone = () => true;

// product.md §2 "Side menu by role", in its order.
const MENU: MenuRule[] = [
  { to: '/dashboard', label: 'Dashboard', shownTo: (role) => role === 'admin' || role === 'healthProvider' },
  { to: '/profile', label: 'Profile', shownTo: everyone },
  { to: '/upload', label: 'Upload Image', shownTo: (role) => role !== 'patient' },
  { to: '/view-images', label: 'View Images', shownTo: everyone },
  { to: '/messages', label: 'Messages', shownTo: everyone },
  { to: '/audit-logs', label: 'Audit Logs', shownTo: (role) => role === 'admin' || role === 'healthProvider' },
  { to: '/roles-permissions', label: 'Roles', shownTo: (role) => role === 'admin' },
  { to: '/appsettings', label: 'Settings', shownTo: (role) => role === 'admin' },
  { to: '/', label: 'Home', shownTo: everyone },
];

/** The side menu's entries for a role. */
export function menuFor(role: string): MenuItem[] {
  return MENU.filter((item) => item.shownTo(role)).map(({ to, label }) => ({ to, label }));
}
