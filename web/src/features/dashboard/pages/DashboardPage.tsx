import { PagePlaceholder } from '@/components/PagePlaceholder';

export function DashboardPage() {
  return <PagePlaceholder title="Dashboard" note="Your statistics and the user table are coming soon." />;
}
