import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { signIn, uniqueId } from './support/accounts';
import { apiSignIn, bearer } from './support/api';
import { demoAccount } from './support/demo';
import { readShareMail } from './support/sharing';
import { card, expectLoaded } from './support/view-images';

// A whole DICOM study against the real server (STOW-RS): the demo provider
// uploads a folder (a patient's CD copied to disk: three series of two
// instances and a README that is not DICOM), sees what the app found in it,
// uploads it for the demo patient, sees the study's card and its series,
// and shares it; the patient verifies the share from the mail and opens the
// study. The caption is unique per run; the study is deleted at the end.

const STUDY_FOLDER = fileURLToPath(new URL('./fixtures/study/', import.meta.url));

/** No sideways scrolling: everything fits the viewport's width. */
async function expectNoHorizontalScroll(page: Page): Promise<void> {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
}

/** The demo patient: credentials, session and name ("Lastname, Firstname" as the pickers write it). */
async function demoPatient(page: Page) {
  const credentials = await demoAccount('patient');
  const session = await apiSignIn(page.request, credentials);
  const profile = await page.request.get('/api/users/profile', { headers: bearer(session) });
  expect(profile.status(), await profile.text()).toBe(200);
  const { firstname, lastname } = ((await profile.json()) as { data: { firstname: string; lastname: string } }).data;
  return { credentials, session, firstname, lastname, listName: `${lastname}, ${firstname}` };
}

test.describe('studies', () => {
  test.describe.configure({ timeout: 120_000 });

  test('a provider uploads a study from a folder and shares it; the patient verifies and opens it', async ({ page, browser }) => {
    const patient = await demoPatient(page);
    const caption = `CT chest study ${uniqueId('e2e')}`;

    // The folder: one study of three series and six instances, the README skipped.
    await signIn(page, await demoAccount('healthProvider'));
    await page.goto('/upload');
    await page.getByLabel('A folder').setInputFiles(STUDY_FOLDER);
    await expect(page.getByText('Found 1 study: 3 series, 6 instances.')).toBeVisible();
    const found = page.getByRole('article').filter({ has: page.getByRole('heading', { level: 3 }) });
    await expect(found).toHaveCount(1);
    await expect(found).toContainText('3 series · 6 instances');
    await expect(found.getByRole('list', { name: /^Series of / }).getByRole('listitem')).toHaveCount(3);
    await expect(page.getByRole('list', { name: 'Skipped files' })).toContainText('README.txt — Not a DICOM file.');
    for (const width of [360, 1440]) {
      await page.setViewportSize({ width, height: 900 });
      await expectNoHorizontalScroll(page);
    }

    // For the demo patient, with a caption of our own.
    await found.getByRole('searchbox', { name: 'Search patients' }).fill(patient.lastname);
    const radio = found.getByRole('radio', { name: new RegExp(patient.listName) });
    await expect(radio).toBeVisible();
    await radio.check();
    await found.getByRole('textbox', { name: 'Caption' }).fill(caption);
    await page.getByRole('button', { name: 'Upload study' }).click();
    await expect(page.getByText('Upload finished.')).toBeVisible({ timeout: 60_000 });
    await expect(page.getByText(`“${caption}” for ${patient.listName}: 6 of 6 files stored.`)).toBeVisible();

    // The study's card, and its series.
    await page.getByRole('link', { name: 'See the studies in View Images' }).click();
    const uploaded = card(page, 'Uploaded Images', caption);
    await expect(uploaded).toContainText('3 series · 6 instances');
    await expect(uploaded).toContainText('DICOM study · CT');
    await uploaded.getByRole('button', { name: `Open study ${caption}` }).click();
    const viewer = page.getByRole('dialog', { name: caption });
    await expect(viewer.getByRole('list', { name: `Series of ${caption}` }).getByRole('listitem')).toHaveCount(3);
    await page.keyboard.press('Escape');

    // Shared with the demo patient.
    await uploaded.getByRole('button', { name: `Share ${caption}` }).click();
    const shareDialog = page.getByRole('dialog', { name: `Share (${caption})` });
    await shareDialog.getByRole('searchbox', { name: 'Search users by name' }).fill(patient.lastname);
    const recipient = shareDialog.getByRole('radio', { name: new RegExp(patient.listName) });
    await expect(recipient).toBeVisible();
    const since = Date.now();
    await recipient.check();
    await shareDialog.getByRole('button', { name: 'Share', exact: true }).click();
    await expect(page.getByText('Image shared successfully.')).toBeVisible();

    const patientContext = await browser.newContext({ viewport: { width: 360, height: 780 } });
    try {
      const patientPage = await patientContext.newPage();
      await signIn(patientPage, patient.credentials);
      await expect(patientPage).toHaveURL(/\/view-images$/);
      const mail = await readShareMail(patient.credentials.email, since);
      // The demo patient may hold other sealed shares: the dialog takes this share's id.
      await card(patientPage, 'Shared Images', 'Untitled').first().getByRole('button', { name: 'Verify Untitled' }).click();
      const verifyDialog = patientPage.getByRole('dialog', { name: 'Verify Image' });
      await verifyDialog.getByLabel('Enter Image Sharing Id:').fill(mail.sharingId);
      await verifyDialog.getByLabel('Enter Code:').fill(mail.code);
      await verifyDialog.getByRole('button', { name: 'Verify' }).click();
      await expect(patientPage.getByText('Image verified successfully.')).toBeVisible();

      const shared = card(patientPage, 'Shared Images', caption);
      await expect(shared).toContainText('3 series · 6 instances');
      await expectLoaded(shared.getByRole('img', { name: `Preview: ${caption}` }));
      await shared.getByRole('button', { name: `Open study ${caption}` }).click();
      const study = patientPage.getByRole('dialog', { name: caption });
      const series = study.getByRole('list', { name: `Series of ${caption}` });
      await expect(series.getByRole('listitem')).toHaveCount(3);
      for (const n of [1, 2, 3]) {
        await expectLoaded(series.getByRole('img', { name: new RegExp(`^Thumbnail: Series ${n}\\b`) }));
      }
      await expect(series).toContainText(/CT( · [^·]+)? · 2 instances/);
      await expectNoHorizontalScroll(patientPage);
      // The whole study as a ZIP: the six instances, a folder per series.
      const [download] = await Promise.all([
        patientPage.waitForEvent('download'),
        study.getByRole('link', { name: 'Download the study (ZIP)' }).click(),
      ]);
      const zip = await readFile(await download.path());
      expect(zip.subarray(0, 4)).toEqual(Buffer.from('PK\x03\x04', 'latin1'));
      expect(zip.toString('latin1').match(/\.dcm/g)?.length).toBe(12); // each name twice: its entry and the directory
    } finally {
      await patientContext.close();
    }

    // Clean up: the provider deletes the study.
    await uploaded.getByRole('button', { name: `Delete ${caption}` }).click();
    await page.getByRole('dialog', { name: 'Delete image' }).getByRole('button', { name: 'Delete', exact: true }).click();
    await expect(uploaded).toHaveCount(0);
  });
});
