/**
 * The studio's clip pages in headless Chromium: the presenters gallery (a talking preview plays
 * on hover and on keyboard focus), a new clip (a voice heard first, a script with its live
 * count), the clip watched while it renders (the pending HLS video advancing before the clip is
 * done: the render is held after its first segments until the page has shown that, see
 * test/helpers/held-render.ts), then played and downloaded; the lists of clips, talks and
 * animations, filtered by status. No CSP violation, nothing fetched from elsewhere, no sideways scroll at 360 px.
 * Screenshots go to docs/images/ with MIMIC_UPDATE_SCREENSHOTS=1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useChromium, waitForPage, type TestPage } from '../helpers/browser.ts';
import { startLiveService, type LiveService } from '../helpers/live-service.ts';
import { seedPerson, type Person } from '../helpers/studio.ts';
import { holdClipRenders, type HeldRenders } from '../helpers/held-render.ts';
import { advancedOrOver, liveVideo, playback } from '../helpers/render-page.ts';
import { BUILT_IN_PRESENTERS } from '../../src/presenters/built-in.ts';
import { createLocalBackend } from '../../src/compute/local/index.ts';

const SHOTS = process.env.MIMIC_UPDATE_SCREENSHOTS === '1' ? new URL('../../docs/images/', import.meta.url).pathname : mkdtempSync(join(tmpdir(), 'mimic-studio-shots-'));
const screenshot = (name: string) => join(SHOTS, name);
const chromium = useChromium();
let mimic: LiveService;
let ada: Person;
/** The local renderer, a clip's render held after its first 3 pending segments until the page has shown them playing. */
let renders: HeldRenders;

beforeAll(async () => {
  renders = holdClipRenders(createLocalBackend(), { segments: 3 });
  mimic = await startLiveService({ options: { backend: renders.backend } });
  ada = await seedPerson(mimic.running.services, { email: 'ada@example.com', password: 'correct horse battery staple', name: 'Ada Lovelace' });
});
afterAll(async () => {
  renders?.release();
  await mimic?.close();
});

