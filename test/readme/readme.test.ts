import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/remote.ts';
import { RUNNABLE_MARK, remember, runnableBlocks, substitute, type ReadmeBlock, type Seen } from './readme-blocks.ts';

/**
 * Runs the marked shell blocks (test/readme/readme-blocks.ts) of the README and then of the
 * docs/ pages its walk-throughs moved to, in order, with bash, against the service started the
 * way the README starts it: `node --import tsx src/main.ts serve` (what `npm start` runs) with
 * the variables of the documented `npm start` line of the tools walk-through (docs/tools.md).
 * Placeholders (`mimic_...`, `anm_...`, `sec_...`, `tool_...`) take the values earlier blocks
 * printed; `<result_url>` waits (bounded) for the animation to be done.
 */
const REPO = new URL('../../', import.meta.url).pathname;
/** The README first (its quick start creates the user the others use), then the docs pages with runnable blocks. */
const DOCUMENTS = ['README.md', 'docs/tools.md'];
const TEXT = Object.fromEntries(DOCUMENTS.map((f) => [f, readFileSync(join(REPO, f), 'utf8')]));
const BLOCKS: ReadmeBlock[] = DOCUMENTS.flatMap((f) => runnableBlocks(TEXT[f]!, f));

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

const work = mkdtempSync(join(tmpdir(), 'mimic-readme-'));
const dataDir = join(work, 'data');
const groups: number[] = [];
let service: ChildProcess | undefined;
let base = '';
/** The documented stand-in upstream listens on 9443; each run gives it a free port instead, so two suites at once do not meet. */
const DOCUMENTED_UPSTREAM_PORT = '9443';
let upstreamPort = DOCUMENTED_UPSTREAM_PORT;
const onUpstreamPort = (code: string) => code.split(DOCUMENTED_UPSTREAM_PORT).join(upstreamPort);
const serviceLog: string[] = [];

/** Runs one block in its own process group (a block may leave a server running in the background). */
function bash(code: string, env: Record<string, string>, timeoutMs = 120_000): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-eo', 'pipefail', '-c', code], { cwd: work, env: { ...process.env, ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    groups.push(child.pid!);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    // 'exit', not 'close': a background server keeps the pipes open.
    child.on('exit', (status) => {
      clearTimeout(timer);
      setTimeout(() => resolve({ status, stdout, stderr }), 100);
    });
  });
}

/** The variables the documented `npm start` line sets for the tool walk-through, relative paths from the working directory. */
function startVariables(): Record<string, string> {
  const line = DOCUMENTS.flatMap((f) => TEXT[f]!.split('\n')).find((l) => /^NODE_EXTRA_CA_CERTS=\S+ .*npm start/.test(l));
  expect(line, 'the tools walk-through starts the service with its variables').toBeDefined();
  const vars: Record<string, string> = {};
  for (const m of line!.split(' npm start')[0]!.matchAll(/(\w+)=(\S+)/g)) vars[m[1]!] = m[2]!.includes('/') || m[2]!.endsWith('.pem') ? join(work, m[2]!) : m[2]!;
  return vars;
}

