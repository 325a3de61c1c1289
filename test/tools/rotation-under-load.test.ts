import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { startTlsServer, type TestServer } from '../helpers/tls.ts';
import { NODE_ARGS, ROOT } from '../helpers/cli.ts';
import { echo, makeSecret, makeTool, toolBody } from '../helpers/tools.ts';

/**
 * `npm run -s mimic -- vault rotate` in its own process, on the service's live database,
 * while the service keeps serving tool calls with secrets of every type: zero failures, every
 * upstream request carries the right header, and afterwards every data key is under the new KEK.
 */
let upstream: TestServer;
let h: Harness;

beforeAll(async () => {
  upstream = await startTlsServer(echo);
  h = harness({ MIMIC_EGRESS_ALLOW: 'localhost' }, { ca: [upstream.ca] });
});
afterAll(async () => {
  await h.close();
  await upstream.close();
});

function rotateInChild(): Promise<{ code: number | null; stdout: string; stderr: string; rewrapStarted: number; ended: number }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...NODE_ARGS, 'vault', 'rotate', '--batch-size', '1'], {
      cwd: ROOT,
      env: { ...process.env, MIMIC_DATA_DIR: h.config.dataDir },
    });
    let stdout = '';
    let stderr = '';
    let rewrapStarted = 0;
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d;
      if (!rewrapStarted && stderr.includes('re-wrapped')) rewrapStarted = performance.now();
    });
    child.on('close', (code) => resolve({ code, stdout, stderr, rewrapStarted, ended: performance.now() }));
  });
}

describe('vault rotate while serving tool calls', () => {
  it('re-wraps every data key with zero failed calls', async () => {
    const { key } = h.user();
    const tools: { id: string; expect: [string, string] }[] = [];
    for (let i = 0; i < 36; i++) {
      const token = `rotation-token-${i}-abcdef`;
      const kind = i % 3;
      const sec =
        kind === 0 ? await makeSecret(h, key, { type: 'bearer', provider: `p${i}`, token })
        : kind === 1 ? await makeSecret(h, key, { type: 'api_key', provider: `p${i}`, api_key: token })
        : await makeSecret(h, key, { type: 'basic', provider: `p${i}`, username: `user${i}`, password: token });
      const header: [string, string] =
        kind === 0 ? ['authorization', `Bearer ${token}`]
        : kind === 1 ? ['x-api-key', token]
        : ['authorization', `Basic ${Buffer.from(`user${i}:${token}`).toString('base64')}`];
      tools.push({ id: await makeTool(h, key, toolBody(`${upstream.url}/t${i}`, { secretId: sec })), expect: header });
    }
    const before = await h.services.vault.status();

    let stop = false;
    let calls = 0;
    const finishedAt: number[] = [];
    const failures: string[] = [];
    const loop = async (n: number) => {
      for (let i = n; !stop; i += 4) {
        const t = tools[i % tools.length]!;
        const res = await h.call('POST', `/tools/${t.id}/calls`, { key, body: { input: { city: 'Oslo' } } });
        calls++;
        finishedAt.push(performance.now());
        if (res.status !== 200 || res.body.output.status !== 200) failures.push(`${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      }
    };
    const loops = [0, 1, 2, 3].map(loop);
    const rotated = await rotateInChild();
    // Keep calling a little after the rotation, through the new key.
    await new Promise((r) => setTimeout(r, 300));
    stop = true;
    await Promise.all(loops);

    expect(rotated.code, rotated.stderr).toBe(0);
    const report = JSON.parse(rotated.stdout.trim().split('\n').at(-1)!);
    expect(report.rewrapped).toBe(48); // 24 one-field secrets + 12 basic ones with two fields
    expect(failures).toEqual([]);
    // Calls really overlapped the re-wrapping (not just the child's start-up).
    expect(rotated.rewrapStarted).toBeGreaterThan(0);
    expect(finishedAt.filter((t) => t >= rotated.rewrapStarted && t <= rotated.ended).length).toBeGreaterThan(0);
    // Every upstream request carried the header its secret says.
    for (const r of upstream.received) {
      const i = Number(/\/t(\d+)/.exec(r.path)![1]);
      const [name, value] = tools[i]!.expect;
      expect(r.headers[name]).toBe(value);
    }
    const after = await h.services.vault.status();
    expect(after.primary).not.toBe(before.primary);
    const old = after.keys.find((k) => k.id === before.primary)!;
    expect(old.status).toBe('retired');
    expect(old.data_keys).toBe(0);
    expect(after.keys.find((k) => k.id === after.primary)!.data_keys).toBe(before.keys.find((k) => k.id === before.primary)!.data_keys);
  });
});
