import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';

/** The repository's test fixtures (<repo>/testdata); E2E_FIXTURES_DIR points elsewhere. */
export const fixturesDir: string =
  process.env.E2E_FIXTURES_DIR ?? fileURLToPath(new URL('../../../testdata/', import.meta.url));

export function fixture(relative: string): string {
  return path.join(fixturesDir, relative);
}

export interface FilePayload {
  name: string;
  mimeType: string;
  buffer: Buffer;
}

/**
 * A one-page PDF with a line of text in Helvetica (a standard font that the
 * file does not embed), built by hand with a correct cross-reference table.
 */
export function makePdf(text: string, name = 'report.pdf'): FilePayload {
  const safe = text.replace(/[()\\]/g, '');
  const stream = `BT /F1 28 Tf 72 700 Td (${safe}) Tj ET\n0 0.45 0.56 rg 72 560 300 80 re f\n`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}endstream`,
  ];
  let body = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(Buffer.byteLength(body, 'latin1'));
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = Buffer.byteLength(body, 'latin1');
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  body += offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return { name, mimeType: 'application/pdf', buffer: Buffer.from(body, 'latin1') };
}

/**
 * A 320×240 JPEG (a gradient with a label) encoded by the browser itself
 * through a canvas: no encoder in the test, no patient data.
 */
export async function makeJpeg(page: Page, label: string, name = 'photo.jpg'): Promise<FilePayload> {
  const dataUrl = await page.evaluate((text) => {
    const canvas = document.createElement('canvas');
    canvas.width = 320;
    canvas.height = 240;
    const context = canvas.getContext('2d');
    if (!context) throw new Error('no 2d context');
    const gradient = context.createLinearGradient(0, 0, 320, 240);
    gradient.addColorStop(0, '#0e7490');
    gradient.addColorStop(1, '#f8fafc');
    context.fillStyle = gradient;
    context.fillRect(0, 0, 320, 240);
    context.fillStyle = '#0f172a';
    context.font = 'bold 28px sans-serif';
    context.fillText(text, 20, 130);
    return canvas.toDataURL('image/jpeg', 0.9);
  }, label);
  return { name, mimeType: 'image/jpeg', buffer: Buffer.from(dataUrl.split(',')[1], 'base64') };
}
