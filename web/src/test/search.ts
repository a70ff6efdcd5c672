import { act, fireEvent } from '@testing-library/react';
import { vi } from 'vitest';
import { SEARCH_DELAY_MS } from '@/lib/use-debounced-value';

/**
 * Puts `text` in a search box and lets the pause a search waits for pass on
 * a fake clock: the test counts the 300 ms instead of sleeping them. The
 * text goes in as one change event (Testing Library's async helpers wait on
 * a timer of their own, which the fake clock would hold); the clock is real
 * again afterwards.
 */
export async function searchFor(input: HTMLElement, text: string): Promise<void> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  try {
    fireEvent.change(input, { target: { value: text } });
    await act(() => vi.advanceTimersByTimeAsync(SEARCH_DELAY_MS));
  } finally {
    vi.useRealTimers();
  }
}
