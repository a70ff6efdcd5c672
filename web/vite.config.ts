/// <reference types="vitest/config" />
import { fileURLToPath, URL } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

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
  plugins: [react()],
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  server: { proxy },
  preview: {
    proxy,
    // Mirrors the Go server's strict policy (security.md S21) so `vite preview` catches what it would block.
    headers: {
      'Content-Security-Policy':
        "default-src 'self'; script-src 'self'; style-src 'self'; " +
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
        // less often than the app); pdf.js, uPlot and the study reader's DICOM
        // parser and unzipper stay in their lazily loaded chunks.
        codeSplitting: {
          groups: [
            {
              name: 'vendor',
              test: /[\\/]node_modules[\\/](?!pdfjs-dist[\\/]|uplot[\\/]|dicom-parser[\\/]|fflate[\\/])/,
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
