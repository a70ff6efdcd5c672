import { PagePlaceholder } from '@/components/PagePlaceholder';

export function UploadImagePage() {
  return <PagePlaceholder title="Upload Medical Image" note="Uploading images for a patient is coming soon." />;
}
