import { expect, type APIRequestContext, type Page } from '@playwright/test';
import type { Credentials } from './demo';
import { readConfirmationCode } from './mailbox';

/** A short, unique, lower-case id for usernames and addresses. */
export function uniqueId(prefix = 'e2e'): string {
  return `${prefix}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`;
}

export const PASSWORD = 'Plum-Harbour-Lantern-47';

export interface TestUser extends Credentials {
  username: string;
  firstname: string;
  lastname: string;
  role: 'patient' | 'healthProvider';
}

/** A user that is not registered yet. */
export function newUser(overrides: Partial<TestUser> = {}): TestUser {
  const id = uniqueId();
  return {
    email: `${id}@example.test`,
    password: PASSWORD,
    username: id,
    firstname: 'Test',
    lastname: `User ${id.slice(-5)}`,
    role: 'patient',
    ...overrides,
  };
}

/** The registration payload of product.md §3 for `user`. */
export function registrationPayload(user: TestUser): Record<string, unknown> {
  const common = {
    email: user.email,
    username: user.username,
    active: true,
    password: user.password,
    role: user.role,
    firstname: user.firstname,
    lastname: user.lastname,
    phone: '+92 300 1234567',
    dob: '1990-04-12',
    gender: 'Other',
    address: '1 Test Road',
    city: 'Lahore',
    state: 'Punjab',
    country: 'Pakistan',
    zipcode: '54000',
    bio: 'Created by an end-to-end test.',
  };
  return user.role === 'patient'
    ? { ...common, primphysician: 'Dr. Test', bloodgroup: 'O+' }
    : { ...common, licensenumber: 'LIC-E2E', insurancenumber: 'INS-E2E', taxid: 'TAX-E2E', specialization: 'Radiology' };
}

/** POST /api/auth/register; the account still needs its confirmation code. */
export async function registerThroughApi(request: APIRequestContext, user: TestUser): Promise<void> {
  const response = await request.post('/api/auth/register', { data: registrationPayload(user) });
  expect(response.status(), await response.text()).toBe(201);
}

/** Registers `user` and confirms it with the code from the mailbox. */
export async function createVerifiedUser(request: APIRequestContext, user: TestUser = newUser()): Promise<TestUser> {
  const since = Date.now();
  await registerThroughApi(request, user);
  const code = await readConfirmationCode(user.email, { since });
  const response = await request.post('/api/auth/confirm', { data: { email: user.email, code } });
  expect(response.status(), await response.text()).toBe(200);
  return user;
}

/** Signs in through /login and waits for the redirect away from it. */
export async function signIn(page: Page, { email, password }: Credentials): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText('Login successful! Redirecting...')).toBeVisible();
  await expect(page).not.toHaveURL(/\/login$/);
}

/** Types a code into the one-character boxes (they move on by themselves). */
export async function typeCode(page: Page, code: string): Promise<void> {
  await page.getByRole('textbox', { name: `Digit 1 of ${code.length}` }).click();
  await page.keyboard.type(code);
}
