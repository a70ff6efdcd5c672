import { PagePlaceholder } from '@/components/PagePlaceholder';

export function ViewImagesPage() {
  return <PagePlaceholder title="View Medical Images" note="Your uploaded and shared images are coming soon." />;
}
