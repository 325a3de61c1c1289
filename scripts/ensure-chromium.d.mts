// Types of scripts/ensure-chromium.mjs for the TypeScript that imports it (test/browser/).
export declare const DEFAULT_CHROMIUM: string;
export declare function chromiumPath(env?: Record<string, string | undefined>): string;
export type ChromiumPlan =
  | { action: 'present'; path: string }
  | { action: 'install'; path: string; commands: string[][] }
  | { action: 'fail'; reason: string };
export declare function plan(opts?: {
  path?: string;
  uid?: number;
  platform?: string;
  has?: (command: string) => boolean;
  present?: (file: string) => boolean;
  sudoWorks?: () => boolean;
}): ChromiumPlan;
export declare function ensureChromium(opts?: { dryRun?: boolean; assumeMissing?: boolean; path?: string; log?: (line: string) => void }): string;
