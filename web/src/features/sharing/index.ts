// Public face of the sharing feature for the rest of the app.
export type { ImageShare, SharePerson, ShareStatus } from './api';
export { ShareImageModal } from './components/ShareImageModal';
export { ShareList } from './components/ShareList';
export { VerifyImageModal } from './components/VerifyImageModal';
export { ShareImagePage } from './pages/ShareImagePage';
