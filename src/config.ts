import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { availableParallelism } from 'node:os';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly publicUrl: string;
  readonly databaseFile: string;
  /** PostgreSQL (MIMIC_DATABASE_URL and the pool's MIMIC_DATABASE_* settings), or null: SQLite in `databaseFile`. */
  readonly database: PgSettings | null;
  readonly mediaDir: string;
  /** Media in an S3 bucket (MIMIC_S3_*; docs/deploy.md); null: the local folder `mediaDir`. */
  readonly s3: S3Settings | null;
  /** MIMIC_MEDIA_URLS: media URLs are mimic-signed /media URLs ('signed', served streaming from the store) or the bucket's own presigned GETs ('presigned'). */
  readonly mediaUrls: 'signed' | 'presigned';
  /** Scheme of object-storage URLs (`s3://bucket/key`), resolved in the media store (the folder or the bucket). */
  readonly storageScheme: string;
  /** Host names or addresses that outbound requests may reach although private or loopback. */
  readonly egressAllow: readonly string[];
  readonly masterKey: Buffer;
  readonly masterKeySource: 'env' | 'file' | 'generated';
  readonly maxBodyBytes: number;
  readonly signedUrlTtlSeconds: number;
  readonly worker: {
    readonly enabled: boolean;
    readonly concurrency: number;
    readonly leaseMs: number;
    readonly pollMs: number;
    readonly maxAttempts: number;
    readonly shutdownGraceMs: number;
  };
  readonly webhooks: {
    readonly enabled: boolean;
    /** Delay before each retry; its length is the number of retries after the first attempt. */
    readonly retryScheduleMs: readonly number[];
    readonly timeoutMs: number;
    readonly pollMs: number;
  };
  readonly fetch: {
    readonly timeoutMs: number;
    readonly maxImageBytes: number;
    readonly maxVideoBytes: number;
  };
  /** Bounds of a source image (InvalidImageResolutionError); docs/animation-limits.md lists every limit. */
  readonly images: {
    readonly minSide: number;
    readonly maxSide: number;
    readonly maxPixels: number;
  };
  /** 'local': renders in this process's CPU renderer; 'remote': renders become tasks for worker processes (docs/compute-protocol.md). */
  readonly computeBackend: 'local' | 'remote';
  readonly compute: {
    /** How long a worker's claim lasts without a heartbeat. */
    readonly leaseMs: number;
    /** Claims of one task before its render fails (the job's own retries then apply). */
    readonly maxAttempts: number;
    /** How often waiting claims and renders look at the database for what another API process did. */
    readonly pollMs: number;
    /** How long opening a live stream waits for a worker to take it and prepare the face (remote backend). */
    readonly streamWaitMs: number;
  };
  /** Who wraps the vault's key-encryption keys: 'local' (the master key); see src/vault/providers/README.md. */
  readonly keyProvider: string;
  readonly logRequests: boolean;
  /** The MIMIC_* settings it was read from (not the master key): capability modules read their own sections from them (src/platform/module.ts). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Requests per API key (src/http/rate-limit/); null when MIMIC_RATE_LIMIT=0 turns limiting off. */
  readonly rateLimit: RateLimitSettings | null;
  /**
   * Requests per client key as a whole, all its end users together (each end user also has
   * `rateLimit`'s allowance); null when MIMIC_CLIENT_KEY_RATE_LIMIT=0 or limiting is off.
   */
  readonly clientKeyRateLimit: RateLimitSettings | null;
  /** Browser origins allowed to call the API from their pages (CORS); `*` allows any; empty: none. */
  readonly corsOrigins: readonly string[];
}

/** MIMIC_S3_*. The secret key is not enumerable: it never shows when the settings are logged or turned into JSON. */
export interface S3Settings {
  readonly bucket: string;
  /** `https://s3.example.com`; undefined: AWS's endpoint of the region. */
  readonly endpoint: string | undefined;
  readonly region: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly forcePathStyle: boolean;
  /** Put before every object's name in the bucket (`mimic/`), or ''. */
  readonly prefix: string;
  /** The bound of the local copies of objects that programs read as files (MIMIC_S3_CACHE_MB). */
  readonly cacheBytes: number;
}

export interface RateLimitSettings {
  /** Sustained requests per second per key. */
  readonly perSecond: number;
  /** Requests a key may send at once: each key gets `burst` requests per window of `burst / perSecond` seconds. */
  readonly burst: number;
}

