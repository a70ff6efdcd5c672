import { useEffect } from 'react';
import { getErrorMessage } from '@/lib/api-client';
import { notifyError } from '@/lib/notify';
import { useGetDashboardStatsQuery, type DashboardStats } from '../api';

const CARDS: { key: keyof DashboardStats; label: string }[] = [
  { key: 'totalImages', label: 'Total Images' },
  { key: 'sharedImages', label: 'Shared Images' },
  { key: 'totalUsers', label: 'Total Users' },
];

/** The three figures of GET /api/dashboard/stats. */
export function StatCards() {
  const { data, error, isError, isFetching } = useGetDashboardStatsQuery();

  useEffect(() => {
    if (isError) notifyError(getErrorMessage(error, 'The statistics could not be loaded.'));
  }, [isError, error]);

  return (
    <section aria-labelledby="stats-title" aria-busy={isFetching}>
      <h2 id="stats-title" className="visually-hidden">
        Statistics
      </h2>
      <dl className="stat-cards">
        {CARDS.map((card) => {
          const value = data?.[card.key];
          return (
            <div key={card.key} className="stat-card">
              <dt className="stat-card__label">{card.label}</dt>
              <dd className="stat-card__value">
                {typeof value === 'number' ? value.toLocaleString('en-PK') : isFetching ? '…' : '—'}
              </dd>
            </div>
          );
        })}
      </dl>
    </section>
  );
}
