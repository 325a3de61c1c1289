/**
 * Measures the consent speech checks (docs/speech-checks.md): Flite voices read the consent
 * statement with a few passcodes, pocketsphinx transcribes, matchConsent scores against the
 * right statement, another name, another passcode; a different sentence is scored too.
 * Then voice activity on a sentence + 30 s of silence or low noise, and a 5-minute file.
 *
 *   node --import tsx bench/speech-checks.ts [match|vad|all]
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir, cpus } from 'node:os';
import { join } from 'node:path';
import { createFliteProvider } from '../src/voices/flite/index.ts';
import { int16Wav } from '../src/speaking/speech.ts';
import { FFMPEG_PATH, runFfmpeg } from '../src/media/ffmpeg.ts';
import { availableRecognisers } from '../src/footage/recognition/index.ts';
import { matchConsent } from '../src/consents/match.ts';
import { detectSpeech } from '../src/footage/vad.ts';
import { detectSound } from '../src/footage/silence.ts';

const statement = (name: string, code: string) =>
  `I, ${name}, agree that the owner of this account may use my face and my voice to create a digital avatar of me with mimic. I am recording this video of my own free will. My passcode is ${code}.`;
const OTHER = 'The weather in the mountains was cold and bright all week, so we walked along the river every morning and cooked dinner by the fire while the children played games and told long stories until late.';
const PASSCODES = ['garden pencil river', 'window orange blanket', 'candle market silver', 'rabbit yellow ladder'];
const VOICES = ['en-US-flite-slt', 'en-GB-flite-awb', 'en-US-flite-rms', 'en-US-flite-kal'];

const mode = process.argv[2] ?? 'all';
const dir = await mkdtemp(join(tmpdir(), 'speech-checks-'));
const flite = createFliteProvider();
const speak = async (voiceId: string, text: string, file: string) => {
  const s = await flite.synthesize({ text, voiceId });
  await writeFile(file, int16Wav(s.pcm, s.sampleRate));
  return s.durationMs / 1000;
};
console.log(`CPU: ${cpus()[0]?.model} x${cpus().length}`);

if (mode === 'match' || mode === 'all') {
  const [recogniser] = availableRecognisers();
  if (!recogniser) throw new Error('pocketsphinx is not installed: node scripts/ensure-pocketsphinx.mjs');
  const fmt = (m: ReturnType<typeof matchConsent>) => `${m.similarity.toFixed(2)} name=${m.nameFound ? 'y' : 'n'} code=${m.passcodeFound.map((f) => (f ? 'y' : 'n')).join('')} ${m.passed ? 'PASS' : 'fail'}`;
  for (const voice of VOICES) {
    const other = join(dir, `${voice}-other.wav`);
    await speak(voice, OTHER, other);
    const otherText = (await recogniser.transcribe(other)).text;
    for (const [i, code] of PASSCODES.entries()) {
      const wav = join(dir, `${voice}-${i}.wav`);
      await speak(voice, statement('Maria Lopez', code), wav);
      const t0 = performance.now();
      const { text } = await recogniser.transcribe(wav);
      const ms = performance.now() - t0;
      const want = { statement: statement('Maria Lopez', code), name: 'Maria Lopez', passcode: code.split(' '), language: 'english' };
      const otherCode = PASSCODES[(i + 1) % PASSCODES.length]!;
      console.log(`${voice} "${code}" (${Math.round(ms)} ms): ${text}`);
      console.log(`  a same:          ${fmt(matchConsent(text, want))}`);
      console.log(`  b John Smith:    ${fmt(matchConsent(text, { ...want, statement: statement('John Smith', code), name: 'John Smith' }))}`);
      console.log(`  c "${otherCode}": ${fmt(matchConsent(text, { ...want, statement: statement('Maria Lopez', otherCode), passcode: otherCode.split(' ') }))}`);
      console.log(`  d other sentence: ${fmt(matchConsent(otherText, want))}`);
    }
    console.log(`${voice} other sentence: ${otherText}`);
  }
}

if (mode === 'vad' || mode === 'all') {
  const sentence = join(dir, 'sentence.wav');
  const seconds = await speak('en-US-flite-slt', statement('Maria Lopez', 'garden pencil river'), sentence);
  const tail = (name: string, source: string) => runFfmpeg(['-y', '-loglevel', 'error', '-i', sentence, '-f', 'lavfi', '-t', '30', '-i', source,
    '-filter_complex', '[0:a][1:a]concat=n=2:v=0:a=1', '-ar', '16000', '-ac', '1', join(dir, name)]);
  await tail('silence.wav', 'anullsrc=r=16000:cl=mono');
  await tail('noise.wav', 'anoisesrc=r=16000:a=0.003:c=pink');
  // 5 minutes: the sentence over and over for 4.5 minutes, then 30 s of low noise.
  await runFfmpeg(['-y', '-loglevel', 'error', '-stream_loop', '-1', '-i', sentence, '-f', 'lavfi', '-t', '30', '-i', 'anoisesrc=r=16000:a=0.003:c=pink',
    '-filter_complex', '[0:a]atrim=0:270[s];[s][1:a]concat=n=2:v=0:a=1', '-ar', '16000', '-ac', '1', join(dir, 'five.wav')]);
  console.log(`sentence: ${seconds.toFixed(2)} s (ffmpeg ${FFMPEG_PATH})`);
  for (const name of ['silence.wav', 'noise.wav', 'five.wav']) {
    let t0 = performance.now();
    const v = await detectSpeech(join(dir, name));
    const vadMs = performance.now() - t0;
    // The event loop's longest stall while the VAD runs (it should stay small: the model is in a worker).
    t0 = performance.now();
    const s = await detectSound(join(dir, name));
    const soundMs = performance.now() - t0;
    console.log(`${name}: silero lastSpeechEnd ${v.lastSpeechEndSec} s speech ${v.speechSec} s of ${v.durationSec} s (${v.spans.length} spans, ${Math.round(vadMs)} ms); silencedetect lastSoundEnd ${s.lastSpeechEndSec} s (${Math.round(soundMs)} ms)`);
  }
  let longest = 0;
  let last = performance.now();
  const tick = setInterval(() => { const now = performance.now(); longest = Math.max(longest, now - last); last = now; }, 10);
  await detectSpeech(join(dir, 'five.wav'));
  clearInterval(tick);
  console.log(`five.wav again (model warm), longest event-loop gap meanwhile: ${Math.round(longest)} ms`);
}

await flite.close?.();
await rm(dir, { recursive: true, force: true });
