// Types of scripts/ensure-postgres.mjs for the TypeScript that imports it (test/).
export declare function serverBin(root?: string): string | undefined;
export declare function ensurePostgres(opts?: { dryRun?: boolean; log?: (line: string) => void }): string;
export interface Cluster {
  url: string;
  port: number;
  dir: string;
  stop(): void;
}
export declare function startCluster(opts?: { bin?: string; maxConnections?: number }): Promise<Cluster>;
