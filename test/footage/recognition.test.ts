/**
 * The recognisers: pocketsphinx (installed by the global setup, scripts/ensure-pocketsphinx.mjs)
 * transcribes Flite speech of the consent statement well enough for matchConsent to pass it,
 * and a wrong name to fail; missing binaries or models leave no recogniser.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableRecognisers, recogniserFor } from '../../src/footage/recognition/index.ts';
import { parseHypotheses } from '../../src/footage/recognition/pocketsphinx.ts';
import { extractAudio } from '../../src/footage/audio.ts';
import { matchConsent } from '../../src/consents/match.ts';
import { ffmpeg, speak, statement, workDir } from './speech-fixtures.ts';

let dir: string;
let cleanup: () => Promise<void>;
const TEXT = statement('Maria Lopez', 'garden pencil river');

beforeAll(async () => {
  ({ dir, cleanup } = await workDir());
  await speak(TEXT, join(dir, 'flite.wav'), 'en-US-flite-rms');
  // As a consent video carries it: in an mp4 with AAC at 44.1 kHz stereo, then extracted.
  await ffmpeg(['-f', 'lavfi', '-i', 'color=c=gray:size=160x120:rate=10', '-i', join(dir, 'flite.wav'), '-shortest', '-c:v', 'libx264', '-pix_fmt', 'yuv420p',
    '-c:a', 'aac', '-ar', '44100', '-ac', '2', join(dir, 'consent.mp4')]);
  await extractAudio(join(dir, 'consent.mp4'), join(dir, 'consent.wav'));
});
afterAll(() => cleanup());

describe('availableRecognisers', () => {
  it('has pocketsphinx for English here, and nothing when its binary or model is missing', () => {
    const found = availableRecognisers();
    expect(found.map((r) => r.name)).toEqual(['pocketsphinx']);
    expect(found[0]!.languages).toEqual(['english']);
    expect(recogniserFor('English', found)?.name).toBe('pocketsphinx');
    expect(recogniserFor('german', found)).toBeUndefined();
    expect(availableRecognisers({ pocketsphinxBin: '/nonexistent/pocketsphinx_continuous' })).toEqual([]);
    expect(availableRecognisers({ modelDir: '/nonexistent/model' })).toEqual([]);
  });
});

describe('pocketsphinx', () => {
  it('transcribes the consent statement from a video well enough to pass it, and not for another name', async () => {
    const [recogniser] = availableRecognisers();
    const { text } = await recogniser!.transcribe(join(dir, 'consent.wav'));
    expect(text).toMatch(/pencil river/);
    const expected = { statement: TEXT, name: 'Maria Lopez', passcode: ['garden', 'pencil', 'river'], language: 'english' };
    const match = matchConsent(text, expected);
    expect(match.passed, `${text}\n${match.details}`).toBe(true);
    expect(matchConsent(text, { ...expected, statement: statement('John Smith', 'garden pencil river'), name: 'John Smith' }).passed).toBe(false);
  });

  it('stops when aborted; fails clearly when the binary cannot run', async () => {
    const [recogniser] = availableRecognisers();
    const controller = new AbortController();
    const running = recogniser!.transcribe(join(dir, 'flite.wav'), controller.signal);
    controller.abort(new Error('stop'));
    await expect(running).rejects.toThrow('stop');
    const { createPocketsphinx } = await import('../../src/footage/recognition/pocketsphinx.ts');
    await expect(createPocketsphinx({ bin: '/nonexistent/pocketsphinx' }).transcribe(join(dir, 'flite.wav'))).rejects.toThrow(/could not start/);
    await expect(recogniser!.transcribe(join(dir, 'missing.wav'))).rejects.toThrow(/pocketsphinx failed/);
  });
});

describe('pocketsphinx listenFor (the grammar pass)', () => {
  it('hears the expected name and passcode in their slots, and not a passcode that was not said', async () => {
    const [recogniser] = availableRecognisers();
    const others = { name: ['john', 'smith', 'anna', 'window'], passcode: ['window', 'orange', 'candle', 'garden', 'pencil', 'river', 'market'] };
    const right = await recogniser!.listenFor!(join(dir, 'consent.wav'), { statement: TEXT, name: 'Maria Lopez', passcode: ['garden', 'pencil', 'river'] }, others);
    expect(right, right.text).toMatchObject({ nameWordsFound: [true, true], passcodeFound: [true, true, true] });
    const wrong = await recogniser!.listenFor!(join(dir, 'consent.wav'), { statement: statement('Maria Lopez', 'window orange candle'), name: 'Maria Lopez', passcode: ['window', 'orange', 'candle'] }, others);
    expect(wrong.passcodeFound, wrong.text).toEqual([false, false, false]);
  });

  it('is offered only with pocketsphinx_batch installed', () => {
    expect(availableRecognisers()[0]!.listenFor).toBeTypeOf('function');
    expect(availableRecognisers({ batchBin: '/nonexistent/pocketsphinx_batch' })[0]!.listenFor).toBeUndefined();
  });
});

describe('parseHypotheses', () => {
  it('joins the utterance lines and drops log lines and pronunciation variant marks', () => {
    expect(parseHypotheses('INFO: cmd_ln.c(702): Parsing command line:\nhello world\n\nmy pass code(2) is\nREADY....\n')).toBe('hello world my pass code is');
  });
});
