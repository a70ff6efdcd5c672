import { expect, test, type Page } from '@playwright/test';
import { createVerifiedUser, signIn, uniqueId } from './support/accounts';
import { demoAccount } from './support/demo';
import { card, expectLoaded } from './support/view-images';
import { fixture, makeJpeg, makePdf } from './support/files';

// Journeys of the images issue against the real server (../scripts/e2e-server.sh):
// the demo provider uploads files for the demo patient (Ayesha Khan), finds
// them in View Images, opens and deletes them. Captions are unique per run.

/**
 * Collects console errors (CSP violations among them) of a page. A 404 of a
 * resource is left out: tests running in parallel share the demo provider,
 * so a card on this page may show an image another test deletes meanwhile.
 */
function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    const text = message.text();
    if (message.type() === 'error' && !/Failed to load resource: .*status of 404/.test(text)) problems.push(text);
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return problems;
}

/** Records every aria-valuenow the upload progress bar takes. */
async function recordProgress(page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen: number[] = [];
    (window as unknown as { uploadProgress: number[] }).uploadProgress = seen;
    const read = () => {
      const bar = document.querySelector('progress#upload-progress');
      const value = bar?.getAttribute('aria-valuenow');
      if (value !== null && value !== undefined && seen.at(-1) !== Number(value)) seen.push(Number(value));
    };
    new MutationObserver(read).observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['aria-valuenow'],
    });
  });
}

async function recordedProgress(page: Page): Promise<number[]> {
  return page.evaluate(() => (window as unknown as { uploadProgress: number[] }).uploadProgress);
}

async function chooseAyesha(page: Page): Promise<void> {
  const ayesha = page.getByRole('radio', { name: /Khan, Ayesha/ });
  await expect(ayesha).toBeVisible();
  await ayesha.check();
}

