import { PagePlaceholder } from '@/components/PagePlaceholder';

export function AuditLogsPage() {
  return <PagePlaceholder title="Audit Logs" note="The audit log is coming soon." />;
}
