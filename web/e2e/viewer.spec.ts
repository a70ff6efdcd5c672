import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { expectAccessible } from './support/a11y';
import { signIn, uniqueId } from './support/accounts';
import { apiSignIn, bearer } from './support/api';
import { demoAccount } from './support/demo';
import { ctSeries, multiFrame } from './support/dicom';
import { fixture, makeJpeg } from './support/files';
import { card } from './support/view-images';
import { canvasDigest, expectDrawn, storeStudy, userIdOf, watchProblems } from './support/viewer';

// The DICOM viewer (Cornerstone3D) against the real server: pixels over
// WADO-RS with the session's token, decoded in web workers (the JPEG 2000
// file by the OpenJPEG WebAssembly codec) under the app's strict CSP. The
// demo provider stores the studies through STOW-RS for the demo patient.

const JPEG2000 = new URL('./fixtures/JPEG2000.dcm', import.meta.url);

test.describe('viewer', () => {
  test.describe.configure({ timeout: 120_000 });

  test('the demo study that make run stores opens from its card and scrolls', async ({ page }) => {
    await signIn(page, await demoAccount('healthProvider'));
    await page.goto('/view-images');
    const caption = 'CT chest, three series (demo)';
    await card(page, 'Uploaded Images', caption).getByRole('link', { name: `Open viewer: ${caption}` }).click();
    await expectDrawn(page);
    const overlay = page.getByTestId('viewer-overlay');
    await expect(overlay.getByTestId('overlay-image')).toHaveText('Image 1 / 4');
    await page.getByTestId('dicom-viewport').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('ArrowDown');
    await expect(overlay.getByTestId('overlay-instance')).toHaveText('Instance 2');
    await page.keyboard.press('End');
    await expect(overlay.getByTestId('overlay-image')).toHaveText('Image 4 / 4');
  });

  test('a CT series: scroll, window, measure; nothing breaks the CSP; accessible', async ({ page }) => {
    const problems = await watchProblems(page);
    const provider = await demoAccount('healthProvider');
    const session = await apiSignIn(page.request, provider);
    const patient = await userIdOf(page.request, await apiSignIn(page.request, await demoAccount('patient')));
    const caption = `Viewer CT ${uniqueId('e2e')}`;
    await storeStudy(page.request, session, patient, ctSeries(12, caption), caption);

    await signIn(page, provider);
    await page.goto('/view-images');
    await card(page, 'Uploaded Images', caption).getByRole('link', { name: `Open viewer: ${caption}` }).click();
    await expect(page).toHaveURL(/\/viewer\//);
    await expectDrawn(page);
    const overlay = page.getByTestId('viewer-overlay');
    await expect(overlay.getByTestId('overlay-instance')).toHaveText('Instance 1');
    await expect(overlay.getByTestId('overlay-image')).toHaveText('Image 1 / 12');
    // No patient identifiers until asked for.
    await expect(overlay).not.toContainText('Viewer^Test');

    // Scroll with the keyboard.
    await page.getByTestId('dicom-viewport').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await expect(overlay.getByTestId('overlay-instance')).toHaveText('Instance 3');
    await page.keyboard.press('End');
    await expect(overlay.getByTestId('overlay-instance')).toHaveText('Instance 12');
    await page.keyboard.press('Home');
    await expect(overlay.getByTestId('overlay-instance')).toHaveText('Instance 1');

    // Drag to window: the window in the overlay and the pixels change.
    await page.getByRole('button', { name: /^Window \/ level/ }).click();
    const before = await canvasDigest(page);
    const windowBefore = await overlay.getByTestId('overlay-window').textContent();
    const box = (await page.getByTestId('dicom-viewport').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + 80, box.y + box.height / 2 + 60, { steps: 8 });
    await page.mouse.up();
    await expect(overlay.getByTestId('overlay-window')).not.toHaveText(windowBefore ?? '');
    await expect.poll(() => canvasDigest(page)).not.toBe(before);

    // A CT preset.
    await page.getByRole('button', { name: 'Lung' }).click();
    await expect(overlay.getByTestId('overlay-window')).toHaveText('W 1500 L -600');

    // A length, in millimetres (the files carry Pixel Spacing).
    await page.getByRole('button', { name: /^Length/ }).click();
    await page.mouse.click(box.x + box.width * 0.3, box.y + box.height * 0.5);
    await page.mouse.click(box.x + box.width * 0.7, box.y + box.height * 0.5);
    await expect(page.getByTestId('measurement').first()).toHaveText(/^Length: \d+(\.\d)? mm$/);

    // The identifiers on demand; the shortcuts' help.
    await page.getByRole('button', { name: 'Show patient identifiers' }).click();
    await expect(overlay.getByTestId('patient-name')).toHaveText('Viewer^Test');
    await page.getByRole('button', { name: 'Keyboard shortcuts' }).click();
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await expect(help).toContainText('Window / level tool');
    await page.keyboard.press('Escape');
    await expect(help).toBeHidden();

    await expectAccessible(page);
    expect(await problems()).toEqual([]);
  });

  test('a JPEG 2000 file and a multi-frame file decode in the browser; cine plays', async ({ page }) => {
    const problems = await watchProblems(page);
    const provider = await demoAccount('healthProvider');
    const session = await apiSignIn(page.request, provider);
    const patient = await userIdOf(page.request, await apiSignIn(page.request, await demoAccount('patient')));
    const j2k = await storeStudy(page.request, session, patient, [await readFile(JPEG2000)], `Viewer J2K ${uniqueId('e2e')}`);
    const cine = await storeStudy(page.request, session, patient, [multiFrame(8, 'Viewer cine')], `Viewer cine ${uniqueId('e2e')}`);

    await signIn(page, provider);
    await page.goto(`/viewer/${j2k}`);
    await expectDrawn(page);
    await expect(page.getByRole('alert')).toHaveCount(0);
    expect(await canvasDigest(page)).not.toBe('');

    await page.goto(`/viewer/${cine}`);
    await expectDrawn(page);
    const overlay = page.getByTestId('viewer-overlay');
    await expect(overlay).toContainText('Frame 1 / 8');
    await page.getByLabel('Frame rate').selectOption('30');
    await page.getByRole('button', { name: 'Play cine' }).click();
    await expect(overlay).not.toContainText('Frame 1 / 8');
    await page.getByRole('button', { name: 'Stop cine' }).click();
    await page.getByRole('slider', { name: 'Image' }).fill('5');
    await expect(overlay).toContainText('Frame 5 / 8');

    expect(await problems()).toEqual([]);
  });

  test('at 375 px the tools fit and one finger scrolls', async ({ browser }) => {
    const context = await browser.newContext({ viewport: { width: 375, height: 740 }, hasTouch: true, isMobile: true });
    try {
      const page = await context.newPage();
      const problems = await watchProblems(page);
      const provider = await demoAccount('healthProvider');
      const session = await apiSignIn(page.request, provider);
      const patient = await userIdOf(page.request, await apiSignIn(page.request, await demoAccount('patient')));
      const caption = `Viewer phone ${uniqueId('e2e')}`;
      const id = await storeStudy(page.request, session, patient, ctSeries(10, caption, 128), caption);

      await signIn(page, provider);
      await page.goto(`/viewer/${id}`);
      await expectDrawn(page);
      const { scrollWidth, innerWidth } = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        innerWidth: window.innerWidth,
      }));
      expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
      for (const button of await page.getByRole('toolbar', { name: 'Viewer tools' }).getByRole('button').all()) {
        const box = (await button.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(375);
      }
      // On a touch screen one finger scrolls the series.
      await expect(page.getByRole('button', { name: /^Scroll/ })).toHaveAttribute('aria-pressed', 'true');
      const overlay = page.getByTestId('viewer-overlay');
      await expect(overlay.getByTestId('overlay-instance')).toHaveText('Instance 1');
      const box = (await page.getByTestId('dicom-viewport').boundingBox())!;
      const cdp = await context.newCDPSession(page);
      const x = box.x + box.width / 2;
      let y = box.y + box.height * 0.2;
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x, y }] });
      for (let step = 0; step < 12; step += 1) {
        y += box.height * 0.05;
        await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x, y }] });
      }
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
      await expect(overlay.getByTestId('overlay-instance')).not.toHaveText('Instance 1');

      await expectAccessible(page);
      expect(await problems()).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('a JPEG opens in the same viewer: zoom, rotate; a frame the server cannot send shows its preview', async ({ page }) => {
    const problems = await watchProblems(page);
    const provider = await demoAccount('healthProvider');
    const session = await apiSignIn(page.request, provider);
    const patient = await userIdOf(page.request, await apiSignIn(page.request, await demoAccount('patient')));
    await page.goto('/');
    const photo = await makeJpeg(page, 'Viewer JPEG');
    const upload = await page.request.post('/api/upload/image', {
      headers: bearer(session),
      multipart: { caption: `Viewer JPEG ${uniqueId('e2e')}`, patientId: patient, file: photo },
    });
    expect(upload.status(), await upload.text()).toBe(201);
    const jpeg = ((await upload.json()) as { data: { id: string } }).data.id;
    // Big-endian: no frames over WADO-RS (415), the server's rendering instead.
    const bigEndian = await storeStudy(
      page.request,
      session,
      patient,
      [await readFile(fixture('dicom/ExplVR_BigEnd.dcm'))],
      `Viewer big-endian ${uniqueId('e2e')}`,
    );

    await signIn(page, provider);
    await page.goto(`/viewer/${jpeg}`);
    await expectDrawn(page);
    const overlay = page.getByTestId('viewer-overlay');
    const before = await canvasDigest(page);
    await page.getByRole('button', { name: 'Rotate 90°' }).click();
    await expect.poll(() => canvasDigest(page)).not.toBe(before);
    await page.getByRole('button', { name: 'Zoom in' }).click();
    await expect(overlay.getByTestId('overlay-zoom')).toHaveText('Zoom 125%');

    await page.goto(`/viewer/${bigEndian}`);
    await expectDrawn(page);
    await expect(overlay).toContainText('Shown as a preview image');

    // The 415 of the frames is the one expected console error.
    expect((await problems()).filter((problem) => !/status of 415/.test(problem))).toEqual([]);
  });

  test('an image the caller may not see shows the not-found state', async ({ page }) => {
    await signIn(page, await demoAccount('patient'));
    await page.goto('/viewer/00000000-0000-4000-8000-000000000000');
    await expect(page.getByRole('heading', { level: 1, name: /not found|Not allowed/ })).toBeVisible();
  });
});