async function startService(vars: Record<string, string>) {
  const port = await freePort();
  base = `http://localhost:${port}`;
  service = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'src/main.ts'), 'serve'], {
    cwd: REPO,
    env: { ...process.env, ...vars, PORT: String(port), MIMIC_DATA_DIR: dataDir, MIMIC_PUBLIC_URL: base, MIMIC_LOG_REQUESTS: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  service.stdout!.on('data', (d) => serviceLog.push(String(d)));
  service.stderr!.on('data', (d) => serviceLog.push(String(d)));
  const deadline = Date.now() + 90_000;
  for (;;) {
    try {
      if ((await fetch(`${base}/health`)).ok) return;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`the service did not start: ${serviceLog.join('').slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Waits for the animation the README created, as a reader polling the record would. */
async function resultUrl(seen: Seen): Promise<string> {
  const id = seen.ids.get('anm');
  expect(id, 'an animation id printed by an earlier block').toBeDefined();
  const started = Date.now();
  for (;;) {
    const res = await fetch(`${base}/animations/${id}`, { headers: { authorization: `Basic ${seen.key}` } });
    const body = (await res.json()) as { status: string; result_url?: string };
    if (body.status === 'done') {
      console.log(`README animation done in ${Math.round((Date.now() - started) / 1000)} s after creation`);
      return body.result_url!;
    }
    expect(body.status, JSON.stringify(body)).not.toBe('error');
    if (Date.now() - started > 300_000) throw new Error(`the animation is still ${body.status} after 5 minutes`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

beforeAll(async () => {
  // The tool walk-through's stand-in upstream makes the certificate the service must trust
  // when it starts (NODE_EXTRA_CA_CERTS is read once, at start): that block runs first.
  const first = BLOCKS.find((b) => b.code.includes('openssl req'));
  expect(first).toBeDefined();
  upstreamPort = String(await freePort());
  const made = await bash(onUpstreamPort(first!.code), {});
  expect(made.status, made.stderr).toBe(0);
  await startService(startVariables());
}, 150_000);

afterAll(async () => {
  for (const pgid of groups) {
    try {
      process.kill(-pgid, 'SIGTERM');
    } catch {
      /* already gone */
    }
  }
  if (service && service.exitCode === null) {
    service.kill('SIGTERM');
    await new Promise((r) => service!.once('exit', r));
  }
  rmSync(work, { recursive: true, force: true });
});

describe('the README and the docs pages of its walk-throughs', () => {
  it('are the only markdown files with runnable blocks', () => {
    const docs = readdirSync(join(REPO, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
    const marked = ['README.md', ...docs].filter((f) => readFileSync(join(REPO, f), 'utf8').includes(RUNNABLE_MARK));
    expect(marked.sort()).toEqual([...DOCUMENTS].sort());
  });

  it('mark their runnable blocks, and each runs as written against a live service', async () => {
    const blocks = BLOCKS.filter((b) => !b.code.includes('openssl req'));
    expect(blocks.length).toBeGreaterThanOrEqual(6);
    const seen: Seen = { ids: new Map() };
    let variables = '';
    for (const block of blocks) {
      const extra: Record<string, string> = block.code.includes('<result_url>') ? { '<result_url>': await resultUrl(seen) } : {};
      const code = onUpstreamPort(substitute(block.code, seen, base, extra));
      const where = `${block.file} line ${block.line}`;
      expect(code, `${where}: a placeholder no earlier block printed`).not.toMatch(/^[^#]*\b(?:mimic|[a-z]+)_\.\.\./m);
      // `npm run -s mimic` from the checkout, on the test's data directory.
      const run = await bash(`npm() { command npm --prefix '${REPO}' "$@"; }\n${variables}\n${code}`, { MIMIC_DATA_DIR: dataDir });
      expect(run.status, `${where} failed:\n${code}\n${run.stderr}\n${run.stdout}`).toBe(0);
      // Every JSON answer a block prints is a success, not an error body.
      expect(run.stdout, `${where} printed an error:\n${run.stdout}`).not.toMatch(/"kind":"\w+Error"/);
      remember(seen, run.stdout);
      variables += code.split('\n').filter((l) => /^[A-Z_]+=\S+/.test(l)).join('\n') + '\n';
      if (block.code.includes('/tools/tool_')) {
        const call = JSON.parse(run.stdout);
        expect(call.output.status).toBe(200);
        expect(call.output.body.path).toBe('/v1/cities/Oslo/forecast?days=3');
        // The stand-in received the credential; the answer carries only the mask.
        expect(call.output.body.authorization).toBe('•••••••••');
        expect(run.stdout).not.toContain('sk-live-0123456789');
      }
    }
    expect(seen.key).toMatch(/^mimic_/);
    // The quick start's download is a real video.
    expect(statSync(join(work, 'result.mp4')).size).toBeGreaterThan(10_000);
  }, 600_000);
});
