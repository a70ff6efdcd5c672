import { expect, test } from '@playwright/test';
import { expectAccessible } from './support/a11y';
import { createVerifiedUser, newUser, registerThroughApi, signIn, uniqueId } from './support/accounts';
import { apiSignIn, bearer } from './support/api';
import { demoAccount } from './support/demo';
import { makeJpeg } from './support/files';
import { readConfirmationCode } from './support/mailbox';
import { card } from './support/view-images';

// Settings change the whole server, so this file runs on its own, after
// every other (the 'settings' project of playwright.config.ts): while
// provider approval is on, no other journey registers a provider, and while
// the share lifetimes are changed, none shares (sharing.spec.ts expects the
// default of 24 hours).

test.describe('settings and provider approval', () => {
  test.describe.configure({ timeout: 90_000 });

  test.afterEach(async ({ request }) => {
    // Whatever happened, leave the server's settings as they were.
    const admin = await apiSignIn(request, await demoAccount('admin'));
    await request.put('/api/settings', { headers: bearer(admin), data: { providerApprovalRequired: false } });
  });

  test('an admin requires approval; a new provider waits until the admin approves them', async ({ page, browser }) => {
    await signIn(page, await demoAccount('admin'));
    await page.goto('/admin-dashboard');
    await expect(page.getByRole('heading', { level: 1, name: 'Secure Medical Image Sharing Dashboard' })).toBeVisible();
    const health = page.getByRole('region', { name: 'System health' });
    await expect(health.getByText('Database').locator('..')).toContainText('OK');
    await expect(health).toContainText('entries checked');
    const activity = page.getByRole('region', { name: 'Activity over the last 14 days' });
    await expect(activity.locator('canvas').first()).toBeVisible();
    await activity.getByText('Show as table').click();
    await expect(activity.getByRole('table').locator('tbody tr')).toHaveCount(14);
    await expectAccessible(page);

    await page.goto('/roles-permissions');
    await expect(page.getByRole('table', { name: 'Which role holds which permission' })).toBeVisible();
    await expectAccessible(page);

    await page.goto('/appsettings');
    const approval = page.getByLabel("New providers need an administrator's approval");
    await expect(approval).not.toBeChecked();
    const unscreened = page.getByLabel('Also send images that cannot be screened');
    await expect(unscreened).not.toBeChecked();
    await expect(unscreened).toHaveAccessibleDescription(/may show a patient's name, a date or a face/);
    await expectAccessible(page);
    await approval.check();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect(page.getByText('Settings saved.')).toBeVisible();

    // A refused change says why, under its field.
    await page.getByLabel('Default share lifetime (hours)').fill('900');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect(page.getByLabel('Default share lifetime (hours)')).toHaveAccessibleDescription(/must be between 1 and 720/);

    const provider = newUser({ role: 'healthProvider' });
    const since = Date.now();
    await registerThroughApi(page.request, provider);
    const code = await readConfirmationCode(provider.email, { since });
    const confirmed = await page.request.post('/api/auth/confirm', { data: { email: provider.email, code } });
    expect(confirmed.status()).toBe(200);

    const providerContext = await browser.newContext();
    try {
      const providerPage = await providerContext.newPage();
      await providerPage.goto('/login');
      await providerPage.getByLabel('Email', { exact: true }).fill(provider.email);
      await providerPage.getByLabel('Password', { exact: true }).fill(provider.password);
      await providerPage.getByRole('button', { name: 'Sign in' }).click();
      await expect(providerPage.getByText("Your account is waiting for an administrator's approval.")).toBeVisible();
      await expect(providerPage).toHaveURL(/\/login$/);

      await page.goto('/dashboard');
      await page.getByLabel('Search users').fill(provider.lastname);
      const row = page.getByRole('row').filter({ hasText: provider.email });
      await expect(row.getByText('Pending')).toBeVisible();
      await row.getByRole('button', { name: /^Approve / }).click();
      await expect(page.getByText('User updated successfully.')).toBeVisible();
      await expect(row.getByText('Active')).toBeVisible();

      await signIn(providerPage, provider);
      await expect(providerPage).toHaveURL(/\/dashboard$/);
    } finally {
      await providerContext.close();
    }
  });

  test('a patient who opens an admin screen is told it is not allowed', async ({ page }) => {
    const patient = await createVerifiedUser(page.request, newUser());
    await signIn(page, patient);
    for (const path of ['/appsettings', '/admin-dashboard', '/roles-permissions']) {
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1, name: 'Not allowed' })).toBeVisible();
    }
    const refused = await page.request.get('/api/settings', { headers: bearer(await apiSignIn(page.request, patient)) });
    expect(refused.status()).toBe(403);
  });
});

test.describe('share lifetimes', () => {
  test.describe.configure({ timeout: 90_000 });

  test("the Share dialog preselects the admin's default and offers nothing beyond the maximum", async ({ page }) => {
    const admin = await apiSignIn(page.request, await demoAccount('admin'));
    const read = await page.request.get('/api/settings', { headers: bearer(admin) });
    expect(read.status()).toBe(200);
    const { data: before } = (await read.json()) as { data: { shareLifetimeDefaultHours: number; shareLifetimeMaxHours: number } };
    const provider = await demoAccount('healthProvider');
    const providerSession = await apiSignIn(page.request, provider);
    let imageId = '';
    try {
      const changed = await page.request.put('/api/settings', {
        headers: bearer(admin),
        data: { shareLifetimeDefaultHours: 48, shareLifetimeMaxHours: 72 },
      });
      expect(changed.status(), await changed.text()).toBe(200);

      // An image of the demo provider's, to open the dialog on (set up through the API).
      await page.goto('/');
      const caption = `Lifetimes ${uniqueId()}`;
      const patient = await apiSignIn(page.request, await demoAccount('patient'));
      const upload = await page.request.post('/api/upload/image', {
        headers: bearer(providerSession),
        multipart: { caption, patientId: patient.userId, file: await makeJpeg(page, 'Lifetimes', 'lifetimes.jpg') },
      });
      expect(upload.status(), await upload.text()).toBe(201);
      imageId = ((await upload.json()) as { data: { id: string } }).data.id;

      await signIn(page, provider);
      await page.goto('/view-images');
      await card(page, 'Uploaded Images', caption).getByRole('button', { name: `Share ${caption}` }).click();
      const dialog = page.getByRole('dialog', { name: `Share (${caption})` });
      const lifetime = dialog.getByRole('combobox', { name: 'Expires after' });
      await expect(lifetime).toHaveValue('48');
      const offered = (await lifetime.locator('option').evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value))).map(Number);
      expect(Math.max(...offered)).toBe(72);
      expect(await lifetime.locator('option').allTextContents()).toEqual(['1 hour', '12 hours', '24 hours', '2 days', '3 days']);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
    } finally {
      // Leave the server's settings as they were, and no image behind.
      const restored = await page.request.put('/api/settings', {
        headers: bearer(admin),
        data: { shareLifetimeDefaultHours: before.shareLifetimeDefaultHours, shareLifetimeMaxHours: before.shareLifetimeMaxHours },
      });
      expect(restored.status()).toBe(200);
      if (imageId) await page.request.delete(`/api/upload/image/${imageId}`, { headers: bearer(providerSession) });
    }
  });
});
