/// <reference types="vitest/config" />
import { fileURLToPath, URL } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/**
 * Cornerstone3D's measurement labels set an SVG `style` attribute, which
 * the app's CSP blocks (style-src 'self', no 'unsafe-inline'). The same
 * declarations set through the CSSOM are allowed: rewrite that one call.
 * The build fails if the library's code changes, so an upgrade shows it.
 */
function cornerstoneStyleAttribute(): Plugin {
  const file = /@cornerstonejs[\\/]tools[\\/]dist[\\/]esm[\\/]drawingSvg[\\/]drawTextBox\.js$/;
  const call = "textElement.setAttribute('style', combinedStyle);";
  return {
    name: 'medishare:cornerstone-style-attribute',
    transform(code, id) {
      if (!file.test(id)) return null;
      if (!code.includes(call)) throw new Error(`drawTextBox.js changed: ${call} not found`);
      return { code: code.replace(call, 'textElement.style.cssText = combinedStyle;'), map: null };
    },
  };
}

// The Go server listens here in development; the built app is embedded in it.
const backend = 'http://127.0.0.1:8080';
const proxy = {
  '/api': { target: backend, changeOrigin: false },
  // DICOMweb (STOW-RS for study uploads, series thumbnails) sits beside /api.
  '/dicomweb': { target: backend, changeOrigin: false },
  '/healthz': { target: backend, changeOrigin: false },
  '/readyz': { target: backend, changeOrigin: false },
};

export default defineConfig({
  plugins: [react(), cornerstoneStyleAttribute()],
  resolve: {
    alias: {
      '@': fileURLToPath(new URL('./src', import.meta.url)),
      // vtk.js' VTK XML reader and writer (unused by the viewer) need Node's events.
      xmlbuilder2: fileURLToPath(new URL('./src/features/images/viewer/stubs/xmlbuilder2.ts', import.meta.url)),
    },
  },
  server: { proxy },
  // Cornerstone3D's DICOM loader starts its decoding worker with
  // `new URL('./decodeImageFrameWorker.js', import.meta.url)`: pre-bundling
  // would move the module away from its worker and its WebAssembly codecs.
  optimizeDeps: {
    exclude: ['@cornerstonejs/dicom-image-loader'],
    include: ['dicom-parser'],
  },
  // The decoding worker is an ES module (it imports the codecs).
  worker: { format: 'es' },
  preview: {
    proxy,
    // Mirrors the Go server's strict policy (security.md S21) so `vite preview` catches what it would block.
    headers: {
      'Content-Security-Policy':
        "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; " +
        "img-src 'self' data: blob:; font-src 'self'; connect-src 'self'; media-src 'self' blob:; " +
        "frame-src 'self' blob:; worker-src 'self' blob:; object-src 'none'; base-uri 'none'; " +
        "form-action 'self'; frame-ancestors 'none'",
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Keep every asset a file: the server's CSP forbids data: scripts and inline styles.
    assetsInlineLimit: 0,
    rolldownOptions: {
      output: {
        // The libraries every page needs in a chunk of their own (they change
        // less often than the app), named one by one: everything else (pdf.js,
        // uPlot, the study reader's DICOM parser and unzipper, the viewer's
        // Cornerstone3D and vtk.js) stays in the lazily loaded chunks of the
        // pages that use it.
        codeSplitting: {
          groups: [
            {
              name: 'vendor',
              test: /[\\/]node_modules[\\/](react|react-dom|scheduler|react-router|cookie|set-cookie-parser|axios|@reduxjs|redux|redux-thunk|reselect|immer|react-redux|use-sync-external-store|react-toastify|clsx|redux-persist)[\\/]/,
            },
          ],
        },
      },
    },
  },
  test: {
    environment: 'jsdom',
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    restoreMocks: true,
    css: false,
    // A deadline, not a wait: make test runs these beside the Go tests and
    // Playwright on two cores, where a render can take seconds.
    testTimeout: 30_000,
    alias: [
      {
        // Vitest loads the CommonJS build for 'react-router' but the ES build
        // for 'react-router/dom' (the app's RouterProvider): two copies, two
        // sets of contexts. Point both at the ES build.
        find: /^react-router$/,
        replacement: fileURLToPath(
          new URL('./node_modules/react-router/dist/development/index.mjs', import.meta.url),
        ),
      },
    ],
  },
});
