import { SpeechError, type Speech, type SpeechRequest, type Voice, type VoiceProvider } from '../interface.ts';
import type { MicrosoftConfig } from '../settings.ts';
import { decodeWav, joinSpeech, languageName, splitText } from './audio.ts';
import { vendorVoiceList } from './cache.ts';
import { callVendor, MAX_AUDIO_BYTES, type ExternalDeps } from './http.ts';
import { escapeXml, parseSsml } from './ssml.ts';

/**
 * Azure AI Speech, text to speech REST API (learn.microsoft.com, "Text to speech REST API"):
 *  - voices: GET https://{region}.tts.speech.microsoft.com/cognitiveservices/voices/list with
 *    the resource key in `Ocp-Apim-Subscription-Key`; a JSON array of voices with ShortName,
 *    DisplayName, Gender, Locale, LocaleName, optional StyleList and SecondaryLocaleList.
 *  - speech: POST .../cognitiveservices/v1 with an SSML body, `Content-Type:
 *    application/ssml+xml`, `X-Microsoft-OutputFormat` and a `User-Agent` (both required);
 *    `riff-24khz-16bit-mono-pcm` answers a WAV file. Audio longer than 10 minutes is cut,
 *    so long plain text is sent in pieces.
 */

const OUTPUT_FORMAT = 'riff-24khz-16bit-mono-pcm';
const USER_AGENT = 'mimic';
/** Characters of plain text per request: a few minutes of speech, well inside the 10-minute cap. */
const PIECE_CHARS = 3000;
/** A voice's ShortName (en-US-JennyNeural) or a custom voice's name: what may go in the SSML attribute. */
const VOICE_NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/;

interface AzureVoice {
  ShortName?: unknown;
  DisplayName?: unknown;
  Gender?: unknown;
  Locale?: unknown;
  LocaleName?: unknown;
  StyleList?: unknown;
  SecondaryLocaleList?: unknown;
  VoiceType?: unknown;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

/** One entry of the list, or null for one mimic cannot offer (no name, or a gender other than male or female). */
function toVoice(v: AzureVoice): Voice | null {
  const gender = typeof v.Gender === 'string' ? v.Gender.toLowerCase() : '';
  if (typeof v.ShortName !== 'string' || typeof v.Locale !== 'string' || (gender !== 'male' && gender !== 'female')) return null;
  const locales = [v.Locale, ...strings(v.SecondaryLocaleList)];
  return {
    id: v.ShortName,
    name: typeof v.DisplayName === 'string' ? v.DisplayName : v.ShortName,
    gender,
    provider: 'microsoft',
    access: 'public',
    languages: locales.map((locale) => ({ language: languageName(locale), locale })),
    styles: strings(v.StyleList),
    ...(typeof v.LocaleName === 'string' ? { description: `${v.LocaleName}${typeof v.VoiceType === 'string' ? `, ${v.VoiceType}` : ''}` } : {}),
  };
}

/** A rate relative to 1 as SSML's relative percentage ("+50.00%"). */
const ratePercent = (rate: number) => `${rate >= 1 ? '+' : ''}${((rate - 1) * 100).toFixed(2)}%`;

/** The SSML document Azure takes: the voice named by the request, the content escaped (or the script's SSML inside). */
export function azureSsml(request: SpeechRequest, content: string): string {
  const lang = /^([a-z]{2,3}-[A-Za-z0-9]{2,8})-/.exec(request.voiceId)?.[1] ?? 'en-US';
  const spoken = request.rate !== undefined && Number.isFinite(request.rate) && request.rate > 0 && request.rate !== 1 ? `<prosody rate='${ratePercent(request.rate)}'>${content}</prosody>` : content;
  return `<speak version='1.0' xmlns='http://www.w3.org/2001/10/synthesis' xml:lang='${lang}'><voice name='${escapeXml(request.voiceId)}'>${spoken}</voice></speak>`;
}

export function createMicrosoftProvider(config: MicrosoftConfig, deps: ExternalDeps): VoiceProvider {
  const base = { provider: 'microsoft' as const, secretId: config.secretId };

  const voices = vendorVoiceList<AzureVoice>(deps, {
    ...base, url: `${config.baseUrl}/cognitiveservices/voices/list`,
    entries: (body) => (Array.isArray(body) ? body : undefined), shape: 'a JSON array', toVoice,
  });

  async function speak(request: SpeechRequest, content: string) {
    const res = await callVendor(deps, {
      ...base, what: 'synthesis', method: 'POST', url: `${config.baseUrl}/cognitiveservices/v1`,
      headers: { 'content-type': 'application/ssml+xml', 'x-microsoft-outputformat': OUTPUT_FORMAT, 'user-agent': USER_AGENT },
      body: azureSsml(request, content), timeoutMs: config.timeoutMs, maxBytes: MAX_AUDIO_BYTES, signal: request.signal,
    });
    return { audio: decodeWav(res.body, 'microsoft'), words: [] };
  }

  return {
    type: 'microsoft',
    voices,
    async synthesize(request): Promise<Speech> {
      if (!VOICE_NAME.test(request.voiceId)) throw new SpeechError('unknown-voice', `microsoft has no voice named ${JSON.stringify(request.voiceId.slice(0, 100))}`);
      // SSML goes whole (a document cannot be cut safely); plain text in pieces.
      const contents = request.ssml ? [parseSsml(request.text).inner] : splitText(request.text, PIECE_CHARS).map(escapeXml);
      const parts = [];
      for (const content of contents) parts.push(await speak(request, content));
      return joinSpeech(parts, { provider: 'microsoft', voiceId: request.voiceId }, 'microsoft');
    },
  };
}