/** A call with Ada's own key: the records the studio shows are hers. */
async function asAda(method: string, path: string, body?: unknown) {
  const res = await fetch(`${mimic.base}${path}`, {
    method,
    headers: { authorization: `Basic ${ada.key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function newPage(): Promise<{ t: TestPage; violations: string[] }> {
  const t = await chromium.newPage();
  const violations: string[] = [];
  await t.page.exposeFunction('__reportCsp', (v: string) => void violations.push(v));
  await t.page.addInitScript(`addEventListener('securitypolicyviolation', (e) => window.__reportCsp(location.pathname + ': ' + e.violatedDirective + ' ' + e.blockedURI))`);
  await t.page.setViewportSize({ width: 1100, height: 820 });
  return { t, violations };
}

describe('the studio clip pages in a browser', () => {
  it('gallery, voice sample, a clip created, watched as it renders, played and downloaded; lists filtered', async () => {
    const { t, violations } = await newPage();
    const page = t.page;
    await page.goto(`${mimic.base}/studio/presenters`);
    await page.fill('#email', ada.email);
    await page.fill('#password', ada.password);
    await page.click('button[type=submit]');
    await page.waitForURL(`${mimic.base}/studio/presenters`);

    // The gallery: every built-in presenter, each with "Make a clip".
    const cards = page.locator('#presenters .presenter-card');
    await waitForPage(t, () => cards.count(), (n) => n === BUILT_IN_PRESENTERS.length, 'the built-in presenters');
    const [eileen, grace] = [BUILT_IN_PRESENTERS[0]!, BUILT_IN_PRESENTERS[1]!];
    const eileenVideo = `.presenter-card[data-presenter-id="${eileen.id}"] video`;
    const graceVideo = `.presenter-card[data-presenter-id="${grace.id}"] video`;
    expect(await playback(page, eileenVideo)).toMatchObject({ src: '', paused: true });
    // Hover: its talking preview plays (rendered by mimic at start; the URL waits for it).
    await page.hover(`.presenter-card[data-presenter-id="${eileen.id}"]`);
    await waitForPage(t, (p) => playback(p, eileenVideo), (v) => !!v && !v.paused && v.time > 0, 'Eileen talking on hover', 180_000);
    await page.screenshot({ path: screenshot('studio-presenters.png') });
    // Keyboard focus on another card plays that one; the pointer gone, the first stops.
    await page.mouse.move(0, 0);
    await page.getByRole('link', { name: `Make a clip with ${grace.name}` }).focus();
    await waitForPage(t, (p) => playback(p, graceVideo), (v) => !!v && !v.paused && v.time > 0, 'Grace talking on focus', 180_000);
    expect((await playback(page, eileenVideo))!.paused).toBe(true);

    // Make a clip with Eileen: the form comes with her chosen.
    await page.getByRole('link', { name: `Make a clip with ${eileen.name}` }).click();
    await page.waitForURL(`${mimic.base}/studio/clips/new?presenter_id=${eileen.id}`);
    await page.locator(`#presenter-choices input[value="${eileen.id}"]`).waitFor({ state: 'attached' });
    expect(await page.locator(`#presenter-choices input[value="${eileen.id}"]`).isChecked()).toBe(true);

    // Hear a voice: the audio element gets a playable source (a blob of the WAV the API spoke).
    await waitForPage(t, (p) => p.locator('#voice option[data-voice-id]').count(), (n) => n > 0, 'the voices listed');
    await page.selectOption('#voice', 'flite:en-GB-flite-awb');
    await page.click('#voice-sample');
    const heard = await waitForPage(
      t,
      (p) => p.evaluate(`(() => {
        const a = document.querySelector('#voice-audio');
        return { src: a.currentSrc, ready: a.readyState, duration: a.duration, hidden: a.hidden };
      })()`) as Promise<{ src: string; ready: number; duration: number; hidden: boolean }>,
      (a) => a.src.startsWith('blob:') && a.ready >= 2 && a.duration > 0,
      'a playable voice sample',
    );
    expect(heard.hidden).toBe(false);
    expect(await page.textContent('#voice-status')).toContain('en-GB-flite-awb');

    // Too short a script is refused beside the field, before any call.
    await page.click('#clip-create');
    await waitForPage(t, (p) => p.textContent('#script-error'), (s) => (s ?? '').includes('at least'), 'the refusal');

    // The script: its count follows as it is typed; an SSML pause inserted from the hints.
    // Long enough (about 10 s of speech) for the 3 pending segments the render is held at.
    const words = 'Welcome to the studio. This clip was written in the browser, spoken by a voice you heard first, and rendered while you watched it grow segment by segment.';
    await page.fill('#script', words);
    expect(await page.textContent('#script-count')).toMatch(new RegExp(`^${words.length} of 40,000 characters · about \\d+ s of speech · about \\d credits?$`));
    await page.click('#ssml-hints summary');
    await page.locator('#script').press('End');
    await page.click('button.insert[data-insert^="<break"]');
    expect(await page.inputValue('#script')).toBe(`${words}<break time="500ms"/>`);
    expect(await page.isChecked('#ssml')).toBe(true);
    await page.fill('#clip-name', 'Studio welcome');
    await page.check('input[name="background"][value="color"]');
    await page.screenshot({ path: screenshot('studio-clip-new.png'), fullPage: true });

    const media: string[] = [];
    page.on('request', (r) => void media.push(r.url()));
    await page.click('#clip-create');
    await page.waitForURL(/\/studio\/clips\/clp_[A-Za-z0-9_]+$/, { timeout: 30_000 });
    const clipId = new URL(page.url()).pathname.split('/').pop()!;
    const created = await asAda('GET', `/clips/${clipId}`);
    expect(created.body).toMatchObject({ presenter_id: eileen.id, name: 'Studio welcome', script: { type: 'text', ssml: true, provider: { type: 'flite', voice_id: 'en-GB-flite-awb' } } });

    // Watched as it renders: the render is held after 3 segments; the pending HLS video advances while the clip is still started.
    expect(await renders.held).toBe(3);
    const watched = await waitForPage(t, liveVideo, advancedOrOver, 'the live video advancing', 240_000);
    expect(watched.status, `the live video advanced while the clip was held rendering: ${JSON.stringify(watched)}`).toBe('started');
    expect(watched.time).toBeGreaterThan(0);
    // Played by hls.js (served by mimic) from the playlist and its segments as they were written.
    expect(watched.player).toBe('hls.js');
    expect(media.some((u) => new RegExp(`/clips/${clipId}/pending/[^/]+/index\\.m3u8$`).test(u))).toBe(true);
    expect(media.some((u) => new RegExp(`/clips/${clipId}/pending/[^/]+/seg\\d+\\.ts$`).test(u))).toBe(true);
    expect(media.some((u) => /\/studio\/assets\/hls\.[0-9a-f]{12}\.js$/.test(u))).toBe(true);
    await page.screenshot({ path: screenshot('studio-clip-rendering.png') });
    renders.release();

    // Done: the result plays, and the download link downloads it.
    await waitForPage(t, (p) => p.locator('#render').getAttribute('data-status'), (s) => s === 'done', 'the clip done', 300_000);
    expect(await page.textContent('#render-state')).toBe('Done');
    expect(await page.isHidden('#render-live')).toBe(true);
    await page.evaluate(`document.querySelector('#render-result').play()`);
    await waitForPage(t, (p) => playback(p, '#render-result'), (v) => !!v && v.time > 0, 'the result playing');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#render-download')]);
    expect(download.suggestedFilename()).toBe(`${clipId}.mp4`);
    const saved = await download.path();
    expect(statSync(saved).size).toBeGreaterThan(1000);
    expect(readFileSync(saved).toString('latin1', 4, 8)).toBe('ftyp');
    await page.evaluate(`document.querySelector('#render-result').pause()`);
    await page.screenshot({ path: screenshot('studio-clip.png'), fullPage: true });

    // A clip from an audio file: uploaded with POST /audios on create, then its page.
    const wavPath = join(mkdtempSync(join(tmpdir(), 'mimic-studio-audio-')), 'hello.wav');
    const wav = await fetch(`${mimic.base}/tts/voices/en-US-flite-slt/sample?text=${encodeURIComponent('Hello from an audio file.')}`, { headers: { authorization: `Basic ${ada.key}` } });
    writeFileSync(wavPath, Buffer.from(await wav.arrayBuffer()));
    await page.getByRole('link', { name: 'Make another' }).click();
    await page.waitForURL(`${mimic.base}/studio/clips/new?presenter_id=${eileen.id}`);
    await page.locator('#presenter-choices input').first().waitFor({ state: 'attached' });
    await page.check('input[name="script-type"][value="audio"]');
    expect(await page.isHidden('#script')).toBe(true);
    await page.click('#clip-create');
    await waitForPage(t, (p) => p.textContent('#audio-error'), (s) => (s ?? '').includes('Choose an audio file'), 'the missing file refused');
    await page.setInputFiles('#audio', wavPath);
    expect(await page.textContent('#audio-error')).toBe('');
    await page.click('#clip-create');
    await page.waitForURL((u) => /\/studio\/clips\/clp_[A-Za-z0-9_]+$/.test(u.pathname) && !u.pathname.endsWith(clipId), { timeout: 30_000 });
    const audioClip = await asAda('GET', `/clips/${new URL(page.url()).pathname.split('/').pop()}`);
    expect(audioClip.body.script).toMatchObject({ type: 'audio', audio_url: expect.stringMatching(/^s3:\/\/.+\.wav$/) });
    await page.locator('#render-state').filter({ hasNotText: 'Loading' }).waitFor();

    // A talk made by API, to list and open.
    const image = new FormData();
    image.append('image', new Blob([readFileSync(eileen.image)], { type: 'image/jpeg' }), 'photo.jpg');
    const upload = await fetch(`${mimic.base}/images`, { method: 'POST', headers: { authorization: `Basic ${ada.key}` }, body: image });
    const photo = (await upload.json()) as { url: string };
    const talk = await asAda('POST', '/talks', { source_url: photo.url, script: { type: 'text', input: 'Hello from a photo.' } });
    expect(talk.status).toBe(201);

    // The clips list: the clip, linked, and the status filter (kept in the address).
    await page.goto(`${mimic.base}/studio/clips`);
    const clipRow = page.locator(`#list-rows tr[data-id="${clipId}"]`);
    await clipRow.waitFor();
    expect(await clipRow.getAttribute('data-status')).toBe('done');
    expect(await clipRow.locator('a').textContent()).toBe('Studio welcome');
    const failed = page.waitForRequest((r) => r.url().includes('/clips?') && r.url().includes('status=error'));
    await page.selectOption('#status-filter', 'error');
    await failed;
    await waitForPage(t, (p) => p.textContent('#list-rows'), (s) => (s ?? '').includes('No clips with this status.'), 'the empty filtered list');
    expect(new URL(page.url()).searchParams.get('status')).toBe('error');
    await page.selectOption('#status-filter', 'done');
    await clipRow.waitFor();
    await page.screenshot({ path: screenshot('studio-clips.png'), fullPage: true });
    await clipRow.locator('a').click();
    await page.waitForURL(`${mimic.base}/studio/clips/${clipId}`);

    // The talks list, and the talk's page with its result.
    await page.goto(`${mimic.base}/studio/talks`);
    const talkRow = page.locator(`#list-rows tr[data-id="${talk.body.id}"]`);
    await talkRow.waitFor();
    // An unfinished row follows its record live.
    await waitForPage(t, () => talkRow.getAttribute('data-status'), (s) => s === 'done', 'the talk done in the list', 300_000);
    await page.screenshot({ path: screenshot('studio-talks.png'), fullPage: true });
    await talkRow.locator('a').click();
    await page.waitForURL(`${mimic.base}/studio/talks/${talk.body.id}`);
    await waitForPage(t, (p) => p.locator('#render').getAttribute('data-status'), (s) => s === 'done', 'the talk done', 300_000);
    await waitForPage(t, (p) => p.evaluate(`document.querySelector('#render-result').readyState`) as Promise<number>, (n) => n >= 1, 'the talk result loaded');
    await page.screenshot({ path: screenshot('studio-talk.png'), fullPage: true });

    // Animations: none yet, and the filter says so.
    await page.goto(`${mimic.base}/studio/animations?status=done`);
    await waitForPage(t, (p) => p.textContent('#list-rows'), (s) => (s ?? '').includes('No animations with this status.'), 'the empty animations list');
    expect(await page.inputValue('#status-filter')).toBe('done');
    await page.screenshot({ path: screenshot('studio-animations.png'), fullPage: true });

    // A phone's width: nothing scrolls sideways.
    await page.setViewportSize({ width: 360, height: 740 });
    for (const path of ['/studio/presenters', `/studio/clips/new?presenter_id=${eileen.id}`, `/studio/clips/${clipId}`, '/studio/clips', '/studio/talks', '/studio/animations']) {
      await page.goto(`${mimic.base}${path}`);
      await page.locator('main h1').waitFor();
      await page.waitForLoadState('networkidle').catch(() => {});
      const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      expect(overflow, path).toBeLessThanOrEqual(0);
      if (path === '/studio/clips') await page.screenshot({ path: screenshot('studio-clips-phone.png'), fullPage: true });
    }

    expect(t.blocked).toEqual([]);
    expect(violations, t.console.join('\n')).toEqual([]);
    expect(t.console.filter((l) => l.startsWith('pageerror'))).toEqual([]);
  }, 900_000);
});
