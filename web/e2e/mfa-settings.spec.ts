import { expect, test } from '@playwright/test';
import { expectAccessible } from './support/a11y';
import { createVerifiedUser, newUser, signIn } from './support/accounts';
import { apiSignIn, bearer } from './support/api';
import { demoAccount } from './support/demo';
import { enrolAuthenticator } from './support/mfa';

// "Require a second factor for" changes the whole server, so this file runs
// in the 'settings' project (its name ends in settings.spec.ts): alone,
// after every other journey, which sign providers in.

test.describe('a second factor required of a role', () => {
  test.describe.configure({ timeout: 90_000 });

  test.afterEach(async ({ request }) => {
    const admin = await apiSignIn(request, await demoAccount('admin'));
    await request.put('/api/settings', { headers: bearer(admin), data: { mfaRequiredRoles: [] } });
  });

  test('an admin requires it of providers; a provider signing in is led to enrol, then let go', async ({ page, browser }) => {
    await signIn(page, await demoAccount('admin'));
    await page.goto('/appsettings');
    const roles = page.getByRole('group', { name: 'Require a second factor for' });
    await roles.getByRole('checkbox', { name: 'Health Provider' }).check();
    await expect(roles.getByRole('checkbox', { name: 'Patient' })).not.toBeChecked();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect(page.getByText('Settings saved.')).toBeVisible();
    await page.reload();
    await expect(page.getByRole('group', { name: 'Require a second factor for' }).getByRole('checkbox', { name: 'Health Provider' })).toBeChecked();

    const provider = await createVerifiedUser(page.request, newUser({ role: 'healthProvider' }));
    const context = await browser.newContext();
    const providerPage = await context.newPage();
    await signIn(providerPage, provider);
    await expect(providerPage).toHaveURL(/\/profile$/);
    await expect(providerPage.getByRole('alert').filter({ hasText: 'Your role requires a second factor.' })).toBeVisible();
    await expect(providerPage.getByRole('heading', { name: 'Personal Information' })).toHaveCount(0);
    await expectAccessible(providerPage);

    // Kept there until enrolled.
    await providerPage.goto('/upload');
    await expect(providerPage).toHaveURL(/\/profile$/);

    await enrolAuthenticator(providerPage);
    await expect(providerPage.getByRole('heading', { name: 'Personal Information' })).toBeVisible();
    await providerPage.getByRole('button', { name: 'Done' }).click();
    await providerPage.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard' }).click();
    await expect(providerPage).toHaveURL(/\/dashboard$/);

    // The admin's user table shows the provider's second factor.
    await page.goto('/dashboard');
    await page.getByLabel('Search users').fill(provider.email);
    const row = page.getByRole('row').filter({ hasText: provider.email });
    await expect(row).toContainText('On (Authenticator)');
    await context.close();
  });
});
