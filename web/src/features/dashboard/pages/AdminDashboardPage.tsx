import { lazy, Suspense } from 'react';
import { ScrollRegion } from '@/components/ScrollRegion';
import { Spinner } from '@/components/Spinner';
import { describeLoadError } from '@/lib/api-client';
import { formatDate, formatDateTime } from '@/lib/format';
import { describeChainCheck, useGetHealthQuery } from '@/lib/health-api';
import { ACTIVITY_SERIES } from '../activity';
import { useGetActivityQuery } from '../api';
import '@/components/DataTable.css';
import '../dashboard.css';

// uPlot comes with the chart, after the first load (the app's gzip budget).
const ActivityChart = lazy(() => import('../components/ActivityChart'));

/** The days the activity panel covers (api.md: 14 by default). */
const DAYS = 14;

/** /admin-dashboard: the system's health and its activity over two weeks. */
export function AdminDashboardPage() {
  return (
    <div className="dashboard">
      <title>Admin Dashboard · MediShare</title>
      <h1 className="page-title">Secure Medical Image Sharing Dashboard</h1>
      <div className="card admin-panels">
        <HealthPanel />
        <ActivityPanel />
      </div>
    </div>
  );
}

function Badge({ ok, down = 'Down' }: { ok: boolean; down?: string }) {
  return <span className={`status ${ok ? 'status--active' : 'status--failed'}`}>{ok ? 'OK' : down}</span>;
}

function HealthPanel() {
  const { data: health, error, isError, isLoading } = useGetHealthQuery(undefined, { pollingInterval: 30_000 });
  return (
    <section className="card admin-panel" aria-labelledby="health-title">
      <h2 id="health-title">System health</h2>
      {isLoading && <Spinner label="Checking the system…" />}
      {isError && !health && (
        <p className="form-error" role="alert">
          {describeLoadError(error)}
        </p>
      )}
      {health && (
        <dl className="health-list">
          <div>
            <dt>Database</dt>
            <dd>
              <Badge ok={health.database.ok} /> {health.database.ok && `${health.database.latencyMs.toFixed(1)} ms`}
            </dd>
          </div>
          <div>
            <dt>Storage</dt>
            <dd>
              <Badge ok={health.storage.ok} /> {health.storage.kind === 's3' ? 'S3 bucket' : 'Local disk'}
            </dd>
          </div>
          <div>
            <dt>Mail</dt>
            <dd>
              <Badge ok={health.mail.ok} down="Failing" /> {health.mail.kind === 'smtp' ? 'SMTP relay' : 'Written to the log'}
              {`, ${health.mail.queued} queued`}
            </dd>
          </div>
          <div>
            <dt>Audit chain</dt>
            <dd>
              {health.auditChain.checkedAt === null ? (
                'Not checked yet'
              ) : (
                <>
                  <Badge ok={health.auditChain.ok} down="Broken" />{' '}
                  {health.auditChain.ok
                    ? `${health.auditChain.checked.toLocaleString('en-PK')} entries checked`
                    : (health.auditChain.problem ?? describeChainCheck(health.auditChain))}{' '}
                  (<time dateTime={health.auditChain.checkedAt}>{formatDateTime(health.auditChain.checkedAt)}</time>)
                </>
              )}
            </dd>
          </div>
          <div>
            <dt>Version</dt>
            <dd>{health.version}</dd>
          </div>
          <div>
            <dt>Up since</dt>
            <dd>
              <time dateTime={health.startedAt}>{formatDateTime(health.startedAt)}</time>
            </dd>
          </div>
        </dl>
      )}
    </section>
  );
}

function ActivityPanel() {
  const { data: days, error, isError, isLoading } = useGetActivityQuery(DAYS);
  return (
    <section className="card admin-panel admin-panel--wide" aria-labelledby="activity-title">
      <h2 id="activity-title">Activity over the last 14 days</h2>
      {isLoading && <Spinner label="Loading the activity…" />}
      {isError && !days && (
        <p className="form-error" role="alert">
          {describeLoadError(error)}
        </p>
      )}
      {days && (
        <>
          <Suspense fallback={<Spinner label="Drawing the chart…" />}>
            <ActivityChart days={days} />
          </Suspense>
          <details className="activity-table">
            <summary>Show as table</summary>
            <ScrollRegion label="Activity per day">
              <table>
                <caption className="visually-hidden">Activity per day</caption>
                <thead>
                  <tr>
                    <th scope="col">Day</th>
                    {ACTIVITY_SERIES.map((s) => (
                      <th key={s.key} scope="col">
                        {s.label}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {days.map((d) => (
                    <tr key={d.day}>
                      <th scope="row">{formatDate(d.day)}</th>
                      {ACTIVITY_SERIES.map((s) => (
                        <td key={s.key}>{d[s.key]}</td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollRegion>
          </details>
        </>
      )}
    </section>
  );
}
