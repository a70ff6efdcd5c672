import { act, fireEvent, screen, within } from '@testing-library/react';
import userEvent, { type UserEvent } from '@testing-library/user-event';
import type MockAdapter from 'axios-mock-adapter';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { mockApi, renderRoute } from '@/test/render';
import { settle } from '@/test/settle';
import { REGISTER_REDIRECT_MS } from '../home-route';

let mock: MockAdapter;

beforeEach(() => {
  mock = mockApi();
});

const PERSONAL: [string, string][] = [
  ['First name', 'Sara'],
  ['Last name', 'Ahmed'],
  ['Username', 'saraa'],
  ['Email', 'sara@example.test'],
  ['Phone', '+92 300 0000000'],
  ['Address', '1 Mall Road'],
  ['City', 'Lahore'],
  ['State', 'Punjab'],
  ['Country', 'Pakistan'],
  ['Zip code', '54000'],
];

const PROVIDER_ONLY = ['License number', 'Insurance number', 'Tax ID', 'Specialization'];
const PATIENT_ONLY = ['Primary physician', 'Blood group'];

function next(user: UserEvent) {
  return user.click(screen.getByRole('button', { name: 'Next' }));
}

async function fillPersonal(user: UserEvent) {
  for (const [label, value] of PERSONAL) await user.type(screen.getByLabelText(label), value);
  await user.type(screen.getByLabelText('Date of birth'), '1991-02-03');
  await user.selectOptions(screen.getByLabelText('Gender'), 'Female');
}

async function fillSecurity(user: UserEvent) {
  await user.type(screen.getByLabelText('Password'), 'correct horse battery');
  await user.type(screen.getByLabelText('Confirm password'), 'something else entirely');
}

function sentPayload(): Record<string, unknown> {
  const request = mock.history.post.find((entry) => entry.url === '/auth/register');
  expect(request).toBeDefined();
  return JSON.parse(request?.data as string) as Record<string, unknown>;
}

