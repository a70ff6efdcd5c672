import { expect, test } from '@playwright/test';
import { expectAccessible } from './support/a11y';
import { createVerifiedUser, newUser, signIn, typeCode } from './support/accounts';
import { enrolAuthenticator, signInToSecondStep, signOut } from './support/mfa';
import { freshTotp } from './support/totp';

test.describe('second factors', () => {
  // A second code waits for the next 30-second step.
  test.describe.configure({ timeout: 90_000 });

  test('a patient sets up an authenticator, then signs in with a code from it', async ({ page }) => {
    const patient = await createVerifiedUser(page.request, newUser());
    await signIn(page, patient);
    await page.goto('/profile');
    const security = page.getByRole('region', { name: 'Security' });
    await expect(security.getByRole('group', { name: 'Authenticator app' })).toContainText('Status: Off');
    await expectAccessible(page);

    const { secret, step, recoveryCodes } = await enrolAuthenticator(page);
    expect(recoveryCodes.every((code) => /^[a-z2-7]{5}-[a-z2-7]{5}$/.test(code))).toBe(true);
    const download = security.getByRole('link', { name: 'Download' });
    await expect(download).toHaveAttribute('download', 'medishare-recovery-codes.txt');
    await expectAccessible(page);
    await security.getByRole('button', { name: 'Done' }).click();
    await expect(page.getByText(recoveryCodes[0])).toHaveCount(0);

    await signOut(page);
    await signInToSecondStep(page, patient);
    // The password alone gave no session.
    await expect(page).toHaveURL(/\/login$/);
    await expect(page.getByRole('textbox', { name: 'Digit 1 of 6' })).toBeFocused();
    await expectAccessible(page);

    // A wrong code first.
    await typeCode(page, '000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'Invalid code.' })).toBeVisible();

    const { code } = await freshTotp(secret, step);
    await typeCode(page, code);
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page.getByText('Login successful! Redirecting...')).toBeVisible();
    await expect(page).toHaveURL(/\/view-images$/);
  });

  test('a patient registers a passkey and signs in with it', async ({ page }) => {
    // Chromium's virtual authenticator stands in for the device's.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
    });

    const patient = await createVerifiedUser(page.request, newUser());
    await signIn(page, patient);
    await page.goto('/profile');
    const passkeys = page.getByRole('region', { name: 'Security' }).getByRole('group', { name: 'Passkeys' });
    await expect(passkeys).toContainText('Status: Off');
    await passkeys.getByLabel('Passkey name').fill('Test laptop');
    await passkeys.getByRole('button', { name: 'Add a passkey' }).click();
    await expect(passkeys.getByRole('button', { name: 'Rename Test laptop' })).toBeVisible();
    await expect(passkeys).toContainText('Status: On (1 passkey)');
    // The first factor brings the recovery codes.
    await expect(page.getByRole('group', { name: 'Your recovery codes' }).getByRole('listitem')).toHaveCount(10);

    // Renamed.
    await passkeys.getByRole('button', { name: 'Rename Test laptop' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rename passkey' });
    await dialog.getByLabel('Name').fill('Work laptop');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(passkeys.getByRole('button', { name: 'Rename Work laptop' })).toBeVisible();

    await signOut(page);
    await signInToSecondStep(page, patient);
    const usePasskey = page.getByRole('button', { name: 'Use a passkey' });
    await expect(usePasskey).toBeFocused();
    await expect(page.getByRole('button', { name: 'Use a recovery code' })).toBeVisible();
    await usePasskey.click();
    await expect(page.getByText('Login successful! Redirecting...')).toBeVisible();
    await expect(page).toHaveURL(/\/view-images$/);

    // At 360 px the Security section fits without sideways scrolling.
    await page.goto('/profile');
    await expect(page.getByRole('region', { name: 'Security' })).toBeVisible();
    await page.setViewportSize({ width: 360, height: 780 });
    const { scrollWidth, clientWidth } = await page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      clientWidth: document.documentElement.clientWidth,
    }));
    expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
  });
});
