import { expect, type Locator, type Page } from '@playwright/test';

/** The card of `caption` in a section of /view-images. */
export function card(page: Page, section: string, caption: string): Locator {
  return page
    .getByRole('region', { name: section })
    .getByRole('article')
    .filter({ has: page.getByRole('heading', { level: 3, name: caption, exact: true }) });
}

/** Waits until a picture has really loaded (decoded, with a width). */
export async function expectLoaded(image: Locator): Promise<void> {
  // Card pictures load lazily: bring them into view first.
  await image.scrollIntoViewIfNeeded();
  await expect(image).toBeVisible();
  await expect.poll(() => image.evaluate((node: HTMLImageElement) => node.complete && node.naturalWidth)).toBeGreaterThan(0);
}
