import { PagePlaceholder } from '@/components/PagePlaceholder';

export function AiAnalysisPage() {
  return <PagePlaceholder title="AI Medical Analysis" note="AI analysis of medical images is coming soon." />;
}
