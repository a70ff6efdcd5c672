import { Modal } from '@/components/Modal';
import { describeLoadError } from '@/lib/api-client';
import { formatDateTime, fullName } from '@/lib/format';
import { actionLabel, type AuditFilters, useListAuditQuery } from '../api';
import '@/components/DataTable.css';
import '@/components/Spinner.css';
import '../audit.css';

interface AccessHistoryListProps {
  /** Which entries: one image's (`imageId`) or every image's (`about`). */
  filters: AuditFilters;
  limit: number;
  emptyText: string;
}

/** Who did what to an image, and when, newest first (the patient's access history). */
export function AccessHistoryList({ filters, limit, emptyText }: AccessHistoryListProps) {
  const { data, error, isError, isFetching } = useListAuditQuery({ ...filters, page: 1, limit });
  const entries = data?.data ?? [];
  if (isFetching && !data) {
    return (
      <p className="audit-state__loading" role="status">
        <span className="spinner__circle spinner__circle--small" aria-hidden="true" /> Loading...
      </p>
    );
  }
  if (isError) {
    return (
      <p className="form-error" role="alert">
        {describeLoadError(error)}
      </p>
    );
  }
  if (entries.length === 0) return <p>{emptyText}</p>;
  return (
    <ul className="access-history">
      {entries.map((entry) => (
        <li key={entry.id}>
          <span>
            <span className="access-history__who">{entry.user ? fullName(entry.user) || entry.user.username || 'A deleted account' : 'Someone not signed in'}</span>{' '}
            {actionLabel(entry.actiontype).toLowerCase()}
            {entry.status === 'failure' && <span className="status status--failed">Failed</span>}
          </span>
          <time className="access-history__when" dateTime={entry.createAt}>
            {formatDateTime(entry.createAt)}
          </time>
        </li>
      ))}
    </ul>
  );
}

/** "Who has seen this": one image's history in a dialog. */
export function AccessHistoryModal({ imageId, caption, onClose }: { imageId: string; caption: string; onClose: () => void }) {
  return (
    <Modal title="Who has seen this" description={caption} onClose={onClose}>
      <AccessHistoryList filters={{ imageId }} limit={20} emptyText="Nobody has opened this image yet." />
      <div className="modal__actions">
        <button type="button" className="btn btn--outline" onClick={onClose} data-autofocus>
          Close
        </button>
      </div>
    </Modal>
  );
}

/** A patient's "Access history" on /profile: the latest entries about any image about them. */
export function AccessHistorySection() {
  return (
    <section className="card access-history-section" aria-labelledby="access-history-title">
      <h2 id="access-history-title">Access history</h2>
      <p className="access-history-section__note">Who opened, shared or changed your images, newest first.</p>
      <AccessHistoryList filters={{ about: 'images' }} limit={10} emptyText="Nobody has opened your images yet." />
    </section>
  );
}
