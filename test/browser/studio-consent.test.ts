/**
 * Recording a consent in the studio, in headless Chromium whose fake camera and microphone
 * play a video the test makes: a person signs in, picks English and writes their name, gets
 * the statement with its passcode, reads it on camera (the embedded Flite voice reading the
 * statement with this consent's name and passcode, over a presenter picture), watches the
 * take, uploads it with a progress bar and sees each check appear live, ending verified. A
 * second consent read with a wrong passcode is refused with the reason in words, and "Record
 * again" starts a new statement. Chromium reads the capture files when a capture starts, so
 * each take is a browser launched with its own files. Screenshots of each page go to
 * docs/images/ with MIMIC_UPDATE_SCREENSHOTS=1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { CHROMIUM_ARGS, launchChromium, launchChromiumWithCapture, openTestPage, useChromium, waitForPage, type TestPage } from '../helpers/browser.ts';
import { startLiveService, type LiveService } from '../helpers/live-service.ts';
import { seedPerson, type Person } from '../helpers/studio.ts';
import { consentVideo, fakeCaptureFiles } from '../helpers/avatar-videos.ts';
import { HEARD } from '../consents/helpers.ts';
import { readConsent } from '../../src/consents/kind.ts';
import { statementOf } from '../../src/consents/create.ts';
import { findLanguage } from '../../src/consents/languages/index.ts';
import { decideReview } from '../../src/consents/review.ts';

const SHOTS = process.env.MIMIC_UPDATE_SCREENSHOTS === '1' ? new URL('../../docs/images/', import.meta.url).pathname : mkdtempSync(join(tmpdir(), 'mimic-studio-shots-'));
const screenshot = (name: string) => join(SHOTS, name);
/** Seconds of still face and silence before the statement: longer than the page's 3 s countdown on a loaded machine. */
const LEAD_SEC = 8;
const chromium = useChromium();
let mimic: LiveService;
let maria: Person;
const work = mkdtempSync(join(tmpdir(), 'mimic-studio-consent-'));
const browsers: Browser[] = [];

beforeAll(async () => {
  mimic = await startLiveService();
  maria = await seedPerson(mimic.running.services, { email: 'maria@example.com', password: 'correct horse battery staple', name: HEARD.name });
});
afterAll(async () => {
  for (const b of browsers) await b.close().catch(() => {});
  await mimic?.close();
  rmSync(work, { recursive: true, force: true });
});

/** Every CSP violation of the page's documents, as `path: directive uri`. */
async function watchCsp(t: TestPage): Promise<string[]> {
  const violations: string[] = [];
  await t.page.exposeFunction('__reportCsp', (v: string) => void violations.push(v));
  await t.page.addInitScript(`addEventListener('securitypolicyviolation', (e) => window.__reportCsp(location.pathname + ': ' + e.violatedDirective + ' ' + e.blockedURI))`);
  return violations;
}

async function signIn(t: TestPage, path: string): Promise<void> {
  await t.page.goto(`${mimic.base}${path}`);
  await t.page.fill('#email', maria.email);
  await t.page.fill('#password', maria.password);
  await t.page.click('button[type=submit]');
  await t.page.waitForURL(`${mimic.base}${path}`);
}

/**
 * The passcode is drawn at random; pocketsphinx hears some words from Flite better than
 * others (docs/speech-checks.md: a random one is verified 96 % of the time, else it goes to
 * an operator), so the test gives this consent the passcode the consent tests use, as they do.
 */
async function choosePasscode(id: string, passcode: readonly string[]): Promise<void> {
  const lifecycle = mimic.running.services.modules.consents.deps.lifecycle;
  const c = readConsent((await lifecycle.getById(id))!);
  await lifecycle.setDetails(id, { ...c.details, passcode: [...passcode], text: statementOf(findLanguage(c.details.language)!, passcode) });
}

/**
 * The statement as the page shows it (its own name field left empty), read from the page
 * after a reload (the passcode chosen above), with the passcode words shown.
 */