/** The pool's settings (docs/deploy.md lists them with their MIMIC_DATABASE_* variables). */
export interface PgSettings {
  url: string;
  /** Connections at most (MIMIC_DATABASE_POOL_MAX). */
  max: number;
  /** An idle connection is closed after this long (MIMIC_DATABASE_IDLE_TIMEOUT_MS). */
  idleTimeoutMs: number;
  /** Waiting for a connection (from the server, or a free one in the pool) fails after this long (MIMIC_DATABASE_CONNECT_TIMEOUT_MS). */
  connectionTimeoutMs: number;
  /** The server cancels a statement running longer than this (MIMIC_DATABASE_STATEMENT_TIMEOUT_MS); 0: none. */
  statementTimeoutMs: number;
}

export class ConfigurationError extends Error {}

export type Env = Readonly<Record<string, string | undefined>>;

export const MiB = 1024 * 1024;
/** Standard Webhooks' schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h after the first try. */
const DEFAULT_WEBHOOK_SCHEDULE_MS = [5e3, 300e3, 1800e3, 7200e3, 18000e3, 36000e3, 36000e3];

export function int(env: Env, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigurationError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/**
 * Jobs the runner runs at once unless MIMIC_WORKER_CONCURRENCY says otherwise. Remote renders
 * only wait on workers, so many are in flight. Locally the CPU-heavy parts already leave the
 * event loop (ffmpeg and pocketsphinx are child processes, faces and voice activity worker
 * threads, renders one render process), so a job mostly waits on them: one job per core, at
 * least 2 (one slow job does not hold up the rest), at most 8 (jobs share the one face thread
 * and the one render process, so more slots would only queue there).
 */
export function defaultWorkerConcurrency(backend: string, cores: number = availableParallelism()): number {
  if (backend === 'remote') return 16;
  return Math.min(8, Math.max(2, cores));
}

export function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new ConfigurationError(`${name} must be true or false, got "${raw}"`);
}

