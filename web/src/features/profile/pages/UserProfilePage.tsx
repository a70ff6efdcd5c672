import { PagePlaceholder } from '@/components/PagePlaceholder';

export function UserProfilePage() {
  return <PagePlaceholder title="User Profile" note="Viewing another user's profile is coming soon." />;
}
