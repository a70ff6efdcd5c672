import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { expectAccessible } from './support/a11y';
import { createVerifiedUser, newUser, signIn, uniqueId } from './support/accounts';
import { apiSignIn, bearer } from './support/api';
import { demoAccount } from './support/demo';
import { shareVerifiedImage } from './support/sharing';
import { card } from './support/view-images';

// The audit log and the access history through the real server: an admin
// filters the log and exports what the filters keep; a patient sees who
// opened an image about them ("Who has seen this", and on /profile).

const CSV_HEADER = 'id,createAt,firstname,lastname,username,actiontype,tablename,recordId,ipaddress,userAgent,status,reason';

test.describe('audit log', () => {
  test.describe.configure({ timeout: 90_000 });

  test('an admin filters the audit log and exports it as CSV', async ({ page }) => {
    await signIn(page, await demoAccount('admin'));
    await page.goto('/audit-logs');
    await expect(page.getByRole('heading', { level: 1, name: 'Audit Logs' })).toBeVisible();
    await page.getByRole('button', { name: 'Check whole chain' }).click();
    await expect(page.getByText(/^Intact — [\d,]+ entries checked$/)).toBeVisible();

    await page.getByLabel('Action').selectOption('login');
    await page.getByLabel('Result').selectOption('success');
    const table = page.getByRole('table', { name: 'Entries' });
    const rows = table.locator('tbody tr');
    await expect(rows.first()).toBeVisible();
    await expect(page.getByText('Loading logs...')).toHaveCount(0);
    for (const action of await rows.locator('td:nth-child(3)').allTextContents()) expect(action).toBe('Signed in');
    await expect(rows.filter({ hasText: 'Sara Ahmed' }).first()).toBeVisible(); // the admin's own sign-in
    await expectAccessible(page);

    // A search nobody matches.
    await page.getByLabel('Search by user').fill('nobody-by-this-name');
    await expect(page.getByText('No audit logs found.')).toBeVisible();
    await page.getByLabel('Search by user').fill('');
    await expect(rows.first()).toBeVisible();

    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('audit-log.csv');
    const lines = (await readFile(await download.path(), 'utf8')).trim().split('\n');
    expect(lines[0]).toBe(CSV_HEADER);
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines.slice(1)) expect(line.split(',')[5]).toBe('login');

    // The export itself is in the log.
    await page.getByLabel('Action').selectOption('audit_export');
    await expect(rows.filter({ hasText: 'Exported the audit log' }).first()).toBeVisible();
  });

  test('a provider exports the log they read, and has no chain to check', async ({ page }) => {
    await signIn(page, await demoAccount('healthProvider'));
    await page.goto('/audit-logs');
    await expect(page.getByRole('heading', { level: 1, name: 'Audit Logs' })).toBeVisible();
    // The chain runs through every entry: only readers of the whole log (audit:read-all) check it.
    await expect(page.getByRole('heading', { name: 'Audit chain' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Check whole chain' })).toHaveCount(0);

    // The export keeps what the list shows: here the provider's own sign-ins.
    await page.getByLabel('Action').selectOption('login');
    const rows = page.getByRole('table', { name: 'Entries' }).locator('tbody tr');
    await expect(rows.first()).toBeVisible();
    await expect(page.getByText('Loading logs...')).toHaveCount(0);
    for (const who of await rows.locator('td:nth-child(2)').allTextContents()) expect(who).toContain('Imran Siddiqui');
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const lines = (await readFile(await (await downloading).path(), 'utf8')).trim().split('\n');
    expect(lines[0]).toBe(CSV_HEADER);
    expect(lines.length).toBeGreaterThanOrEqual(Math.min(await rows.count(), 5) + 1);
    for (const line of lines.slice(1)) expect(line.split(',').slice(2, 6)).toEqual(['Imran', 'Siddiqui', expect.any(String), 'login']);
  });

  test('a patient sees who opened an image about them', async ({ page }) => {
    const patient = await createVerifiedUser(page.request, newUser());
    const patientSession = await apiSignIn(page.request, patient);
    const provider = await apiSignIn(page.request, await demoAccount('healthProvider'));
    const caption = `Seen ${uniqueId()}`;

    // The provider uploads an image of the patient and shares it with them.
    const { imageId } = await shareVerifiedImage(page, provider, { ...patientSession, email: patient.email }, caption);

    // The provider opens it.
    const opened = await page.request.get(`/api/upload/image/${imageId}/content`, { headers: bearer(provider) });
    expect(opened.status()).toBe(200);

    await signIn(page, patient);
    await page.goto('/view-images');
    await card(page, 'Shared Images', caption).getByRole('button', { name: `Who has seen this: ${caption}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Who has seen this' });
    // "viewed", not "previewed" (the list's thumbnails are previews).
    await expect(dialog.getByRole('listitem').filter({ hasText: /\bviewed/ })).toContainText('Imran Siddiqui');
    await expect(dialog.getByRole('listitem').filter({ hasText: 'uploaded' })).toContainText('Imran Siddiqui');
    await expectAccessible(page);
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);

    await page.goto('/profile');
    const history = page.getByRole('region', { name: 'Access history' });
    await expect(history.getByRole('listitem').filter({ hasText: /\bviewed/ })).toContainText('Imran Siddiqui');
  });
});
