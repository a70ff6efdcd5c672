import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type MockAdapter from 'axios-mock-adapter';
import { beforeEach, describe, expect, it } from 'vitest';
import { makeSettings, makeUser } from '@/test/fixtures';
import { mockApi, renderRoute } from '@/test/render';

let mock: MockAdapter;
const admin = makeUser({ role: 'admin' });
const saved = makeSettings();

beforeEach(() => {
  mock = mockApi();
  mock.onGet('/settings').reply(200, { data: saved });
});

describe('/appsettings', () => {
  it('loads the settings and saves them all, with a toast', async () => {
    mock.onPut('/settings').reply((config) => [200, { message: 'Settings saved.', data: { ...saved, ...JSON.parse(config.data as string) } }]);
    const actor = userEvent.setup();
    renderRoute('/appsettings', { user: admin, token: 't' });

    const fallback = await screen.findByLabelText('Default share lifetime (hours)');
    expect(fallback).toHaveValue(24);
    expect(screen.getByLabelText('Maximum share lifetime (hours)')).toHaveValue(168);
    expect(screen.getByLabelText('Registration open')).toBeChecked();
    expect(screen.getByLabelText("New providers need an administrator's approval")).not.toBeChecked();
    expect(screen.getByLabelText('Analysis provider')).toHaveValue('builtin');
    expect(screen.getByLabelText('Also send images that cannot be screened')).not.toBeChecked();
    expect(screen.getByLabelText('Largest DICOM instance of a study (MB)')).toHaveValue(50);
    expect(screen.getByLabelText('Largest study (MB)')).toHaveValue(2048);

    await actor.clear(fallback);
    await actor.type(fallback, '48');
    const instance = screen.getByLabelText('Largest DICOM instance of a study (MB)');
    await actor.clear(instance);
    await actor.type(instance, '80');
    await actor.click(screen.getByLabelText("New providers need an administrator's approval"));
    await actor.click(screen.getByRole('button', { name: 'Save settings' }));

    expect(await screen.findByText('Settings saved.')).toBeInTheDocument();
    expect(JSON.parse(mock.history.put[0].data as string)).toEqual({
      shareLifetimeDefaultHours: 48,
      shareLifetimeMaxHours: 168,
      registrationOpen: true,
      providerApprovalRequired: true,
      analysisProvider: 'builtin',
      analysisSendUnscreened: false,
      maxInstanceMegabytes: 80,
      maxStudyMegabytes: 2048,
      mfaRequiredRoles: [],
    });
  });

  it('says what sending unscreened images risks, and saves the choice', async () => {
    mock.onPut('/settings').reply((config) => [200, { message: 'Settings saved.', data: { ...saved, ...JSON.parse(config.data as string) } }]);
    const actor = userEvent.setup();
    renderRoute('/appsettings', { user: admin, token: 't' });
    const unscreened = await screen.findByLabelText('Also send images that cannot be screened');
    expect(unscreened).toHaveAccessibleDescription(expect.stringContaining("may show a patient's name, a date or a face"));

    await actor.click(unscreened);
    await actor.click(screen.getByRole('button', { name: 'Save settings' }));

    expect(await screen.findByText('Settings saved.')).toBeInTheDocument();
    expect(JSON.parse(mock.history.put[0].data as string)).toMatchObject({ analysisSendUnscreened: true });
  });

  it('shows each refused field under its field', async () => {
    mock.onPut('/settings').reply(422, {
      message: 'Please check the settings.',
      errors: [{ field: 'shareLifetimeDefaultHours', message: 'must not exceed the maximum lifetime' }],
    });
    const actor = userEvent.setup();
    renderRoute('/appsettings', { user: admin, token: 't' });
    const fallback = await screen.findByLabelText('Default share lifetime (hours)');
    await actor.clear(fallback);
    await actor.type(fallback, '500');
    await actor.click(screen.getByRole('button', { name: 'Save settings' }));

    expect(await screen.findByText('Please check the settings.')).toBeInTheDocument();
    expect(fallback).toHaveAttribute('aria-invalid', 'true');
    expect(fallback).toHaveAccessibleDescription(expect.stringContaining('must not exceed the maximum lifetime'));
  });

  it('says where images go before an admin chooses an external model', async () => {
    mock.onGet('/settings').reply(200, {
      data: { ...saved, analysisProviders: ['builtin', 'openai'], analysisSendsTo: { openai: 'api.openai.com' } },
    });
    const actor = userEvent.setup();
    renderRoute('/appsettings', { user: admin, token: 't' });
    const select = await screen.findByLabelText('Analysis provider');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    await actor.selectOptions(select, 'openai');
    expect(screen.getByRole('alert')).toHaveTextContent('de-identified images leave this server for api.openai.com');
    expect(screen.getByRole('alert')).toHaveTextContent('a BAA in the US');
  });
});

describe('/appsettings: Require a second factor for', () => {
  it('offers each role of GET /api/roles and sends the chosen ones as mfaRequiredRoles', async () => {
    mock.onGet('/settings').reply(200, { data: { ...saved, mfaRequiredRoles: ['admin'] } });
    mock.onGet('/roles').reply(200, {
      data: [
        { name: 'patient', permissions: [] },
        { name: 'healthProvider', permissions: [] },
        { name: 'admin', permissions: [] },
      ],
    });
    mock.onPut('/settings').reply((config) => [200, { message: 'Settings saved.', data: { ...saved, ...JSON.parse(config.data as string) } }]);
    const actor = userEvent.setup();
    renderRoute('/appsettings', { user: admin, token: 't' });

    const group = await screen.findByRole('group', { name: 'Require a second factor for' });
    const provider = await within(group).findByRole('checkbox', { name: 'Health Provider' });
    expect(within(group).getByRole('checkbox', { name: 'Patient' })).not.toBeChecked();
    expect(provider).not.toBeChecked();
    expect(within(group).getByRole('checkbox', { name: 'Admin' })).toBeChecked();

    await actor.click(provider);
    await actor.click(within(group).getByRole('checkbox', { name: 'Admin' }));
    await actor.click(screen.getByRole('button', { name: 'Save settings' }));
    expect(await screen.findByText('Settings saved.')).toBeInTheDocument();
    expect((JSON.parse(mock.history.put[0].data as string) as { mfaRequiredRoles: string[] }).mfaRequiredRoles).toEqual(['healthProvider']);
  });
});
