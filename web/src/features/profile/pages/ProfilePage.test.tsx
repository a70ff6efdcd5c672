import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type MockAdapter from 'axios-mock-adapter';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { makeUser } from '@/test/fixtures';
import { mockApi, renderRoute } from '@/test/render';
// The page loads this part lazily; loading it here first, as a browser that
// has it cached would, keeps a busy machine's first import out of the waits.
import '../components/AccessTokensSection';
import type { User } from '@/types/api';

let mock: MockAdapter;

beforeEach(() => {
  mock = mockApi();
  mock.onGet('/tokens').reply(200, { data: [] });
});

/** The value shown for a label inside a section. */
function valueOf(section: HTMLElement, label: string): string | null {
  const term = within(section).getByText(label, { selector: 'dt' });
  return term.nextElementSibling?.textContent ?? null;
}

function section(title: string): HTMLElement {
  return screen.getByRole('region', { name: title });
}

const BARE: User = makeUser({
  phone: null,
  dob: null,
  gender: null,
  address: '',
  city: null,
  state: null,
  country: '',
  zipcode: null,
  bio: null,
  bloodgroup: null,
  licensenumber: null,
  insurancenumber: '',
  primphysician: null,
  specialization: null,
});

describe('/profile', () => {
  it('shows the sections of the spec, with N/A for missing values', async () => {
    mock.onGet('/users/profile').reply(200, { data: BARE });
    renderRoute('/profile', { user: BARE, token: 't' });

    expect(await screen.findByRole('heading', { level: 2, name: 'Personal Information' })).toBeInTheDocument();
    // The security and tokens' parts come with their own chunks.
    expect(await screen.findByRole('heading', { level: 2, name: 'Access tokens' })).toBeInTheDocument();
    expect(await screen.findByRole('heading', { level: 2, name: 'Security' })).toBeInTheDocument();
    expect(
      screen.getAllByRole('heading', { level: 2 }).map((heading) => heading.textContent),
    ).toEqual(['Personal Information', 'Adress', 'Medical Information', 'User Bio', 'Access history', 'Security', 'Access tokens']);

    const personal = section('Personal Information');
    expect(within(personal).getAllByRole('term').map((term) => term.textContent)).toEqual([
      'Full Name',
      'Email address',
      'Username',
      'Phone Number',
      'Date of Birth',
      'Gender',
    ]);
    expect(valueOf(personal, 'Full Name')).toBe('Amina Khan');
    expect(valueOf(personal, 'Phone Number')).toBe('N/A');
    expect(valueOf(personal, 'Date of Birth')).toBe('N/A');
    expect(valueOf(personal, 'Gender')).toBe('N/A');

    const address = section('Adress');
    expect(within(address).getAllByRole('term').map((term) => term.textContent)).toEqual([
      'Address',
      'Country',
      'City',
      'State',
      'Zip Code',
    ]);
    expect(within(address).getAllByRole('definition').map((value) => value.textContent)).toEqual([
      'N/A',
      'N/A',
      'N/A',
      'N/A',
      'N/A',
    ]);

    const medical = section('Medical Information');
    // Primphysician and Specialization only when present.
    expect(within(medical).getAllByRole('term').map((term) => term.textContent)).toEqual([
      'Role',
      'Blood Group',
      'License No',
      'Insurance No',
    ]);
    expect(valueOf(medical, 'Role')).toBe('Patient');
    expect(valueOf(medical, 'Blood Group')).toBe('N/A');

    expect(section('User Bio')).toHaveTextContent('N/A');
  });

  it('shows the summary and formats the date of birth in en-PK, Asia/Karachi', async () => {
    const user = makeUser({ dob: '1990-04-12', primphysician: 'Dr. Example', bio: '<b>not bold</b>' });
    mock.onGet('/users/profile').reply(200, { data: user });
    renderRoute('/profile', { user, token: 't' });

    await screen.findByRole('heading', { level: 2, name: 'Personal Information' });
    expect(screen.getByRole('heading', { level: 1, name: 'My Profile' })).toBeInTheDocument();
    expect(screen.getByText('AK')).toHaveAttribute('aria-hidden', 'true');
    expect(valueOf(section('Personal Information'), 'Date of Birth')).toBe(
      new Date('1990-04-12').toLocaleDateString('en-PK', { timeZone: 'Asia/Karachi' }),
    );
    expect(valueOf(section('Medical Information'), 'Primphysician')).toBe('Dr. Example');
    // User text is text, never markup.
    expect(section('User Bio')).toHaveTextContent('<b>not bold</b>');
    expect(section('User Bio').querySelector('b')).toBeNull();
  });

  it('edits the profile in an accessible dialog and keeps the returned user', async () => {
    const user = makeUser({ role: 'patient', gender: 'Female' });
    const saved = { ...user, city: 'Karachi' };
    mock.onGet('/users/profile').reply(200, { data: user });
    mock.onPut('/users/profile').reply(200, { message: 'Profile updated successfully!', data: saved });
    const actor = userEvent.setup();
    const { store } = renderRoute('/profile', { user, token: 't' });

    const open = await screen.findByRole('button', { name: 'Edit Profile' });
    await actor.click(open);
    const dialog = screen.getByRole('dialog', { name: 'Edit Profile' });
    expect(dialog).toHaveAttribute('aria-modal', 'true');
    expect(within(dialog).getByLabelText('First name')).toHaveFocus();
    expect(within(dialog).getByLabelText('Gender')).toHaveValue('female');
    expect(within(dialog).getByLabelText('Primary physician')).toBeInTheDocument();
    expect(within(dialog).queryByLabelText('Specialization')).not.toBeInTheDocument();

    await actor.clear(within(dialog).getByLabelText('City'));
    await actor.type(within(dialog).getByLabelText('City'), 'Karachi');
    await actor.click(within(dialog).getByRole('button', { name: 'Save changes' }));

    expect(await screen.findByText('Profile updated successfully!')).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(valueOf(section('Adress'), 'City')).toBe('Karachi');
    expect(store.getState().session.user).toEqual(saved);

    // A patient's fields only: the server refuses another role's.
    const body = JSON.parse(mock.history.put[0].data as string) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(
      [
        'address',
        'bio',
        'bloodgroup',
        'city',
        'country',
        'dob',
        'firstname',
        'gender',
        'lastname',
        'phone',
        'primphysician',
        'state',
        'zipcode',
      ].sort(),
    );
    expect(body).toMatchObject({ city: 'Karachi', gender: 'female' });
    expect(open).toHaveFocus();
  });

  it("offers and sends a provider's fields only", async () => {
    const provider = makeUser({ role: 'healthProvider', licensenumber: 'LIC-1', bloodgroup: null, primphysician: null });
    mock.onGet('/users/profile').reply(200, { data: provider });
    mock.onPut('/users/profile').reply(200, { message: 'Profile updated successfully!', data: provider });
    const actor = userEvent.setup();
    renderRoute('/profile', { user: provider, token: 't' });
    await actor.click(await screen.findByRole('button', { name: 'Edit Profile' }));
    const dialog = screen.getByRole('dialog', { name: 'Edit Profile' });
    for (const label of ['License number', 'Insurance number', 'Tax ID', 'Specialization']) {
      expect(within(dialog).getByLabelText(label)).toBeInTheDocument();
    }
    for (const label of ['Blood group', 'Primary physician']) expect(within(dialog).queryByLabelText(label)).not.toBeInTheDocument();
    await actor.click(within(dialog).getByRole('button', { name: 'Save changes' }));
    await screen.findByText('Profile updated successfully!');
    const sent = JSON.parse(mock.history.put[0].data as string) as Record<string, unknown>;
    expect(sent).toMatchObject({ licensenumber: 'LIC-1', insurancenumber: '', taxid: '', specialization: '' });
    expect(sent).not.toHaveProperty('bloodgroup');
    expect(sent).not.toHaveProperty('primphysician');
  });

  it("offers and sends an admin none of the roles' own fields", async () => {
    const admin = makeUser({ id: 'admin-1', role: 'admin', bloodgroup: null, primphysician: null });
    mock.onGet('/users/profile').reply(200, { data: admin });
    mock.onPut('/users/profile').reply(200, { message: 'Profile updated successfully!', data: admin });
    const actor = userEvent.setup();
    renderRoute('/profile', { user: admin, token: 't' });
    await actor.click(await screen.findByRole('button', { name: 'Edit Profile' }));
    const dialog = screen.getByRole('dialog', { name: 'Edit Profile' });
    for (const label of ['Blood group', 'Primary physician', 'License number', 'Tax ID']) {
      expect(within(dialog).queryByLabelText(label)).not.toBeInTheDocument();
    }
    await actor.click(within(dialog).getByRole('button', { name: 'Save changes' }));
    await screen.findByText('Profile updated successfully!');
    expect(Object.keys(JSON.parse(mock.history.put[0].data as string) as object).sort()).toEqual(
      ['address', 'bio', 'city', 'country', 'dob', 'firstname', 'gender', 'lastname', 'phone', 'state', 'zipcode'].sort(),
    );
  });

  it('asks for the names before sending, under the field, with focus there', async () => {
    const user = makeUser();
    mock.onGet('/users/profile').reply(200, { data: user });
    const actor = userEvent.setup();
    renderRoute('/profile', { user, token: 't' });
    await actor.click(await screen.findByRole('button', { name: 'Edit Profile' }));
    const dialog = screen.getByRole('dialog', { name: 'Edit Profile' });
    await actor.clear(within(dialog).getByLabelText('Last name'));
    await actor.click(within(dialog).getByRole('button', { name: 'Save changes' }));
    const lastName = within(dialog).getByLabelText('Last name');
    expect(lastName).toHaveAccessibleDescription('Please enter your last name.');
    expect(lastName).toHaveFocus();
    expect(within(dialog).getByLabelText('Bio')).toHaveAttribute('maxlength', '2000');
    expect(mock.history.put).toHaveLength(0);
  });

  it("shows a server field error under its field as well as in a toast", async () => {
    const user = makeUser();
    mock.onGet('/users/profile').reply(200, { data: user });
    mock.onPut('/users/profile').reply(422, {
      message: 'Please check the highlighted fields.',
      errors: [{ field: 'bloodgroup', message: 'This field does not apply to your role.' }],
    });
    const actor = userEvent.setup();
    renderRoute('/profile', { user, token: 't' });
    await actor.click(await screen.findByRole('button', { name: 'Edit Profile' }));
    const dialog = screen.getByRole('dialog', { name: 'Edit Profile' });
    await actor.click(within(dialog).getByRole('button', { name: 'Save changes' }));
    expect(await screen.findByText('bloodgroup: This field does not apply to your role.')).toBeInTheDocument();
    const bloodGroup = within(dialog).getByLabelText('Blood group');
    expect(bloodGroup).toHaveAccessibleDescription('This field does not apply to your role.');
    expect(bloodGroup).toHaveFocus();
  });

  it('offers specialization, not primary physician, to a provider; Escape closes the dialog', async () => {
    const user = makeUser({ role: 'healthProvider', specialization: 'Radiology', primphysician: null });
    mock.onGet('/users/profile').reply(200, { data: user });
    const actor = userEvent.setup();
    renderRoute('/profile', { user, token: 't' });
    await actor.click(await screen.findByRole('button', { name: 'Edit Profile' }));
    const dialog = screen.getByRole('dialog', { name: 'Edit Profile' });
    expect(within(dialog).getByLabelText('Specialization')).toHaveValue('Radiology');
    expect(within(dialog).queryByLabelText('Primary physician')).not.toBeInTheDocument();
    await actor.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('keeps Tab inside the dialog', async () => {
    const user = makeUser();
    mock.onGet('/users/profile').reply(200, { data: user });
    const actor = userEvent.setup();
    renderRoute('/profile', { user, token: 't' });
    await actor.click(await screen.findByRole('button', { name: 'Edit Profile' }));
    const dialog = screen.getByRole('dialog', { name: 'Edit Profile' });
    const save = within(dialog).getByRole('button', { name: 'Save changes' });
    save.focus();
    await actor.tab();
    expect(within(dialog).getByRole('button', { name: 'Close' })).toHaveFocus();
    await actor.tab({ shift: true });
    expect(save).toHaveFocus();
  });

  it('reports profile update errors one toast per field', async () => {
    const user = makeUser();
    mock.onGet('/users/profile').reply(200, { data: user });
    mock.onPut('/users/profile').reply(422, { errors: [{ field: 'phone', message: 'is too long' }] });
    const actor = userEvent.setup();
    renderRoute('/profile', { user, token: 't' });
    await actor.click(await screen.findByRole('button', { name: 'Edit Profile' }));
    await actor.click(screen.getByRole('button', { name: 'Save changes' }));
    expect(await screen.findByText('phone: is too long')).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: 'Edit Profile' })).toBeInTheDocument();
  });

  it('deletes the account with the password, clears the session and goes home', async () => {
    const user = makeUser();
    mock.onGet('/users/profile').reply(200, { data: user });
    mock.onDelete('/users/profile').reply(200, { message: 'Your account has been deleted.' });
    const actor = userEvent.setup();
    const { router, store } = renderRoute('/profile', { user, token: 't' });

    await actor.click(await screen.findByRole('button', { name: 'Delete Account' }));
    const dialog = screen.getByRole('dialog', { name: 'Delete Account' });
    await actor.click(within(dialog).getByRole('button', { name: 'Delete my account' }));
    expect(within(dialog).getByLabelText('Password')).toHaveAccessibleDescription(
      'Please enter your password to confirm.',
    );
    expect(mock.history.delete).toHaveLength(0);

    await actor.type(within(dialog).getByLabelText('Password'), 'my password');
    await actor.click(within(dialog).getByRole('button', { name: 'Delete my account' }));

    expect(await screen.findByText('Your account has been deleted.')).toBeInTheDocument();
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/'));
    expect(store.getState().session).toMatchObject({ token: null, user: null });
    expect(JSON.parse(mock.history.delete[0].data as string)).toEqual({ password: 'my password' });
  });
});

