import { PagePlaceholder } from '@/components/PagePlaceholder';

export function LoginPage() {
  return <PagePlaceholder title="Sign in" note="Signing in with your email and password is coming soon." />;
}
