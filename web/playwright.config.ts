import { defineConfig, devices } from '@playwright/test';

// E2E_BASE_URL points the suite at a server that is already running (for
// example `vite preview`); without it Playwright starts the real Go binary
// with the embedded app through ../scripts/e2e-server.sh.
const externalBaseURL = process.env.E2E_BASE_URL;
// E2E_PORT moves the server started here (two checkouts testing at once).
const port = process.env.E2E_PORT ?? '18080';

// Every project's browser: Debian's headless Chromium.
const browser = {
  ...devices['Desktop Chrome'],
  headless: true,
  launchOptions: {
    // Debian's Chromium: this machine never downloads a browser build.
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  },
};

export default defineConfig({
  testDir: 'e2e',
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  retries: process.env.CI ? 1 : 0,
  workers: 2,
  reporter: 'list',
  timeout: 30_000,
  expect: { timeout: 10_000 },
  use: {
    baseURL: externalBaseURL || `http://localhost:${port}`,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
  projects: [
    {
      name: 'chromium',
      // settings.spec.ts changes the whole server's settings: it runs alone, after the rest.
      testIgnore: /settings\.spec\.ts$/,
      use: browser,
    },
    {
      name: 'settings',
      testMatch: /settings\.spec\.ts$/,
      dependencies: ['chromium'],
      use: browser,
    },
  ],
  webServer: externalBaseURL
    ? undefined
    : {
        command: 'bash ../scripts/e2e-server.sh',
        url: `http://127.0.0.1:${port}/readyz`,
        timeout: 180_000,
        reuseExistingServer: false,
        stdout: 'pipe',
      },
});
