import type { TestProject } from 'vitest/node';
import { ensureSwift, startSwift } from '../../scripts/ensure-swift.mjs';

/** What the test run's Swift offers the test files (vitest provide/inject), or why there is none. */
export type SwiftInfo = { endpoint: string; region: string; accessKeyId: string; secretAccessKey: string } | { unavailable: string };

declare module 'vitest' {
  export interface ProvidedContext {
    swift: SwiftInfo;
  }
}

export const banner = (lines: string[]): void => {
  const bar = '!'.repeat(78);
  console.error(`\n${bar}\n${lines.map((l) => `!! ${l}`).join('\n')}\n${bar}\n`);
};

/**
 * globalSetup's part (test/browser/global-setup.ts): when test/media/ runs, installs Swift if
 * missing and starts one for the whole run; answers its stop. Where it cannot, says so loudly
 * and the S3 tests skip (each file says so again).
 */
export async function provideSwift(project: TestProject, wanted: boolean): Promise<() => Promise<void>> {
  if (!wanted) {
    project.provide('swift', { unavailable: 'test/media/ is not among the files run' });
    return async () => {};
  }
  try {
    ensureSwift();
    const s = await startSwift();
    project.provide('swift', { endpoint: s.endpoint, region: s.region, accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey });
    return () => s.stop();
  } catch (err) {
    const reason = (err as Error).message;
    banner(['OpenStack Swift (the S3 server of the media tests) could not be installed or started:', reason, 'The tests of media on S3 are SKIPPED.']);
    project.provide('swift', { unavailable: reason });
    return async () => {};
  }
}

