import { PagePlaceholder } from '@/components/PagePlaceholder';

export function ResetPasswordPage() {
  return <PagePlaceholder title="Reset password" note="Choosing a new password is coming soon." />;
}
