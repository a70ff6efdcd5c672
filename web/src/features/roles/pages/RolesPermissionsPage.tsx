import { PagePlaceholder } from '@/components/PagePlaceholder';

export function RolesPermissionsPage() {
  return <PagePlaceholder title="Roles and Permissions" note="The list of roles and permissions is coming soon." />;
}
