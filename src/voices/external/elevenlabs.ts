import { SpeechError, type CloneRequest, type Gender, type Speech, type SpeechRequest, type TimedWord, type Voice, type VoiceProvider } from '../interface.ts';
import type { ElevenLabsConfig } from '../settings.ts';
import { joinSpeech, languageName, pcmFromLittleEndian, splitText, type Pcm } from './audio.ts';
import { vendorVoiceList } from './cache.ts';
import { callVendor, formBody, jsonOf, MAX_AUDIO_BYTES, type ExternalDeps } from './http.ts';
import { readSample } from './sample.ts';
import { plainText } from './ssml.ts';

/**
 * ElevenLabs (elevenlabs.io/docs/api-reference):
 *  - voices: GET {base}/v1/voices with `xi-api-key`; `{voices: [{voice_id, name, labels}]}`.
 *  - speech: POST {base}/v1/text-to-speech/{voice_id}/with-timestamps ("Create speech with
 *    timing") with `{text, model_id}`; it answers `{audio_base64, alignment: {characters,
 *    character_start_times_seconds, character_end_times_seconds}}`, so words get their times.
 *    `output_format=pcm_24000` makes the audio raw 16-bit little-endian PCM at 24 kHz.
 *  - cloning: POST {base}/v1/voices/add ("Add voice", instant voice cloning), multipart/form-data
 *    with `name`, `files` (one part: the sample), `description` and `labels` (a JSON object:
 *    gender, language); it answers `{voice_id, requires_verification}`. DELETE {base}/v1/voices/{voice_id}
 *    deletes a clone again.
 * ElevenLabs takes no SSML: an SSML script is reduced to its text. `rate` is not sent (see
 * docs/voices-external.md).
 */

const OUTPUT_FORMAT = 'pcm_24000';
const SAMPLE_RATE = 24_000;
/** Characters per request: inside every current model's per-request limit. */
const PIECE_CHARS = 2500;
const VOICE_ID = /^[A-Za-z0-9_-]{1,100}$/;
/** Longest voice name and description sent (mimic's caps; longer ones are cut). */
const NAME_CHARS = 100;
const DESCRIPTION_CHARS = 500;
/** Largest answer read from the cloning call (a small JSON object). */
const MAX_CLONE_ANSWER_BYTES = 64 * 1024;

interface ElevenVoice {
  voice_id?: unknown;
  name?: unknown;
  labels?: Record<string, unknown> | null;
}

function toVoice(v: ElevenVoice): Voice | null {
  const labels = v.labels ?? {};
  const gender = typeof labels.gender === 'string' ? labels.gender.toLowerCase() : '';
  if (typeof v.voice_id !== 'string' || (gender !== 'male' && gender !== 'female')) return null;
  // Assumption (documented): a voice without a language label speaks English, the language of ElevenLabs' premade voices.
  const locale = typeof labels.language === 'string' && /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/.test(labels.language) ? labels.language : 'en';
  const described = [labels.accent, labels.description, labels.age].filter((s): s is string => typeof s === 'string');
  return {
    id: v.voice_id,
    name: typeof v.name === 'string' ? v.name : v.voice_id,
    gender: gender as Gender,
    provider: 'elevenlabs',
    access: 'public',
    languages: [{ language: languageName(locale), locale }],
    styles: typeof labels.use_case === 'string' ? [labels.use_case] : [],
    ...(described.length ? { description: described.join(', ') } : {}),
  };
}

/** Words from per-character times (seconds): runs of non-space characters, in whole milliseconds. Empty when the alignment is malformed. */
export function wordsOfAlignment(alignment: unknown): TimedWord[] {
  const a = (alignment ?? {}) as { characters?: unknown; character_start_times_seconds?: unknown; character_end_times_seconds?: unknown };
  const chars = a.characters;
  const starts = a.character_start_times_seconds;
  const ends = a.character_end_times_seconds;
  if (!Array.isArray(chars) || !Array.isArray(starts) || !Array.isArray(ends) || starts.length !== chars.length || ends.length !== chars.length) return [];
  const words: TimedWord[] = [];
  let current: TimedWord | null = null;
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i];
    const start = starts[i];
    const end = ends[i];
    if (typeof ch !== 'string' || typeof start !== 'number' || typeof end !== 'number') return [];
    if (/^\s*$/.test(ch)) {
      current = null;
      continue;
    }
    if (!current) {
      current = { text: '', startMs: Math.round(start * 1000), endMs: 0 };
      words.push(current);
    }
    current.text += ch;
    current.endMs = Math.round(end * 1000);
  }
  return words;
}

