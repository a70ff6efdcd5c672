import { renderHook, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { useChunk } from './use-chunk';

describe('useChunk', () => {
  it('holds the chunk once it is in, loading it once', async () => {
    const chunk = { Page: () => null };
    const promise = Promise.resolve(chunk);
    const load = vi.fn(() => promise);
    const { result, rerender } = renderHook(() => useChunk(load));
    expect(result.current).toEqual({ chunk: null, failed: false });
    await waitFor(() => expect(result.current.chunk).toBe(chunk));
    rerender();
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('says when the chunk could not be loaded', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const promise = Promise.reject(new Error('offline'));
    promise.catch(() => undefined);
    const { result } = renderHook(() => useChunk(() => promise));
    await waitFor(() => expect(result.current).toEqual({ chunk: null, failed: true }));
  });
});
