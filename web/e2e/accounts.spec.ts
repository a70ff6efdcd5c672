import { expect, test } from '@playwright/test';
import {
  createVerifiedUser,
  newUser,
  PASSWORD,
  registerThroughApi,
  signIn,
  typeCode,
} from './support/accounts';
import { demoAccount } from './support/demo';
import { readConfirmationCode, readPasswordReset } from './support/mailbox';

// Account journeys against the real server (../scripts/e2e-server.sh):
// mail is read from the development mailbox, demo accounts from the file the
// server writes at start-up. Each test makes its own users.
test.describe('accounts', () => {
  test.describe.configure({ timeout: 60_000 });

  test('a patient registers in four steps, confirms the code from the mail and signs in', async ({ page }) => {
    const user = newUser({ firstname: 'Nadia', role: 'patient' });
    const since = Date.now();

    await page.goto('/register');
    await expect(page.getByRole('heading', { level: 1, name: 'Create your account' })).toBeVisible();
    const next = page.getByRole('button', { name: 'Next' });
    await expect(next).toBeDisabled();
    await page.getByRole('radio', { name: /Patient/ }).check();
    await next.click();

    await expect(page.getByRole('heading', { level: 2, name: 'Personal Details' })).toBeVisible();
    await page.getByLabel('First name').fill(user.firstname);
    await page.getByLabel('Last name').fill(user.lastname);
    await page.getByLabel('Username').fill(user.username);
    await page.getByLabel('Email', { exact: true }).fill(user.email);
    await page.getByLabel('Phone').fill('+92 300 7654321');
    await page.getByLabel('Date of birth').fill('1992-08-14');
    await page.getByLabel('Gender').selectOption('Female');
    await page.getByLabel('Address').fill('12 Canal Road');
    await page.getByLabel('City').fill('Lahore');
    await page.getByLabel('State').fill('Punjab');
    await page.getByLabel('Country').fill('Pakistan');
    await page.getByLabel('Zip code').fill('54000');
    await next.click();

    await expect(page.getByRole('heading', { level: 2, name: 'Medical Details' })).toBeVisible();
    await expect(page.getByLabel('License number')).toHaveCount(0);
    await page.getByLabel('Primary physician').fill('Dr. Farooq');
    await page.getByLabel('Blood group').selectOption('A+');
    await page.getByLabel('Bio').fill('Registered by the end-to-end suite.');
    await next.click();

    await expect(page.getByRole('heading', { level: 2, name: 'Security & Submit' })).toBeVisible();
    await page.getByLabel('Password', { exact: true }).fill(user.password);
    await page.getByLabel('Confirm password', { exact: true }).fill(user.password);
    await page.getByRole('button', { name: 'Register' }).click();

    await expect(page.getByText('Registration successful!')).toBeVisible();
    await expect(page).toHaveURL(/\/verify-account$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Verify Your Account' })).toBeVisible();
    await expect(page.getByLabel('Email', { exact: true })).toHaveValue(user.email);

    const code = await readConfirmationCode(user.email, { since });
    await typeCode(page, code);
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page).toHaveURL(/\/login$/);

    await signIn(page, user);
    await expect(page).toHaveURL(/\/view-images$/);
    await expect(page.getByRole('heading', { level: 1, name: 'View Medical Images' })).toBeVisible();
    const menu = page.getByRole('navigation', { name: 'Main' });
    await expect(menu.getByRole('link', { name: 'View Images' })).toHaveAttribute('aria-current', 'page');
    await expect(menu.getByRole('link', { name: 'Dashboard' })).toHaveCount(0);
  });

  test('the demo provider lands on the dashboard and sees the user table', async ({ page }) => {
    await signIn(page, await demoAccount('healthProvider'));
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByRole('heading', { level: 1, name: /^Welcome, / })).toBeVisible();
    const stats = page.getByRole('region', { name: 'Statistics' });
    for (const label of ['Total Images', 'Shared Images', 'Total Users']) {
      await expect(stats.getByText(label, { exact: true })).toBeVisible();
    }
    const table = page.getByRole('table', { name: 'Users' });
    await expect(table).toBeVisible();
    await expect(table.getByRole('columnheader', { name: 'Email' })).toBeVisible();
    await expect(page.getByText(/^Page \d+ of \d+$/)).toBeVisible();
    await expect(page.getByLabel('Rows per page')).toHaveValue('5');
    await expect(table.getByRole('button', { name: /^Delete / })).toHaveCount(0);
  });

  test('the demo admin deletes a user', async ({ page }) => {
    const throwaway = newUser({ firstname: 'Throwaway', role: 'patient' });
    await registerThroughApi(page.request, throwaway);

    await signIn(page, await demoAccount('admin'));
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByRole('heading', { level: 1, name: /\(admin\)$/ })).toBeVisible();

    await page.getByLabel('Search users').fill(throwaway.email);
    const table = page.getByRole('table', { name: 'Users' });
    const row = table.getByRole('row').filter({ hasText: throwaway.email });
    await expect(row).toHaveCount(1);
    await row.getByRole('button', { name: /^Delete / }).click();

    const dialog = page.getByRole('dialog', { name: 'Delete user' });
    await expect(dialog).toContainText(throwaway.email);
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await expect(dialog).toBeHidden();

    // Deleting deactivates the account and erases its profile: it leaves the
    // list or stays as Inactive, but is never Active or Unverified again.
    await expect
      .poll(async () => {
        const rows = await table.getByRole('row').filter({ hasText: throwaway.email }).allTextContents();
        return rows.every((text) => text.includes('Inactive'));
      })
      .toBe(true);
  });

  test('forgot password: code from the mail, new password, sign in with it', async ({ page }) => {
    const user = await createVerifiedUser(page.request, newUser({ firstname: 'Forgetful' }));
    const newPassword = `${PASSWORD}-renewed`;

    await page.goto('/forgot-password');
    await expect(page.getByRole('heading', { level: 1, name: 'Forgot password' })).toBeVisible();
    const since = Date.now();
    await page.getByLabel('Email', { exact: true }).fill(user.email);
    await page.getByRole('button', { name: 'Send reset code' }).click();
    await expect(page.getByText('Reset code sent successfully!')).toBeVisible();

    const { code } = await readPasswordReset(user.email, { since });
    await typeCode(page, code);
    await page.getByLabel('New password', { exact: true }).fill(newPassword);
    await page.getByLabel('Confirm new password', { exact: true }).fill(newPassword);
    await page.getByRole('button', { name: 'Reset password' }).click();
    await expect(page.getByText('Password reset successfully!')).toBeVisible();
    await expect(page.getByRole('heading', { level: 2, name: 'Password reset' })).toBeVisible();

    await page.getByRole('link', { name: 'Back to login' }).click();
    await expect(page).toHaveURL(/\/login$/);
    await signIn(page, { email: user.email, password: newPassword });
    await expect(page).toHaveURL(/\/view-images$/);
  });

  test('the link of the reset mail sets a new password too', async ({ page }) => {
    const user = await createVerifiedUser(page.request, newUser({ firstname: 'Linked' }));
    const newPassword = `${PASSWORD}-linked`;
    const since = Date.now();
    const response = await page.request.post('/api/auth/forgot-password', { data: { email: user.email } });
    expect(response.status()).toBe(200);

    const { path } = await readPasswordReset(user.email, { since });
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1, name: 'Reset password' })).toBeVisible();
    await page.getByLabel('New password', { exact: true }).fill(newPassword);
    await page.getByLabel('Confirm new password', { exact: true }).fill(`${newPassword}!`);
    await page.getByRole('button', { name: 'Reset password' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'Passwords do not match!' })).toBeVisible();

    await page.getByLabel('Confirm new password', { exact: true }).fill(newPassword);
    await page.getByRole('button', { name: 'Reset password' }).click();
    await expect(page.getByText('Password reset successfully!')).toBeVisible();
    await expect(page).toHaveURL(/\/login$/);
    await signIn(page, { email: user.email, password: newPassword });
    await expect(page).toHaveURL(/\/view-images$/);
  });

  test('a reload keeps the session', async ({ page }) => {
    const user = await createVerifiedUser(page.request, newUser({ firstname: 'Reloading' }));
    await signIn(page, user);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Profile' }).click();
    await expect(page).toHaveURL(/\/profile$/);
    const name = `${user.firstname} ${user.lastname}`;
    await expect(page.getByText(name, { exact: true }).first()).toBeVisible();

    await page.reload();
    await expect(page).toHaveURL(/\/profile$/);
    await expect(page.getByRole('heading', { level: 1, name: 'My Profile' })).toBeVisible();
    await expect(page.getByRole('banner')).toContainText(name);
    await expect(page.getByRole('region', { name: 'Personal Information' })).toContainText(name);
  });

  test('logout returns to /login and the old token is refused', async ({ page }) => {
    const user = await createVerifiedUser(page.request, newUser({ firstname: 'Leaving' }));
    await signIn(page, user);

    // Capture the bearer token of a real request.
    const profileRequest = page.waitForRequest(
      (request) => request.url().endsWith('/api/users/profile') && Boolean(request.headers().authorization),
    );
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Profile' }).click();
    const authorization = (await profileRequest).headers().authorization;
    expect(authorization).toMatch(/^Bearer \S+$/);

    await page.getByRole('banner').getByRole('button', { name: 'Logout' }).click();
    await expect(page.getByText('Logged out successfully')).toBeVisible();
    await expect(page).toHaveURL(/\/login$/);

    const refused = await page.request.get('/api/users/profile', { headers: { Authorization: authorization } });
    expect(refused.status()).toBe(401);

    // And the app no longer lets the visitor in.
    await page.goto('/profile');
    await expect(page).toHaveURL(/\/login$/);
  });

  test('names and bios holding HTML are shown as text, never run', async ({ page }) => {
    const markup = '<img src=x onerror="window.__xss=1">';
    const user = await createVerifiedUser(page.request, newUser({ firstname: markup, role: 'patient' }));
    await signIn(page, user);
    await page.goto('/profile');
    await expect(page.getByRole('heading', { name: 'My Profile' })).toBeVisible();
    await expect(page.getByText(markup).first()).toBeVisible();
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    await expect(page.locator('main img[src="x"]')).toHaveCount(0);
  });
});
