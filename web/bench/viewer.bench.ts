import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { expect, test, type Page } from '@playwright/test';
import { signIn } from '../e2e/support/accounts';
import { apiSignIn } from '../e2e/support/api';
import { demoAccount } from '../e2e/support/demo';
import { ctSeries } from '../e2e/support/dicom';
import { storeStudy, userIdOf } from '../e2e/support/viewer';

// The viewer's measures (docs/performance.md, "Viewer"): the time from
// opening the viewer to the first image of a 300-instance CT (512 x 512,
// 16 bits) on loopback, and the images shown per second while scrolling
// through it once cached. BENCH_REPORT names the report to update.

const SLICES = 300;
const report = process.env.BENCH_REPORT;

/** Records, from the page's time origin, when the viewport first draws. */
async function watchFirstImage(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { firstImageAt?: number };
    new MutationObserver(() => {
      const viewport = document.querySelector('[data-testid="dicom-viewport"]');
      if (w.firstImageAt === undefined && viewport?.getAttribute('data-rendered')) w.firstImageAt = performance.now();
    }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-rendered'] });
  });
}

/** Milliseconds from navigation to the first image drawn. */
async function firstImageMs(page: Page, path: string): Promise<number> {
  await page.goto(path);
  await expect(page.getByTestId('dicom-viewport')).toHaveAttribute('data-rendered', /^[1-9]/, { timeout: 60_000 });
  return page.evaluate(() => (window as unknown as { firstImageAt: number }).firstImageAt);
}

/**
 * Presses the arrow key once per display frame, `steps` times, then waits
 * for the last image: the images the viewport drew per second meanwhile.
 * Each press is a task of its own between two frames, as the browser
 * delivers a held key or a wheel: a press sent from inside an animation-frame
 * callback would have its drawing, which the engine asks for with
 * requestAnimationFrame, put off to the frame after next.
 */
async function scrollRate(page: Page, steps: number, key: 'ArrowDown' | 'ArrowUp'): Promise<number> {
  return page.evaluate(
    async ({ steps, key }) => {
      const viewport = document.querySelector('[data-testid="dicom-viewport"]') as HTMLElement;
      const instance = document.querySelector('[data-testid="overlay-image"]') as HTMLElement;
      const drawn = () => Number(viewport.dataset.rendered ?? '0');
      const frame = () => new Promise<number>((resolve) => requestAnimationFrame(resolve));
      const task = () =>
        new Promise<void>((resolve) => {
          const channel = new MessageChannel();
          channel.port1.onmessage = () => resolve();
          channel.port2.postMessage(null);
        });
      const first = drawn();
      const start = performance.now();
      for (let i = 0; i < steps; i += 1) {
        document.body.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true }));
        await frame();
        await task();
      }
      // The last image on screen: the overlay names it, and it is drawn.
      const target = key === 'ArrowDown' ? 'Image 300 / 300' : 'Image 1 / 300';
      const deadline = performance.now() + 60_000;
      while (!instance.textContent?.startsWith(target) && performance.now() < deadline) await frame();
      const settled = drawn();
      await frame();
      await frame();
      const end = performance.now();
      return (Math.max(settled, drawn()) - first) / ((end - start) / 1000);
    },
    { steps, key },
  );
}

test('viewer: first image and scrolling of a 300-instance CT', async ({ page }) => {
  const provider = await demoAccount('healthProvider');
  const session = await apiSignIn(page.request, provider);
  const patient = await userIdOf(page.request, await apiSignIn(page.request, await demoAccount('patient')));
  const load = os.loadavg()[0];
  const uploadStart = Date.now();
  const id = await storeStudy(page.request, session, patient, ctSeries(SLICES, 'Viewer bench CT', 512), 'Viewer bench CT');
  const uploadSeconds = (Date.now() - uploadStart) / 1000;

  await watchFirstImage(page);
  await signIn(page, provider);
  // Cold: the viewer's chunk, its worker and codecs are fetched for the first time.
  const cold = await firstImageMs(page, `/viewer/${id}`);
  // Warm: the browser's HTTP cache holds the app (a second visit).
  const warm: number[] = [];
  for (let i = 0; i < 3; i += 1) warm.push(await firstImageMs(page, `/viewer/${id}`));
  warm.sort((a, b) => a - b);

  // The first pass fetches and decodes each slice as it comes (prefetch runs alongside).
  const firstPass = await scrollRate(page, SLICES - 1, 'ArrowDown');
  await expect(page.getByTestId('overlay-instance')).toHaveText(`Instance ${SLICES}`, { timeout: 60_000 });
  // Once cached: back up and down again.
  const cachedUp = await scrollRate(page, SLICES - 1, 'ArrowUp');
  const cachedDown = await scrollRate(page, SLICES - 1, 'ArrowDown');
  const cached = Math.min(cachedUp, cachedDown);

  const rows = [
    ['time to the first image, first visit (app, viewer chunk, worker and codecs fetched)', `${Math.round(cold)} ms`],
    ['time to the first image, later visits (median of 3)', `${Math.round(warm[1])} ms`],
    ['scrolling, first pass (each slice fetched and decoded as it comes)', `${firstPass.toFixed(1)} images/s`],
    ['scrolling once cached (slower of up and down)', `${cached.toFixed(1)} images/s`],
  ];
  console.log(rows.map(([name, value]) => `${name}: ${value}`).join('\n'));
  expect(cold).toBeGreaterThan(0);

  if (report) {
    const date = new Date().toISOString().slice(0, 10);
    const section = `## Viewer

Measured by \`make bench-viewer\` (web/bench/viewer.bench.ts, part of \`make bench\`)
on ${date} in Debian's headless Chromium (software rendering, no GPU) against the
real server on loopback, ${os.cpus().length} cores (load average ${load.toFixed(1)} when it started: other
work shares the machine, so the numbers move by a few images/s between runs): a synthetic CT series of ${SLICES}
instances (512 x 512, 16 bits, explicit VR little endian; uploaded through STOW-RS in
${uploadSeconds.toFixed(0)} s). "First image" runs from the navigation to /viewer/{id} to
the viewport's first drawn image: it includes the app's start, the session, the
series' metadata (WADO-RS) and the first frame. Scrolling steps through the stack with
the arrow key, one press per display frame (60 Hz) delivered between frames as the
browser delivers a held key or a wheel, and counts the images drawn per second. Where WebGL is software (here SwiftShader) the viewer draws
with Cornerstone's canvas renderer. Targets: first image under 1 s,
30 images/s or more once cached.

| measure | value |
|---|---|
${rows.map(([name, value]) => `| ${name} | ${value} |`).join('\n')}
`;
    const begin = '<!-- bench:viewer -->\n';
    const end = '<!-- /bench:viewer -->\n';
    const block = begin + section + end;
    let text = '';
    try {
      text = await readFile(report, 'utf8');
    } catch {
      text = '';
    }
    const i = text.indexOf(begin);
    const j = text.indexOf(end);
    text = i >= 0 && j > i ? text.slice(0, i) + block + text.slice(j + end.length) : `${text.trimEnd()}\n\n${block}`;
    await writeFile(report, text);
  }
});
