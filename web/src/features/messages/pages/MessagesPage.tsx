import { PagePlaceholder } from '@/components/PagePlaceholder';

export function MessagesPage() {
  return <PagePlaceholder title="Messages" note="Secure messaging with your care team is coming soon." />;
}
