import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach, vi } from 'vitest';

// findBy and waitFor wait for an event (an element appearing), not for
// time; their deadline, 1 s by default, is only how long a missing element
// is looked for. make test runs these beside the Go tests and Playwright on
// two cores, where a lazy chunk or a file read can take seconds: a longer
// deadline, well under testTimeout, fails the same tests, only later.
configure({ asyncUtilTimeout: 10_000 });

// jsdom has no layout; ScrollRestoration calls scrollTo on every navigation.
window.scrollTo = () => {};

afterEach(() => {
  cleanup();
  localStorage.clear();
  // A test that drives the clock never leaves it fake for the next.
  vi.useRealTimers();
});