function list(env: Env, name: string): string[] {
  return (env[name] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function msList(env: Env, name: string, fallback: number[]): number[] {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const values = raw.split(',').map((s) => Number(s.trim()));
  if (values.some((v) => !Number.isFinite(v) || v < 0)) {
    throw new ConfigurationError(`${name} must be a comma list of milliseconds, got "${raw}"`);
  }
  return values;
}

/** Defaults: 50 requests per second per key, bursts of twice that. */
function rateLimit(env: Env): RateLimitSettings | null {
  const perSecond = int(env, 'MIMIC_RATE_LIMIT', 50, 0, 1_000_000_000);
  const burst = int(env, 'MIMIC_RATE_LIMIT_BURST', Math.min(2 * perSecond, 1_000_000_000), 1, 1_000_000_000);
  return perSecond === 0 ? null : { perSecond, burst };
}

/** Defaults: ten times the per-key rate for a client key as a whole (500 a second), bursts of twice that. */
function clientKeyRateLimit(env: Env, perKey: RateLimitSettings | null): RateLimitSettings | null {
  if (!perKey) return null;
  const perSecond = int(env, 'MIMIC_CLIENT_KEY_RATE_LIMIT', Math.min(10 * perKey.perSecond, 1_000_000_000), 0, 1_000_000_000);
  return perSecond === 0 ? null : { perSecond, burst: Math.min(2 * perSecond, 1_000_000_000) };
}

/** MIMIC_CORS_ORIGINS: `*`, or a comma list of origins (`https://app.example.com`, scheme, host and port only). */
function corsOrigins(env: Env): string[] {
  const origins = list(env, 'MIMIC_CORS_ORIGINS');
  if (origins.includes('*')) return ['*'];
  for (const o of origins) {
    let url: URL | undefined;
    try {
      url = new URL(o);
    } catch {
      url = undefined;
    }
    if (!url || !/^https?:$/.test(url.protocol) || url.origin !== o) {
      throw new ConfigurationError(`MIMIC_CORS_ORIGINS must be * or a comma list of origins like https://app.example.com (no path, no trailing slash), got "${o}"`);
    }
  }
  return origins;
}

function imageBounds(env: Env): Config['images'] {
  const minSide = int(env, 'MIMIC_MIN_IMAGE_SIDE', 64, 1, 65_535);
  const maxSide = int(env, 'MIMIC_MAX_IMAGE_SIDE', 4096, 1, 65_535);
  if (minSide > maxSide) throw new ConfigurationError(`MIMIC_MIN_IMAGE_SIDE (${minSide}) must not exceed MIMIC_MAX_IMAGE_SIDE (${maxSide})`);
  return { minSide, maxSide, maxPixels: int(env, 'MIMIC_MAX_IMAGE_PIXELS', 4096 * 4096, 1) };
}

/** MIMIC_PUBLIC_URL: the http(s) base of every URL handed out (`localhost:8090` parses as a URL of scheme `localhost:`, so the scheme is checked). */
function publicBase(env: Env, port: number): string {
  const raw = env.MIMIC_PUBLIC_URL || `http://localhost:${port}`;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || !/^https?:$/.test(url.protocol) || !url.hostname || url.search || url.hash || url.username || url.password) {
    throw new ConfigurationError(`MIMIC_PUBLIC_URL must be an absolute http:// or https:// URL like https://mimic.example.com, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

const S3_NAMES = ['MIMIC_S3_ENDPOINT', 'MIMIC_S3_REGION', 'MIMIC_S3_ACCESS_KEY_ID', 'MIMIC_S3_SECRET_ACCESS_KEY', 'MIMIC_S3_FORCE_PATH_STYLE', 'MIMIC_S3_PREFIX', 'MIMIC_S3_CACHE_MB'];

/** MIMIC_S3_*: null without MIMIC_S3_BUCKET (media in the local folder). No message ever quotes the secret key. */
export function s3Settings(env: Env): S3Settings | null {
  const bucket = env.MIMIC_S3_BUCKET;
  if (!bucket) {
    const stray = S3_NAMES.find((n) => env[n]);
    if (stray) throw new ConfigurationError(`${stray} is set but MIMIC_S3_BUCKET is not: set the bucket to keep media in S3, or unset ${stray}`);
    return null;
  }
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket) || bucket.includes('..')) {
    throw new ConfigurationError(`MIMIC_S3_BUCKET must be an S3 bucket name (3 to 63 lowercase letters, digits, dots and hyphens), got "${bucket}"`);
  }
  let endpoint: string | undefined;
  if (env.MIMIC_S3_ENDPOINT) {
    let url: URL | undefined;
    try {
      url = new URL(env.MIMIC_S3_ENDPOINT);
    } catch {
      url = undefined;
    }
    if (!url || !/^https?:$/.test(url.protocol) || url.username || url.password || url.search || url.hash || url.pathname !== '/') {
      throw new ConfigurationError(`MIMIC_S3_ENDPOINT must be an http:// or https:// origin like https://s3.example.com (no path, no credentials), got "${env.MIMIC_S3_ENDPOINT}"`);
    }
    endpoint = url.origin;
  }
  const region = env.MIMIC_S3_REGION || 'us-east-1';
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(region)) throw new ConfigurationError(`MIMIC_S3_REGION must be a region name like us-east-1, got "${region}"`);
  const accessKeyId = env.MIMIC_S3_ACCESS_KEY_ID ?? '';
  if (!accessKeyId || /[\s/]/.test(accessKeyId)) throw new ConfigurationError('MIMIC_S3_ACCESS_KEY_ID must be set to the access key id of the bucket\'s credentials (no spaces or slashes)');
  const secretAccessKey = env.MIMIC_S3_SECRET_ACCESS_KEY ?? '';
  if (!secretAccessKey) throw new ConfigurationError('MIMIC_S3_SECRET_ACCESS_KEY must be set to the secret of MIMIC_S3_ACCESS_KEY_ID');
  let prefix = env.MIMIC_S3_PREFIX ?? '';
  if (prefix && !prefix.endsWith('/')) prefix += '/';
  if (prefix && !/^(?:[A-Za-z0-9_][A-Za-z0-9._-]{0,99}\/){1,8}$/.test(prefix)) {
    throw new ConfigurationError(`MIMIC_S3_PREFIX must be folder names of letters, digits and ._- separated by / (like mimic/ or prod/media/), got "${env.MIMIC_S3_PREFIX}"`);
  }
  const settings = {
    bucket,
    endpoint,
    region,
    accessKeyId,
    // Most S3-compatible servers (MinIO, Swift, Ceph) want path-style URLs; AWS wants the bucket in the host name.
    forcePathStyle: bool(env, 'MIMIC_S3_FORCE_PATH_STYLE', endpoint !== undefined),
    prefix,
    cacheBytes: int(env, 'MIMIC_S3_CACHE_MB', 2048, 16) * MiB,
  };
  return Object.freeze(Object.defineProperty(settings, 'secretAccessKey', { value: secretAccessKey, enumerable: false }) as S3Settings);
}

