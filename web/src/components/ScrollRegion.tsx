import type { ReactNode } from 'react';
import './DataTable.css';

/**
 * A wide table's sideways-scrolling box. When the table holds nothing
 * focusable, keyboards could not scroll it, so the box itself takes the
 * focus (WCAG 2.1.1) and is named for screen readers.
 */
export function ScrollRegion({ label, children }: { label: string; children: ReactNode }) {
  return (
    // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex
    <div className="data-table__scroll" tabIndex={0} role="region" aria-label={label}>
      {children}
    </div>
  );
}
