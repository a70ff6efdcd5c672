import { PagePlaceholder } from '@/components/PagePlaceholder';

export function ForgotPasswordPage() {
  return <PagePlaceholder title="Forgot password" note="Requesting a password reset code is coming soon." />;
}
