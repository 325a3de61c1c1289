/**
 * Live streams across API processes (docs/streams-across-processes.md): two real servers on one
 * SQLite file, each with its own stream renderer. A stream opened on one is driven through the
 * other (its requests forwarded to the owner); the limits count both; and when the owner is
 * SIGKILLed, the client's connection drops, the other process answers for a closed stream, the
 * record says why, and the user's place is free at once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { issueKey } from '../../src/users/accounts.ts';
import { randomId } from '../../src/clock.ts';
import { createLogger } from '../../src/log.ts';
import { deriveKey } from '../../src/keys.ts';
import { signForward } from '../../src/streams/forward.ts';
import type { StreamService } from '../../src/streams/hub.ts';
import { STREAMS } from '../../src/streams/contract.ts';
import { userDeps } from '../helpers/harness.ts';
import { freePort, killAll, spawnProc, type Proc } from '../helpers/remote.ts';
import { toneCatalogue } from '../helpers/tone-voice.ts';
import { createFakeStreamRenderer, type FakeStreamRenderer } from '../helpers/stream-renderer.ts';
import { answerOffer, type BrowserPeer } from '../helpers/browser-peer.ts';
import { sqliteOf } from '../helpers/stores.ts';
import { withTimeout } from './helpers.ts';

const PRESENTER = 'eileen-Nc7kQ2rT5x';

/** Fast heartbeats so an owner's death shows within a second or two; loopback ICE as the other stream tests. */
const envOf = (dataDir: string, port: number, extra: Record<string, string> = {}): Record<string, string> => ({
  MIMIC_DATA_DIR: dataDir,
  PORT: String(port),
  HOST: '127.0.0.1',
  MIMIC_PUBLIC_URL: `http://127.0.0.1:${port}`,
  MIMIC_LOG_REQUESTS: 'false',
  MIMIC_RATE_LIMIT: '1000000',
  MIMIC_STREAM_PREWARM: 'false',
  // No jobs here: a worker would hold each shutdown for its grace period.
  MIMIC_WORKER: 'false',
  MIMIC_STREAM_ICE_ADDRESS: '127.0.0.1',
  MIMIC_ICE_ALLOW: '127.0.0.1/32',
  MIMIC_STREAM_HEARTBEAT_MS: '200',
  MIMIC_STREAM_STALE_MS: '1500',
  ...extra,
});

interface Proc2 {
  base: string;
  running: RunningServer;
  renderer: FakeStreamRenderer;
  service: StreamService;
}

const started: Proc2[] = [];
const children: Proc[] = [];
const peers: BrowserPeer[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const p of peers.splice(0)) p.close();
  await killAll(children.splice(0));
  for (const s of started.splice(0)) await s.running.shutdown();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function serverOn(dataDir: string, extra: Record<string, string> = {}): Promise<Proc2> {
  const port = await freePort();
  const renderer = createFakeStreamRenderer();
  const running = await startServer(loadConfig(envOf(dataDir, port, extra)), { voices: toneCatalogue('local').catalogue, streamRenderer: renderer, log: createLogger((line) => process.env.ACROSS_LOGS && process.stderr.write(`${port} ${line}\n`)) });
  const service = (running.services.modules as unknown as { streams: { service: StreamService } }).streams.service;
  const s = { base: `http://127.0.0.1:${port}`, running, renderer, service };
  started.push(s);
  return s;
}

/** A user with an API key, written through one of the servers (both read the same file). */
async function userOn(s: Proc2, credits = 1000): Promise<{ id: string; key: string }> {
  const deps = userDeps(s.running.services);
  const { row, apiKey } = issueKey(deps);
  const id = randomId('usr');
  await deps.users.create({ id, name: 'across', credits, permissions: [], createdAt: row.createdAt }, row);
  return { id, key: apiKey };
}

