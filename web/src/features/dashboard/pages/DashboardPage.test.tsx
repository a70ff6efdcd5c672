import { act, fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type MockAdapter from 'axios-mock-adapter';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { SEARCH_DELAY_MS } from '@/lib/use-debounced-value';
import { makeUser } from '@/test/fixtures';
import { mockApi, renderRoute } from '@/test/render';
import type { User } from '@/types/api';

let mock: MockAdapter;

function people(count: number, offset = 0): User[] {
  return Array.from({ length: count }, (_, index) =>
    makeUser({
      id: `u-${offset + index + 1}`,
      firstname: `First${offset + index + 1}`,
      lastname: 'Person',
      email: `p${offset + index + 1}@example.test`,
      username: `p${offset + index + 1}`,
      role: 'patient',
    }),
  );
}

function page(data: User[], currentPage: number, totalPages: number, totalItems: number, pageSize = 5) {
  return {
    data,
    pagination: {
      currentPage,
      pageSize,
      totalPages,
      totalItems,
      hasPrevPage: currentPage > 1,
      hasNextPage: currentPage < totalPages,
    },
  };
}

beforeEach(() => {
  mock = mockApi();
  mock.onGet('/dashboard/stats').reply(200, { data: { totalImages: 12, sharedImages: 5, totalUsers: 1234 } });
  mock.onGet('/users').reply((config) => {
    const { page: number = 1, limit = 5, search } = (config.params ?? {}) as {
      page?: number;
      limit?: number;
      search?: string;
    };
    if (search) return [200, page(people(1), 1, 1, 1, limit)];
    return [200, page(people(limit, (number - 1) * limit), number, 3, 12, limit)];
  });
});

function rows() {
  return within(screen.getByRole('table', { name: 'Users' })).getAllByRole('row').slice(1);
}

describe('/dashboard', () => {
  it('welcomes the user and shows the three figures', async () => {
    renderRoute('/dashboard', { user: makeUser({ role: 'healthProvider' }), token: 't' });
    expect(screen.getByRole('heading', { level: 1, name: 'Welcome, Amina Khan' })).toBeInTheDocument();
    const stats = screen.getByRole('region', { name: 'Statistics' });
    await within(stats).findByText('1,234');
    expect(within(stats).getAllByRole('term').map((term) => term.textContent)).toEqual([
      'Total Images',
      'Shared Images',
      'Total Users',
    ]);
    expect(within(stats).getAllByRole('definition').map((value) => value.textContent)).toEqual(['12', '5', '1,234']);
  });

  it('adds (admin) for an admin', () => {
    renderRoute('/dashboard', { user: makeUser({ role: 'admin' }), token: 't' });
    expect(screen.getByRole('heading', { level: 1, name: 'Welcome, Amina Khan (admin)' })).toBeInTheDocument();
  });

  it('lists users 5 per page with the columns of the spec and pages through them', async () => {
    const user = userEvent.setup();
    renderRoute('/dashboard', { user: makeUser({ role: 'healthProvider' }), token: 't' });
    await screen.findByRole('rowheader', { name: 'First1 Person' });

    const headers = within(screen.getByRole('table', { name: 'Users' })).getAllByRole('columnheader');
    expect(headers.map((header) => header.textContent)).toEqual([
      '',
      'Name',
      'Email',
      'Username',
      'Role',
      'Status',
      'Actions',
    ]);
    expect(rows()).toHaveLength(5);
    expect(screen.getByText('Page 1 of 3')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Previous' })).toBeDisabled();
    expect(mock.history.get.find((request) => request.url === '/users')?.params).toEqual({ page: 1, limit: 5 });

    await user.click(screen.getByRole('button', { name: 'Next' }));
    await screen.findByRole('rowheader', { name: 'First6 Person' });
    expect(screen.getByText('Page 2 of 3')).toBeInTheDocument();

    await user.selectOptions(screen.getByLabelText('Rows per page'), '10');
    await screen.findByRole('rowheader', { name: 'First10 Person' });
    expect(rows()).toHaveLength(10);
    expect(screen.getByText('Page 1 of 3')).toBeInTheDocument();
    expect(
      within(screen.getByLabelText('Rows per page')).getAllByRole('option').map((option) => option.textContent),
    ).toEqual(['5', '10', '25']);
  });

  it('searches after a pause in typing', async () => {
    renderRoute('/dashboard', { user: makeUser({ role: 'healthProvider' }), token: 't' });
    await screen.findByRole('rowheader', { name: 'First5 Person' });
    // Typing with less than the pause between keys sends nothing; the pause
    // after the last one sends one search. The fake clock counts the pauses.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const box = screen.getByLabelText('Search users');
    for (const text of ['F', 'Fir', 'First1']) {
      fireEvent.change(box, { target: { value: text } });
      await act(() => vi.advanceTimersByTimeAsync(SEARCH_DELAY_MS - 1));
    }
    await act(() => vi.advanceTimersByTimeAsync(1));
    vi.useRealTimers();
    await vi.waitFor(() => expect(rows()).toHaveLength(1));
    const searches = mock.history.get.filter((request) => request.url === '/users' && request.params?.search);
    expect(searches.map((request) => request.params)).toEqual([{ page: 1, limit: 5, search: 'First1' }]);
  });

  it('selects rows, and all rows of the page at once', async () => {
    const user = userEvent.setup();
    renderRoute('/dashboard', { user: makeUser({ role: 'healthProvider' }), token: 't' });
    await screen.findByRole('rowheader', { name: 'First1 Person' });
    await user.click(screen.getByRole('checkbox', { name: 'Select First2 Person' }));
    expect(screen.getByText('12 users, 1 selected')).toBeInTheDocument();
    const all = screen.getByRole('checkbox', { name: 'Select all users on this page' });
    expect((all as HTMLInputElement).indeterminate).toBe(true);
    await user.click(all);
    expect(screen.getByText('12 users, 5 selected')).toBeInTheDocument();
    await user.click(all);
    expect(screen.getByText('12 users')).toBeInTheDocument();
  });

  it('offers View to a provider, without Delete', async () => {
    renderRoute('/dashboard', { user: makeUser({ role: 'healthProvider' }), token: 't' });
    await screen.findByRole('rowheader', { name: 'First1 Person' });
    const row = rows()[0];
    expect(within(row).getByRole('link', { name: 'View First1 Person' })).toHaveAttribute('href', '/user-profile/u-1');
    expect(within(row).queryByRole('button', { name: /Delete/ })).not.toBeInTheDocument();
  });

  it('lets an admin delete a user after confirming', async () => {
    const user = userEvent.setup();
    mock.onDelete('/users/u-2').reply(200, { message: 'User deleted.' });
    renderRoute('/dashboard', { user: makeUser({ id: 'admin-1', role: 'admin' }), token: 't' });
    await screen.findByRole('rowheader', { name: 'First2 Person' });
    const loads = () => mock.history.get.filter((request) => request.url === '/users').length;
    const before = loads();

    await user.click(within(rows()[1]).getByRole('button', { name: 'Delete First2 Person' }));
    const dialog = screen.getByRole('dialog', { name: 'Delete user' });
    expect(dialog).toHaveTextContent('First2 Person');
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));

    expect(await screen.findByText('User deleted.')).toBeInTheDocument();
    expect(mock.history.delete.map((request) => request.url)).toEqual(['/users/u-2']);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    await vi.waitFor(() => expect(loads()).toBe(before + 1));
  });

  it('Cancel keeps the user', async () => {
    const user = userEvent.setup();
    renderRoute('/dashboard', { user: makeUser({ id: 'admin-1', role: 'admin' }), token: 't' });
    await screen.findByRole('rowheader', { name: 'First2 Person' });
    await user.click(within(rows()[1]).getByRole('button', { name: 'Delete First2 Person' }));
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(mock.history.delete).toHaveLength(0);
  });
});

