import { expect, type Page } from '@playwright/test';
import { bearer, type ApiSession } from './api';
import { makeJpeg } from './files';
import { waitForMail } from './mailbox';

export const SHARE_SUBJECT = 'A medical image was shared with you on MediShare';

/** The sharing id and the 6-digit code of the newest share mail to `to` since `since`. */
export async function readShareMail(to: string, since: number): Promise<{ sharingId: string; code: string }> {
  const mail = await waitForMail(to, SHARE_SUBJECT, { since });
  const sharingId = /^Sharing id: ([0-9a-f-]{36})\s*$/im.exec(mail.body)?.[1];
  const code = /^Code: (\d{6})\s*$/im.exec(mail.body)?.[1];
  if (!sharingId || !code) throw new Error(`The share mail has no sharing id or code:\n${mail.body}`);
  return { sharingId, code };
}

/**
 * Set-up through the API: the provider uploads a JPEG of the patient with
 * `caption`, shares it with them, and the patient verifies the share with
 * the mailed code. Returns the image's id and the share's.
 */
export async function shareVerifiedImage(
  page: Page,
  provider: ApiSession,
  patient: ApiSession & { email: string },
  caption: string,
): Promise<{ imageId: string; sharingId: string }> {
  const upload = await page.request.post('/api/upload/image', {
    headers: bearer(provider),
    multipart: { caption, patientId: patient.userId, file: await makeJpeg(page, caption, 'image.jpg') },
  });
  expect(upload.status(), await upload.text()).toBe(201);
  const imageId = ((await upload.json()) as { data: { id: string } }).data.id;
  const since = Date.now();
  const shared = await page.request.post('/api/sharing/request', {
    headers: bearer(provider),
    data: { imagemetadataId: imageId, createdfor: patient.userId },
  });
  expect(shared.status(), await shared.text()).toBe(201);
  const { sharingId, code } = await readShareMail(patient.email, since);
  const verified = await page.request.post('/api/sharing/verify', {
    headers: bearer(patient),
    data: { sharingRequestId: sharingId, verificationCode: code },
  });
  expect(verified.status(), await verified.text()).toBe(200);
  return { imageId, sharingId };
}
