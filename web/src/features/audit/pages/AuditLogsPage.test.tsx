import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type MockAdapter from 'axios-mock-adapter';
import { beforeEach, describe, expect, it } from 'vitest';
import { makeHealth, makeUser } from '@/test/fixtures';
import { mockApi, renderRoute } from '@/test/render';
import { searchFor } from '@/test/search';
import type { AuditEntry } from '../api';

let mock: MockAdapter;

function entry(id: number, overrides: Partial<AuditEntry> = {}): AuditEntry {
  return {
    id,
    createAt: '2026-11-24T10:00:00Z',
    user: { firstname: 'Imran', lastname: 'Siddiqui', username: 'imran' },
    actiontype: 'view',
    tablename: 'images',
    recordId: `image-${id}`,
    ipaddress: '10.0.0.7',
    userAgent: 'Firefox',
    status: 'success',
    reason: '',
    ...overrides,
  };
}

function page(data: AuditEntry[], totalItems = data.length, extra: object = {}) {
  return {
    data,
    pagination: { currentPage: 1, pageSize: 5, totalPages: 1, totalItems, hasPrevPage: false, hasNextPage: false, ...extra },
  };
}

beforeEach(() => {
  mock = mockApi();
  mock.onGet('/admin/health').reply(200, { data: makeHealth({ auditChain: { ok: true, checked: 1234, checkedAt: '2026-11-26T10:00:00Z', firstBrokenId: null, problem: null } }) });
});

function auditRequests() {
  return mock.history.get.filter((request) => request.url === '/audit/logs');
}

describe('/audit-logs', () => {
  it('shows the six columns and the entries, newest first, with a badge on failures', async () => {
    mock.onGet('/audit/logs').reply(200, page([entry(2, { status: 'failure', actiontype: 'access_denied', reason: 'not shared' }), entry(1)]));
    renderRoute('/audit-logs', { user: makeUser({ role: 'healthProvider' }), token: 't' });

    expect(screen.getByText('Loading logs...')).toBeInTheDocument();
    const table = await screen.findByRole('table', { name: 'Entries' });
    expect(within(table).getAllByRole('columnheader').map((th) => th.textContent)).toEqual([
      'Timestamp',
      'User',
      'Action',
      'Table',
      'IP Address',
      'Reason',
    ]);
    const rows = await within(table).findAllByRole('row');
    expect(rows).toHaveLength(3);
    expect(rows[1]).toHaveTextContent('Was refused access');
    expect(within(rows[1]).getByText('Failed')).toBeInTheDocument();
    expect(rows[1]).toHaveTextContent('not shared');
    expect(rows[2]).toHaveTextContent('Imran Siddiqui');
    expect(auditRequests()[0].params).toMatchObject({ page: 1, limit: 5 });
    // A provider exports what they read (the server gives the export the list's scope), but only
    // readers of the whole log (audit:read-all) check the chain, and the health panel is not asked.
    expect(screen.getByRole('button', { name: 'Export CSV' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Check whole chain' })).not.toBeInTheDocument();
    expect(mock.history.get.filter((request) => request.url === '/admin/health')).toEqual([]);
  });

  it('says "No audit logs found." when nothing matches', async () => {
    mock.onGet('/audit/logs').reply(200, page([]));
    renderRoute('/audit-logs', { user: makeUser({ role: 'healthProvider' }), token: 't' });
    expect(await screen.findByText('No audit logs found.')).toBeInTheDocument();
  });

  it('shows the server\'s answer inline after "Error data: ", and the field error beside its filter', async () => {
    mock.onGet('/audit/logs').reply(422, { message: 'Please check the filters.', errors: [{ field: 'to', message: 'must be after from' }] });
    renderRoute('/audit-logs', { user: makeUser({ role: 'admin' }), token: 't' });
    expect(await screen.findByText('Error data: Please check the filters.')).toBeInTheDocument();
    expect(screen.getByLabelText('To')).toHaveAccessibleDescription('must be after from');
  });

  it('says "Error request: " when no answer comes', async () => {
    mock.onGet('/audit/logs').networkError();
    renderRoute('/audit-logs', { user: makeUser({ role: 'admin' }), token: 't' });
    expect(await screen.findByText(/^Error request: /)).toBeInTheDocument();
  });

  it('sends the filters and the page size, and starts again at page 1', async () => {
    mock.onGet('/audit/logs').reply(200, page([entry(1)], 40, { totalPages: 8, hasNextPage: true }));
    const actor = userEvent.setup();
    renderRoute('/audit-logs', { user: makeUser({ role: 'admin' }), token: 't' });
    await screen.findByText('Imran Siddiqui');

    await actor.click(screen.getByRole('button', { name: 'Next' }));
    await actor.selectOptions(screen.getByLabelText('Rows per page'), '10');
    await actor.selectOptions(screen.getByLabelText('Action'), 'login');
    await actor.selectOptions(screen.getByLabelText('Result'), 'failure');
    await actor.type(screen.getByLabelText('From'), '2026-11-01');
    await searchFor(screen.getByLabelText('Search by user'), 'imran');

    await screen.findByText('Imran Siddiqui');
    await waitFor(() =>
      expect(auditRequests().at(-1)?.params).toEqual({ search: 'imran', action: 'login', status: 'failure', from: '2026-11-01', limit: 10, page: 1 }),
    );
    expect(auditRequests().some((request) => request.params.page === 2)).toBe(true);
  });

  it('lets an admin export what the filters keep and check the whole chain', async () => {
    mock.onGet('/audit/logs').reply(200, page([entry(1)]));
    mock.onGet('/audit/logs/export').reply(200, new Blob(['id,createAt\n']));
    mock.onGet('/audit/verify').reply(200, { data: { ok: false, checked: 40, checkedAt: '2026-11-26T10:05:00Z', firstBrokenId: 17, problem: 'Entry 17 was changed after it was written.' } });
    const created: string[] = [];
    URL.createObjectURL = () => {
      created.push('blob:x');
      return 'blob:x';
    };
    URL.revokeObjectURL = () => {};
    const actor = userEvent.setup();
    renderRoute('/audit-logs', { user: makeUser({ role: 'admin' }), token: 't' });

    expect(await screen.findByText('Intact — 1,234 entries checked')).toBeInTheDocument();
    await actor.selectOptions(screen.getByLabelText('Result'), 'failure');
    await actor.click(screen.getByRole('button', { name: 'Export CSV' }));
    await screen.findByRole('button', { name: 'Export CSV' });
    const exported = mock.history.get.find((request) => request.url === '/audit/logs/export');
    expect(exported?.params).toEqual({ status: 'failure' });
    expect(created).toHaveLength(1);

    await actor.click(screen.getByRole('button', { name: 'Check whole chain' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Broken at entry 17: Entry 17 was changed after it was written.');
  });
});