async function call(base: string, key: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Basic ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Creates a stream on `owner` and connects a browser to it through `via` (the SDP answer and every candidate are forwarded). */
async function connectAcross(owner: string, via: string, key: string, body: Record<string, unknown> = { presenter_id: PRESENTER, fluent: true }) {
  const created = await call(owner, key, 'POST', '/clips/streams', body);
  expect(created.status).toBe(201);
  const { id, session_id: sessionId } = created.body as { id: string; session_id: string };
  const path = `/clips/streams/${id}`;
  const peer = await answerOffer(created.body.offer.sdp);
  peers.push(peer);
  expect(await call(via, key, 'POST', `${path}/sdp`, { answer: { type: 'answer', sdp: peer.answerSdp }, session_id: sessionId })).toEqual({ status: 200, body: { status: 'success' } });
  for (const c of peer.candidates) expect((await call(via, key, 'POST', `${path}/ice`, { ...c, session_id: sessionId })).status).toBe(200);
  expect((await call(via, key, 'POST', `${path}/ice`, { session_id: sessionId })).status).toBe(200);
  await withTimeout(peer.opened, 30_000, 'the data channel to open');
  return { id, sessionId, path, peer };
}

const recordOf = (s: Proc2, id: string) =>
  sqliteOf(s.running.services.store).sqlite.prepare('SELECT owner_process_id, owner_url, ended_at, end_reason FROM live_streams WHERE id = ?').get(id) as
    | { owner_process_id: string; owner_url: string; ended_at: number | null; end_reason: string | null }
    | undefined;

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a stream driven through another API process', () => {
  it('is answered, spoken on, interrupted and deleted by its owner; the session and the user are checked there as here', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mimic-across-'));
    dirs.push(dir);
    const a = await serverOn(dir);
    const b = await serverOn(dir);
    const u = await userOn(a);
    const other = await userOn(a);
    const s = await connectAcross(a.base, b.base, u.key);
    expect(a.service.stats().streams).toBe(1);
    expect(b.service.stats().streams).toBe(0);
    expect(recordOf(a, s.id)).toMatchObject({ owner_url: a.base, ended_at: null });

    // Speech through B plays on A's stream: the browser hears stream/started, and the script reached A's renderer.
    const spoke = await call(b.base, u.key, 'POST', s.path, { script: { type: 'text', input: 'Hello from the other process. It goes on for a while.' }, session_id: s.sessionId });
    expect(spoke.status).toBe(200);
    expect(spoke.body).toMatchObject({ status: 'started', session_id: s.sessionId });
    await s.peer.waitFor('stream/started');
    expect(a.renderer.speeches.some((p) => p.videoId === spoke.body.video_id)).toBe(true);
    expect(b.renderer.speeches).toEqual([]);
    expect(await call(b.base, u.key, 'POST', `${s.path}/interrupt`, { session_id: s.sessionId })).toEqual({ status: 200, body: { status: 'success' } });

    // The owner's checks, answered through B exactly as A answers them.
    expect(await call(b.base, u.key, 'POST', `${s.path}/ice`, { session_id: 'sess_wrong' })).toEqual({ status: 400, body: { kind: 'SessionError', description: 'missing or invalid session_id' } });
    expect((await call(b.base, u.key, 'POST', `${s.path}/sdp`, { answer: { type: 'answer', sdp: 'v=0' }, session_id: s.sessionId })).body.kind).toBe('ConflictError');
    expect((await call(b.base, u.key, 'POST', s.path, { script: { type: 'nothing' }, session_id: s.sessionId })).status).toBe(400);
    expect((await call(b.base, other.key, 'POST', `${s.path}/ice`, { session_id: s.sessionId })).status).toBe(404);
    expect((await call(b.base, other.key, 'DELETE', s.path, { session_id: s.sessionId })).status).toBe(404);

    expect(await call(b.base, u.key, 'DELETE', s.path, { session_id: s.sessionId })).toEqual({ status: 200, body: { status: 'success' } });
    expect(a.service.stats().streams).toBe(0);
    expect(recordOf(a, s.id)).toMatchObject({ end_reason: 'deleted' });
    // Closed: its owner's late DELETE succeeds on either process, the rest is 404.
    expect((await call(b.base, u.key, 'DELETE', s.path, { session_id: s.sessionId })).status).toBe(200);
    expect((await call(b.base, u.key, 'DELETE', s.path, { session_id: 'sess_wrong' })).body.kind).toBe('SessionError');
    expect((await call(b.base, u.key, 'POST', `${s.path}/ice`, { session_id: s.sessionId })).status).toBe(404);
  });

  it('speaks an agent\'s chat answer on it with a speaker opened through the other process, after the owner checked the session and the agent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mimic-across-'));
    dirs.push(dir);
    const a = await serverOn(dir);
    const b = await serverOn(dir);
    const u = await userOn(a);
    const agentBody = { preview_name: 'Emma', presenter: { type: 'clip', presenter_id: PRESENTER }, llm: { provider: 'openai', model: 'llama3.2', base_url: 'http://localhost:11434/v1', instructions: 'Be brief.' } };
    const agent = await call(a.base, u.key, 'POST', '/agents', agentBody);
    const other = await call(a.base, u.key, 'POST', '/agents', agentBody);
    expect(agent.status).toBe(201);
    const created = await call(a.base, u.key, 'POST', `/agents/${agent.body.id}/streams`, {});
    expect(created.status).toBe(201);
    const path = `/agents/${agent.body.id}/streams/${created.body.id}`;
    const peer = await answerOffer(created.body.offer.sdp);
    peers.push(peer);
    expect((await call(b.base, u.key, 'POST', `${path}/sdp`, { answer: { type: 'answer', sdp: peer.answerSdp }, session_id: created.body.session_id })).status).toBe(200);
    for (const c of [...peer.candidates, {}]) expect((await call(b.base, u.key, 'POST', `${path}/ice`, { ...c, session_id: created.body.session_id })).status).toBe(200);
    await withTimeout(peer.opened, 30_000, 'the data channel to open');

    const hub = b.running.services.find(STREAMS)!;
    await expect(hub.speaker(u.id, created.body.id, 'sess_wrong', { agentId: agent.body.id })).rejects.toMatchObject({ kind: 'SessionError' });
    await expect(hub.speaker(u.id, created.body.id, created.body.session_id, { agentId: other.body.id })).rejects.toMatchObject({ kind: 'NotFoundError' });
    const speaker = await hub.speaker(u.id, created.body.id, created.body.session_id, { agentId: agent.body.id });
    speaker.send('chat/answer', encodeURIComponent('Hi there.'));
    speaker.say('Hi there.');
    speaker.say('Fine, thank you.');
    speaker.end();
    const done = await peer.waitFor('stream/done');
    expect(done).toContain(speaker.videoId);
    expect(peer.messages).toContain('chat/answer:Hi%20there.');
    expect(a.renderer.speeches.filter((p) => p.videoId === speaker.videoId).length).toBeGreaterThanOrEqual(2);
    expect(b.renderer.speeches).toEqual([]);
  });

  it('counts the user\'s streams of both processes against the per-user limit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mimic-across-'));
    dirs.push(dir);
    const a = await serverOn(dir, { MIMIC_STREAMS_PER_USER: '1' });
    const b = await serverOn(dir, { MIMIC_STREAMS_PER_USER: '1' });
    const u = await userOn(a);
    const first = await call(a.base, u.key, 'POST', '/clips/streams', { presenter_id: PRESENTER });
    expect(first.status).toBe(201);
    const second = await call(b.base, u.key, 'POST', '/clips/streams', { presenter_id: PRESENTER });
    expect(second.status).toBe(429);
    expect(second.body.kind).toBe('TooManyRequestsError');
    // Deleted on A through B: B may open one now.
    expect((await call(b.base, u.key, 'DELETE', `/clips/streams/${first.body.id}`, { session_id: first.body.session_id })).status).toBe(200);
    const third = await call(b.base, u.key, 'POST', '/clips/streams', { presenter_id: PRESENTER });
    expect(third.status).toBe(201);
    expect((await call(a.base, u.key, 'DELETE', `/clips/streams/${third.body.id}`, { session_id: third.body.session_id })).status).toBe(200);
  });

  it('closes a stream of its own whose record another process ended (it took this one for dead)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mimic-across-'));
    dirs.push(dir);
    const a = await serverOn(dir);
    const u = await userOn(a);
    const created = await call(a.base, u.key, 'POST', '/clips/streams', { presenter_id: PRESENTER });
    expect(a.service.stats().streams).toBe(1);
    sqliteOf(a.running.services.store).sqlite.prepare("UPDATE live_streams SET ended_at = 1, end_reason = 'its API process stopped answering' WHERE id = ?").run(created.body.id);
    await until('the stream to close at the next heartbeat', () => (a.service.stats().streams === 0 ? true : undefined));
    expect(recordOf(a, created.body.id)).toMatchObject({ end_reason: 'its API process stopped answering' });
    expect((await call(a.base, u.key, 'POST', `/clips/streams/${created.body.id}/ice`, { session_id: created.body.session_id })).status).toBe(404);
  });

  it('refuses the internal route without the signature of the deployment\'s key, or with another key\'s', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mimic-across-'));
    dirs.push(dir);
    const a = await serverOn(dir);
    const u = await userOn(a);
    const created = await call(a.base, u.key, 'POST', '/clips/streams', { presenter_id: PRESENTER });
    const path = `/internal/streams/${created.body.id}/delete`;
    const body = JSON.stringify({ user_id: u.id, body: { session_id: created.body.session_id } });
    const post = (headers: Record<string, string>) => fetch(`${a.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    expect((await post({})).status).toBe(401);
    expect((await post({ authorization: `Basic ${u.key}` })).status).toBe(401);
    expect((await post({ 'x-mimic-forward': signForward(deriveKey(Buffer.alloc(32, 7), 'stream-forward'), Date.now(), path, body) })).status).toBe(401);
    // Signed long ago: a captured request is not replayed.
    const key = deriveKey(a.running.services.config.masterKey, 'stream-forward');
    expect((await post({ 'x-mimic-forward': signForward(key, Date.now() - 120_000, path, body) })).status).toBe(401);
    expect(a.service.stats().streams).toBe(1);
    const signed = await post({ 'x-mimic-forward': signForward(key, Date.now(), path, body) });
    expect(signed.status).toBe(200);
    expect(a.service.stats().streams).toBe(0);
  });
});

describe('when the owner dies', () => {
  it('drops the client\'s connection, answers for a closed stream, records why, stops credits and frees the place at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mimic-across-'));
    dirs.push(dir);
    const b = await serverOn(dir, { MIMIC_STREAMS_PER_USER: '1' });
    const u = await userOn(b);
    const port = await freePort();
    const owner = spawnProc(['--import', 'tsx', 'test/streams/owner-child.ts'], envOf(dir, port, { MIMIC_STREAMS_PER_USER: '1' }));
    children.push(owner);
    const ownerBase = `http://127.0.0.1:${port}`;
    await until('the owner process to listen', () => (owner.output().includes('ready\n') ? true : undefined), 60_000);

    const s = await connectAcross(ownerBase, b.base, u.key);
    const spoke = await call(b.base, u.key, 'POST', s.path, { script: { type: 'text', input: 'A long answer that is still playing when its process dies. '.repeat(4) }, session_id: s.sessionId });
    expect(spoke.status).toBe(200);
    await s.peer.waitFor('stream/started');
    const ownerId = recordOf(b, s.id)!.owner_process_id;

    owner.proc.kill('SIGKILL');
    await owner.exited;
    const credits = () => (sqliteOf(b.running.services.store).sqlite.prepare('SELECT credits FROM users WHERE id = ?').get(u.id) as { credits: number }).credits;
    const atDeath = credits();

    // The other process answers for a closed stream once the owner's heartbeat is stale, and the record says why.
    const closed = await until('a closed stream\'s answer', async () => {
      const r = await call(b.base, u.key, 'POST', s.path, { script: { type: 'text', input: 'Anyone there?' }, session_id: s.sessionId });
      return r.status === 503 ? undefined : r;
    });
    expect(closed).toEqual({ status: 404, body: { kind: 'NotFoundError', description: 'stream not found' } });
    const record = recordOf(b, s.id)!;
    expect(record.owner_process_id).toBe(ownerId);
    expect(record.ended_at).not.toBeNull();
    expect(record.end_reason).toMatch(/stopped answering/);
    expect((await call(b.base, u.key, 'DELETE', s.path, { session_id: s.sessionId })).status).toBe(200);

    // The client's peer connection drops (nothing answers its ICE checks any more).
    await s.peer.waitUntil(() => ['disconnected', 'failed', 'closed'].includes(s.peer.iceState!()), 'the client\'s connection to drop', 60_000);

    // Credits stop: the speech that was playing is charged no further (its charges were the owner's, as it streamed).
    expect(credits()).toBe(atDeath);
    // A new stream at once, though the limit is one per user.
    const next = await call(b.base, u.key, 'POST', '/clips/streams', { presenter_id: PRESENTER });
    expect(next.status).toBe(201);
    expect((await call(b.base, u.key, 'DELETE', `/clips/streams/${next.body.id}`, { session_id: next.body.session_id })).status).toBe(200);
  });
});
