import { expect, test } from '@playwright/test';
import { signIn } from './support/accounts';
import { demoAccount, type DemoRole } from './support/demo';

test('/dashboard without a token lands on /login', async ({ page }) => {
  await page.goto('/dashboard');
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Sign in' })).toBeVisible();
});

test('an unknown route shows the app\'s "Page not found"', async ({ page }) => {
  await page.goto('/no-such-page');
  await expect(page.getByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible();
  await page.getByRole('link', { name: 'Back to home' }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole('navigation', { name: 'Account' })).toBeVisible();
});

test('public screens load directly by URL', async ({ page }) => {
  const screens = [
    ['/login', 'Sign in'],
    ['/register', 'Create your account'],
    ['/verify-account', 'Verify Your Account'],
    ['/forgot-password', 'Forgot password'],
    ['/reset-password?token=abc', 'Reset password'],
    ['/share-image', 'Share Your Image'],
  ] as const;
  for (const [path, title] of screens) {
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
    await expect(page).toHaveTitle(`${title} · MediShare`);
  }
});

test('the page loads without console errors or CSP violations', async ({ page }) => {
  const problems: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(msg.text());
  });
  page.on('pageerror', (err) => problems.push(err.message));
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  // The app must not inject <style> elements (the server's CSP forbids them).
  expect(await page.locator('style').count()).toBe(0);
  expect(problems).toEqual([]);
});

// product.md §2 "Side menu by role", drawn from the permissions the server
// states at sign-in (the app asks no role by name), and the admin dashboard.
const MENUS: Record<DemoRole, string[]> = {
  patient: ['Profile', 'View Images', 'Messages', 'Home'],
  healthProvider: ['Dashboard', 'Profile', 'Upload Image', 'View Images', 'Messages', 'Audit Logs', 'Home'],
  admin: [
    'Dashboard',
    'Profile',
    'Upload Image',
    'View Images',
    'Messages',
    'Audit Logs',
    'Roles',
    'Settings',
    'Admin Dashboard',
    'Home',
  ],
};

const HOMES: Record<DemoRole, string> = { patient: '/view-images', healthProvider: '/dashboard', admin: '/dashboard' };

for (const role of ['patient', 'healthProvider', 'admin'] as const) {
  test(`${role}: the menu of the spec, and the landing page's Dashboard leads home`, async ({ page }) => {
    await signIn(page, await demoAccount(role));
    await expect(page).toHaveURL(new RegExp(`${HOMES[role]}$`));
    const menu = page.getByRole('navigation', { name: 'Main' });
    // Messages may carry an unread count.
    await expect(menu.getByRole('link')).toHaveText(MENUS[role].map((label) => (label === 'Messages' ? /^Messages\b/ : label)));

    await menu.getByRole('link', { name: 'Home' }).click();
    await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Dashboard' }).click();
    await expect(page).toHaveURL(new RegExp(`${HOMES[role]}$`));
    await expect(page.getByRole('heading', { level: 1, name: 'Not allowed' })).toHaveCount(0);
  });
}
