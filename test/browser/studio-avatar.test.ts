/**
 * The avatar pages in headless Chromium (issue 20 §3.2, §6.1): a person with a verified
 * consent (recorded through the API, verified for real) signs in, chooses 5.5 minutes of
 * footage on the new-avatar page and uploads it resumably; one PATCH breaks off after some of
 * its bytes reached the server, and the page asks the server where it stopped and carries on
 * from exactly there; the file arrives whole. On the avatar's page each footage check appears
 * as it is measured, then training progress, then the presenter with its talking preview and
 * the link to make a clip with it, all live, without a reload. The person follows that link,
 * writes a short script in the new-clip page and watches the clip render: the pending video
 * plays while the clip is still rendering, then the result plays. Training runs on the test's
 * compute double (test/helpers/fake-backend.ts, writing the footage's face as the presenter's
 * picture), held at 1 of 4 steps until the page has shown it; everything else (the talking
 * preview, the clip) on the real local renderer, the clip held after its first 3 pending
 * segments until the page has shown them playing (test/helpers/held-render.ts). Screenshots go
 * to docs/images/ with MIMIC_UPDATE_SCREENSHOTS=1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Route } from 'playwright-core';
import { useChromium, waitForPage, type TestPage } from '../helpers/browser.ts';
import { startLiveService, type LiveService } from '../helpers/live-service.ts';
import { seedPerson, signInByKeyboard, type Person } from '../helpers/studio.ts';
import { createFakeBackend } from '../helpers/fake-backend.ts';
import { holdClipRenders } from '../helpers/held-render.ts';
import { advancedOrOver, liveVideo, playback } from '../helpers/render-page.ts';
import { DEFAULT_PICTURE, avatarFootage, consentVideo } from '../helpers/avatar-videos.ts';
import { HEARD } from '../consents/helpers.ts';
import { readConsent } from '../../src/consents/kind.ts';
import { statementOf } from '../../src/consents/create.ts';
import { findLanguage } from '../../src/consents/languages/index.ts';
import type { ComputeBackend } from '../../src/compute/interface.ts';
import { createLocalBackend } from '../../src/compute/local/index.ts';
import { storedFile } from '../media/stored-file.ts';

const SHOTS = process.env.MIMIC_UPDATE_SCREENSHOTS === '1' ? new URL('../../docs/images/', import.meta.url).pathname : mkdtempSync(join(tmpdir(), 'mimic-studio-shots-'));
const screenshot = (name: string) => join(SHOTS, name);
const MiB = 1024 * 1024;
/** Where the broken PATCH stops: bytes that reach the server before its connection drops. */
const BROKEN_AT = 3 * MiB;

/**
 * Training on the compute double (the footage's face becomes the presenter's picture), held at
 * 1 of 4 steps until the test has seen the page show it; every render on the local renderer, a
 * clip's held after 3 pending segments until the test has seen the page play them.
 */
const fake = createFakeBackend({ trainPicture: DEFAULT_PICTURE });
const renders = holdClipRenders(createLocalBackend(), { segments: 3 });
let releaseTraining!: () => void;
const trainingReleased = new Promise<void>((resolve) => (releaseTraining = resolve));
const backend: ComputeBackend = {
  name: 'held-fake-train-local-render',
  run: (async (kind: Parameters<ComputeBackend['run']>[0], req: never) => {
    if (kind !== 'avatar.train') return renders.backend.run(kind, req);
    (req as { onProgress?: (done: number, total: number) => void }).onProgress?.(1, 4);
    await trainingReleased;
    return fake.run(kind, req);
  }) as ComputeBackend['run'],
  close: () => renders.backend.close(),
};

const chromium = useChromium();
let mimic: LiveService;
let maria: Person;
let consentId: string;
let footage: string;
/** A video too short to be footage (a consent video, 13 s): the avatar made with it fails its length check. */
let shortVideo: string;

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

