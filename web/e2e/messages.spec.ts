import { expect, test } from '@playwright/test';
import { expectAccessible } from './support/a11y';
import { createVerifiedUser, newUser, signIn, uniqueId } from './support/accounts';
import { apiSignIn, bearer } from './support/api';
import { demoAccount } from './support/demo';
import { shareVerifiedImage } from './support/sharing';

// Messaging against the real server: the demo provider writes to a new
// patient, who reads it on a phone-sized screen as it arrives (no reload),
// with the unread badge appearing and clearing, and answers with Enter;
// the answer reaches the provider's open conversation live.

test.describe('messages', () => {
  test.describe.configure({ timeout: 120_000 });

  test('a provider and a patient chat live; the unread badge comes and goes; one pane at a time on a phone', async ({
    page,
    browser,
  }) => {
    const patient = await createVerifiedUser(page.request, newUser());
    const patientName = `${patient.firstname} ${patient.lastname}`;
    const id = uniqueId('msg');

    // The patient is signed in first, on a phone, with /messages open.
    const patientContext = await browser.newContext({ viewport: { width: 375, height: 780 } });
    try {
      const phone = await patientContext.newPage();
      await signIn(phone, patient);
      await phone.goto('/messages');
      await expect(phone.getByText('No chats available')).toBeVisible();

      // The provider writes first, from the Select User to Chat dialog.
      await signIn(page, await demoAccount('healthProvider'));
      await page.goto('/messages');
      await page.getByRole('button', { name: 'New chat' }).click();
      const pick = page.getByRole('dialog', { name: 'Select User to Chat' });
      await pick.getByRole('searchbox', { name: 'Search users by name or email' }).fill(patient.email);
      await pick.getByRole('radio', { name: new RegExp(patient.lastname) }).check();
      await pick.getByRole('button', { name: 'Next' }).click();
      const write = page.getByRole('dialog', { name: 'Send Message' });
      await write.getByRole('textbox', { name: 'Message' }).fill(`Your scan is ready ${id}`);
      await write.getByRole('button', { name: 'Send' }).click();
      await expect(page.getByRole('heading', { name: patientName, level: 2 })).toBeVisible();
      const providerConversation = page.getByLabel(`Messages with ${patientName}`);
      await expect(providerConversation).toContainText(`Your scan is ready ${id}`);
      await expectAccessible(page);

      // On the patient's phone, without a reload: the chat and the badge.
      const row = phone.getByRole('button', { name: /Siddiqui/ });
      await expect(row).toBeVisible();
      await expect(row).toContainText(`Your scan is ready ${id}`);
      await expect(phone.getByText(/\(1 unread\)/)).toHaveCount(1);
      await expectAccessible(phone);

      // One pane at a time: the conversation replaces the list, and back.
      await row.click();
      await expect(phone.getByRole('heading', { name: 'Chats' })).toBeHidden();
      const phoneConversation = phone.getByLabel(/^Messages with /);
      await expect(phoneConversation).toContainText(`Your scan is ready ${id}`);
      await expect(phone.getByText(/\(1 unread\)/)).toHaveCount(0);
      await expectAccessible(phone);

      // Enter sends; a blank message is ignored.
      const box = phone.getByRole('textbox', { name: /^Message to / });
      await box.press('Enter');
      await box.fill(`Thank you ${id}`);
      await box.press('Enter');
      await expect(box).toHaveValue('');
      await expect(phoneConversation).toContainText(`Thank you ${id}`);
      await phone.getByRole('button', { name: 'Back to chats' }).click();
      await expect(phone.getByRole('heading', { name: 'Chats' })).toBeVisible();

      // The provider's open conversation shows the answer live.
      await expect(providerConversation).toContainText(`Thank you ${id}`);
    } finally {
      await patientContext.close();
    }
  });

  test('a message about an image shows it while the share is open, then only that it is no longer available', async ({ page }) => {
    const patient = await createVerifiedUser(page.request, newUser());
    const patientSession = await apiSignIn(page.request, patient);
    const provider = await apiSignIn(page.request, await demoAccount('healthProvider'));
    const caption = `Knee ${uniqueId()}`;

    // Set up through the API: an image of the patient, shared with them and
    // verified, and a message about it.
    const { imageId, sharingId } = await shareVerifiedImage(page, provider, { ...patientSession, email: patient.email }, caption);
    const sent = await page.request.post('/api/message/send', {
      headers: bearer(provider),
      data: { recipientId: patientSession.userId, content: 'About your knee', imageId },
    });
    expect(sent.status(), await sent.text()).toBe(201);

    await signIn(page, patient);
    await page.goto(`/messages?with=${provider.userId}`);
    const conversation = page.getByLabel(/^Messages with /);
    await expect(conversation.getByRole('link', { name: `Attached image: ${caption}` })).toBeVisible();

    // Revoked: the message stays, the image's caption and link go.
    const revoked = await page.request.delete(`/api/sharing/${sharingId}`, { headers: bearer(provider) });
    expect(revoked.status(), await revoked.text()).toBe(200);
    await page.reload();
    await expect(conversation).toContainText('About your knee');
    await expect(conversation.getByText('This image is no longer available.')).toBeVisible();
    await expect(conversation).not.toContainText(caption);
    await expect(conversation.getByRole('link')).toHaveCount(0);
    await expectAccessible(page);
  });
});
