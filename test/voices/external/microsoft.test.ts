import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CANARY } from '../../helpers/canaries.ts';
import { createMicrosoftProvider } from '../../../src/voices/external/index.ts';
import { parseProviders, type MicrosoftConfig } from '../../../src/voices/settings.ts';
import { failure, json, leaksOf, sine, vendorWorld, wavOf, type VendorWorld } from './vendor.ts';

/** Azure Speech's REST wire format, served on loopback: the voice list and SSML synthesis. */
let w: VendorWorld;
let keySecret: string;
let config: MicrosoftConfig;

const AZURE_VOICES = [
  {
    Name: 'Microsoft Server Speech Text to Speech Voice (en-US, JennyNeural)', DisplayName: 'Jenny', LocalName: 'Jenny', ShortName: 'en-US-JennyNeural',
    Gender: 'Female', Locale: 'en-US', LocaleName: 'English (United States)', StyleList: ['assistant', 'chat'], SampleRateHertz: '24000', VoiceType: 'Neural', Status: 'GA',
  },
  {
    Name: 'Microsoft Server Speech Text to Speech Voice (de-DE, ConradNeural)', DisplayName: 'Conrad', ShortName: 'de-DE-ConradNeural',
    Gender: 'Male', Locale: 'de-DE', LocaleName: 'German (Germany)', SecondaryLocaleList: ['fr-FR'], VoiceType: 'Neural',
  },
  { ShortName: 'en-US-NeutralNeural', DisplayName: 'Neutral', Gender: 'Neutral', Locale: 'en-US' },
];

beforeAll(async () => {
  w = await vendorWorld();
  keySecret = await w.secret({ type: 'api_key', provider: 'azure', api_key: CANARY.apiKey });
});
afterAll(async () => w.close());
beforeEach(() => {
  w.vendor.received.length = 0;
  config = parseProviders(JSON.stringify([{ type: 'microsoft', region: 'westeurope', secret_id: keySecret, base_url: w.vendor.url, timeout_ms: 1000 }]))[0] as MicrosoftConfig;
  w.vendor.handle((req, res) => {
    if (req.method === 'GET' && req.path === '/cognitiveservices/voices/list') return json(res, 200, AZURE_VOICES);
    if (req.method === 'POST' && req.path === '/cognitiveservices/v1') return void res.writeHead(200, { 'content-type': 'audio/x-wav' }).end(wavOf(sine(500)));
    json(res, 404, { error: 'no route' });
  });
});

