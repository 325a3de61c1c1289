/**
 * Headless Chromium for the browser tests (test/browser/): Debian's /usr/bin/chromium (put
 * there by scripts/ensure-chromium.mjs, which vitest's globalSetup runs) driven with
 * playwright-core. One browser per test file, closed in afterAll; each page records its peer
 * connections and data-channel messages (fixtures/peers.js) and may reach loopback only.
 */
import { existsSync, readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { chromiumPath } from '../../scripts/ensure-chromium.mjs';
import { startHttpServer, type TestServer } from './tls.ts';

const PEERS_SCRIPT = new URL('../browser/fixtures/peers.js', import.meta.url);

/** WebRTC on loopback with no prompt, no user gesture, and nothing that leaves the machine. */
export const CHROMIUM_ARGS = [
  // getUserMedia answers at once with a synthetic camera and microphone (the smoke test's sender).
  '--use-fake-ui-for-media-stream',
  '--use-fake-device-for-media-stream',
  // Remote audio and video play without a click.
  '--autoplay-policy=no-user-gesture-required',
  // Host candidates as addresses, not .local names (there is no mDNS responder to ask),
  // and loopback interfaces offered as candidates too.
  '--disable-features=WebRtcHideLocalIpsWithMdns',
  '--allow-loopback-in-peer-connection',
  // No name outside the machine resolves: every fetch, socket and WebSocket stays on loopback.
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1',
  // Quiet background traffic (updates, metrics, sync, translation).
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-domain-reliability',
  '--disable-sync',
  '--metrics-recording-only',
  '--no-first-run',
  '--disable-gpu',
];

/** Whether `url` stays on this machine (http/https/ws/wss to localhost or a loopback address, data:, blob:). */
export function isLoopbackUrl(url: string): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.protocol === 'data:' || u.protocol === 'blob:' || u.protocol === 'about:') return true;
  const host = u.hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/**
 * CHROMIUM_ARGS but host candidates hidden behind mDNS names (`<uuid>.local`), as every user's
 * Chromium sends them to a page without camera permission (the fake media UI grants it, and
 * with it Chromium shows addresses).
 */
export const CHROMIUM_ARGS_MDNS = CHROMIUM_ARGS.filter((a) => !['--disable-features=WebRtcHideLocalIpsWithMdns', '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream'].includes(a));

export async function launchChromium(args: string[] = CHROMIUM_ARGS): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!existsSync(executablePath)) {
    throw new Error(`${executablePath} is missing: run \`node scripts/ensure-chromium.mjs\` (npm test does it before the tests)`);
  }
  return chromium.launch({ executablePath, headless: true, args, timeout: 60_000 });
}

export interface TestPage {
  page: Page;
  context: BrowserContext;
  /** Every request the page tried that was not loopback (refused). */
  blocked: string[];
  /** The page's console lines and uncaught errors, for failure messages. */
  console: string[];
}

export interface ChromiumForFile {
  readonly browser: Browser;
  /** A fresh context and page, loopback only, recording peers and data channels (`options`: the context's, e.g. ignoreHTTPSErrors for a loopback https provider). */
  newPage(options?: BrowserContextOptions): Promise<TestPage>;
}

/** One browser for the enclosing test file: launched in beforeAll, closed in afterAll. */
export function useChromium(opts: { mdnsCandidates?: boolean } = {}): ChromiumForFile {
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    browser = await launchChromium(opts.mdnsCandidates ? CHROMIUM_ARGS_MDNS : CHROMIUM_ARGS);
  });
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
  });
  return {
    get browser() {
      if (!browser) throw new Error('useChromium: the browser is launched in beforeAll');
      return browser;
    },
    async newPage(options) {
      if (!browser) throw new Error('useChromium: the browser is launched in beforeAll');
      const t = await openTestPage(browser, options);
      contexts.push(t.context);
      return t;
    },
  };
}

/**
 * A fresh context and page of `browser` (one of useChromium's, or one launched with more
 * args, e.g. fake capture files): loopback only, recording peers and data channels. The
 * caller closes its context (or the browser).
 */
export async function openTestPage(browser: Browser, options?: BrowserContextOptions): Promise<TestPage> {
  const context = await browser.newContext(options);
  const blocked: string[] = [];
  const lines: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (isLoopbackUrl(url)) return route.continue();
    blocked.push(url);
    return route.abort('blockedbyclient');
  });
  await context.routeWebSocket((url) => !isLoopbackUrl(url.href), (ws) => {
    blocked.push(ws.url());
    void ws.close({ code: 1008, reason: 'not loopback' });
  });
  await context.addInitScript({ path: PEERS_SCRIPT.pathname });
  const page = await context.newPage();
  page.on('console', (m) => lines.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => lines.push(`pageerror: ${e.message}`));
  return { page, context, blocked, console: lines };
}

/**
 * Chromium whose fake camera and microphone play these files (a .y4m video and a .wav), looped,
 * from the moment a page starts capturing: CHROMIUM_ARGS plus the two file flags. Chromium
 * reads the files when a capture starts, so a test that needs other footage launches another.
 */
export function launchChromiumWithCapture(files: { video: string; audio: string }): Promise<Browser> {
  return launchChromium([...CHROMIUM_ARGS, `--use-file-for-fake-video-capture=${files.video}`, `--use-file-for-fake-audio-capture=${files.audio}`]);
}

export interface MediaStats {
  peers: number;
  states: string[];
  video: { framesReceived: number; framesDecoded: number; frameWidth: number; frameHeight: number; codec: string; packetsReceived: number; packetsLost: number; keyFramesDecoded: number; framesDropped: number; pliCount: number };
  audio: { totalAudioEnergy: number; totalSamplesReceived: number; concealedSamples: number; totalSamplesDuration: number; codec: string; packetsReceived: number; packetsLost: number };
}

/** The inbound media of every peer connection the page made (fixtures/peers.js). */
export function mediaStats(page: Page): Promise<MediaStats> {
  return page.evaluate('window.__mimicMediaStats()') as Promise<MediaStats>;
}

export interface ChannelMessage {
  label: string;
  direction: 'in' | 'out';
  data: string;
}

/** Every data-channel message the page's peers received ('in') or sent ('out'), in order. */
export function channelLog(page: Page): Promise<ChannelMessage[]> {
  return page.evaluate('window.__mimicChannelLog') as Promise<ChannelMessage[]>;
}

/**
 * Polls `probe` on the page until `until` holds, and answers the last value; on timeout,
 * fails with that value and the page's console (never asserts how long it took).
 */
export async function waitForPage<T>(t: TestPage, probe: (page: Page) => Promise<T>, until: (value: T) => boolean, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe(t.page);
    if (until(value)) return value;
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(value)}\npage console:\n${t.console.slice(-40).join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.jpg': 'image/jpeg',
  '.png': 'image/png',
};

/** A page the loopback page server answers: a file on disk, or text. */
export type PageFile = string | { body: string | Buffer; type: string };

/** A loopback HTTP server answering exactly these paths (404 for anything else). */
export async function servePages(files: Record<string, PageFile>): Promise<TestServer> {
  return startHttpServer((req, res) => {
    const path = req.path.split('?')[0]!;
    const file = files[path];
    if (file === undefined) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    const { body, type } = typeof file === 'string' ? { body: readFileSync(file), type: TYPES[extname(file)] ?? 'application/octet-stream' } : file;
    res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
  });
}
