import type { DayActivity } from './api';

/** The kinds of activity the dashboard draws, with their labels and colours (distinct in colour and in the legend's text). */
export const ACTIVITY_SERIES: { key: Exclude<keyof DayActivity, 'day'>; label: string; color: string }[] = [
  { key: 'signIns', label: 'Sign-ins', color: '#0f766e' },
  { key: 'failedSignIns', label: 'Failed sign-ins', color: '#b91c1c' },
  { key: 'uploads', label: 'Uploads', color: '#1d4ed8' },
  { key: 'shares', label: 'Shares', color: '#7c3aed' },
  { key: 'verifications', label: 'Verifications', color: '#b45309' },
  { key: 'views', label: 'Views', color: '#0369a1' },
  { key: 'messages', label: 'Messages', color: '#be185d' },
];
