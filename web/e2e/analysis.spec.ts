import { readFile } from 'node:fs/promises';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { expectAccessible } from './support/a11y';
import { signIn, uniqueId } from './support/accounts';
import { apiSignIn, bearer } from './support/api';
import { demoAccount } from './support/demo';
import { fixture } from './support/files';
import { card } from './support/view-images';

// AI analysis through the real server, with the built-in analyser (no
// network): the demo provider analyses a DICOM upload from its card, reads
// every section and the disclaimer, and runs the analysis again. The
// analysis with its measurements is longer than the window, which the
// side menu's layout is checked against.

/** Uploads CT_small.dcm for the demo patient as the demo provider; returns its caption. */
async function uploadCt(request: APIRequestContext): Promise<string> {
  const session = await apiSignIn(request, await demoAccount('healthProvider'));
  const patient = await apiSignIn(request, await demoAccount('patient'));
  const caption = `Analysed CT ${uniqueId()}`;
  const upload = await request.post('/api/upload/image', {
    headers: bearer(session),
    multipart: {
      caption,
      patientId: patient.userId,
      file: { name: 'ct.dcm', mimeType: 'application/dicom', buffer: await readFile(fixture('dicom/CT_small.dcm')) },
    },
  });
  expect(upload.status(), await upload.text()).toBe(201);
  return caption;
}

/** Where the side menu ends, against the page and the window (page coordinates). */
function menuExtent(page: Page) {
  return page.getByRole('navigation', { name: 'Main' }).evaluate((nav) => {
    const box = nav.getBoundingClientRect();
    return {
      top: box.top + window.scrollY,
      bottom: box.bottom + window.scrollY,
      page: document.documentElement.scrollHeight,
      windowBottom: window.scrollY + window.innerHeight,
      // The top bar's bottom edge; it stays at the top of the window.
      topBar: window.scrollY + (document.querySelector('header')?.getBoundingClientRect().bottom ?? 0),
    };
  });
}

test.describe('AI analysis', () => {
  test.describe.configure({ timeout: 90_000 });

  test('a provider analyses a DICOM upload and runs it again', async ({ page }) => {
    const caption = await uploadCt(page.request);
    const provider = await demoAccount('healthProvider');

    await signIn(page, provider);
    await page.goto('/view-images');
    await card(page, 'Uploaded Images', caption).getByRole('link', { name: `AI analysis: ${caption}` }).click();
    await expect(page).toHaveURL(/\/ai-analysis\/[0-9a-f-]{36}$/);
    await expect(page.getByRole('heading', { level: 1, name: 'AI Medical Analysis' })).toBeVisible();

    for (const title of ['Description', 'Differential Diagnosis', 'Treatment', 'Follow-Up', 'Warnings', 'Confidence Score', 'Measurements']) {
      await expect(page.getByRole('heading', { level: 3, name: title })).toBeVisible();
    }
    await expect(page.getByText(/^A CT image/)).toBeVisible();
    // product.md §7: the answer's message is toasted when the analysis arrives.
    await expect(page.getByText('Analysis complete.')).toBeVisible();
    await expect(page.getByText('No differential diagnosis available.')).toBeVisible();
    await expect(page.getByText('No confidence score available.')).toBeVisible();
    await expect(page.getByText('Image quality and metadata only - not a diagnosis.')).toBeVisible();
    await expect(page.getByRole('note')).toContainText('It is not a diagnosis');
    await expect(page.getByRole('img', { name: caption })).toBeVisible();
    const generated = page.getByText(/^Analysis generated at/);
    const before = await generated.textContent();
    await expectAccessible(page);

    const rerun = page.waitForResponse((response) => response.request().method() === 'POST' && response.url().includes('/api/analyze/'));
    await page.getByRole('button', { name: 'Run again' }).click();
    expect(((await (await rerun).json()) as { message: string }).message).toBe('Analysis complete.');
    // The first toast may still show: the newest is the run's.
    await expect(page.getByText('Analysis complete.').last()).toBeVisible();
    await expect(generated).toBeVisible();
    expect(before).toMatch(/Analysis generated at \d{2}-[A-Z][a-z]{2}-\d{4}/);
  });

  test("the side menu's background runs the full height of a page longer than the window, at 1440 and 360 px", async ({ page }) => {
    const caption = await uploadCt(page.request);
    await page.setViewportSize({ width: 1440, height: 900 });
    await signIn(page, await demoAccount('healthProvider'));
    await page.goto('/view-images');
    await card(page, 'Uploaded Images', caption).getByRole('link', { name: `AI analysis: ${caption}` }).click();
    await expect(page.getByRole('heading', { level: 3, name: 'Measurements' })).toBeVisible();

    // Wide: the menu is a column beside the page, as long as the page.
    let extent = await menuExtent(page);
    expect(extent.page, 'the analysis is longer than the window').toBeGreaterThan(900 + 100);
    expect(extent.top).toBeLessThanOrEqual(extent.topBar + 1);
    expect(extent.bottom).toBeGreaterThanOrEqual(extent.page - 1);
    // Scrolled to the end, the menu's list is still in view.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'View Images' })).toBeInViewport();

    // Narrow: the open menu covers the window from the top bar down, wherever the page is scrolled.
    await page.setViewportSize({ width: 360, height: 780 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.getByRole('button', { name: 'Menu' }).click();
    await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
    extent = await menuExtent(page);
    expect(extent.page, 'the analysis is longer than the window').toBeGreaterThan(780 + 100);
    expect(extent.bottom).toBeGreaterThanOrEqual(extent.windowBottom - 1);
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    extent = await menuExtent(page);
    expect(extent.top).toBeLessThanOrEqual(extent.topBar + 1);
    expect(extent.bottom).toBeGreaterThanOrEqual(extent.windowBottom - 1);
  });
});
