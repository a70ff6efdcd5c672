import { expect, test, type Page } from '@playwright/test';
import { createVerifiedUser, newUser, signIn, uniqueId, type TestUser } from './support/accounts';
import { apiSignIn, bearer } from './support/api';
import { demoAccount } from './support/demo';
import { card, expectLoaded } from './support/view-images';
import { makeJpeg } from './support/files';
import { readShareMail } from './support/sharing';

// Sharing journeys against the real server (../scripts/e2e-server.sh): the
// demo provider (Imran Siddiqui) uploads an image for a new patient and
// shares it with them; the patient sees a sealed card (no caption, no
// patient: that waits for the code), reads the code from the development
// mailbox, verifies and sees the image; the provider revokes the share and
// it is gone for the patient. A new patient per run keeps their Shared Images
// to this one card; captions are unique per run.


/**
 * Console errors (CSP violations among them) of a page, except the ones a
 * test causes on purpose: a refused call (`status of 4xx`) and the log of a
 * failed verification (product.md §8).
 */
function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    const text = message.text();
    if (message.type() !== 'error') return;
    if (/Failed to load resource: .*status of 4\d\d/.test(text) || text.startsWith('Image verification failed')) return;
    problems.push(text);
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return problems;
}

/** No sideways scrolling: everything fits the viewport's width. */
async function expectNoHorizontalScroll(page: Page): Promise<void> {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
}

/** "Lastname, Firstname", as the pickers and messages name a person. */
const listName = (user: TestUser) => `${user.lastname}, ${user.firstname}`;

async function uploadFor(page: Page, patient: TestUser, caption: string, id: string): Promise<void> {
  await page.goto('/upload');
  await page.getByLabel('Medical image file').setInputFiles(await makeJpeg(page, `Share ${id.slice(-5)}`, `share-${id}.jpg`));
  await page.getByRole('searchbox', { name: 'Search patients' }).fill(patient.lastname);
  const radio = page.getByRole('radio', { name: new RegExp(listName(patient)) });
  await expect(radio).toBeVisible();
  await radio.check();
  await page.getByRole('textbox', { name: 'Caption' }).fill(caption);
  await page.getByRole('button', { name: 'Upload Image' }).click();
  await expect(page.getByText(`“${caption}” was uploaded for ${listName(patient)}.`)).toBeVisible();
}

