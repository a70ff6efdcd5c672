import { roleLabel } from '@/lib/format';
import type { ShareStatus } from '@/types/images';

/** A role in words; product.md §2: 'User' when the role is missing. */
export function userRole(role: string | null | undefined): string {
  return role && role.trim() ? roleLabel(role) : 'User';
}

const STATUS_LABELS: Record<ShareStatus, string> = {
  pending: 'Waiting for code',
  verified: 'Verified',
  expired: 'Expired',
  voided: 'Voided',
};

/** A share's status in words. */
export function statusLabel(status: string): string {
  return STATUS_LABELS[status as ShareStatus] ?? status;
}

/** Whether a share still gives (or may still give) access: only those can be revoked. */
export function isOpen(status: string): boolean {
  return status === 'pending' || status === 'verified';
}
