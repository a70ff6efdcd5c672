import { screen, within } from '@testing-library/react';
import type MockAdapter from 'axios-mock-adapter';
import { beforeEach, describe, expect, it } from 'vitest';
import { makeUser } from '@/test/fixtures';
import { mockApi, renderRoute } from '@/test/render';

let mock: MockAdapter;

beforeEach(() => {
  mock = mockApi();
  mock.onGet('/roles').reply(200, {
    data: [
      { name: 'admin', permissions: ['audit:read', 'settings:manage'] },
      { name: 'patient', permissions: ['audit:read'] },
    ],
  });
  mock.onGet('/roles/permissions').reply(200, {
    data: [
      { name: 'audit:read', description: 'Read the audit log' },
      { name: 'settings:manage', description: 'Change application settings' },
    ],
  });
});

describe('/roles-permissions', () => {
  it('lists the roles and the permissions, and which role holds which', async () => {
    renderRoute('/roles-permissions', { user: makeUser({ role: 'admin' }), token: 't' });
    const roles = await screen.findByRole('region', { name: 'Roles' });
    expect(within(roles).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['Admin admin', 'Patient patient']);
    const permissions = screen.getByRole('region', { name: 'Permissions' });
    expect(permissions).toHaveTextContent('settings:manageChange application settings');

    const matrix = screen.getByRole('table', { name: 'Which role holds which permission' });
    const [, readRow, settingsRow] = within(matrix).getAllByRole('row');
    expect(within(readRow).getAllByRole('cell').map((td) => td.textContent)).toEqual(['✓Yes', '✓Yes']);
    expect(within(settingsRow).getAllByRole('cell').map((td) => td.textContent)).toEqual(['✓Yes', '–No']);
  });
});
