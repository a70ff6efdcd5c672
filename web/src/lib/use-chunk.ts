import { useEffect, useState } from 'react';

/**
 * A lazily loaded chunk, held in state instead of behind Suspense: React
 * holds a Suspense boundary's content back for up to 300 ms after its
 * fallback appeared (to batch reveals), which a page that must show its
 * first image fast cannot spend. `load` must return the same promise each
 * time (a module-level memo), so the chunk is fetched once.
 */
export function useChunk<T>(load: () => Promise<T>): { chunk: T | null; failed: boolean } {
  const [state, setState] = useState<{ chunk: T | null; failed: boolean }>({ chunk: null, failed: false });
  useEffect(() => {
    let active = true;
    load().then(
      (chunk) => {
        if (active) setState({ chunk, failed: false });
      },
      (error: unknown) => {
        console.error('A part of the app could not be loaded', error);
        if (active) setState({ chunk: null, failed: true });
      },
    );
    return () => {
      active = false;
    };
  }, [load]);
  return state;
}
