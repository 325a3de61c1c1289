import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { METADATA, SAMPLE, fakeVideo, remoteFixture, type RemoteFixture } from '../compute/remote/fixture.ts';
import { freshBucket, swiftOrSkip } from './swift.ts';

/** Remote compute with media on S3: a task's inputs and uploads pass through the bucket, so any API process can serve or take them. */
const swift = swiftOrSkip('test/media/s3-compute.test.ts');

let f: RemoteFixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

const compute = async (fixture: RemoteFixture) => {
  const left: string[] = [];
  for await (const o of fixture.h.services.mediaStore.list('_compute')) left.push(o.key);
  return left;
};

describe.skipIf(!swift)('remote compute files on S3', () => {
  it('serves the inputs from the bucket (the local file gone), keeps the upload there, and removes both once the job takes the result', async () => {
    f = await remoteFixture((await freshBucket(swift!)).env);
    const driver = join(f.dir, 'driver.mp4');
    writeFileSync(driver, fakeVideo('isom', 5000));
    const render = f.render({ driver: { kind: 'video', path: driver } });
    const task = (await f.claim({ wait_ms: 10_000 })).body;
    expect(task.task_id).toBeTruthy();
    // The source, the driver and the default logo.
    expect((await compute(f)).filter((k) => k.startsWith('inputs/'))).toHaveLength(3);
    // Another API process would not have the job's files: this one does not either, now.
    rmSync(driver);
    const res = await fetch(task.render.driver.url);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(fakeVideo('isom', 5000))).toBe(true);
    expect(Buffer.from(await (await fetch(task.render.source_url)).arrayBuffer()).equals(readFileSync(SAMPLE))).toBe(true);

    const up = await f.upload(task.result.upload_url, fakeVideo('isom', 4096));
    expect(up.status).toBe(204);
    expect(await compute(f)).toContain(`tasks/${task.task_id}/attempt-1/result`);
    const done = await f.call('POST', `/compute/v1/tasks/${task.task_id}/complete`, { body: { lease: task.lease, metadata: METADATA, face_ids: [0], render_ms: 5 } });
    expect(done.status).toBe(200);
    const result = await render.result;
    expect(result.metadata.num_frames).toBe(METADATA.num_frames);
    expect(readFileSync(render.req.outputPath).equals(fakeVideo('isom', 4096))).toBe(true);
    expect(await compute(f)).toEqual([]);
    expect(existsSync(`${render.req.outputPath}.attempt-1`)).toBe(false);
  });

  it('refuses to complete without the upload in the bucket (409 result_missing)', async () => {
    f = await remoteFixture((await freshBucket(swift!)).env);
    const render = f.render();
    const task = (await f.claim({ wait_ms: 10_000 })).body;
    const early = await f.call('POST', `/compute/v1/tasks/${task.task_id}/complete`, { body: { lease: task.lease, metadata: METADATA, face_ids: [0], render_ms: 5 } });
    expect(early.status).toBe(409);
    expect((await f.finish(task)).status).toBe(200);
    await render.result;
  });
});