async function deleteCard(page: Page, section: string, caption: string): Promise<void> {
  const item = card(page, section, caption);
  await item.getByRole('button', { name: `Delete ${caption}` }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete image' });
  await expect(dialog).toContainText(caption);
  await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(page.getByText('Image deleted successfully.').last()).toBeVisible();
  await expect(item).toHaveCount(0);
}

test.describe('images', () => {
  test.describe.configure({ timeout: 90_000 });

  test('the provider uploads a DICOM file for Ayesha Khan with a progress bar, views it and deletes it', async ({
    page,
  }) => {
    const problems = watchProblems(page);
    const caption = `CT chest ${uniqueId('e2e')}`;
    await signIn(page, await demoAccount('healthProvider'));
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Upload Image' }).click();
    await expect(page).toHaveURL(/\/upload$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Upload Medical Image' })).toBeVisible();

    // The patient list is fetched only once a file is chosen.
    await expect(page.getByRole('searchbox', { name: 'Search patients' })).toBeDisabled();
    await expect(page.getByRole('radio')).toHaveCount(0);
    await page.getByLabel('Medical image file').setInputFiles(fixture('dicom/CT_small.dcm'));
    await expect(page.getByText('CT_small.dcm', { exact: true })).toBeVisible();
    await page.getByRole('searchbox', { name: 'Search patients' }).fill('Khan');
    await chooseAyesha(page);
    await page.getByRole('textbox', { name: 'Caption' }).fill(caption);

    // About 1 s for the 39 KB file, so that the bar is seen moving.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 20,
      downloadThroughput: -1,
      uploadThroughput: 40 * 1024,
    });
    await recordProgress(page);
    await page.getByRole('button', { name: 'Upload Image' }).click();
    await expect(page.getByRole('button', { name: 'Uploading...' })).toBeDisabled();
    await expect(page.getByRole('progressbar', { name: 'Upload progress' })).toBeVisible();
    await expect(page.getByText('Image uploaded successfully!')).toBeVisible();
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    // The bar moves forward while the body is sent. (Its last value is the
    // browser's last progress event, which under load may come before the
    // very end: the answer, not the bar, says the upload is done.)
    const progress = await recordedProgress(page);
    expect(progress.some((value) => value > 0 && value < 100)).toBe(true);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    // The form starts again for the next file.
    await expect(page.getByRole('textbox', { name: 'Caption' })).toHaveValue('');
    await expect(page.getByRole('button', { name: 'Upload Image' })).toBeEnabled();

    await page.getByRole('link', { name: 'See it in View Images' }).click();
    await expect(page).toHaveURL(/\/view-images$/);
    const item = card(page, 'Uploaded Images', caption);
    await expect(item).toBeVisible();
    await expect(item).toContainText('Ayesha Khan');
    await expect(item).toContainText('DICOM · CT');
    await expectLoaded(item.getByRole('img', { name: `Preview: ${caption}` }));

    await item.getByRole('button', { name: `View ${caption}` }).click();
    const viewer = page.getByRole('dialog', { name: caption });
    await expectLoaded(viewer.getByRole('img', { name: `DICOM preview: ${caption}` }));
    const facts = viewer.getByRole('region', { name: 'DICOM' });
    await expect(facts.getByRole('definition').first()).toHaveText('CT');
    await expect(facts).toContainText('Rows × Columns');
    await expect(viewer.getByRole('link', { name: 'Download' })).toHaveAttribute('href', /\/api\/upload\/image\/.+\/content\?/);
    await page.keyboard.press('Escape');
    await expect(viewer).toHaveCount(0);

    await deleteCard(page, 'Uploaded Images', caption);
    expect(problems).toEqual([]);
  });

  test('the provider uploads a JPEG and a PDF; the PDF is drawn inline by pdf.js under the CSP', async ({ page }) => {
    const problems = watchProblems(page);
    const id = uniqueId('e2e');
    const photoCaption = `Knee photo ${id}`;
    const pdfCaption = `Referral letter ${id}`;
    await signIn(page, await demoAccount('healthProvider'));
    await page.goto('/upload');

    const photo = await makeJpeg(page, `MediShare ${id.slice(-5)}`, `knee-${id}.jpg`);
    await page.getByLabel('Medical image file').setInputFiles(photo);
    const preview = page.getByRole('img', { name: `Preview of knee-${id}.jpg` });
    await expectLoaded(preview);
    expect(await preview.evaluate((node) => node.getBoundingClientRect().height)).toBe(400);
    await chooseAyesha(page);
    await page.getByRole('textbox', { name: 'Caption' }).fill(photoCaption);
    await page.getByRole('button', { name: 'Upload Image' }).click();
    await expect(page.getByText('Image uploaded successfully!')).toBeVisible();
    await expect(page.getByText(`“${photoCaption}” was uploaded for Khan, Ayesha.`)).toBeVisible();

    await page.getByLabel('Medical image file').setInputFiles(makePdf(`MediShare ${id}`, `letter-${id}.pdf`));
    await chooseAyesha(page);
    await page.getByRole('textbox', { name: 'Caption' }).fill(pdfCaption);
    await page.getByRole('button', { name: 'Upload Image' }).click();
    await expect(page.getByText(`“${pdfCaption}” was uploaded for Khan, Ayesha.`)).toBeVisible();

    await page.goto('/view-images');
    const photoCard = card(page, 'Uploaded Images', photoCaption);
    await expectLoaded(photoCard.getByRole('img', { name: `Preview: ${photoCaption}` }));
    const pdfCard = card(page, 'Uploaded Images', pdfCaption);
    await expect(pdfCard).toContainText('PDF document');
    await expect(pdfCard.getByRole('img')).toHaveCount(0);

    await photoCard.getByRole('button', { name: `View ${photoCaption}` }).click();
    const photoViewer = page.getByRole('dialog', { name: photoCaption });
    await expectLoaded(photoViewer.getByRole('img', { name: photoCaption }));
    await photoViewer.getByRole('button', { name: 'Close' }).click();

    await pdfCard.getByRole('button', { name: `View ${pdfCaption}` }).click();
    const pdfViewer = page.getByRole('dialog', { name: pdfCaption });
    const canvas = pdfViewer.getByRole('img', { name: `${pdfCaption}, page 1 of 1` });
    await expect(canvas).toHaveAttribute('data-drawn', 'true');
    // The page is really drawn: some pixels are dark (the text) and some coloured (the box).
    const inked = await canvas.evaluate((node: HTMLCanvasElement) => {
      const context = node.getContext('2d');
      if (!context) return { dark: 0, total: 0 };
      const { data } = context.getImageData(0, 0, node.width, node.height);
      let dark = 0;
      for (let index = 0; index < data.length; index += 4) {
        if (data[index] < 100 && data[index + 1] < 100 && data[index + 2] < 100 && data[index + 3] > 0) dark += 1;
      }
      return { dark, total: data.length / 4 };
    });
    expect(inked.dark).toBeGreaterThan(500);
    await page.keyboard.press('Escape');

    await deleteCard(page, 'Uploaded Images', photoCaption);
    await deleteCard(page, 'Uploaded Images', pdfCaption);
    expect(problems).toEqual([]);
  });

  test('a patient sees only the Shared Images section and no Upload entry', async ({ page, request }) => {
    // A new patient, so a share made by another test at the same time cannot show up.
    await signIn(page, await createVerifiedUser(request));
    await expect(page).toHaveURL(/\/view-images$/);
    await expect(page.getByRole('heading', { level: 2, name: 'Shared Images' })).toBeVisible();
    await expect(page.getByRole('heading', { level: 2, name: 'Uploaded Images' })).toHaveCount(0);
    await expect(page.getByText('No shared images found.')).toBeVisible();
    await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Upload Image' })).toHaveCount(0);
  });
});