describe('provider approval', () => {
  it('shows a provider waiting for approval as Pending, and an admin approves them', async () => {
    const waiting = makeUser({ id: 'u-wait', firstname: 'Nadia', lastname: 'Waiting', role: 'healthProvider', approved: false });
    mock.onGet('/users').reply(200, page([waiting, ...people(1)], 1, 1, 2));
    mock.onPatch('/users/u-wait').reply(200, { message: 'User updated successfully.', data: { ...waiting, approved: true } });
    const actor = userEvent.setup();
    renderRoute('/dashboard', { user: makeUser({ role: 'admin' }), token: 't' });

    const row = (await screen.findByText('Nadia Waiting')).closest('tr') as HTMLElement;
    expect(within(row).getByText('Pending')).toBeInTheDocument();
    expect(screen.getAllByRole('button', { name: /^Approve / })).toHaveLength(1);
    await actor.click(within(row).getByRole('button', { name: 'Approve Nadia Waiting' }));
    expect(await screen.findByText('User updated successfully.')).toBeInTheDocument();
    expect(JSON.parse(mock.history.patch[0].data as string)).toEqual({ approved: true });
  });

  it('offers no Approve to a provider', async () => {
    const waiting = makeUser({ id: 'u-wait', firstname: 'Nadia', lastname: 'Waiting', role: 'healthProvider', approved: false });
    mock.onGet('/users').reply(200, page([waiting], 1, 1, 1));
    renderRoute('/dashboard', { user: makeUser({ role: 'healthProvider' }), token: 't' });
    await screen.findByText('Nadia Waiting');
    expect(screen.queryByRole('button', { name: /^Approve / })).not.toBeInTheDocument();
  });
});