describe('/user-profile/:id', () => {
  it('shows another user read only', async () => {
    const other = makeUser({ id: 'u-2', firstname: 'Bilal', lastname: 'Raza', role: 'healthProvider' });
    mock.onGet('/users/u-2').reply(200, { data: other });
    renderRoute('/user-profile/u-2', { user: makeUser(), token: 't' });
    expect(await screen.findByRole('heading', { level: 2, name: 'Personal Information' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 1, name: 'User Profile' })).toBeInTheDocument();
    expect(valueOf(section('Personal Information'), 'Full Name')).toBe('Bilal Raza');
    expect(valueOf(section('Medical Information'), 'Role')).toBe('Health Provider');
    expect(screen.queryByRole('button', { name: 'Edit Profile' })).not.toBeInTheDocument();
  });

  it('says "User not found." on a 404', async () => {
    mock.onGet('/users/nobody').reply(404, { message: 'Not found.' });
    renderRoute('/user-profile/nobody', { user: makeUser(), token: 't' });
    expect(await screen.findByText('User not found.')).toBeInTheDocument();
  });

  it('without an id shows the caller', async () => {
    mock.onGet('/users/profile').reply(200, { data: makeUser({ firstname: 'Self' }) });
    renderRoute('/user-profile', { user: makeUser(), token: 't' });
    await screen.findByRole('heading', { level: 2, name: 'Personal Information' });
    expect(valueOf(section('Personal Information'), 'Full Name')).toBe('Self Khan');
  });
});
