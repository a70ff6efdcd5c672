import { PagePlaceholder } from '@/components/PagePlaceholder';

export function VerifyAccountPage() {
  return <PagePlaceholder title="Verify Your Account" note="Confirming your account with the emailed code is coming soon." />;
}