/** MIMIC_MEDIA_URLS: 'signed' (default) or 'presigned' (needs a bucket; SigV4 URLs live at most 7 days). */
function mediaUrls(env: Env, s3: S3Settings | null, ttlSeconds: number): Config['mediaUrls'] {
  const mode = env.MIMIC_MEDIA_URLS || 'signed';
  if (mode !== 'signed' && mode !== 'presigned') throw new ConfigurationError(`MIMIC_MEDIA_URLS must be "signed" or "presigned", got "${mode}"`);
  if (mode === 'presigned' && !s3) throw new ConfigurationError('MIMIC_MEDIA_URLS=presigned needs media in S3: set MIMIC_S3_BUCKET (and the other MIMIC_S3_* settings)');
  if (mode === 'presigned' && ttlSeconds > 604_800) throw new ConfigurationError(`MIMIC_SIGNED_URL_TTL_SECONDS must be at most 604800 (7 days, the longest a presigned S3 URL lives) with MIMIC_MEDIA_URLS=presigned, got ${ttlSeconds}`);
  return mode;
}

export interface MasterKey {
  key: Buffer;
  source: Config['masterKeySource'];
}

/**
 * The master key comes from MIMIC_MASTER_KEY (64 hex chars or base64 of 32 bytes), else from
 * the file MIMIC_MASTER_KEY_FILE (default `<data>/master.key`). When neither exists and
 * generation is allowed, a development key is generated into the data directory.
 */
export function loadMasterKey(env: Env, dataDir: string, allowGenerate: boolean): MasterKey {
  const parse = (raw: string, where: string): Buffer => {
    const text = raw.trim();
    const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
    if (key.length !== 32) throw new ConfigurationError(`${where} must hold 32 bytes as 64 hex characters or base64`);
    return key;
  };
  if (env.MIMIC_MASTER_KEY) return { key: parse(env.MIMIC_MASTER_KEY, 'MIMIC_MASTER_KEY'), source: 'env' };
  const file = env.MIMIC_MASTER_KEY_FILE ? resolve(env.MIMIC_MASTER_KEY_FILE) : join(dataDir, 'master.key');
  if (existsSync(file)) return { key: parse(readFileSync(file, 'utf8'), file), source: 'file' };
  if (!allowGenerate) throw new ConfigurationError(`no master key: set MIMIC_MASTER_KEY or create ${file}`);
  const key = randomBytes(32);
  writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  return { key, source: 'generated' };
}

/** Where the data lives and the MIMIC_* settings: what a command that only reads needs (voices check). */
export type DataSettings = Pick<Config, 'dataDir' | 'databaseFile' | 'database' | 'env'>;

/**
 * MIMIC_DATABASE_URL (postgres:// or postgresql://) and its pool's settings; null when it is
 * unset (SQLite). An error never repeats the URL: it may carry a password.
 */
export function databaseSettings(env: Env): PgSettings | null {
  const raw = env.MIMIC_DATABASE_URL?.trim();
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigurationError('MIMIC_DATABASE_URL must be a URL like postgres://user:password@host:5432/mimic (the value is not repeated here)');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigurationError(`MIMIC_DATABASE_URL must start with postgres:// or postgresql://, got ${url.protocol}//`);
  }
  return {
    url: raw,
    max: int(env, 'MIMIC_DATABASE_POOL_MAX', 10, 1, 1000),
    idleTimeoutMs: int(env, 'MIMIC_DATABASE_IDLE_TIMEOUT_MS', 30_000, 0),
    connectionTimeoutMs: int(env, 'MIMIC_DATABASE_CONNECT_TIMEOUT_MS', 10_000, 100),
    statementTimeoutMs: int(env, 'MIMIC_DATABASE_STATEMENT_TIMEOUT_MS', 30_000, 0),
  };
}

/** The data directory's paths and the settings, read without creating or checking anything on disk (no directory, no master key). */
export function loadDataSettings(env: Env = process.env): DataSettings {
  const dataDir = resolve(env.MIMIC_DATA_DIR || '.mimic');
  return {
    dataDir,
    databaseFile: join(dataDir, 'mimic.db'),
    database: databaseSettings(env),
    // Settings only: the master key, the database URL (it may carry a password) and the bucket's secret key stay out of it.
    env: Object.freeze(
      Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('MIMIC_') && !k.startsWith('MIMIC_MASTER_KEY') && k !== 'MIMIC_DATABASE_URL' && k !== 'MIMIC_S3_SECRET_ACCESS_KEY')),
    ),
  };
}

