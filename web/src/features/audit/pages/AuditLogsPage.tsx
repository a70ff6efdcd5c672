import { useState } from 'react';
import { useAppSelector } from '@/app/hooks';
import { ScrollRegion } from '@/components/ScrollRegion';
import { TablePager } from '@/components/TablePager';
import { can } from '@/lib/access';
import { describeLoadError, fieldErrorMap } from '@/lib/api-client';
import { formatDateTime, fullName } from '@/lib/format';
import { selectUser } from '@/lib/session';
import { useDebouncedValue } from '@/lib/use-debounced-value';
import { ACTION_LABELS, actionLabel, type AuditFilters, useListAuditQuery } from '../api';
import { AuditTools } from '../components/AuditTools';
import '@/components/forms.css';
import '@/components/DataTable.css';
import '@/components/Spinner.css';
import '../audit.css';

/** product.md /audit-logs: rows per page 5, 10 or 20, 5 by default. */
const PAGE_SIZES = [5, 10, 20];

/** /audit-logs: the audit log as the caller may read it (api.md "Audit log"). */
export function AuditLogsPage() {
  const user = useAppSelector(selectUser);
  const [searchText, setSearchText] = useState('');
  const [action, setAction] = useState('');
  const [status, setStatus] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [limit, setLimit] = useState(PAGE_SIZES[0]);
  const search = useDebouncedValue(searchText.trim());
  const filters: AuditFilters = { search, action, status, from, to };
  // Any change of the filters starts again at page 1.
  const filterKey = JSON.stringify([filters, limit]);
  const [paging, setPaging] = useState({ filterKey, page: 1 });
  const page = paging.filterKey === filterKey ? paging.page : 1;
  const setPage = (next: number) => setPaging({ filterKey, page: next });

  const { data, error, isError, isFetching } = useListAuditQuery({ ...filters, page, limit });
  const rows = isError ? [] : (data?.data ?? []);
  const pagination = isError ? undefined : data?.pagination;
  const problems = isError ? fieldErrorMap(error) : {};

  return (
    <div className="audit-page">
      <title>Audit Logs · MediShare</title>
      <h1 className="page-title">Audit Logs</h1>

      <AuditTools filters={filters} checksChain={can(user, 'audit:read-all')} monitors={can(user, 'system:monitor')} />

      <section className="card data-table" aria-labelledby="audit-title">
        <h2 id="audit-title" className="visually-hidden">
          Entries
        </h2>
        <form className="audit-filters" role="search" aria-label="Filter the audit log" onSubmit={(event) => event.preventDefault()}>
          <div className="audit-filters__field audit-filters__field--wide">
            <label htmlFor="audit-search">Search by user</label>
            <input
              id="audit-search"
              type="search"
              className="field__control"
              placeholder="Name, email or username"
              value={searchText}
              onChange={(event) => setSearchText(event.target.value)}
            />
          </div>
          <div className="audit-filters__field">
            <label htmlFor="audit-action">Action</label>
            <select id="audit-action" className="field__control" value={action} onChange={(event) => setAction(event.target.value)}>
              <option value="">All actions</option>
              {Object.entries(ACTION_LABELS).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          <div className="audit-filters__field">
            <label htmlFor="audit-status">Result</label>
            <select id="audit-status" className="field__control" value={status} onChange={(event) => setStatus(event.target.value)}>
              <option value="">All results</option>
              <option value="success">Success</option>
              <option value="failure">Failure</option>
            </select>
          </div>
          <DateFilter id="audit-from" label="From" value={from} onChange={setFrom} error={problems.from} />
          <DateFilter id="audit-to" label="To" value={to} onChange={setTo} error={problems.to} />
        </form>

        <div className="audit-state" aria-live="polite">
          {isFetching && (
            <p className="audit-state__loading">
              <span className="spinner__circle spinner__circle--small" aria-hidden="true" /> Loading logs...
            </p>
          )}
          {!isFetching && isError && (
            <p className="form-error" role="alert">
              {describeLoadError(error)}
            </p>
          )}
          {!isFetching && !isError && rows.length === 0 && <p className="audit-state__empty">No audit logs found.</p>}
        </div>

        <ScrollRegion label="Audit log entries">
          <table aria-labelledby="audit-title" aria-busy={isFetching}>
            <caption className="visually-hidden">Audit log entries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Timestamp</th>
                <th scope="col">User</th>
                <th scope="col">Action</th>
                <th scope="col">Table</th>
                <th scope="col">IP Address</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((entry) => (
                <tr key={entry.id}>
                  <td>{formatDateTime(entry.createAt)}</td>
                  <td>
                    {entry.user ? (
                      <>
                        {fullName(entry.user) || 'Deleted account'}
                        {entry.user.username && <span className="audit-username"> {entry.user.username}</span>}
                      </>
                    ) : (
                      '—'
                    )}
                  </td>
                  <td>
                    {actionLabel(entry.actiontype)}
                    {entry.status === 'failure' && <span className="status status--failed">Failed</span>}
                  </td>
                  <td>{entry.tablename || '—'}</td>
                  <td>{entry.ipaddress || '—'}</td>
                  <td className="audit-reason">{entry.reason || '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>

        <TablePager sizes={PAGE_SIZES} limit={limit} onLimit={setLimit} page={page} pagination={pagination} busy={isFetching} onPage={setPage}>
          {' '}
          · {pagination?.totalItems ?? 0}
          {pagination?.totalAtLeast ? '+' : ''} entries
        </TablePager>
      </section>
    </div>
  );
}

interface DateFilterProps {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  error?: string;
}

function DateFilter({ id, label, value, onChange, error }: DateFilterProps) {
  return (
    <div className={`audit-filters__field${error ? ' field--invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="date"
        className="field__control"
        value={value}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(event) => onChange(event.target.value)}
      />
      {error && (
        <p id={`${id}-error`} className="field__error">
          {error}
        </p>
      )}
    </div>
  );
}
