// pdf.js, loaded only when a PDF is opened (this module is imported lazily).
// It runs behind the server's CSP: its worker comes from the app's own
// assets (worker-src 'self'), eval is off, and no font or wasm file is
// fetched from anywhere but the app itself.
import { getDocument, GlobalWorkerOptions, type PDFDocumentProxy } from 'pdfjs-dist';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';
import dingbatsUrl from 'pdfjs-dist/standard_fonts/FoxitDingbats.pfb?url';
import symbolUrl from 'pdfjs-dist/standard_fonts/FoxitSymbol.pfb?url';

export type { PDFDocumentProxy };

GlobalWorkerOptions.workerSrc = workerUrl;

/**
 * The standard fonts a PDF may use without embedding them. Helvetica, Times
 * and Courier are drawn with the system's fonts (useSystemFonts); Symbol and
 * ZapfDingbats have no system substitute, so those two ship with the app.
 */
const BUNDLED_FONTS: Record<string, string> = {
  'FoxitSymbol.pfb': symbolUrl,
  'FoxitDingbats.pfb': dingbatsUrl,
};

/** pdf.js's BinaryDataFactory interface, answered from the app's own assets. */
class BundledBinaryData {
  async fetch({ kind, filename }: { kind: string; filename: string }): Promise<Uint8Array> {
    const url = kind === 'standardFontDataUrl' ? BUNDLED_FONTS[filename] : undefined;
    if (!url) throw new Error(`No bundled ${kind} file ${filename}.`);
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url}: ${response.status}`);
    return new Uint8Array(await response.arrayBuffer());
  }
}

/** Opens a PDF from its bytes. */
export function openPdf(data: Uint8Array): Promise<PDFDocumentProxy> {
  return getDocument({
    data,
    isEvalSupported: false,
    useSystemFonts: true,
    useWorkerFetch: false,
    BinaryDataFactory: BundledBinaryData,
    // WebAssembly needs 'wasm-unsafe-eval', which the CSP does not grant;
    // the rare JPEG 2000 image inside a PDF is left out.
    useWasm: false,
    enableXfa: false,
  }).promise;
}
