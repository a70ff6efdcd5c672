import { expect, test, type Page } from '@playwright/test';
import { expectAccessible } from './support/a11y';

declare global {
  interface Window {
    cspViolations: string[];
  }
}

/** Console errors, page errors and CSP violations seen while the test runs. */
async function watchProblems(page: Page): Promise<() => Promise<string[]>> {
  const problems: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(msg.text());
  });
  page.on('pageerror', (err) => problems.push(err.message));
  await page.addInitScript(() => {
    window.cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  return async () => [...problems, ...(await page.evaluate(() => window.cspViolations))];
}

async function openDocs(page: Page) {
  const response = await page.goto('/api/docs');
  expect(response?.status()).toBe(200);
  expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
  await expect(page.getByRole('heading', { level: 1, name: 'MediShare API reference' })).toBeVisible();
}

test.describe('the API reference page', () => {
  test('renders the routes from /api/openapi.json, by keyboard, within the CSP', async ({ page }) => {
    // Every route of the document is on the page, and axe checks them all:
    // on two busy cores that takes longer than the usual deadline.
    test.slow();
    const problems = await watchProblems(page);
    await openDocs(page);

    const login = page.locator('#op-login');
    const summary = login.locator('summary');
    await expect(summary).toHaveText(/^POST \/api\/auth\/login Sign in$/);
    await expect(page.getByRole('heading', { level: 2, name: 'Auth', exact: true })).toBeVisible();
    await expect(page.getByRole('heading', { level: 2, name: 'Messages', exact: true })).toBeVisible();

    // A route opens from the keyboard and shows its auth, body and answers.
    await summary.focus();
    await page.keyboard.press('Enter');
    await expect(login).toHaveAttribute('open', '');
    await expect(login).toContainText('Public: no token needed');
    await expect(login.getByRole('heading', { name: 'Request body' })).toBeVisible();
    await expect(login).toContainText('application/json');
    await expect(login.locator('.http-status', { hasText: '429' })).toBeVisible();
    await expect(login).toContainText('Retry-After');

    // A signed-in route names its token; a schema link leads to the schema.
    const profile = page.locator('#op-getProfile');
    await profile.locator('summary').click();
    await expect(profile).toContainText('Bearer token');
    await profile.getByRole('link', { name: 'OwnUser', exact: true }).first().click();
    await expect(page).toHaveURL(/#schema-OwnUser$/);
    const own = page.locator('#schema-OwnUser');
    await expect(own).toContainText('permissions');
    await own.getByRole('link', { name: 'User', exact: true }).first().click();
    await expect(page).toHaveURL(/#schema-User$/);
    await expect(page.locator('#schema-User')).toContainText('createdAt');

    // The filter narrows the list.
    await page.getByLabel('Filter routes').fill('message stream');
    await expect(page.locator('details.op:visible')).toHaveCount(1);
    await expect(page.locator('#op-messageStream summary')).toContainText('GET /api/message/stream');
    await page.getByLabel('Filter routes').fill('');

    // Nothing inline: no <style> element, no style attribute.
    expect(await page.locator('style, [style]').count()).toBe(0);
    expect(await problems()).toEqual([]);
    await expectAccessible(page);
  });

  for (const width of [360, 1440]) {
    test(`fits ${width} px without sideways scrolling`, async ({ page }) => {
      const problems = await watchProblems(page);
      await page.setViewportSize({ width, height: 800 });
      await openDocs(page);
      await page.locator('#op-uploadImage summary').click();
      await expect(page.locator('#op-uploadImage')).toContainText('multipart/form-data');
      const { scrollWidth, clientWidth } = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        clientWidth: document.documentElement.clientWidth,
      }));
      expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
      expect(await problems()).toEqual([]);
    });
  }

  test('the skip link leads to the routes', async ({ page }) => {
    await openDocs(page);
    await expect(page.locator('#op-login')).toBeAttached();
    await page.keyboard.press('Tab');
    const skip = page.getByRole('link', { name: 'Skip to the routes' });
    await expect(skip).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('main')).toBeFocused();
  });
});
