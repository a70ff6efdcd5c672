import { useCallback, useSyncExternalStore } from 'react';

/** product.md §9: the layout switches under 1024 px wide (as the CSS does). */
export const NARROW_SCREEN = '(max-width: 1023.98px)';

const hasMatchMedia = () => typeof window.matchMedia === 'function';

/** Whether `query` matches now, updated as it changes; false where matchMedia is missing. */
export function useMediaQuery(query: string): boolean {
  const subscribe = useCallback(
    (onChange: () => void) => {
      if (!hasMatchMedia()) return () => {};
      const list = window.matchMedia(query);
      list.addEventListener('change', onChange);
      return () => list.removeEventListener('change', onChange);
    },
    [query],
  );
  return useSyncExternalStore(
    subscribe,
    () => hasMatchMedia() && window.matchMedia(query).matches,
    () => false,
  );
}
