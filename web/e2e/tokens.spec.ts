import { expect, test } from '@playwright/test';
import { expectAccessible } from './support/a11y';
import { createVerifiedUser, newUser, signIn } from './support/accounts';

test.describe('personal access tokens', () => {
  test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

  test('a provider creates a token, sees it listed, and revokes it', async ({ page }) => {
    const provider = await createVerifiedUser(page.request, newUser({ role: 'healthProvider' }));
    await signIn(page, provider);
    await page.goto('/profile');
    const section = page.getByRole('region', { name: 'Access tokens' });
    await expect(section.getByText('You have no active tokens.')).toBeVisible();
    await expect(section.getByLabel('Lifetime in days')).toHaveValue('90');
    await expectAccessible(page);

    await section.getByLabel('Name').fill('Orthanc PACS');
    await section.getByLabel('Lifetime in days').fill('30');
    await section.getByRole('button', { name: 'Create token' }).click();
    await expect(page.getByText('Token created.')).toBeVisible();
    const secret = section.getByLabel(/Your new token/);
    await expect(secret).toBeFocused();
    await expect(secret).toHaveValue(/^msp_[A-Za-z0-9_-]{43}$/);
    await expect(secret).toHaveAccessibleDescription('Copy this token now. You will not be able to see it again.');
    const token = await secret.inputValue();
    await section.getByRole('button', { name: 'Copy' }).click();
    await expect(page.getByText('Token copied.')).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);

    // Listed with its dates, never its secret; the API under /api does not take it.
    const item = section.getByRole('listitem').filter({ hasText: 'Orthanc PACS' });
    await expect(item.getByText('Last used').locator('..')).toContainText('Never');
    const refused = await page.request.get('/api/users/profile', { headers: { Authorization: `Bearer ${token}` } });
    expect(refused.status()).toBe(401);
    await section.getByRole('button', { name: 'Done' }).click();
    await expect(page.getByText(token)).toHaveCount(0);
    await expect(section.getByLabel('Name')).toBeFocused();

    // At 360 px the section fits without sideways scrolling.
    await page.setViewportSize({ width: 360, height: 780 });
    const { scrollWidth, clientWidth } = await page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      clientWidth: document.documentElement.clientWidth,
    }));
    expect(scrollWidth).toBeLessThanOrEqual(clientWidth);

    // Revoked after a confirmation, by keyboard.
    await item.getByRole('button', { name: 'Revoke Orthanc PACS' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Revoke token' });
    await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
    await expectAccessible(page);
    await dialog.getByRole('button', { name: 'Revoke token' }).click();
    await expect(page.getByText('Token revoked.')).toBeVisible();
    await expect(section.getByText('You have no active tokens.')).toBeVisible();
    await expect(section.getByRole('heading', { name: 'Access tokens' })).toBeFocused();

    // Reloaded, it stays gone.
    await page.reload();
    await expect(page.getByRole('region', { name: 'Access tokens' }).getByText('You have no active tokens.')).toBeVisible();
  });
});
