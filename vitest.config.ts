import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Installs Debian's chromium for test/browser/ when it is missing (scripts/ensure-chromium.mjs).
    globalSetup: ['test/browser/global-setup.ts'],
    // Real rendering and real servers: generous timeouts, and files in separate processes.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    reporters: ['default'],
  },
});
