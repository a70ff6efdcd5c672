import { PagePlaceholder } from '@/components/PagePlaceholder';

export function ProfilePage() {
  return <PagePlaceholder title="My Profile" note="Viewing and editing your profile is coming soon." />;
}
