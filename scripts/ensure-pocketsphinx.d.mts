// Types of scripts/ensure-pocketsphinx.mjs for the TypeScript that imports it (test/browser/global-setup.ts, test/scripts/).
export declare const POCKETSPHINX_BIN: string;
export declare const POCKETSPHINX_MODEL_DIR: string;
export declare const MODEL_FILES: string[];
export type PocketsphinxPlan =
  | { action: 'present' }
  | { action: 'install'; commands: string[][] }
  | { action: 'fail'; reason: string };
export declare function plan(opts?: {
  uid?: number;
  platform?: string;
  has?: (command: string) => boolean;
  present?: () => boolean;
  sudoWorks?: () => boolean;
}): PocketsphinxPlan;
export declare function ensurePocketsphinx(opts?: { dryRun?: boolean; assumeMissing?: boolean; log?: (line: string) => void }): string;
