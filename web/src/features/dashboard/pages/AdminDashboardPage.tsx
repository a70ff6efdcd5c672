import { PagePlaceholder } from '@/components/PagePlaceholder';

export function AdminDashboardPage() {
  return <PagePlaceholder title="Secure Medical Image Sharing Dashboard" note="The administration panels are coming soon." />;
}