test.describe('sharing', () => {
  test.describe.configure({ timeout: 120_000 });

  test('the provider shares an image with a patient; the sender extends it by a day; the patient verifies the emailed code and sees it; a revoke ends it', async ({
    page,
    browser,
  }) => {
    const problems = watchProblems(page);
    const patientAccount = await createVerifiedUser(page.request, newUser());
    const patientName = `${patientAccount.firstname} ${patientAccount.lastname}`;
    const id = uniqueId('e2e');
    const caption = `Shared knee ${id}`;

    // The provider uploads a picture for the patient and shares it with them.
    await signIn(page, await demoAccount('healthProvider'));
    await uploadFor(page, patientAccount, caption, id);
    await page.goto('/view-images');
    const uploaded = card(page, 'Uploaded Images', caption);
    await expect(uploaded).toContainText('Not shared.');
    await uploaded.getByRole('button', { name: `Share ${caption}` }).click();
    const shareDialog = page.getByRole('dialog', { name: `Share (${caption})` });
    await expect(shareDialog.getByRole('searchbox', { name: 'Search users by name' })).toBeFocused();
    await expect(shareDialog.getByRole('combobox', { name: 'Expires after' })).toHaveValue('24');
    await shareDialog.getByRole('searchbox', { name: 'Search users by name' }).fill(patientAccount.lastname);
    const recipient = shareDialog.getByRole('radio', { name: new RegExp(listName(patientAccount)) });
    await expect(recipient).toBeVisible();
    await expect(recipient.locator('xpath=ancestor::label')).toContainText(patientAccount.email);
    await expect(recipient.locator('xpath=ancestor::label')).toContainText('Patient');
    // Nobody shares with themself: the provider is not in the list.
    await shareDialog.getByRole('searchbox', { name: 'Search users by name' }).fill('Siddiqui');
    await expect(shareDialog.getByText('No users found', { exact: true })).toBeVisible();
    await shareDialog.getByRole('searchbox', { name: 'Search users by name' }).fill(patientAccount.lastname);
    const since = Date.now();
    await recipient.check();
    await shareDialog.getByRole('button', { name: 'Share', exact: true }).click();
    await expect(page.getByText('Image shared successfully.')).toBeVisible();
    await expect(shareDialog).toHaveCount(0);
    const shares = uploaded.getByRole('list', { name: 'Shared with' });
    await expect(shares).toContainText(patientName);
    await expect(shares).toContainText('Waiting for code');
    await expect(shares).toContainText('Expires');
    // The sender gives the share a day more: the expiry moves.
    const expiry = shares.locator('time');
    const before = await expiry.getAttribute('datetime');
    await shares.getByRole('button', { name: `Extend share with ${patientName} by a day` }).click();
    await expect(page.getByText('Share extended.')).toBeVisible();
    await expect(expiry).not.toHaveAttribute('datetime', before ?? '');
    expect(Date.parse((await expiry.getAttribute('datetime')) ?? '') - Date.parse(before ?? '')).toBe(24 * 3600 * 1000);

    // The patient signs in (on a phone-sized screen) and sees the share,
    // sealed: who shared it and until when, but neither the caption nor the
    // patient's name before the code.
    const patientContext = await browser.newContext({ viewport: { width: 360, height: 780 } });
    try {
      const patientPage = await patientContext.newPage();
      const patientProblems = watchProblems(patientPage);
      await signIn(patientPage, patientAccount);
      await expect(patientPage).toHaveURL(/\/view-images$/);
      const sealed = card(patientPage, 'Shared Images', 'Untitled');
      await expect(sealed).toHaveCount(1);
      await expect(sealed).toContainText('Image not Verified');
      await expect(sealed).toContainText('Shared by');
      await expect(sealed).toContainText('Imran Siddiqui');
      await expect(sealed).toContainText('Expires');
      await expect(sealed).not.toContainText(caption);
      await expect(sealed).not.toContainText(patientAccount.lastname);
      await expect(sealed.getByRole('button', { name: 'View Untitled' })).toHaveCount(0);
      await expectNoHorizontalScroll(patientPage);

      const mail = await readShareMail(patientAccount.email, since);

      // A wrong code first: the dialog stays open with the server's text.
      await sealed.getByRole('button', { name: 'Verify Untitled' }).click();
      const verifyDialog = patientPage.getByRole('dialog', { name: 'Verify Image' });
      await expect(verifyDialog.getByLabel('Enter Image Sharing Id:')).toHaveValue(mail.sharingId);
      await expect(verifyDialog.getByLabel('Enter Code:')).toBeFocused();
      const wrong = mail.code === '000000' ? '111111' : '000000';
      await verifyDialog.getByLabel('Enter Code:').fill(wrong);
      await verifyDialog.getByRole('button', { name: 'Verify' }).click();
      await expect(verifyDialog.getByRole('alert')).toBeVisible();
      await expect(verifyDialog.getByRole('alert')).not.toHaveText('');
      await expectNoHorizontalScroll(patientPage);

      // The right code opens the image, its caption and its details.
      await verifyDialog.getByLabel('Enter Code:').fill(mail.code);
      await verifyDialog.getByRole('button', { name: 'Verify' }).click();
      await expect(patientPage.getByText('Image verified successfully.')).toBeVisible();
      await expect(verifyDialog).toHaveCount(0);
      const shared = card(patientPage, 'Shared Images', caption);
      await expect(shared).not.toContainText('Image not Verified');
      await expect(shared).toContainText(patientName);
      await expectLoaded(shared.getByRole('img', { name: `Preview: ${caption}` }));
      await expect(shared.getByRole('button', { name: `Verify ${caption}` })).toHaveCount(0);
      await shared.getByRole('button', { name: `View ${caption}` }).click();
      const viewer = patientPage.getByRole('dialog', { name: caption });
      await expectLoaded(viewer.getByRole('img', { name: caption }));
      await patientPage.keyboard.press('Escape');

      // The provider sees the share verified and revokes it.
      await page.reload();
      await expect(shares).toContainText('Verified');
      await shares.getByRole('button', { name: `Revoke share with ${patientName}` }).click();
      await expect(page.getByText('Share revoked.')).toBeVisible();
      await expect(uploaded).toContainText('Not shared.');

      // The patient's access ends at once.
      await patientPage.reload();
      const sharedSection = patientPage.getByRole('region', { name: 'Shared Images' });
      await expect(
        sharedSection.getByText('No shared images found.').or(sharedSection.getByRole('list', { name: 'Shared Images' })),
      ).toBeVisible();
      await expect(card(patientPage, 'Shared Images', caption)).toHaveCount(0);
      expect(patientProblems).toEqual([]);
    } finally {
      await patientContext.close();
    }

    // Clean up: the provider deletes the image.
    await uploaded.getByRole('button', { name: `Delete ${caption}` }).click();
    await page.getByRole('dialog', { name: 'Delete image' }).getByRole('button', { name: 'Delete', exact: true }).click();
    await expect(page.getByText('Image deleted successfully.').last()).toBeVisible();
    await expect(uploaded).toHaveCount(0);
    expect(problems).toEqual([]);
  });

  test('an admin sees an image shared with them without verifying it', async ({ page }) => {
    // "The sender or an admin sees image content without verification" (product.md).
    const problems = watchProblems(page);
    const patientAccount = await createVerifiedUser(page.request, newUser());
    const patient = await apiSignIn(page.request, patientAccount);
    const provider = await apiSignIn(page.request, await demoAccount('healthProvider'));
    const admin = await apiSignIn(page.request, await demoAccount('admin'));
    const caption = `Admin's knee ${uniqueId('e2e')}`;
    const uploaded = await page.request.post('/api/upload/image', {
      headers: bearer(provider),
      multipart: { caption, patientId: patient.userId, file: await makeJpeg(page, 'Admin', 'admin.jpg') },
    });
    expect(uploaded.status(), await uploaded.text()).toBe(201);
    const imageId = ((await uploaded.json()) as { data: { id: string } }).data.id;
    const shared = await page.request.post('/api/sharing/request', {
      headers: bearer(provider),
      data: { imagemetadataId: imageId, createdfor: admin.userId },
    });
    expect(shared.status(), await shared.text()).toBe(201);

    try {
      await signIn(page, await demoAccount('admin'));
      await page.goto('/view-images');
      const received = card(page, 'Shared Images', caption);
      await expect(received).toHaveCount(1);
      await expect(received).toContainText('Shared by');
      await expect(received).not.toContainText('Image not Verified');
      await expect(received.getByRole('button', { name: /^Verify/ })).toHaveCount(0);
      await expectLoaded(received.getByRole('img', { name: `Preview: ${caption}` }));
      await received.getByRole('button', { name: `View ${caption}` }).click();
      const viewer = page.getByRole('dialog', { name: caption });
      await expectLoaded(viewer.getByRole('img', { name: caption }));
      await page.keyboard.press('Escape');
      expect(problems).toEqual([]);
    } finally {
      const removed = await page.request.delete(`/api/upload/image/${imageId}`, { headers: bearer(provider) });
      expect(removed.status()).toBe(200);
    }
  });

  test('/share-image shows four sample images and copies a link', async ({ page }) => {
    const problems = watchProblems(page);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.goto('/share-image');
    await expect(page.getByRole('heading', { level: 1, name: 'Share Your Image' })).toBeVisible();
    await expect(page.getByText(/These are samples drawn for this demo, not patient data/)).toBeVisible();
    const samples = page.getByRole('list', { name: 'Sample images' }).getByRole('article');
    await expect(samples).toHaveCount(4);
    for (const picture of await samples.getByRole('img').all()) await expectLoaded(picture);
    await expect(samples.first()).toContainText('Sample expiry:');

    const alerts: string[] = [];
    page.on('dialog', (dialog) => {
      alerts.push(dialog.message());
      void dialog.accept();
    });
    await page.getByRole('button', { name: 'Copy link to Chest X-ray' }).click();
    await expect.poll(() => alerts).toEqual(['Link copied to clipboard!']);
    const link = await page.evaluate(() => navigator.clipboard.readText());
    expect(link).toBe(new URL('/demo/chest-xray.svg', page.url()).href);
    const response = await page.request.get(link);
    expect(response.status()).toBe(200);
    expect(response.headers()['content-type']).toContain('image/svg+xml');

    await expect(page.getByRole('link', { name: 'Share Chest X-ray on Facebook (opens in a new tab)' })).toHaveAttribute(
      'href',
      /^https:\/\/www\.facebook\.com\/sharer\/sharer\.php\?u=/,
    );
    await expect(page.getByRole('link', { name: 'Share Chest X-ray on X (Twitter) (opens in a new tab)' })).toHaveAttribute(
      'href',
      /^https:\/\/twitter\.com\/intent\/tweet\?url=/,
    );
    await expect(page.getByRole('link', { name: 'Share Chest X-ray by email' })).toHaveAttribute('href', /^mailto:\?subject=/);

    for (const width of [360, 1440]) {
      await page.setViewportSize({ width, height: 800 });
      await expectNoHorizontalScroll(page);
    }
    expect(problems).toEqual([]);
  });
});
