import { useEffect, useState } from 'react';
import type { StudySeries } from '@/types/images';
import { fetchSeriesThumbnail } from './dicomweb';

/**
 * A series' thumbnail. The server wants the bearer token for it, so it is
 * fetched through the app's HTTP client and shown from an object URL, which
 * is revoked when the thumbnail goes away.
 */
export function useSeriesThumbnail(studyUid: string, seriesUid: string): { src: string | null; failed: boolean } {
  const [src, setSrc] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    const controller = new AbortController();
    let url: string | null = null;
    fetchSeriesThumbnail(studyUid, seriesUid, controller.signal)
      .then((blob) => {
        url = URL.createObjectURL(blob);
        setSrc(url);
      })
      .catch(() => {
        // A series without a preview (a 404) is expected: it says so.
        if (!controller.signal.aborted) setFailed(true);
      });
    return () => {
      controller.abort();
      if (url) URL.revokeObjectURL(url);
    };
  }, [studyUid, seriesUid]);
  return { src, failed };
}

/** "Series 2: Axial", or "Series" when the files give no number. */
export function seriesTitle(series: StudySeries): string {
  const number = series.seriesNumber === null ? 'Series' : `Series ${series.seriesNumber}`;
  return series.description ? `${number}: ${series.description}` : number;
}