describe('/dashboard: second factors (admin)', () => {
  it('shows who has a second factor, and resets one after a confirmation with the server message', async () => {
    const withTotp = makeUser({ id: 'u-mfa', firstname: 'Sara', lastname: 'Secure', role: 'healthProvider', mfa: { totp: true, passkeys: 2 } });
    const without = makeUser({ id: 'u-none', firstname: 'Omar', lastname: 'Open', mfa: { totp: false, passkeys: 0, required: true } });
    mock.onGet('/users').reply(200, page([withTotp, without], 1, 1, 2));
    mock.onDelete('/users/u-mfa/mfa').reply(200, { message: 'The second factors are reset.' });
    const actor = userEvent.setup();
    renderRoute('/dashboard', { user: makeUser({ id: 'admin-1', role: 'admin' }), token: 't' });

    const row = (await screen.findByText('Sara Secure')).closest('tr') as HTMLElement;
    const headers = within(screen.getByRole('table', { name: 'Users' })).getAllByRole('columnheader');
    expect(headers.map((header) => header.textContent)).toContain('Second factor');
    expect(within(row).getByText('On (Authenticator, 2 passkeys)')).toBeInTheDocument();
    const other = screen.getByText('Omar Open').closest('tr') as HTMLElement;
    expect(within(other).getByText('Off (required)')).toBeInTheDocument();
    expect(within(other).queryByRole('button', { name: /Reset the second factor/ })).not.toBeInTheDocument();

    await actor.click(within(row).getByRole('button', { name: 'Reset the second factor of Sara Secure' }));
    let dialog = screen.getByRole('dialog', { name: 'Reset second factor' });
    await actor.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(mock.history.delete).toHaveLength(0);

    await actor.click(within(row).getByRole('button', { name: 'Reset the second factor of Sara Secure' }));
    dialog = screen.getByRole('dialog', { name: 'Reset second factor' });
    await actor.click(within(dialog).getByRole('button', { name: 'Reset' }));
    expect(await screen.findByText('The second factors are reset.')).toBeInTheDocument();
    expect(mock.history.delete.map((request) => request.url)).toEqual(['/users/u-mfa/mfa']);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('offers no reset and no column to a provider', async () => {
    mock.onGet('/users').reply(200, page([makeUser({ id: 'u-mfa', firstname: 'Sara', lastname: 'Secure', mfa: { totp: true, passkeys: 0 } })], 1, 1, 1));
    renderRoute('/dashboard', { user: makeUser({ role: 'healthProvider' }), token: 't' });
    await screen.findByText('Sara Secure');
    expect(screen.queryByRole('columnheader', { name: 'Second factor' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Reset the second factor/ })).not.toBeInTheDocument();
  });
});