async function asMaria(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${mimic.base}${path}`, {
    method,
    headers: { authorization: `Basic ${maria.key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/**
 * A consent verified for real, as test/avatars/helpers.ts `realConsent` makes one: created by
 * API, its passcode set to words pocketsphinx hears from Flite, a video of the default test
 * face saying the statement put in Maria's media, uploaded by API, verified by the worker.
 */
async function verifiedConsent(): Promise<string> {
  const made = await asMaria('POST', '/consents', { language: 'english' });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const lifecycle = mimic.running.services.modules.consents.deps.lifecycle;
  const c = readConsent((await lifecycle.getById(made.body.id))!);
  const text = statementOf(findLanguage('english')!, HEARD.passcode);
  await lifecycle.setDetails(made.body.id, { ...c.details, passcode: [...HEARD.passcode], text });
  const video = await consentVideo({ voice: HEARD.voice, text: text.replace('[user name]', HEARD.name) });
  const key = `uploads/consent-${made.body.id}.mp4`;
  await mimic.running.services.media.putFile(maria.userId, key, video, 'video/mp4');
  const uploaded = await asMaria('POST', `/consents/${made.body.id}`, { name: HEARD.name, source_url: `${mimic.running.services.config.storageScheme}://${key}` });
  expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(200);
  for (let i = 0; i < 1200; i++) {
    const rec = (await asMaria('GET', `/consents/${made.body.id}`)).body;
    if (rec.status === 'done') return made.body.id;
    if (rec.status === 'error') throw new Error(`the consent was refused: ${JSON.stringify(rec)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('the consent was not verified within 5 minutes');
}

beforeAll(async () => {
  // The real voice catalogue (Flite): the presenter's talking preview speaks with it.
  mimic = await startLiveService({ options: { backend, voices: undefined } });
  maria = await seedPerson(mimic.running.services, { email: 'maria@example.com', password: 'correct horse battery staple', name: HEARD.name });
  [consentId, footage] = await Promise.all([verifiedConsent(), avatarFootage({ variant: 'ok' })]);
  shortVideo = join(mkdtempSync(join(tmpdir(), 'mimic-short-')), 'short-footage.mp4');
  copyFileSync(await consentVideo({ voice: HEARD.voice, text: 'A short video, far from five minutes of footage.' }), shortVideo);
}, 600_000);
afterAll(async () => {
  releaseTraining?.();
  renders.release();
  await mimic?.close();
});

/** Every CSP violation of every document the page loads. */
async function watchCsp(t: TestPage): Promise<string[]> {
  const violations: string[] = [];
  await t.page.exposeFunction('__reportCsp', (v: string) => void violations.push(v));
  await t.page.addInitScript(`addEventListener('securitypolicyviolation', (e) => window.__reportCsp(location.pathname + ': ' + e.violatedDirective + ' ' + e.blockedURI))`);
  return violations;
}

/** The person signed in, on `path`. */
async function signedIn(path: string): Promise<{ t: TestPage; violations: string[] }> {
  const t = await chromium.newPage();
  const violations = await watchCsp(t);
  await t.page.setViewportSize({ width: 1000, height: 800 });
  await t.page.goto(`${mimic.base}${path}`);
  await signInByKeyboard(t.page, maria);
  await t.page.waitForURL(`${mimic.base}${path}`);
  return { t, violations };
}

/** The Upload-Offset of every PATCH the page sends. */
function patchOffsets(t: TestPage): number[] {
  const offsets: number[] = [];
  t.page.on('request', (r) => {
    if (r.method() === 'PATCH') offsets.push(Number(r.headers()['upload-offset']));
  });
  return offsets;
}

/** The first PATCH reaches the server with its first `bytes` only, then its connection drops; later ones drop at once while `alwaysAfter`. */
async function breakPatches(t: TestPage, bytes: number, { alwaysAfter = false } = {}): Promise<void> {
  let broken = false;
  await t.page.route('**/videos/uploads/*', async (route: Route) => {
    const r = route.request();
    if (r.method() !== 'PATCH' || (broken && !alwaysAfter)) return route.fallback();
    if (broken) return route.abort('connectionreset');
    broken = true;
    const headers = { ...r.headers() };
    delete headers['content-length'];
    const part = await route.fetch({ headers, postData: r.postDataBuffer()!.subarray(0, bytes) });
    expect(part.status()).toBe(204);
    expect(part.headers()['upload-offset']).toBe(String(Number(r.headers()['upload-offset']) + bytes));
    return route.abort('connectionreset');
  });
}

describe('avatars in the studio', () => {
  it('carries an upload on after the page is reloaded, and says in words why an avatar failed', async () => {
    const { t, violations } = await signedIn('/studio/avatars/new');
    await t.page.locator('#avatar-form').waitFor();
    const offsets = patchOffsets(t);
    // 64 KiB reach the server, then every try fails: the person gives up and reloads.
    await breakPatches(t, 64 * 1024, { alwaysAfter: true });
    await t.page.setInputFiles('#footage', shortVideo);
    await t.page.click('#avatar-submit');
    await waitForPage(t, () => Promise.resolve(offsets.length), (n) => n >= 2, 'a retry after the dropped connection');
    expect(offsets.slice(0, 2)).toEqual([0, 64 * 1024]);
    await t.page.unroute('**/videos/uploads/*');
    await t.page.reload();
    await t.page.locator('#avatar-form').waitFor();
    offsets.length = 0;

    // The same file again: the page finds the upload on the server and carries on from its offset.
    await t.page.setInputFiles('#footage', shortVideo);
    await waitForPage(t, (p) => p.textContent('#footage-resume'), (s) => (s ?? '').includes('started uploading this file earlier'), 'the earlier upload found');
    expect(await t.page.textContent('#footage-resume')).toContain('65.5 KB of');
    await t.page.click('#avatar-submit');
    await t.page.waitForURL(/\/studio\/avatars\/avt_[A-Za-z0-9]+$/, { timeout: 120_000 });
    expect(offsets).toEqual([64 * 1024]);
    const upload = (await asMaria('GET', '/videos/uploads')).body.uploads.find((u: { metadata: { filename?: string } }) => u.metadata.filename === 'short-footage.mp4');
    expect(upload).toMatchObject({ status: 'done', offset: statSync(shortVideo).size });
    expect(sha256(storedFile(mimic.running.services.mediaStore, maria.userId, upload.video.url.replace(/^[a-z0-9+.-]+:\/\//, ''))!)).toBe(sha256(shortVideo));

    // 13 s is not footage: the page says which check failed, in words, and what to do.
    await t.page.locator('#avatar[data-settled="yes"]').waitFor({ timeout: 180_000 });
    expect(await t.page.getAttribute('#avatar', 'data-status')).toBe('error');
    expect(await t.page.getAttribute('#checks li[data-check="length"]', 'data-state')).toBe('failed');
    expect(await t.page.textContent('#checks li[data-check="length"]')).toMatch(/\d+ s long \(5 min to 30 min needed\)/);
    expect(await t.page.textContent('#avatar-problem-text')).toBe('The footage is too short: it needs at least 5 min.');
    expect(await t.page.textContent('#avatar-problem-detail')).toMatch(/at least 5 min is needed/);
    expect(await t.page.textContent('#avatar-problem-next')).toContain('Film the footage again');
    await t.page.screenshot({ path: screenshot('studio-avatar-failed.png'), fullPage: true });
    // The consent is free again for the next avatar.
    expect((await asMaria('GET', `/consents/${consentId}`)).body.used_by).toBeNull();
    expect(violations).toEqual([]);
    expect(t.console.filter((l) => l.startsWith('pageerror'))).toEqual([]);
  }, 600_000);

  it('uploads footage that survives a dropped connection, then shows the checks, training and presenter live', async () => {
    const { t, violations } = await signedIn('/studio/avatars');
    await waitForPage(t, (p) => p.textContent('#avatars-rows'), (s) => (s ?? '').includes('Failed'), 'the list with the failed avatar');

    await t.page.getByRole('link', { name: 'New avatar', exact: true }).click();
    await t.page.waitForURL(`${mimic.base}/studio/avatars/new`);
    await t.page.locator('#avatar-form').waitFor();
    expect(await t.page.locator('#consent option').evaluateAll((os) => os.map((o) => (o as unknown as { value: string }).value))).toEqual([consentId]);
    expect(await t.page.inputValue('#avatar-name')).toBe(HEARD.name);

    // The first PATCH breaks off after BROKEN_AT bytes reached the server (sent on for real); the page sees a dropped connection.
    const offsets = patchOffsets(t);
    await breakPatches(t, BROKEN_AT);

    await t.page.setInputFiles('#footage', footage);
    await t.page.click('#avatar-submit');
    await waitForPage(t, (p) => p.textContent('#upload-status'), (s) => /connection dropped/.test(s ?? ''), 'the dropped connection reported');
    expect(await t.page.textContent('#upload-status')).toContain(`The service has ${(BROKEN_AT / 1e6).toFixed(2)} MB`);
    await t.page.screenshot({ path: screenshot('studio-avatar-new.png'), fullPage: true });
    await t.page.waitForURL(/\/studio\/avatars\/avt_[A-Za-z0-9]+$/, { timeout: 180_000 });
    const avatarId = new URL(t.page.url()).pathname.split('/').pop()!;
    await t.page.unroute('**/videos/uploads/*');

    // It went on from the server's offset, mid-part, not from the start nor the next part; the file arrived whole.
    const size = statSync(footage).size;
    expect(offsets[0]).toBe(0);
    expect(offsets[1], `offsets ${offsets.join(', ')}`).toBe(BROKEN_AT);
    expect(offsets.at(-1)! + 8 * MiB).toBeGreaterThanOrEqual(size);
    for (let i = 2; i < offsets.length; i++) expect(offsets[i]! - offsets[i - 1]!).toBe(8 * MiB);
    const uploads = (await asMaria('GET', '/videos/uploads')).body.uploads;
    const upload = uploads.find((u: { metadata: { filename?: string } }) => u.metadata.filename === footage.split('/').pop());
    expect(upload).toMatchObject({ status: 'done', offset: size, length: size });
    const stored = storedFile(mimic.running.services.mediaStore, maria.userId, upload.video.url.replace(/^[a-z0-9+.-]+:\/\//, ''));
    expect(stored && sha256(stored)).toBe(sha256(footage));

    // The checks appear one by one as they are measured (the page never reloads: a mark set now stays).
    await t.page.evaluate('window.__samePage = true');
    const seen = new Set<string>();
    const progress = () =>
      t.page.evaluate(`(() => {
        const root = document.getElementById('avatar');
        return { status: root.dataset.status, passed: document.querySelectorAll('#checks li[data-state="passed"]').length, training: document.getElementById('training-text').textContent };
      })()`) as Promise<{ status: string; passed: number; training: string }>;
    await waitForPage(t, progress, (s) => {
      seen.add(`${s.status}:${s.passed}`);
      return s.status === 'started' && s.training.includes('1 of 4 steps');
    }, 'training held at 1 of 4 steps', 300_000);
    const partial = [...seen].filter((s) => s.startsWith('validating:') && !s.endsWith(':0') && !s.endsWith(':8'));
    expect(partial.length, `states seen: ${[...seen].join(', ')}`).toBeGreaterThan(0);
    expect(await t.page.locator('#checks li[data-state="passed"]').count()).toBe(8);
    expect(await t.page.getAttribute('#training-progress', 'value')).toBe('1');
    expect(await t.page.getAttribute('#training-progress', 'max')).toBe('4');
    await t.page.screenshot({ path: screenshot('studio-avatar-training.png'), fullPage: true });
    releaseTraining();

    // Then the presenter, once its talking preview exists: the stream ends only then.
    await t.page.locator('#avatar[data-settled="yes"]').waitFor({ timeout: 180_000 });
    expect(await t.page.getAttribute('#avatar', 'data-status')).toBe('done');
    const avatar = (await asMaria('GET', `/clips/avatars/${avatarId}`)).body;
    expect(await t.page.textContent('#presenter-id')).toBe(avatar.presenter_id);
    expect(await t.page.getAttribute('#presenter-clip', 'href')).toBe(`/studio/clips/new?presenter_id=${encodeURIComponent(avatar.presenter_id)}`);
    await waitForPage(t, (p) => p.evaluate(`document.getElementById('presenter-preview').readyState`) as Promise<number>, (n) => n >= 1, 'the talking preview loaded').catch(async (err) => {
      const presenter = await asMaria('GET', `/clips/presenters/${avatar.presenter_id}`);
      const src = await t.page.evaluate(`document.getElementById('presenter-preview').currentSrc`);
      const media = src ? (await fetch(String(src))).status : null;
      throw new Error(`${err.message}\ncaption: ${await t.page.textContent('#presenter-preview-caption')}\nsrc ${src} -> ${media}\npresenter ${presenter.status} ${JSON.stringify(presenter.body)}\n${mimic.logs.filter((l) => /preview|warn|error/i.test(l)).slice(-10).join('\n')}`);
    });
    const previewSrc = await t.page.evaluate(`document.getElementById('presenter-preview').currentSrc`) as string;
    expect(previewSrc).toContain(`/presenters/${avatar.presenter_id}/talking-preview.mp4`);
    expect(await t.page.evaluate('window.__samePage')).toBe(true);
    await t.page.screenshot({ path: screenshot('studio-avatar.png'), fullPage: true });

    // The presenter in a clip made in the studio: its link, a short script, the clip watched while it renders.
    await t.page.getByRole('link', { name: `Make a clip with ${avatar.name}`, exact: true }).click();
    await t.page.waitForURL(`${mimic.base}/studio/clips/new?presenter_id=${encodeURIComponent(avatar.presenter_id)}`);
    const chosen = t.page.locator(`#presenter-choices input[value="${avatar.presenter_id}"]`);
    await chosen.waitFor({ state: 'attached' });
    expect(await chosen.isChecked()).toBe(true);
    await t.page.fill('#script', 'Hello, I am the presenter made from my own footage a moment ago, and this is my first clip.');
    await t.page.fill('#clip-name', 'My first clip');
    const media: string[] = [];
    t.page.on('request', (r) => void media.push(r.url()));
    await t.page.click('#clip-create');
    await t.page.waitForURL(/\/studio\/clips\/clp_[A-Za-z0-9_]+$/, { timeout: 60_000 });
    const clipId = new URL(t.page.url()).pathname.split('/').pop()!;
    expect((await asMaria('GET', `/clips/${clipId}`)).body).toMatchObject({ presenter_id: avatar.presenter_id, name: 'My first clip' });
    // Held after 3 pending segments: the live video plays them while the clip is still rendering.
    expect(await renders.held).toBe(3);
    const watched = await waitForPage(t, liveVideo, advancedOrOver, 'the live video advancing', 300_000);
    expect(watched.status, `the live video advanced while the clip was held rendering: ${JSON.stringify(watched)}`).toBe('started');
    expect(watched.time).toBeGreaterThan(0);
    expect(media.some((u) => new RegExp(`/clips/${clipId}/pending/[^/]+/index\\.m3u8$`).test(u))).toBe(true);
    expect(media.some((u) => new RegExp(`/clips/${clipId}/pending/[^/]+/seg\\d+\\.ts$`).test(u))).toBe(true);
    await t.page.screenshot({ path: screenshot('studio-avatar-clip.png'), fullPage: true });
    renders.release();
    // Then done, and the result plays.
    await waitForPage(t, (p) => p.locator('#render').getAttribute('data-status'), (s) => s === 'done', 'the clip done', 300_000);
    expect(await t.page.isHidden('#render-live')).toBe(true);
    await t.page.evaluate(`document.querySelector('#render-result').play()`);
    await waitForPage(t, (p) => playback(p, '#render-result'), (v) => !!v && v.time > 0, 'the result playing');
    await t.page.evaluate(`document.querySelector('#render-result').pause()`);

    // The list shows it ready; the consent is used, so a new avatar asks for a new consent.
    await t.page.goto(`${mimic.base}/studio/avatars`);
    await waitForPage(t, (p) => p.textContent('#avatars-rows'), (s) => (s ?? '').includes('Ready'), 'the avatar listed as ready');
    expect(await t.page.locator(`#avatars-rows a[href="/studio/avatars/${avatarId}"]`).textContent()).toBe(HEARD.name);
    await t.page.screenshot({ path: screenshot('studio-avatars.png'), fullPage: true });
    await t.page.goto(`${mimic.base}/studio/avatars/new`);
    await t.page.locator('#no-consent').waitFor();
    expect(await t.page.getAttribute('#no-consent a', 'href')).toBe('/studio/consents');

    // A phone's width: nothing scrolls sideways.
    await t.page.setViewportSize({ width: 360, height: 740 });
    for (const path of ['/studio/avatars', '/studio/avatars/new', `/studio/avatars/${avatarId}`]) {
      await t.page.goto(`${mimic.base}${path}`);
      await t.page.locator('main h1').waitFor();
      const overflow = await t.page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      expect(overflow, path).toBeLessThanOrEqual(0);
    }
    await t.page.locator('#avatar[data-settled="yes"]').waitFor();
    await t.page.screenshot({ path: screenshot('studio-avatar-phone.png'), fullPage: true });

    expect(t.blocked).toEqual([]);
    expect(violations, t.console.join('\n')).toEqual([]);
    // The one failed request is the PATCH the test broke off.
    expect(t.console.filter((l) => l.startsWith('pageerror'))).toEqual([]);
  }, 900_000);
});
