// Types of scripts/ensure-swift.mjs for the TypeScript that imports it (test/media/).
export type SwiftPlan = { action: 'present' } | { action: 'install'; commands: string[][] } | { action: 'fail'; reason: string };
export declare function plan(opts?: { uid?: number; platform?: string; has?: (command: string) => boolean; sudoWorks?: () => boolean; present?: () => boolean }): SwiftPlan;
export declare function ensureSwift(opts?: { dryRun?: boolean; assumeMissing?: boolean; log?: (line: string) => void }): 'present' | 'installed' | 'would install';
export interface RunningSwift {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
  dir: string;
  stop(): Promise<void>;
}
export declare function startSwift(opts?: { timeoutMs?: number }): Promise<RunningSwift>;
