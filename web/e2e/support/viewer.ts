import { expect, type APIRequestContext, type Page } from '@playwright/test';
import { bearer, type ApiSession } from './api';
import { stowBody } from './dicom';

/**
 * STOW-RS of the files (one study) for a patient, with a caption of our own:
 * the study's image id. Large series go up in batches of 50 instances.
 */
export async function storeStudy(
  request: APIRequestContext,
  session: ApiSession,
  patientId: string,
  files: Iterable<Buffer>,
  caption: string,
): Promise<string> {
  let imageId = '';
  let batch: Buffer[] = [];
  const send = async () => {
    const { body, contentType } = stowBody(batch);
    const response = await request.post(`/dicomweb/studies?patient=${encodeURIComponent(patientId)}`, {
      headers: { ...bearer(session), 'Content-Type': contentType, Accept: 'application/dicom+json' },
      data: body,
      timeout: 120_000,
    });
    expect(response.status(), await response.text()).toBe(200);
    imageId ||= (response.headers()['medishare-image-id'] ?? '').split(',')[0].trim();
    batch = [];
  };
  for (const file of files) {
    batch.push(file);
    if (batch.length === 50) await send();
  }
  if (batch.length) await send();
  expect(imageId).not.toBe('');
  const patch = await request.patch(`/api/upload/image/${imageId}`, { headers: bearer(session), data: { caption } });
  expect(patch.status(), await patch.text()).toBe(200);
  return imageId;
}

/** The id of the signed-in person of a session. */
export async function userIdOf(request: APIRequestContext, session: ApiSession): Promise<string> {
  const profile = await request.get('/api/users/profile', { headers: bearer(session) });
  expect(profile.status(), await profile.text()).toBe(200);
  return ((await profile.json()) as { data: { id: string } }).data.id;
}

/** Console errors, page errors and CSP violations (of the page and its workers) seen while the test runs. */
export async function watchProblems(page: Page): Promise<() => Promise<string[]>> {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { cspViolations: string[] }).cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (event) => {
      seen.push(`${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  return async () => [
    ...problems,
    ...(await page.evaluate(() => (window as unknown as { cspViolations?: string[] }).cspViolations ?? [])),
  ];
}

/** A hash of the viewport canvas' pixels: it changes when what is drawn changes. */
export async function canvasDigest(page: Page): Promise<string> {
  return page.getByTestId('dicom-viewport').evaluate((element) => {
    const canvas = element.querySelector('canvas');
    if (!canvas) return '';
    const copy = document.createElement('canvas');
    copy.width = canvas.width;
    copy.height = canvas.height;
    const context = copy.getContext('2d');
    if (!context) return '';
    context.drawImage(canvas, 0, 0);
    const data = context.getImageData(0, 0, copy.width, copy.height).data;
    let hash = 2166136261;
    for (let i = 0; i < data.length; i += 7) hash = Math.imul(hash ^ data[i], 16777619) >>> 0;
    return `${copy.width}x${copy.height}:${hash.toString(16)}`;
  });
}

/** Waits for the viewport to have drawn an image. */
export async function expectDrawn(page: Page): Promise<void> {
  await expect(page.getByTestId('dicom-viewport')).toHaveAttribute('data-rendered', /^[1-9]/, { timeout: 20_000 });
}
