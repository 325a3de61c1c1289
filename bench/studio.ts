/**
 * The studio's pages in Chromium on loopback (issue 20, §6.2): for each page, its first
 * contentful paint and its time to interactive, the median of BENCH_LOADS loads (5 by default).
 *
 * The service runs in a child process on a temporary data directory; a person is seeded with
 * the CLI (`users create`, then `users password` with the password on stdin) and signs in
 * through the sign-in form, once. Debian's Chromium (MIMIC_CHROMIUM or /usr/bin/chromium,
 * scripts/ensure-chromium.mjs) is driven headless by playwright-core. Each page is loaded
 *   - cold: a new browser context (empty cache) carrying the session's cookie, and
 *   - warm: one context that has seen the page, each load a fresh navigation from about:blank
 *     (the style sheet and scripts come from the cache, as when a person moves between pages),
 * and every load waits for the network to be idle (the API keys and account pages fetch a
 * token, then their lists).
 *
 * On the page's own clock (ms from the navigation's start):
 *   - FCP: the `first-contentful-paint` entry;
 *   - TTI ≈ the end of the last long task (PerformanceObserver `longtask`, > 50 ms) after
 *     `domInteractive`, else `domContentLoadedEventEnd` (module scripts have run by then);
 *     never before FCP (as Lighthouse's TTI, whose search starts at FCP);
 *   - data: when the page's last fetch (token, list) ended, for pages that fetch.
 *
 *   node --import tsx bench/studio.ts        (BENCH_LOADS=5)
 *
 * Prints the CPU model, the load average, a table of medians and the goal (≤ 300 ms) met or
 * not for each page. Never fails on timing.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { chromiumPath } from '../scripts/ensure-chromium.mjs';
import { median } from './stats.ts';
import { NODE_ARGS, freePort, killChildrenOnExit, root, runBench, serviceEnv, startService, waitForHealth } from './procs.ts';

const LOADS = Math.max(1, Number(process.env.BENCH_LOADS ?? 5));
const GOAL_MS = 300;
const EMAIL = 'bench@example.com';
const PASSWORD = 'a bench password, long enough';

/** Every studio page there is: those of a signed-in person, and those anyone may open. */
const PAGES: readonly { name: string; path: string; signedIn: boolean }[] = [
  { name: 'sign-in', path: '/studio/sign-in', signedIn: false },
  { name: 'forgot password', path: '/studio/forgot-password', signedIn: false },
  { name: 'set password (invite link)', path: '/studio/invite?token=bench', signedIn: false },
  { name: 'home', path: '/studio/', signedIn: true },
  { name: 'API keys', path: '/studio/keys', signedIn: true },
  { name: 'account', path: '/studio/account', signedIn: true },
  { name: 'tools', path: '/studio/tools', signedIn: true },
  { name: 'new tool', path: '/studio/tools/new', signedIn: true },
  { name: 'audit log', path: '/studio/audit', signedIn: true },
];

/** Runs before any script of the page: long tasks are recorded from the navigation's start. */
const OBSERVE_LONG_TASKS = `{
  window.__benchLongTasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__benchLongTasks.push([e.startTime, e.startTime + e.duration]);
  }).observe({ type: 'longtask', buffered: true });
}`;

interface Load {
  fcp: number;
  tti: number;
  longTasks: number;
  /** End of the last fetch the page made, when it made one. */
  data: number | null;
}

/** Read on the page once the network is idle; everything on the navigation's clock. */
const MEASURE = `(() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const fcp = performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null;
  const tasks = window.__benchLongTasks ?? null;
  const after = (tasks ?? []).filter(([, end]) => end > nav.domInteractive).map(([, end]) => end);
  const fetches = performance.getEntriesByType('resource').filter((r) => r.initiatorType === 'fetch' || r.initiatorType === 'xmlhttprequest');
  return {
    fcp,
    observed: tasks !== null,
    longTasks: (tasks ?? []).length,
    interactive: after.length ? Math.max(...after) : nav.domContentLoadedEventEnd,
    data: fetches.length ? Math.max(...fetches.map((r) => r.responseEnd)) : null,
  };
})()`;

/** Quiet, and nothing leaves the machine: no name but localhost resolves. */
const CHROMIUM_ARGS = [
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-domain-reliability',
  '--disable-sync',
  '--no-first-run',
];

const dir = mkdtempSync(join(tmpdir(), 'mimic-bench-studio-'));
const removeDir = () => rmSync(dir, { recursive: true, force: true });
killChildrenOnExit(removeDir);

/** A context recording long tasks (no request interception: it would add a round trip to every request). */
async function newContext(browser: Browser, storageState?: Awaited<ReturnType<BrowserContext['storageState']>>): Promise<BrowserContext> {
  const context = await browser.newContext(storageState ? { storageState } : {});
  await context.addInitScript(OBSERVE_LONG_TASKS);
  return context;
}

