import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Installs Debian's chromium for test/browser/ and pocketsphinx for test/footage/ (and consents, avatars) when missing (scripts/ensure-*.mjs).
    globalSetup: ['test/browser/global-setup.ts'],
    // Real rendering and real servers: generous timeouts, and files in separate processes.
    testTimeout: 60_000,
    // Closing a live service (streams, a browser, render processes) takes long on a loaded machine.
    hookTimeout: 180_000,
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    reporters: ['default'],
  },
});
