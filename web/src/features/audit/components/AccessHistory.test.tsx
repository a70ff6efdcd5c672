import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type MockAdapter from 'axios-mock-adapter';
import { beforeEach, describe, expect, it } from 'vitest';
import { makeImage, makeUser } from '@/test/fixtures';
import { mockApi, renderRoute } from '@/test/render';

let mock: MockAdapter;
const patient = makeUser({ id: 'patient-1', role: 'patient' });
const emptyPage = { currentPage: 1, pageSize: 10, totalPages: 0, totalItems: 0, hasPrevPage: false, hasNextPage: false };
const viewed = {
  id: 9,
  createAt: '2026-11-24T10:00:00Z',
  user: { firstname: 'Imran', lastname: 'Siddiqui', username: 'imran' },
  actiontype: 'view',
  tablename: 'images',
  recordId: 'img-1',
  ipaddress: '',
  userAgent: '',
  status: 'success',
  reason: '',
};

beforeEach(() => {
  mock = mockApi();
  mock.onGet('/users/profile').reply(200, { data: patient });
});

describe('access history', () => {
  it('a patient opens "Who has seen this" on an image about them', async () => {
    const image = makeImage({ id: 'img-1', caption: 'Chest X-ray', patient: { id: 'patient-1', firstname: 'Amina', lastname: 'Khan' } });
    const other = makeImage({ id: 'img-2', caption: 'Not mine', patient: { id: 'someone-else', firstname: 'B', lastname: 'C' } });
    mock.onGet('/upload/shared-images').reply(200, { data: [image, other], pagination: { ...emptyPage, totalItems: 2, totalPages: 1 } });
    mock.onGet('/audit/logs').reply(200, { data: [viewed], pagination: { ...emptyPage, totalItems: 1, totalPages: 1 } });
    const actor = userEvent.setup();
    renderRoute('/view-images', { user: patient, token: 't' });

    await actor.click(await screen.findByRole('button', { name: 'Who has seen this: Chest X-ray' }));
    expect(screen.queryByRole('button', { name: 'Who has seen this: Not mine' })).not.toBeInTheDocument();
    const dialog = screen.getByRole('dialog', { name: 'Who has seen this' });
    expect(await within(dialog).findByText('Imran Siddiqui')).toBeInTheDocument();
    expect(dialog).toHaveTextContent('viewed');
    const request = mock.history.get.find((r) => r.url === '/audit/logs');
    expect(request?.params).toEqual({ imageId: 'img-1', page: 1, limit: 20 });
  });

  it('says nobody has opened it yet', async () => {
    const image = makeImage({ id: 'img-1', caption: 'Chest X-ray', patient: { id: 'patient-1', firstname: 'Amina', lastname: 'Khan' } });
    mock.onGet('/upload/shared-images').reply(200, { data: [image], pagination: { ...emptyPage, totalItems: 1, totalPages: 1 } });
    mock.onGet('/audit/logs').reply(200, { data: [], pagination: emptyPage });
    const actor = userEvent.setup();
    renderRoute('/view-images', { user: patient, token: 't' });
    await actor.click(await screen.findByRole('button', { name: 'Who has seen this: Chest X-ray' }));
    expect(await screen.findByText('Nobody has opened this image yet.')).toBeInTheDocument();
  });

  it('a patient\'s profile lists the latest accesses to any of their images', async () => {
    mock.onGet('/audit/logs').reply(200, { data: [viewed], pagination: { ...emptyPage, totalItems: 1, totalPages: 1 } });
    renderRoute('/profile', { user: patient, token: 't' });
    const section = await screen.findByRole('region', { name: 'Access history' });
    expect(await within(section).findByText('Imran Siddiqui')).toBeInTheDocument();
    expect(mock.history.get.find((r) => r.url === '/audit/logs')?.params).toEqual({ about: 'images', page: 1, limit: 10 });
  });

  it('a provider\'s profile has no access history', async () => {
    const provider = makeUser({ role: 'healthProvider' });
    mock.onGet('/users/profile').reply(200, { data: provider });
    renderRoute('/profile', { user: provider, token: 't' });
    await screen.findByRole('heading', { level: 2, name: 'Personal Information' });
    expect(screen.queryByRole('region', { name: 'Access history' })).not.toBeInTheDocument();
  });
});
