import { act } from '@testing-library/react';

/**
 * Lets pending promises run (a mocked answer arriving, the screen updating)
 * until `done` holds, without moving a fake clock: for tests that count a
 * delay themselves. Testing Library's findBy and waitFor cannot serve
 * there, since they wait on a timer of their own, which the fake clock
 * would hold.
 */
export async function settle(done: () => boolean): Promise<void> {
  for (let round = 0; round < 200 && !done(); round += 1) {
    await act(async () => {
      await Promise.resolve();
    });
  }
  if (!done()) throw new Error('settle: the condition never held');
}