/** One fresh navigation to `url`, measured once the network is idle. */
async function load(context: BrowserContext, url: string): Promise<Load> {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto('about:blank');
  const res = await page.goto(url, { waitUntil: 'networkidle', timeout: 60_000 });
  if (res?.status() !== 200) throw new Error(`${url}: ${res?.status()} (expected 200)`);
  if (page.url() !== url) throw new Error(`${url} went to ${page.url()} (is the session still live?)`);
  const m = (await page.evaluate(MEASURE)) as { fcp: number | null; observed: boolean; longTasks: number; interactive: number; data: number | null };
  if (m.fcp === null) throw new Error(`${url}: no first-contentful-paint entry`);
  if (!m.observed) throw new Error(`${url}: the long-task observer did not run`);
  return { fcp: m.fcp, tti: Math.max(m.fcp, m.interactive), longTasks: m.longTasks, data: m.data };
}

const ms = (v: number) => `${Math.round(v)} ms`;

await runBench(async () => {
  console.log(`machine: ${cpus()[0]?.model ?? 'unknown'}, ${cpus().length} cores, node ${process.version}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}; ${LOADS} loads per page and cache state`);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = serviceEnv(dir, port, {});
  const child = startService(env, ['ignore', 'ignore', 'inherit']);
  await waitForHealth(base, child);

  const cli = (args: string[], input?: string) => JSON.parse(execFileSync(process.execPath, [...NODE_ARGS, 'src/main.ts', ...args], { cwd: root, env, encoding: 'utf8', ...(input === undefined ? {} : { input }) }).trim()) as Record<string, string>;
  const user = cli(['users', 'create', '--name', 'Bench Person']);
  cli(['users', 'password', '--user', user.id!, '--email', EMAIL], PASSWORD);

  const browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: CHROMIUM_ARGS });
  try {
    console.log(`browser: Chromium ${browser.version()} (${chromiumPath()}), headless`);
    // Sign in once, through the form; every signed-in context carries this session's cookie.
    const signIn = await newContext(browser);
    const page = await signIn.newPage();
    await page.goto(`${base}/studio/sign-in`);
    await page.fill('#email', EMAIL);
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForURL(`${base}/studio/`), page.click('button[type=submit]')]);
    const session = await signIn.storageState();
    await signIn.close();

    const rows: string[] = [];
    let met = 0;
    for (const { name, path, signedIn } of PAGES) {
      const url = `${base}${path}`;
      const state = signedIn ? session : undefined;
      const cold: Load[] = [];
      for (let i = 0; i < LOADS; i++) {
        const context = await newContext(browser, state);
        try {
          cold.push(await load(context, url));
        } finally {
          await context.close();
        }
      }
      const warm: Load[] = [];
      const context = await newContext(browser, state);
      try {
        await load(context, url); // fills the cache; not counted
        for (let i = 0; i < LOADS; i++) warm.push(await load(context, url));
      } finally {
        await context.close();
      }
      const med = (loads: Load[], pick: (l: Load) => number) => median(loads.map(pick));
      const worstTti = Math.max(med(cold, (l) => l.tti), med(warm, (l) => l.tti));
      const data = cold.every((l) => l.data !== null) ? `${ms(med(cold, (l) => l.data!))} / ${ms(med(warm, (l) => l.data!))}` : '–';
      const longTasks = [...cold, ...warm].reduce((n, l) => n + l.longTasks, 0);
      if (worstTti <= GOAL_MS) met++;
      rows.push(`| ${name} | ${ms(med(cold, (l) => l.fcp))} | ${ms(med(cold, (l) => l.tti))} | ${ms(med(warm, (l) => l.fcp))} | ${ms(med(warm, (l) => l.tti))} | ${data} | ${longTasks} | ${worstTti <= GOAL_MS ? 'met' : 'missed'} |`);
    }
    console.log(`\nmedians of ${LOADS} loads; cold = a new context (empty cache), warm = the same context again; data = the page's last fetch done (cold / warm)\n`);
    console.log('| page | FCP cold | TTI cold | FCP warm | TTI warm | data | long tasks | TTI ≤ 300 ms |');
    console.log('|---|---|---|---|---|---|---|---|');
    for (const row of rows) console.log(row);
    console.log(`\ngoal (first contentful paint and interactive within ${GOAL_MS} ms, each page, cold and warm): ${met === PAGES.length ? 'met' : 'missed'} on ${met} of ${PAGES.length} pages`);
    console.log(`load average at the end: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } finally {
    await browser.close();
  }
}, removeDir);
