/**
 * A promise and the function that settles it: the test decides when an
 * answer arrives (for example, to look at a screen while it still loads),
 * instead of delaying the answer by a timer.
 */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}
