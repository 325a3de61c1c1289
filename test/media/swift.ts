import { randomBytes } from 'node:crypto';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { inject } from 'vitest';
import { s3Settings, type S3Settings } from '../../src/config.ts';

import type { SwiftInfo } from './swift-setup.ts';

import { banner } from './swift-setup.ts';

/** The run's Swift, or null after a loud message (the caller skips its S3 tests). */
export function swiftOrSkip(file: string): Extract<SwiftInfo, { endpoint: string }> | null {
  const info = inject('swift');
  if ('endpoint' in info) return info;
  banner([`${file}: the tests of media on S3 are SKIPPED: ${info.unavailable}`]);
  return null;
}

/** The MIMIC_S3_* settings of a new, empty bucket on the run's Swift. */
export async function freshBucket(swift: Extract<SwiftInfo, { endpoint: string }>, extra: Record<string, string> = {}): Promise<{ env: Record<string, string>; settings: S3Settings }> {
  const bucket = `mimic-${randomBytes(6).toString('hex')}`;
  const client = new S3Client({ endpoint: swift.endpoint, region: swift.region, forcePathStyle: true, credentials: { accessKeyId: swift.accessKeyId, secretAccessKey: swift.secretAccessKey } });
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    client.destroy();
  }
  const env = {
    MIMIC_S3_BUCKET: bucket,
    MIMIC_S3_ENDPOINT: swift.endpoint,
    MIMIC_S3_REGION: swift.region,
    MIMIC_S3_ACCESS_KEY_ID: swift.accessKeyId,
    MIMIC_S3_SECRET_ACCESS_KEY: swift.secretAccessKey,
    ...extra,
  };
  return { env, settings: s3Settings(env)! };
}