export function loadConfig(env: Env = process.env, opts: { generateKey?: boolean } = {}): Config {
  const port = int(env, 'PORT', 8080, 0, 65535);
  const publicUrl = publicBase(env, port);
  const { dataDir, databaseFile, database, env: settings } = loadDataSettings(env);
  mkdirSync(join(dataDir, 'media'), { recursive: true });
  const storageScheme = (env.MIMIC_STORAGE_SCHEME || 's3').toLowerCase();
  if (!/^[a-z][a-z0-9+.-]*$/.test(storageScheme) || ['https', 'http', 'bank'].includes(storageScheme)) {
    throw new ConfigurationError(`MIMIC_STORAGE_SCHEME must be a URL scheme other than http, https and bank`);
  }
  const master = loadMasterKey(env, dataDir, opts.generateKey ?? true);
  const s3 = s3Settings(env);
  const signedUrlTtlSeconds = int(env, 'MIMIC_SIGNED_URL_TTL_SECONDS', 3600, 1);
  const backend = env.MIMIC_COMPUTE_BACKEND || 'local';
  if (backend !== 'local' && backend !== 'remote') {
    throw new ConfigurationError(`MIMIC_COMPUTE_BACKEND must be "local" or "remote", got "${backend}"`);
  }
  return Object.freeze({
    port,
    host: env.HOST || '0.0.0.0',
    dataDir,
    publicUrl,
    databaseFile,
    database,
    mediaDir: join(dataDir, 'media'),
    s3,
    mediaUrls: mediaUrls(env, s3, signedUrlTtlSeconds),
    storageScheme,
    egressAllow: list(env, 'MIMIC_EGRESS_ALLOW'),
    masterKey: master.key,
    masterKeySource: master.source,
    maxBodyBytes: int(env, 'MIMIC_MAX_BODY_BYTES', 1 * MiB, 1024),
    signedUrlTtlSeconds,
    worker: {
      enabled: bool(env, 'MIMIC_WORKER', true),
      concurrency: int(env, 'MIMIC_WORKER_CONCURRENCY', defaultWorkerConcurrency(backend), 1, 64),
      leaseMs: int(env, 'MIMIC_JOB_LEASE_MS', 30_000, 200),
      pollMs: int(env, 'MIMIC_JOB_POLL_MS', 500, 10),
      maxAttempts: int(env, 'MIMIC_JOB_MAX_ATTEMPTS', 3, 1, 100),
      shutdownGraceMs: int(env, 'MIMIC_SHUTDOWN_GRACE_MS', 10_000, 0),
    },
    webhooks: {
      enabled: bool(env, 'MIMIC_WEBHOOKS', true),
      retryScheduleMs: msList(env, 'MIMIC_WEBHOOK_RETRY_SCHEDULE_MS', DEFAULT_WEBHOOK_SCHEDULE_MS),
      timeoutMs: int(env, 'MIMIC_WEBHOOK_TIMEOUT_MS', 15_000, 100),
      pollMs: int(env, 'MIMIC_WEBHOOK_POLL_MS', 1000, 10),
    },
    fetch: {
      timeoutMs: int(env, 'MIMIC_FETCH_TIMEOUT_MS', 30_000, 100),
      maxImageBytes: int(env, 'MIMIC_MAX_IMAGE_BYTES', 10 * MiB, 1024),
      maxVideoBytes: int(env, 'MIMIC_MAX_VIDEO_BYTES', 100 * MiB, 1024),
    },
    images: imageBounds(env),
    computeBackend: backend,
    compute: {
      leaseMs: int(env, 'MIMIC_COMPUTE_LEASE_MS', 30_000, 300, 3_600_000),
      maxAttempts: int(env, 'MIMIC_COMPUTE_MAX_ATTEMPTS', 3, 1, 100),
      pollMs: int(env, 'MIMIC_COMPUTE_POLL_MS', 500, 10, 10_000),
      streamWaitMs: int(env, 'MIMIC_COMPUTE_STREAM_WAIT_MS', 30_000, 1000, 300_000),
    },
    keyProvider: env.MIMIC_KEY_PROVIDER || 'local',
    logRequests: bool(env, 'MIMIC_LOG_REQUESTS', true),
    env: settings,
    rateLimit: rateLimit(env),
    clientKeyRateLimit: clientKeyRateLimit(env, rateLimit(env)),
    corsOrigins: corsOrigins(env),
  });
}
