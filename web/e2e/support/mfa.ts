import { expect, type Page } from '@playwright/test';
import type { Credentials } from './demo';
import { freshTotp } from './totp';

/** Signs out through the top bar's Logout button. */
export async function signOut(page: Page): Promise<void> {
  await page.getByRole('banner').getByRole('button', { name: 'Logout' }).click();
  await expect(page).toHaveURL(/\/login$/);
}

/** The password step of /login, for an account with a second factor: stops at the second step. */
export async function signInToSecondStep(page: Page, { email, password }: Credentials): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Two-step verification' })).toBeVisible();
}

/**
 * Sets up the authenticator in the Security section of /profile (the page is
 * there): reads the key, turns it on with a code computed from it, and
 * returns the key, the step used and the recovery codes shown.
 */
export async function enrolAuthenticator(page: Page): Promise<{ secret: string; step: number; recoveryCodes: string[] }> {
  const security = page.getByRole('region', { name: 'Security' });
  const totp = security.getByRole('group', { name: 'Authenticator app' });
  await totp.getByRole('button', { name: 'Set up an authenticator' }).click();
  await expect(totp.getByRole('img', { name: 'QR code to scan with your authenticator app' })).toBeVisible();
  const secret = await totp.getByLabel('Or type this key into the app').inputValue();
  expect(secret).toMatch(/^[A-Z2-7]+=*$/);
  const { code, step } = await freshTotp(secret);
  await expect(totp.getByRole('textbox', { name: 'Digit 1 of 6' })).toBeFocused();
  await page.keyboard.type(code);
  await totp.getByRole('button', { name: 'Turn on' }).click();
  const codes = security.getByRole('group', { name: 'Your recovery codes' });
  await expect(codes.getByRole('listitem')).toHaveCount(10);
  const recoveryCodes = await codes.getByRole('listitem').allTextContents();
  await expect(totp).toContainText('Status: On');
  return { secret, step, recoveryCodes };
}
