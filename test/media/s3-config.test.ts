import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigurationError, loadConfig } from '../../src/config.ts';

const SECRET = 'very-secret-Canary-KEY/0123456789';
const base = () => ({ MIMIC_DATA_DIR: mkdtempSync(join(tmpdir(), 'mimic-s3-config-')), MIMIC_MASTER_KEY: '11'.repeat(32) });
const s3 = { MIMIC_S3_BUCKET: 'media-bucket', MIMIC_S3_ACCESS_KEY_ID: 'AKID', MIMIC_S3_SECRET_ACCESS_KEY: SECRET };
const refused = (env: Record<string, string>, message: RegExp) => {
  let err: unknown;
  try {
    loadConfig({ ...base(), ...env });
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(ConfigurationError);
  expect((err as Error).message).toMatch(message);
  expect((err as Error).message).not.toContain(SECRET);
};

describe('MIMIC_S3_* and MIMIC_MEDIA_URLS', () => {
  it('without MIMIC_S3_BUCKET: the local folder and mimic-signed URLs, as before', () => {
    const config = loadConfig(base());
    expect(config.s3).toBeNull();
    expect(config.mediaUrls).toBe('signed');
  });

  it('reads the bucket settings, path style by default on a custom endpoint, and keeps the secret out of logs and JSON', () => {
    const config = loadConfig({ ...base(), ...s3, MIMIC_S3_ENDPOINT: 'http://127.0.0.1:8080/', MIMIC_S3_PREFIX: 'prod/media', MIMIC_MEDIA_URLS: 'presigned' });
    expect(config.s3).toMatchObject({ bucket: 'media-bucket', endpoint: 'http://127.0.0.1:8080', region: 'us-east-1', accessKeyId: 'AKID', forcePathStyle: true, prefix: 'prod/media/' });
    expect(config.s3!.secretAccessKey).toBe(SECRET);
    expect(config.mediaUrls).toBe('presigned');
    for (const shown of [JSON.stringify(config), inspect(config, { depth: 5 }), JSON.stringify(config.env)]) expect(shown).not.toContain(SECRET);
    expect(loadConfig({ ...base(), ...s3 }).s3!.forcePathStyle).toBe(false);
    expect(loadConfig({ ...base(), ...s3, MIMIC_S3_ENDPOINT: 'https://s3.example.com', MIMIC_S3_FORCE_PATH_STYLE: 'false' }).s3!.forcePathStyle).toBe(false);
  });

  it.each([
    [{ MIMIC_S3_ENDPOINT: 'http://127.0.0.1:9000' }, /MIMIC_S3_ENDPOINT is set but MIMIC_S3_BUCKET is not/],
    [{ MIMIC_S3_SECRET_ACCESS_KEY: SECRET }, /MIMIC_S3_SECRET_ACCESS_KEY is set but MIMIC_S3_BUCKET is not/],
    [{ ...s3, MIMIC_S3_BUCKET: 'Bad_Bucket' }, /MIMIC_S3_BUCKET must be an S3 bucket name/],
    [{ ...s3, MIMIC_S3_ENDPOINT: 'ftp://s3.example.com' }, /MIMIC_S3_ENDPOINT must be an http/],
    [{ ...s3, MIMIC_S3_ENDPOINT: 'https://user:pw@s3.example.com' }, /MIMIC_S3_ENDPOINT must be/],
    [{ ...s3, MIMIC_S3_ENDPOINT: 'https://s3.example.com/path' }, /no path/],
    [{ ...s3, MIMIC_S3_REGION: 'Europe West' }, /MIMIC_S3_REGION must be/],
    [{ ...s3, MIMIC_S3_ACCESS_KEY_ID: '' }, /MIMIC_S3_ACCESS_KEY_ID must be set/],
    [{ ...s3, MIMIC_S3_SECRET_ACCESS_KEY: '' }, /MIMIC_S3_SECRET_ACCESS_KEY must be set/],
    [{ ...s3, MIMIC_S3_FORCE_PATH_STYLE: 'sometimes' }, /MIMIC_S3_FORCE_PATH_STYLE must be true or false/],
    [{ ...s3, MIMIC_S3_PREFIX: '../up' }, /MIMIC_S3_PREFIX must be folder names/],
    [{ MIMIC_MEDIA_URLS: 'public' }, /MIMIC_MEDIA_URLS must be "signed" or "presigned"/],
    [{ MIMIC_MEDIA_URLS: 'presigned' }, /needs media in S3/],
    [{ ...s3, MIMIC_MEDIA_URLS: 'presigned', MIMIC_SIGNED_URL_TTL_SECONDS: '700000' }, /at most 604800/],
  ])('refuses %j with a clear message that never quotes the secret', (env, message) => {
    refused(env as Record<string, string>, message);
  });
});