async function statementOnPage(t: TestPage): Promise<{ statement: string; passcode: string[] }> {
  await t.page.reload();
  await t.page.locator('#step-record').waitFor({ state: 'visible' });
  return { statement: (await t.page.textContent('#statement'))!, passcode: await shownPasscode(t) };
}

/** A browser whose camera and microphone play `text` read aloud by the language's embedded voice, over a presenter picture (the video made here). */
async function cameraReading(text: string, dir: string, language = 'english') {
  const video = await consentVideo(language === 'english' ? { text, voice: HEARD.voice } : { text, language });
  const files = await fakeCaptureFiles(video, mkdtempSync(join(work, dir)), { leadSec: LEAD_SEC, tailSec: LEAD_SEC + 6 });
  const browser = await launchChromiumWithCapture(files);
  browsers.push(browser);
  return { browser, seconds: files.seconds };
}

/** The page's words of the passcode, as shown (large) on the record step. */
const shownPasscode = (t: TestPage) => t.page.locator('#passcode li').allTextContents();

/**
 * Turns the camera on, records (after the countdown) until the take holds the whole reading,
 * stops, and uploads; answers when the checks are shown.
 */
async function recordAndUpload(t: TestPage, seconds: number, shot?: string): Promise<void> {
  await t.page.click('#camera-on');
  await t.page.locator('#record').waitFor({ state: 'visible' });
  await t.page.click('#record');
  await waitForPage(t, (p) => p.textContent('#countdown'), (s) => s === '3' || s === '2' || s === '1' || s === '', 'the countdown');
  await t.page.locator('#rec-indicator').waitFor({ state: 'visible', timeout: 60_000 });
  // The capture files started with the camera, LEAD_SEC before the reading, and recording
  // started at least the countdown later: at this page clock the whole reading is in the take.
  const stopAt = LEAD_SEC + seconds - 2;
  let loudest = 0;
  let shotTaken = !shot;
  await waitForPage(t, async (p) => {
    const value = (await p.evaluate('document.getElementById("level").value')) as number;
    loudest = Math.max(loudest, value);
    // The page while the voice reads (the level meter up), for the docs.
    if (!shotTaken && value > 40) {
      shotTaken = true;
      await p.screenshot({ path: screenshot(shot!), fullPage: true });
    }
    const [m, sec] = ((await p.textContent('#rec-time')) ?? '0:00').split(':').map(Number);
    return m! * 60 + sec!;
  }, (s) => s >= stopAt, 'the reading recorded', 120_000);
  // The level meter moved with the voice (0 is silence, 100 full scale).
  expect(loudest).toBeGreaterThan(25);
  await t.page.click('#stop');
  await t.page.locator('#playback').waitFor({ state: 'visible' });
  expect(await t.page.locator('#record-error').textContent()).toBe('');
  // The take plays back in the page (a MediaRecorder WebM has no duration until it is read through).
  await waitForPage(t, (p) => p.evaluate('document.getElementById("playback").readyState') as Promise<number>, (n) => n >= 1, 'the take loaded in the player');
  await t.page.click('#upload');
  await t.page.locator('#step-verify').waitFor({ state: 'visible', timeout: 120_000 });
  // The progress bar ran to the end before the checks took over.
  expect(await t.page.evaluate('document.getElementById("upload-bar").value')).toBe(100);
}

