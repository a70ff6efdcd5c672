import { defineConfig, devices } from '@playwright/test';

// `make bench-viewer`: the viewer's timings in Debian's headless Chromium
// against the real binary (../../scripts/e2e-server.sh, as web/e2e does).
// Not part of `npm run e2e`, whose testDir is e2e/.
const port = process.env.E2E_PORT ?? '18080';

export default defineConfig({
  testDir: '.',
  testMatch: /\.bench\.ts$/,
  workers: 1,
  reporter: 'list',
  timeout: 600_000,
  use: {
    ...devices['Desktop Chrome'],
    baseURL: `http://localhost:${port}`,
    viewport: { width: 1440, height: 900 },
    headless: true,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    },
  },
  webServer: {
    command: 'bash ../../scripts/e2e-server.sh',
    url: `http://127.0.0.1:${port}/readyz`,
    timeout: 180_000,
    reuseExistingServer: false,
    stdout: 'pipe',
  },
});
