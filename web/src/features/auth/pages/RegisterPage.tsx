import { PagePlaceholder } from '@/components/PagePlaceholder';

export function RegisterPage() {
  return <PagePlaceholder title="Create your account" note="Registration in four steps is coming soon." />;
}
