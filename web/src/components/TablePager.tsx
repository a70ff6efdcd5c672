import type { ReactNode } from 'react';
import type { Pagination } from '@/types/api';
import './DataTable.css';

interface TablePagerProps {
  /** The page sizes offered, and the one chosen. */
  sizes: number[];
  limit: number;
  onLimit: (limit: number) => void;
  page: number;
  pagination?: Pagination;
  busy: boolean;
  onPage: (page: number) => void;
  /** What follows "Page X of Y" (a total, for one). */
  children?: ReactNode;
}

/** A data table's pager: rows per page, where we are, Previous and Next. */
export function TablePager({ sizes, limit, onLimit, page, pagination, busy, onPage, children }: TablePagerProps) {
  const current = pagination?.currentPage ?? page;
  return (
    <div className="data-table__pager">
      <label className="data-table__size">
        Rows per page
        <select className="field__control" value={limit} onChange={(event) => onLimit(Number(event.target.value))}>
          {sizes.map((size) => (
            <option key={size} value={size}>
              {size}
            </option>
          ))}
        </select>
      </label>
      <p className="data-table__page">
        Page {current} of {Math.max(1, pagination?.totalPages ?? 1)}
        {pagination?.totalAtLeast ? '+' : ''}
        {children}
      </p>
      <div className="data-table__nav">
        <button type="button" className="btn btn--outline btn--small" disabled={busy || !pagination?.hasPrevPage} onClick={() => onPage(current - 1)}>
          Previous
        </button>
        <button type="button" className="btn btn--outline btn--small" disabled={busy || !pagination?.hasNextPage} onClick={() => onPage(current + 1)}>
          Next
        </button>
      </div>
    </div>
  );
}
