import { useEffect, useEffectEvent, useRef, useState } from 'react';
import { Spinner } from '@/components/Spinner';
import type { PDFDocumentProxy } from '../pdf';

/** Pages drawn at once; a longer document says so and offers the download. */
export const MAX_PDF_PAGES = 30;

interface PdfDocumentProps {
  /** The signed content URL (image_url). */
  url: string;
  /** Asks the server for a fresh signed URL when this one has expired. */
  refreshUrl: () => Promise<string | null>;
  title: string;
}

type Loaded = { status: 'loading' } | { status: 'ready'; doc: PDFDocumentProxy } | { status: 'failed' };

async function fetchBytes(url: string, signal: AbortSignal): Promise<Uint8Array | null> {
  const response = await fetch(url, { signal, credentials: 'same-origin' });
  if (!response.ok) return null;
  return new Uint8Array(await response.arrayBuffer());
}

/**
 * A PDF drawn with pdf.js into one canvas per page, from bytes fetched with
 * the signed URL (the content's sandboxing CSP keeps Chromium's own viewer
 * out of frames). Loads once per mounted document; give it key={image id}.
 */
export function PdfDocument({ url, refreshUrl, title }: PdfDocumentProps) {
  const [loaded, setLoaded] = useState<Loaded>({ status: 'loading' });
  const firstUrl = useEffectEvent(() => url);
  const freshUrl = useEffectEvent(() => refreshUrl());

  useEffect(() => {
    const controller = new AbortController();
    let doc: PDFDocumentProxy | null = null;
    let cancelled = false;
    (async () => {
      let bytes = await fetchBytes(firstUrl(), controller.signal);
      if (!bytes) {
        // The signed URL may have expired: one more try with a fresh one.
        const next = await freshUrl();
        if (next) bytes = await fetchBytes(next, controller.signal);
      }
      if (!bytes) throw new Error('The PDF could not be fetched.');
      const { openPdf } = await import('../pdf');
      doc = await openPdf(bytes);
      if (cancelled) return;
      setLoaded({ status: 'ready', doc });
    })().catch((error: unknown) => {
      if (cancelled) return;
      console.error('Failed to render the PDF', error);
      setLoaded({ status: 'failed' });
    });
    return () => {
      cancelled = true;
      controller.abort();
      void doc?.destroy();
    };
  }, []);

  if (loaded.status === 'loading') return <Spinner label="Loading the PDF…" />;
  if (loaded.status === 'failed') {
    return <p className="form-error">The PDF could not be shown here. Use Download to open it.</p>;
  }
  const count = loaded.doc.numPages;
  const shown = Math.min(count, MAX_PDF_PAGES);
  return (
    <div className="pdf-document">
      <p className="pdf-document__count">
        {count === 1 ? '1 page' : `${count} pages`}
        {count > shown ? `; the first ${shown} are shown here, download the file for the rest.` : ''}
      </p>
      {Array.from({ length: shown }, (_, index) => (
        <PdfPage key={index} doc={loaded.doc} pageNumber={index + 1} pageCount={count} title={title} />
      ))}
    </div>
  );
}

interface PdfPageProps {
  doc: PDFDocumentProxy;
  pageNumber: number;
  pageCount: number;
  title: string;
}

/** One page, drawn at the width of its column (and the screen's pixel density). */
function PdfPage({ doc, pageNumber, pageCount, title }: PdfPageProps) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const [drawn, setDrawn] = useState(false);

  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas) return;
    let cancelled = false;
    let cancel: (() => void) | null = null;
    (async () => {
      const page = await doc.getPage(pageNumber);
      if (cancelled) return;
      const base = page.getViewport({ scale: 1 });
      const cssWidth = Math.min(canvas.parentElement?.clientWidth || base.width, 1200);
      const scale = (cssWidth / base.width) * Math.min(window.devicePixelRatio || 1, 2);
      const viewport = page.getViewport({ scale });
      canvas.width = Math.floor(viewport.width);
      canvas.height = Math.floor(viewport.height);
      const task = page.render({ canvas, viewport });
      cancel = () => task.cancel();
      await task.promise;
      if (!cancelled) setDrawn(true);
    })().catch((error: unknown) => {
      if (!cancelled && !(error instanceof Error && error.name === 'RenderingCancelledException')) {
        console.error(`Failed to draw page ${pageNumber} of the PDF`, error);
      }
    });
    return () => {
      cancelled = true;
      cancel?.();
    };
  }, [doc, pageNumber]);

  return (
    <div className="pdf-page">
      <canvas
        ref={canvasRef}
        className="pdf-page__canvas"
        role="img"
        aria-label={`${title}, page ${pageNumber} of ${pageCount}`}
        data-drawn={drawn ? 'true' : undefined}
      />
    </div>
  );
}
