import { PagePlaceholder } from '@/components/PagePlaceholder';

export function SettingsPage() {
  return <PagePlaceholder title="Settings" note="Application settings are coming soon." />;
}