export function createElevenLabsProvider(config: ElevenLabsConfig, deps: ExternalDeps): VoiceProvider {
  const base = { provider: 'elevenlabs' as const, secretId: config.secretId };

  const voices = vendorVoiceList<ElevenVoice>(deps, {
    ...base, url: `${config.baseUrl}/v1/voices`,
    entries: (body) => {
      const list = (body as { voices?: unknown } | null)?.voices;
      return Array.isArray(list) ? list : undefined;
    },
    shape: 'an object with a voices array', toVoice,
  });

  async function speak(request: SpeechRequest, text: string): Promise<{ audio: Pcm; words: TimedWord[] }> {
    const res = await callVendor(deps, {
      ...base, what: 'synthesis', method: 'POST',
      url: `${config.baseUrl}/v1/text-to-speech/${encodeURIComponent(request.voiceId)}/with-timestamps?output_format=${OUTPUT_FORMAT}`,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ text, model_id: config.modelId }),
      timeoutMs: config.timeoutMs, maxBytes: MAX_AUDIO_BYTES, signal: request.signal, notFoundIsUnknownVoice: request.voiceId,
    });
    const body = jsonOf(res, 'elevenlabs', 'synthesis') as { audio_base64?: unknown; alignment?: unknown } | null;
    if (!body || typeof body.audio_base64 !== 'string') throw new SpeechError('vendor', 'elevenlabs sent a synthesis answer without audio_base64');
    return { audio: { pcm: pcmFromLittleEndian(Buffer.from(body.audio_base64, 'base64')), sampleRate: SAMPLE_RATE }, words: wordsOfAlignment(body.alignment) };
  }

  async function clone(request: CloneRequest): Promise<{ voiceId: string }> {
    const name = request.name.trim().slice(0, NAME_CHARS);
    if (!name) throw new SpeechError('invalid-sample', 'a cloned voice needs a name');
    const sample = await readSample(request.samplePath);
    const language = request.locale && /^([a-z]{2,3})(-|$)/i.exec(request.locale)?.[1]?.toLowerCase();
    const labels = { ...(request.gender ? { gender: request.gender } : {}), ...(language ? { language } : {}) };
    const description = request.description?.trim().slice(0, DESCRIPTION_CHARS);
    const form = await formBody(
      { name, ...(description ? { description } : {}), ...(Object.keys(labels).length ? { labels: JSON.stringify(labels) } : {}) },
      [{ field: 'files', filename: `sample.${sample.format}`, contentType: sample.contentType, bytes: sample.bytes }],
    );
    const res = await callVendor(deps, {
      ...base, what: 'voice cloning', method: 'POST', url: `${config.baseUrl}/v1/voices/add`,
      headers: { 'content-type': form.contentType, accept: 'application/json' }, body: form.body,
      timeoutMs: config.timeoutMs, maxBytes: MAX_CLONE_ANSWER_BYTES, signal: request.signal, text: true,
    });
    // A 2xx means the voice exists at the vendor now, whatever follows: the next list must show it.
    voices.invalidate();
    const answer = jsonOf(res, 'elevenlabs', 'voice cloning') as { voice_id?: unknown; requires_verification?: unknown } | null;
    const voiceId = answer?.voice_id;
    if (typeof voiceId !== 'string' || !VOICE_ID.test(voiceId)) throw new SpeechError('vendor', 'elevenlabs sent a voice cloning answer without a usable voice_id');
    if (answer?.requires_verification === true) {
      // mimic cannot do the vendor's verification, so the voice would never speak: take it away again, best effort.
      const removed = await deleteClone(voiceId).then(() => true, () => false);
      throw new SpeechError('vendor', `elevenlabs requires voice ${voiceId} to be verified before it speaks, which mimic cannot do; ${removed ? 'the voice was deleted again' : 'deleting it failed, so it is still in the ElevenLabs account'}`);
    }
    return { voiceId };
  }

  async function deleteClone(voiceId: string, signal?: AbortSignal): Promise<void> {
    if (!VOICE_ID.test(voiceId)) throw new SpeechError('unknown-voice', `elevenlabs has no voice ${JSON.stringify(voiceId.slice(0, 100))}`);
    await callVendor(deps, {
      ...base, what: 'voice deletion', method: 'DELETE', url: `${config.baseUrl}/v1/voices/${encodeURIComponent(voiceId)}`,
      headers: { accept: 'application/json' }, timeoutMs: config.timeoutMs, maxBytes: MAX_CLONE_ANSWER_BYTES, signal, accept: [404],
    });
    voices.invalidate();
  }

  return {
    type: 'elevenlabs',
    voices,
    clone,
    deleteClone,
    async synthesize(request): Promise<Speech> {
      if (!VOICE_ID.test(request.voiceId)) throw new SpeechError('unknown-voice', `elevenlabs has no voice ${JSON.stringify(request.voiceId.slice(0, 100))}`);
      const parts = [];
      for (const piece of splitText(plainText(request.text, request.ssml), PIECE_CHARS)) parts.push(await speak(request, piece));
      return joinSpeech(parts, { provider: 'elevenlabs', voiceId: request.voiceId }, 'elevenlabs');
    },
  };
}
