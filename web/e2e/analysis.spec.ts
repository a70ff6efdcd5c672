import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { expectAccessible } from './support/a11y';
import { signIn, uniqueId } from './support/accounts';
import { apiSignIn, bearer } from './support/api';
import { demoAccount } from './support/demo';
import { fixture } from './support/files';
import { card } from './support/view-images';

// AI analysis through the real server, with the built-in analyser (no
// network): the demo provider analyses a DICOM upload from its card, reads
// every section and the disclaimer, and runs the analysis again.

test.describe('AI analysis', () => {
  test.describe.configure({ timeout: 90_000 });

  test('a provider analyses a DICOM upload and runs it again', async ({ page }) => {
    const provider = await demoAccount('healthProvider');
    const session = await apiSignIn(page.request, provider);
    const patient = await apiSignIn(page.request, await demoAccount('patient'));
    const caption = `Analysed CT ${uniqueId()}`;
    const upload = await page.request.post('/api/upload/image', {
      headers: bearer(session),
      multipart: {
        caption,
        patientId: patient.userId,
        file: { name: 'ct.dcm', mimeType: 'application/dicom', buffer: await readFile(fixture('dicom/CT_small.dcm')) },
      },
    });
    expect(upload.status(), await upload.text()).toBe(201);

    await signIn(page, provider);
    await page.goto('/view-images');
    await card(page, 'Uploaded Images', caption).getByRole('link', { name: `AI analysis: ${caption}` }).click();
    await expect(page).toHaveURL(/\/ai-analysis\/[0-9a-f-]{36}$/);
    await expect(page.getByRole('heading', { level: 1, name: 'AI Medical Analysis' })).toBeVisible();

    for (const title of ['Description', 'Differential Diagnosis', 'Treatment', 'Follow-Up', 'Warnings', 'Confidence Score', 'Measurements']) {
      await expect(page.getByRole('heading', { level: 3, name: title })).toBeVisible();
    }
    await expect(page.getByText(/^A CT image/)).toBeVisible();
    await expect(page.getByText('No differential diagnosis available.')).toBeVisible();
    await expect(page.getByText('No confidence score available.')).toBeVisible();
    await expect(page.getByText('Image quality and metadata only - not a diagnosis.')).toBeVisible();
    await expect(page.getByRole('note')).toContainText('It is not a diagnosis');
    await expect(page.getByRole('img', { name: caption })).toBeVisible();
    const generated = page.getByText(/^Analysis generated at/);
    const before = await generated.textContent();
    await expectAccessible(page);

    await page.getByRole('button', { name: 'Run again' }).click();
    await expect(page.getByText('Analysis complete.')).toBeVisible();
    await expect(generated).toBeVisible();
    expect(before).toMatch(/Analysis generated at \d{2}-[A-Z][a-z]{2}-\d{4}/);
  });
});