describe('registration wizard', () => {
  it('names the four steps and keeps Next disabled until a role is chosen', async () => {
    const user = userEvent.setup();
    renderRoute('/register');

    const steps = screen.getByRole('list', { name: 'Registration steps' });
    expect(within(steps).getAllByRole('listitem').map((item) => item.textContent)).toEqual([
      '1Select Role',
      '2Personal Details',
      '3Medical Details',
      '4Security & Submit',
    ]);
    expect(screen.getByRole('heading', { level: 2, name: 'Select Role' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();
    expect(screen.queryByRole('button', { name: 'Back' })).not.toBeInTheDocument();
    // Only the two registrable roles are offered.
    expect(screen.getAllByRole('radio').map((radio) => (radio as HTMLInputElement).value)).toEqual([
      'patient',
      'healthProvider',
    ]);

    await user.click(screen.getByRole('radio', { name: /Patient/ }));
    expect(screen.getByRole('button', { name: 'Next' })).toBeEnabled();
    await next(user);
    expect(screen.getByRole('heading', { level: 2, name: 'Personal Details' })).toHaveFocus();
    for (const [label] of PERSONAL) expect(screen.getByLabelText(label)).toBeInTheDocument();
    expect(screen.getByLabelText('Date of birth')).toHaveAttribute('type', 'date');
    expect(
      within(screen.getByLabelText('Gender')).getAllByRole('option').map((option) => option.textContent),
    ).toEqual(['Select…', 'Male', 'Female', 'Other']);

    await user.click(screen.getByRole('button', { name: 'Back' }));
    expect(screen.getByRole('radio', { name: /Patient/ })).toBeChecked();
  });

  it('asks a patient for primary physician, blood group and bio only', async () => {
    const user = userEvent.setup();
    renderRoute('/register');
    await user.click(screen.getByRole('radio', { name: /Patient/ }));
    await next(user);
    await next(user);

    expect(screen.getByRole('heading', { level: 2, name: 'Medical Details' })).toBeInTheDocument();
    for (const label of [...PATIENT_ONLY, 'Bio']) expect(screen.getByLabelText(label)).toBeInTheDocument();
    for (const label of PROVIDER_ONLY) expect(screen.queryByLabelText(label)).not.toBeInTheDocument();
  });

  it('asks a provider for license, insurance, tax id, specialization and bio only', async () => {
    const user = userEvent.setup();
    renderRoute('/register');
    await user.click(screen.getByRole('radio', { name: /Health Provider/ }));
    await next(user);
    await next(user);

    for (const label of [...PROVIDER_ONLY, 'Bio']) expect(screen.getByLabelText(label)).toBeInTheDocument();
    for (const label of PATIENT_ONLY) expect(screen.queryByLabelText(label)).not.toBeInTheDocument();
  });

  it("sends a patient's payload without provider fields or the confirmation, then goes to /verify-account", async () => {
    const user = userEvent.setup();
    mock.onPost('/auth/register').reply(201, {
      message: 'Registration successful!',
      data: { email: 'sara@example.test' },
    });
    const { router } = renderRoute('/register');

    await user.click(screen.getByRole('radio', { name: /Patient/ }));
    await next(user);
    await fillPersonal(user);
    await next(user);
    await user.type(screen.getByLabelText('Primary physician'), 'Dr. Rana');
    await user.selectOptions(screen.getByLabelText('Blood group'), 'B+');
    await user.type(screen.getByLabelText('Bio'), 'Hello.');
    await next(user);
    expect(screen.getByRole('heading', { level: 2, name: 'Security & Submit' })).toBeInTheDocument();
    await fillSecurity(user);
    // The redirect's second is counted on a fake clock, not waited.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    fireEvent.click(screen.getByRole('button', { name: 'Register' }));

    await settle(() => screen.queryByText('Registration successful!') !== null);
    expect(sentPayload()).toEqual({
      email: 'sara@example.test',
      username: 'saraa',
      active: true,
      password: 'correct horse battery',
      role: 'patient',
      firstname: 'Sara',
      lastname: 'Ahmed',
      phone: '+92 300 0000000',
      dob: '1991-02-03',
      gender: 'Female',
      address: '1 Mall Road',
      city: 'Lahore',
      state: 'Punjab',
      country: 'Pakistan',
      zipcode: '54000',
      bio: 'Hello.',
      primphysician: 'Dr. Rana',
      bloodgroup: 'B+',
    });
    expect(localStorage.getItem('userEmail')).toBe('sara@example.test');
    // The wizard is back on step 0 with nothing chosen.
    expect(screen.getByRole('heading', { level: 2, name: 'Select Role' })).toBeInTheDocument();
    expect(screen.getByRole('radio', { name: /Patient/ })).not.toBeChecked();
    act(() => vi.advanceTimersByTime(REGISTER_REDIRECT_MS - 1));
    expect(router.state.location.pathname).toBe('/register');
    act(() => vi.advanceTimersByTime(1));
    await settle(() => router.state.location.pathname === '/verify-account');
  });

  it("sends a provider's payload without patient fields", async () => {
    const user = userEvent.setup();
    mock.onPost('/auth/register').reply(201, { message: 'Registration successful!', data: { email: 'p@example.test' } });
    renderRoute('/register');

    // Chosen as patient first, with patient data, then switched to provider.
    await user.click(screen.getByRole('radio', { name: /Patient/ }));
    await next(user);
    await next(user);
    await user.type(screen.getByLabelText('Primary physician'), 'Dr. Rana');
    await user.click(screen.getByRole('button', { name: 'Back' }));
    await user.click(screen.getByRole('button', { name: 'Back' }));
    await user.click(screen.getByRole('radio', { name: /Health Provider/ }));
    await next(user);
    await user.type(screen.getByLabelText('Email'), 'p@example.test');
    await next(user);
    await user.type(screen.getByLabelText('License number'), 'LIC-1');
    await user.type(screen.getByLabelText('Insurance number'), 'INS-1');
    await user.type(screen.getByLabelText('Tax ID'), 'TAX-1');
    await user.type(screen.getByLabelText('Specialization'), 'Radiology');
    await next(user);
    await fillSecurity(user);
    await user.click(screen.getByRole('button', { name: 'Register' }));

    await screen.findByText('Registration successful!');
    const payload = sentPayload();
    expect(payload).toMatchObject({
      role: 'healthProvider',
      active: true,
      email: 'p@example.test',
      licensenumber: 'LIC-1',
      insurancenumber: 'INS-1',
      taxid: 'TAX-1',
      specialization: 'Radiology',
      dob: null,
      gender: null,
    });
    for (const key of ['primphysician', 'bloodgroup', 'confirmPassword', 'confirmpassword']) {
      expect(payload).not.toHaveProperty(key);
    }
    expect(JSON.stringify(payload)).not.toContain('something else entirely');
  });

  it('shows one toast per field error', async () => {
    const user = userEvent.setup();
    mock.onPost('/auth/register').reply(422, {
      message: 'Please correct the marked fields.',
      errors: [
        { field: 'email', message: 'must be a valid email address' },
        { field: 'password', message: 'must be at least 8 characters' },
      ],
    });
    renderRoute('/register');
    await user.click(screen.getByRole('radio', { name: /Patient/ }));
    for (let step = 0; step < 3; step += 1) await next(user);
    await user.click(screen.getByRole('button', { name: 'Register' }));

    expect(await screen.findByText('email: must be a valid email address')).toBeInTheDocument();
    expect(screen.getByText('password: must be at least 8 characters')).toBeInTheDocument();
    expect(screen.queryByText('Please correct the marked fields.')).not.toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 2, name: 'Security & Submit' })).toBeInTheDocument();
  });

  it('falls back to the message, then to the generic text', async () => {
    const user = userEvent.setup();
    mock.onPost('/auth/register').replyOnce(409, { message: 'That username is taken.' }).onPost('/auth/register').replyOnce(500);
    renderRoute('/register');
    await user.click(screen.getByRole('radio', { name: /Patient/ }));
    for (let step = 0; step < 3; step += 1) await next(user);
    await user.click(screen.getByRole('button', { name: 'Register' }));
    expect(await screen.findByText('That username is taken.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Register' }));
    expect(await screen.findByText('An error occurred. Please try again.')).toBeInTheDocument();
  });
});
