// The router points here; the demo lives with the sharing feature.
export { ShareImagePage } from '@/features/sharing';
