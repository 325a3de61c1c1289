import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { freshBucket, swiftOrSkip } from './swift.ts';

const swift = swiftOrSkip('test/media/s3-readiness.test.ts');
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe.skipIf(!swift)('/health/ready checks the bucket', () => {
  it('ready while the bucket answers', async () => {
    h = harness((await freshBucket(swift!)).env);
    const res = await h.call('GET', '/health/ready');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it('503 naming the bucket when it is missing, and never the credentials', async () => {
    const { env } = await freshBucket(swift!);
    h = harness({ ...env, MIMIC_S3_BUCKET: `${env.MIMIC_S3_BUCKET}-gone` });
    const res = await h.call('GET', '/health/ready');
    expect(res.status).toBe(503);
    expect(res.body.details.checks.bucket).not.toBe('ok');
    expect(res.body.details.checks.database).toBe('ok');
    expect(JSON.stringify(res.body)).not.toContain(env.MIMIC_S3_SECRET_ACCESS_KEY);
  });
});
