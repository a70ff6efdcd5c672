import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type MockAdapter from 'axios-mock-adapter';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { makeHealth, makeUser } from '@/test/fixtures';
import { mockApi, renderRoute } from '@/test/render';

// jsdom draws no canvas: the chart is replaced, the figures are read from the table.
vi.mock('../components/ActivityChart', () => ({ default: () => <div data-testid="chart" /> }));

let mock: MockAdapter;

beforeEach(() => {
  mock = mockApi();
  mock.onGet('/admin/health').reply(200, {
    data: makeHealth({
      version: '1.4.0',
      startedAt: '2026-11-24T05:00:00Z',
      database: { ok: true, latencyMs: 0.42 },
      storage: { ok: false, kind: 's3' },
      mail: { ok: true, kind: 'smtp', queued: 3 },
      auditChain: { ok: true, checked: 1500, checkedAt: '2026-11-26T10:00:00Z', firstBrokenId: null, problem: null },
    }),
  });
  mock.onGet('/admin/activity').reply(200, {
    data: [
      { day: '2026-11-23', signIns: 0, failedSignIns: 0, uploads: 0, shares: 0, verifications: 0, views: 0, messages: 0 },
      { day: '2026-11-24', signIns: 7, failedSignIns: 2, uploads: 3, shares: 1, verifications: 1, views: 5, messages: 4 },
    ],
  });
});

describe('/admin-dashboard', () => {
  it('shows the health and the activity of the last days', async () => {
    const actor = userEvent.setup();
    renderRoute('/admin-dashboard', { user: makeUser({ role: 'admin' }), token: 't' });
    expect(screen.getByRole('heading', { level: 1, name: 'Secure Medical Image Sharing Dashboard' })).toBeInTheDocument();

    const health = await screen.findByRole('region', { name: 'System health' });
    expect(await within(health).findByText('1.4.0')).toBeInTheDocument();
    expect(health).toHaveTextContent('DatabaseOK 0.4 ms');
    expect(health).toHaveTextContent('StorageDown S3 bucket');
    expect(health).toHaveTextContent('MailOK SMTP relay, 3 queued');
    expect(health).toHaveTextContent('Audit chainOK 1,500 entries checked');
    expect(health).toHaveTextContent('Up since');

    const activity = screen.getByRole('region', { name: 'Activity over the last 14 days' });
    expect(await within(activity).findByTestId('chart')).toBeInTheDocument();
    expect(mock.history.get.find((r) => r.url === '/admin/activity')?.params).toEqual({ days: 14 });
    await actor.click(within(activity).getByText('Show as table'));
    const rows = within(within(activity).getByRole('table')).getAllByRole('row');
    expect(within(rows[0]).getAllByRole('columnheader').map((th) => th.textContent)).toEqual([
      'Day',
      'Sign-ins',
      'Failed sign-ins',
      'Uploads',
      'Shares',
      'Verifications',
      'Views',
      'Messages',
    ]);
    expect(within(rows[2]).getAllByRole('cell').map((td) => td.textContent)).toEqual(['7', '2', '3', '1', '1', '5', '4']);
  });

  it('shows a break that any check found, and a chain not checked yet', async () => {
    mock.resetHandlers();
    mock.onGet('/admin/activity').reply(200, { data: [] });
    mock.onGet('/admin/health').replyOnce(200, {
      data: makeHealth({
        auditChain: { ok: false, checked: 30, checkedAt: '2026-11-26T10:00:00Z', firstBrokenId: 30, problem: 'Entry 30 was changed after it was written.' },
      }),
    });
    const { unmount } = renderRoute('/admin-dashboard', { user: makeUser({ role: 'admin' }), token: 't' });
    const health = await screen.findByRole('region', { name: 'System health' });
    await within(health).findByText('Broken');
    expect(health).toHaveTextContent('Audit chainBroken Entry 30 was changed after it was written. (');
    unmount();

    mock.onGet('/admin/health').replyOnce(200, {
      data: makeHealth({ auditChain: { ok: false, checked: 0, checkedAt: null, firstBrokenId: null, problem: null } }),
    });
    renderRoute('/admin-dashboard', { user: makeUser({ role: 'admin' }), token: 't' });
    const fresh = await screen.findByRole('region', { name: 'System health' });
    expect(await within(fresh).findByText('Not checked yet')).toBeInTheDocument();
    expect(fresh).not.toHaveTextContent('Broken');
  });
});
