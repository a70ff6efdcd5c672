import { PagePlaceholder } from '@/components/PagePlaceholder';

export function ShareImagePage() {
  return <PagePlaceholder title="Share Your Image" note="The sharing demo is coming soon." />;
}