describe('recording a consent in the studio', () => {
  it('records the statement with the camera and microphone, uploads it and shows each check live until verified; a wrong passcode is refused with the reason', async () => {
    // 1. The statement: the language and the name, then the passcode, large.
    const a = await chromium.newPage();
    const violations = await watchCsp(a);
    await a.page.setViewportSize({ width: 1000, height: 800 });
    await signIn(a, '/studio/consents');
    await a.page.locator('table[aria-busy="false"]').waitFor();
    expect(await a.page.textContent('#consents-rows')).toContain('No consents yet');
    await a.page.getByRole('link', { name: 'Record a consent' }).click();
    await a.page.waitForURL(`${mimic.base}/studio/consents/new`);
    await waitForPage(a, (p) => p.locator('#consent-language option').count(), (n) => n === 18, 'the 18 languages');
    expect(await a.page.inputValue('#consent-language')).toBe('english');
    expect(await a.page.textContent('#consent-language option[value="english"]')).toContain('checked by speech recognition');
    expect(await a.page.textContent('#consent-language option[value="german"]')).toContain('checked by an operator');
    expect(await a.page.textContent('#language-hint')).toMatch(/speech recognition: English\..*operator.*German/);
    // No name: said beside the field, nothing created.
    await a.page.click('#choose-submit');
    expect(await a.page.textContent('#choose-error')).toContain('full name');
    await a.page.fill('#consent-name', HEARD.name);
    await a.page.screenshot({ path: screenshot('studio-consent-new.png'), fullPage: true });
    await a.page.click('#choose-submit');
    await a.page.waitForURL(/\/studio\/consents\/cns_\w+$/);
    const id = new URL(a.page.url()).pathname.split('/').pop()!;
    await a.page.locator('#step-record').waitFor({ state: 'visible' });
    expect(await a.page.textContent('#statement')).toContain(`I, ${HEARD.name}, agree`);
    const drawn = await shownPasscode(a);
    expect(drawn).toHaveLength(3);
    expect(await a.page.textContent('#statement')).toContain(`My passcode is ${drawn.join(' ')}.`);
    // The passcode's words are large: at least twice the statement's type.
    const [wordPx, textPx] = (await a.page.evaluate(`['#passcode li', '#statement'].map((s) => parseFloat(getComputedStyle(document.querySelector(s)).fontSize))`)) as number[];
    expect(wordPx!).toBeGreaterThanOrEqual(1.4 * textPx!);

    // 2. On the device with the camera: the same consent, its passcode read from the page.
    await choosePasscode(id, HEARD.passcode);
    const first = await statementOnPage(a);
    expect(first.passcode).toEqual(HEARD.passcode);
    const reading = await cameraReading(first.statement.replace('[your name]', HEARD.name), 'right-');
    const b = await openTestPage(reading.browser);
    violations.push(...(await watchCsp(b)));
    await b.page.setViewportSize({ width: 1000, height: 900 });
    await signIn(b, `/studio/consents/${id}`);
    await b.page.locator('#step-record').waitFor({ state: 'visible' });
    expect(await shownPasscode(b)).toEqual(HEARD.passcode);
    await b.page.fill('#record-name', HEARD.name);
    expect(await b.page.textContent('#statement')).toContain(`I, ${HEARD.name}, agree`);
    await recordAndUpload(b, reading.seconds, 'studio-consent-record.png');

    // 3. The checks appear as they are measured, then the verdict.
    // Live: the page is seen part way, some checks passed and the next one running, without a reload.
    const partway = new Set<number>();
    await waitForPage(b, async (p) => {
      const states = (await p.evaluate(`[...document.querySelectorAll('#checks li')].map((e) => e.dataset.state)`)) as string[];
      const passed = states.filter((x) => x === 'passed').length;
      if (passed > 0 && passed < 6 && states.includes('running')) partway.add(passed);
      return p.locator('#outcome').getAttribute('data-state');
    }, (s) => s === 'done' || s === 'refused' || s === 'review', 'the verdict', 420_000);
    expect(partway.size, 'checks seen appearing one by one').toBeGreaterThan(0);
    const checks = (await b.page.evaluate(`[...document.querySelectorAll('#checks li')].map((e) => e.dataset.check + ':' + e.dataset.state)`)) as string[];
    expect(await b.page.getAttribute('#outcome', 'data-state'), `${checks.join(' ')}\n${await b.page.textContent('#outcome')}\n${b.console.join('\n')}`).toBe('done');
    expect(checks).toEqual(['decodes:passed', 'sound:passed', 'one_face:passed', 'facing_camera:passed', 'speech_length:passed', 'words:passed']);
    expect(await b.page.textContent('#outcome-title')).toBe('Verified');
    expect(await b.page.isHidden('#record-again')).toBe(true);
    const rec = await (await fetch(`${mimic.base}/consents/${id}`, { headers: { authorization: `Basic ${maria.key}` } })).json();
    expect(rec).toMatchObject({ status: 'done', name: HEARD.name });
    await b.page.screenshot({ path: screenshot('studio-consent-done.png'), fullPage: true });

    // The list: newest first, the status in words, a filter by status.
    await b.page.goto(`${mimic.base}/studio/consents`);
    await b.page.locator(`#consents-rows tr[data-consent-id="${id}"]`).waitFor();
    expect(await b.page.textContent(`#consents-rows tr[data-consent-id="${id}"]`)).toContain('Verified');
    await b.page.screenshot({ path: screenshot('studio-consents.png'), fullPage: true });

    // 4. A wrong passcode: refused, the reason in words, and "Record again" starts anew.
    await a.page.goto(`${mimic.base}/studio/consents/new`);
    await waitForPage(a, (p) => p.locator('#consent-language option').count(), (n) => n === 18, 'the languages');
    await a.page.fill('#consent-name', HEARD.name);
    await a.page.click('#choose-submit');
    await waitForPage(a, async (p) => new URL(p.url()).pathname, (path) => /\/studio\/consents\/cns_\w+$/.test(path) && !path.endsWith(id), 'the second consent');
    const second = new URL(a.page.url()).pathname.split('/').pop()!;
    await choosePasscode(second, HEARD.passcode);
    const wrong = ['window', 'orange', 'blanket'];
    const shown = await statementOnPage(a);
    const misread = await cameraReading(shown.statement.replace('[your name]', HEARD.name).replace(shown.passcode.join(' '), wrong.join(' ')), 'wrong-');
    const c = await openTestPage(misread.browser);
    violations.push(...(await watchCsp(c)));
    await c.page.setViewportSize({ width: 1000, height: 900 });
    await signIn(c, `/studio/consents/${second}`);
    await c.page.locator('#step-record').waitFor({ state: 'visible' });
    await c.page.fill('#record-name', HEARD.name);
    await recordAndUpload(c, misread.seconds);
    await waitForPage(c, (p) => p.locator('#outcome').getAttribute('data-state'), (s) => s === 'done' || s === 'refused' || s === 'review', 'the verdict', 420_000);
    expect(await c.page.getAttribute('#outcome', 'data-state'), (await c.page.textContent('#step-verify')) ?? '').toBe('refused');
    expect(await c.page.getAttribute('#checks li[data-check="words"]', 'data-state')).toBe('failed');
    expect(await c.page.textContent('#outcome-text')).toMatch(/^We did not hear .*the passcode words? .*Read the statement exactly as shown/);
    expect(await c.page.textContent('#outcome-detail')).toMatch(/passcode word/);
    await c.page.screenshot({ path: screenshot('studio-consent-refused.png'), fullPage: true });
    await c.page.click('#record-again');
    await c.page.locator('#step-record').waitFor({ state: 'visible' });
    await waitForPage(c, async (p) => new URL(p.url()).pathname, (path) => /\/studio\/consents\/cns_\w+$/.test(path) && !path.endsWith(second), 'a third consent');
    expect(await c.page.inputValue('#record-name')).toBe(HEARD.name);
    expect(await shownPasscode(c)).toHaveLength(3);

    expect([...a.blocked, ...b.blocked, ...c.blocked]).toEqual([]);
    expect(violations).toEqual([]);
    for (const t of [a, b, c]) expect(t.console.filter((l) => l.startsWith('pageerror')), t.console.join('\n')).toEqual([]);
  }, 1_200_000);

  it('sends a language without a recogniser to an operator, and shows the decision live when it comes', async () => {
    const a = await chromium.newPage();
    const violations = await watchCsp(a);
    await signIn(a, '/studio/consents/new');
    await waitForPage(a, (p) => p.locator('#consent-language option').count(), (n) => n === 18, 'the languages');
    await a.page.selectOption('#consent-language', 'german');
    await a.page.fill('#consent-name', 'Anna Schmidt');
    await a.page.click('#choose-submit');
    await a.page.locator('#step-record').waitFor({ state: 'visible' });
    const id = new URL(a.page.url()).pathname.split('/').pop()!;
    const statement = (await a.page.textContent('#statement'))!;
    expect(statement).toContain('Anna Schmidt');
    expect(await a.page.getAttribute('#statement', 'lang')).toBe('de');

    const reading = await cameraReading(statement, 'german-', 'german');
    const t = await openTestPage(reading.browser);
    violations.push(...(await watchCsp(t)));
    await t.page.setViewportSize({ width: 1000, height: 900 });
    await signIn(t, `/studio/consents/${id}`);
    await t.page.locator('#step-record').waitFor({ state: 'visible' });
    await t.page.fill('#record-name', 'Anna Schmidt');
    await recordAndUpload(t, reading.seconds);
    await waitForPage(t, (p) => p.locator('#outcome').getAttribute('data-state'), (s) => s === 'review' || s === 'refused' || s === 'done', 'the verdict', 420_000);
    expect(await t.page.getAttribute('#outcome', 'data-state'), (await t.page.textContent('#step-verify')) ?? '').toBe('review');
    expect(await t.page.textContent('#outcome-title')).toBe('Waiting for an operator');
    expect(await t.page.getAttribute('#checks li[data-check="words"]', 'data-state')).toBe('review');
    expect(await t.page.textContent('#outcome-text')).toContain('Speech recognition is not available for this language here');
    await t.page.screenshot({ path: screenshot('studio-consent-review.png'), fullPage: true });

    // The operator approves (mimic consents review): the page, still following, says so.
    const deps = mimic.running.services.modules.consents.deps;
    expect(await decideReview({ lifecycle: deps.lifecycle, clock: deps.clock }, id, 'approve', '')).toBe('approved');
    await waitForPage(t, (p) => p.locator('#outcome').getAttribute('data-state'), (s) => s === 'done', 'the approval shown', 60_000);
    expect(await t.page.textContent('#outcome-title')).toBe('Verified');
    expect([...a.blocked, ...t.blocked]).toEqual([]);
    expect(violations).toEqual([]);
  }, 900_000);

  it('says clearly when the camera is refused or missing, and fits a phone', async () => {
    const made = await (await fetch(`${mimic.base}/consents`, { method: 'POST', headers: { authorization: `Basic ${maria.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ language: 'english' }) })).json() as { id: string };
    // Refused: no fake prompt that says yes (headless Chromium says no); missing: no devices at all.
    const cases = [
      { args: CHROMIUM_ARGS.filter((a) => a !== '--use-fake-ui-for-media-stream'), says: /were refused\. Allow them for this site/ },
      { args: CHROMIUM_ARGS.filter((a) => a !== '--use-fake-device-for-media-stream'), says: /No camera and no microphone were found\. Connect one/ },
    ];
    for (const { args, says } of cases) {
      const browser = await launchChromium(args);
      browsers.push(browser);
      const t = await openTestPage(browser);
      await signIn(t, `/studio/consents/${made.id}`);
      await t.page.locator('#step-record').waitFor({ state: 'visible' });
      await t.page.click('#camera-on');
      await waitForPage(t, (p) => p.textContent('#record-error'), (s) => !!s, 'the camera refused');
      expect(await t.page.textContent('#record-error')).toMatch(says);
      expect(await t.page.isVisible('#camera-on')).toBe(true);
      expect(await t.page.isHidden('#record')).toBe(true);
      await browser.close();
    }

    const t = await chromium.newPage();
    await t.page.setViewportSize({ width: 360, height: 740 });
    await signIn(t, '/studio/consents');
    for (const path of ['/studio/consents', '/studio/consents/new', `/studio/consents/${made.id}`]) {
      await t.page.goto(`${mimic.base}${path}`);
      await t.page.locator('main h1').waitFor();
      await waitForPage(t, (p) => p.evaluate('[...document.querySelectorAll("section.panel")].some((s) => !s.hidden) || !!document.querySelector("table[aria-busy=false]")'), (v) => v === true, `${path} ready`);
      const overflow = await t.page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      expect(overflow, path).toBeLessThanOrEqual(0);
    }
    await t.page.screenshot({ path: screenshot('studio-consent-phone.png'), fullPage: true });
  }, 300_000);
});
