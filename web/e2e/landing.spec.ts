import { expect, test, type Page } from '@playwright/test';

async function openLanding(page: Page) {
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
}

test.describe('landing page', () => {
  test('shows every section of the spec', async ({ page }) => {
    await openLanding(page);
    await expect(page).toHaveTitle(/MediShare/);

    const header = page.getByRole('banner');
    await expect(header.getByRole('link', { name: 'MediShare' })).toBeVisible();
    const account = page.getByRole('navigation', { name: 'Account' });
    await expect(account.getByRole('link', { name: 'Login' })).toBeVisible();
    await expect(account.getByRole('link', { name: 'Register' })).toBeVisible();
    await expect(account.getByRole('link', { name: 'Dashboard' })).toHaveCount(0);

    const hero = page.getByRole('region', { name: /share medical images safely/i });
    await expect(hero.getByRole('heading', { level: 1 })).toBeVisible();
    await expect(hero).toContainText(/patients/i);
    await expect(hero).toContainText(/providers/i);

    const stats = page.getByRole('region', { name: 'MediShare in numbers' });
    for (const figure of ['500K+', '24/7', '1M+']) {
      await expect(stats.getByText(figure, { exact: true })).toBeVisible();
    }
    await expect(stats.getByRole('definition')).toHaveCount(3);

    const features = page.getByRole('region', { name: /protect every image/i });
    const cards = features.getByRole('listitem');
    await expect(cards).toHaveCount(4);
    for (const name of ['Encryption', 'Role-based access', 'Audit trails', 'Secure messaging']) {
      await expect(features.getByRole('heading', { level: 3, name })).toBeVisible();
    }

    await expect(page.getByRole('link', { name: 'Get Started' })).toHaveAttribute('href', '/register');

    const footer = page.getByRole('contentinfo');
    const quickLinks = footer.getByRole('navigation', { name: 'Quick links' });
    await expect(quickLinks.getByRole('link')).toHaveCount(4);
    await expect(quickLinks.getByRole('link', { name: 'View Images' })).toHaveAttribute('href', '/view-images');
    await expect(quickLinks.getByRole('link', { name: 'Share Image' })).toHaveAttribute('href', '/share-image');
    await expect(quickLinks.getByRole('link', { name: 'Upload Image' })).toHaveAttribute('href', '/upload');
    await expect(quickLinks.getByRole('link', { name: 'Messages' })).toHaveAttribute('href', '/messages');
    const contact = footer.getByRole('region', { name: 'Contact' });
    await expect(contact.getByRole('link', { name: 'support@medishare.example' })).toHaveAttribute(
      'href',
      'mailto:support@medishare.example',
    );
  });

  test('Login goes to /login', async ({ page }) => {
    await openLanding(page);
    await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Login' }).click();
    await expect(page).toHaveURL(/\/login$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Sign in' })).toBeVisible();
  });

  test('Register goes to /register', async ({ page }) => {
    await openLanding(page);
    await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Register' }).click();
    await expect(page).toHaveURL(/\/register$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Create your account' })).toBeVisible();
  });

  test('Get Started goes to /register', async ({ page }) => {
    await openLanding(page);
    await page.getByRole('link', { name: 'Get Started' }).click();
    await expect(page).toHaveURL(/\/register$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Create your account' })).toBeVisible();
  });

  // Without a token the guarded pages of product.md §2 end on /login.
  const footerLinks = [
    { name: 'View Images', lands: '/login', heading: 'Sign in' },
    { name: 'Share Image', lands: '/share-image', heading: 'Share Your Image' },
    { name: 'Upload Image', lands: '/login', heading: 'Sign in' },
    { name: 'Messages', lands: '/login', heading: 'Sign in' },
  ];
  for (const link of footerLinks) {
    test(`footer link ${link.name} ends on ${link.lands}`, async ({ page }) => {
      await openLanding(page);
      await page
        .getByRole('contentinfo')
        .getByRole('navigation', { name: 'Quick links' })
        .getByRole('link', { name: link.name })
        .click();
      await expect(page).toHaveURL(new RegExp(`${link.lands}$`));
      await expect(page.getByRole('heading', { level: 1, name: link.heading })).toBeVisible();
    });
  }

  test('the skip link moves focus to the main content', async ({ page }) => {
    await openLanding(page);
    await page.keyboard.press('Tab');
    const skip = page.getByRole('link', { name: 'Skip to main content' });
    await expect(skip).toBeFocused();
    await expect(skip).toBeInViewport();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('main')).toBeFocused();
  });

  test('nothing overflows horizontally at 360 px', async ({ page }) => {
    await page.setViewportSize({ width: 360, height: 740 });
    await openLanding(page);
    const overflow = await page.evaluate(() => {
      const width = document.documentElement.clientWidth;
      const offenders = Array.from(document.querySelectorAll('body *'))
        .filter((el) => {
          const box = el.getBoundingClientRect();
          return box.width > 0 && (box.right > width + 0.5 || box.left < -0.5);
        })
        .filter((el) => !el.closest('.visually-hidden, .skip-link'))
        .map((el) => `${el.tagName.toLowerCase()}.${el.className}`);
      return { scrollWidth: document.documentElement.scrollWidth, width, offenders };
    });
    expect(overflow.offenders).toEqual([]);
    expect(overflow.scrollWidth).toBeLessThanOrEqual(overflow.width);
  });
});
