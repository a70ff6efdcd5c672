// How much decoded pixel data the viewer keeps in the browser: Cornerstone's
// cache is bounded, so a 1,000-slice CT (about 500 MB decoded) never takes
// a phone's memory; what falls out is fetched again when scrolled back to.

const MB = 1024 * 1024;

export interface Device {
  /** navigator.deviceMemory (GB, rounded down to a power of two; Chromium only), when known. */
  deviceMemory?: number;
  /** The screen's shorter side in CSS pixels. */
  screenWidth?: number;
}

/** 256 MB on a desktop; less on a small screen or a device with little memory. */
export function cacheBytes({ deviceMemory, screenWidth }: Device = {}): number {
  let bytes = 256 * MB;
  if (deviceMemory !== undefined && deviceMemory > 0) {
    // At most an eighth of the device's memory, at least 64 MB.
    bytes = Math.min(bytes, Math.max(64 * MB, (deviceMemory * 1024 * MB) / 8));
  }
  if (screenWidth !== undefined && screenWidth < 768) bytes = Math.min(bytes, 128 * MB);
  return Math.round(bytes);
}

/** The device as the browser tells it. */
export function currentDevice(): Device {
  const nav = typeof navigator === 'undefined' ? undefined : (navigator as Navigator & { deviceMemory?: number });
  const screenWidth = typeof screen === 'undefined' ? undefined : Math.min(screen.width, screen.height);
  return { deviceMemory: nav?.deviceMemory, screenWidth };
}

/**
 * How many images to prefetch around the current one: those that fit in
 * three quarters of the cache (the rest is for what is on screen and what
 * the user scrolls to), at most the whole stack.
 */
export function prefetchCount(cache: number, bytesPerImage: number, stackSize: number): number {
  if (bytesPerImage <= 0) return 0;
  return Math.max(0, Math.min(stackSize, Math.floor((cache * 0.75) / bytesPerImage)));
}

/** Whether a WebGL renderer's name is a software rasteriser (SwiftShader, llvmpipe): no GPU behind it. */
export function isSoftwareRenderer(renderer: string | null): boolean {
  return renderer !== null && /swiftshader|llvmpipe|softpipe|software/i.test(renderer);
}