describe('microsoft voices', () => {
  it('lists the voices of the region, with languages, gender and styles, sending the key in Ocp-Apim-Subscription-Key', async () => {
    const voices = await createMicrosoftProvider(config, w.deps).voices();
    expect(voices).toEqual([
      {
        id: 'en-US-JennyNeural', name: 'Jenny', gender: 'female', provider: 'microsoft', access: 'public',
        languages: [{ language: 'English', locale: 'en-US' }], styles: ['assistant', 'chat'], description: 'English (United States), Neural',
      },
      {
        id: 'de-DE-ConradNeural', name: 'Conrad', gender: 'male', provider: 'microsoft', access: 'public',
        languages: [{ language: 'German', locale: 'de-DE' }, { language: 'French', locale: 'fr-FR' }], styles: [], description: 'German (Germany), Neural',
      },
    ]);
    const [req] = w.vendor.received;
    expect(req!.headers['ocp-apim-subscription-key']).toBe(CANARY.apiKey);
    expect(req!.headers['x-api-key']).toBeUndefined();
    expect(req!.headers.authorization).toBeUndefined();
  });

  it('synthesizes: SSML with the voice and the text escaped, the documented headers, WAV decoded to 24 kHz PCM', async () => {
    const speech = await createMicrosoftProvider(config, w.deps).synthesize({ text: 'Fish & chips <now> "quoted"', voiceId: 'en-US-JennyNeural' });
    expect(speech.sampleRate).toBe(24_000);
    expect(speech.pcm).toEqual(sine(500));
    expect(speech.durationMs).toBe(500);
    expect(speech.voice).toEqual({ provider: 'microsoft', voiceId: 'en-US-JennyNeural' });
    const [req] = w.vendor.received;
    expect(req!.headers['content-type']).toBe('application/ssml+xml');
    expect(req!.headers['x-microsoft-outputformat']).toBe('riff-24khz-16bit-mono-pcm');
    expect(req!.headers['user-agent']).toBe('mimic');
    expect(req!.headers['ocp-apim-subscription-key']).toBe(CANARY.apiKey);
    expect(req!.body.toString()).toBe(
      "<speak version='1.0' xmlns='http://www.w3.org/2001/10/synthesis' xml:lang='en-US'><voice name='en-US-JennyNeural'>Fish &amp; chips &lt;now&gt; &quot;quoted&quot;</voice></speak>",
    );
  });

  it("puts a script's SSML inside its own <speak><voice>, and a rate as a prosody percentage", async () => {
    const p = createMicrosoftProvider(config, w.deps);
    await p.synthesize({ text: "<speak>Hello <break time='500ms'/> <prosody rate='slow'>world</prosody></speak>", voiceId: 'de-DE-ConradNeural', ssml: true, rate: 1.5 });
    expect(w.vendor.received[0]!.body.toString()).toBe(
      "<speak version='1.0' xmlns='http://www.w3.org/2001/10/synthesis' xml:lang='de-DE'><voice name='de-DE-ConradNeural'><prosody rate='+50.00%'>Hello <break time='500ms'/> <prosody rate='slow'>world</prosody></prosody></voice></speak>",
    );
  });

  it('refuses broken SSML and voice names that cannot be a voice before calling', async () => {
    const p = createMicrosoftProvider(config, w.deps);
    for (const text of ['<speak>Hello <b>world</speak>', '<speak><voice name="x">hi</voice></speak>', 'a & b', '<!DOCTYPE x><speak>hi</speak>']) {
      expect((await failure(p.synthesize({ text, voiceId: 'en-US-JennyNeural', ssml: true }))).reason).toBe('invalid-ssml');
    }
    expect((await failure(p.synthesize({ text: 'hi', voiceId: "x' onload='y" }))).reason).toBe('unknown-voice');
    expect(w.vendor.received).toHaveLength(0);
  });

  it('sends a long text in pieces and joins the audio', async () => {
    const text = Array.from({ length: 400 }, (_, i) => `Sentence number ${i}.`).join(' ');
    const speech = await createMicrosoftProvider(config, w.deps).synthesize({ text, voiceId: 'en-US-JennyNeural' });
    expect(w.vendor.received.length).toBeGreaterThan(1);
    expect(speech.pcm.length).toBe(sine(500).length * w.vendor.received.length);
    const sent = w.vendor.received.map((r) => /<voice[^>]*>(.*)<\/voice>/.exec(r.body.toString())![1]).join(' ');
    expect(sent).toBe(text);
  });

  it('maps vendor failures to vendor errors naming microsoft and the status, never the key', async () => {
    const p = createMicrosoftProvider(config, w.deps);
    const errors = [];
    for (const [status, message] of [[401, /refused the credential of secret sec_.*HTTP 401/], [429, /rate limiting.*HTTP 429/], [502, /failed .*HTTP 502/], [400, /refused the synthesis request \(HTTP 400\)/]] as const) {
      // The vendor quotes the key back, in its body and a header.
      w.vendor.handle((req, res) => {
        res.writeHead(status, { 'content-type': 'text/plain', 'x-echo': String(req.headers['ocp-apim-subscription-key']) }).end(`bad key ${String(req.headers['ocp-apim-subscription-key'])}`);
      });
      const err = await failure(p.synthesize({ text: 'hi there', voiceId: 'en-US-JennyNeural' }));
      expect(err.reason).toBe('vendor');
      expect(err.message).toMatch(/^microsoft /);
      expect(err.message).toMatch(message);
      errors.push(err);
    }
    w.vendor.handle((_req, res) => void res.writeHead(200, { 'content-type': 'audio/x-wav' }).end('not a wav at all'));
    const bad = await failure(p.synthesize({ text: 'hi there', voiceId: 'en-US-JennyNeural' }));
    expect(bad.message).toMatch(/microsoft sent audio that is not 16-bit PCM WAV/);
    expect(leaksOf(...errors, bad)).toEqual([]);
  });

  it('times out cleanly', async () => {
    w.vendor.handle(() => undefined); // never answers
    const err = await failure(createMicrosoftProvider(config, w.deps).synthesize({ text: 'hi there', voiceId: 'en-US-JennyNeural' }));
    expect(err.reason).toBe('vendor');
    expect(err.message).toBe('microsoft synthesis: the vendor did not answer within 1000 ms');
  });
});
