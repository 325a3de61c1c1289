import type { Route } from '../platform/module.ts';
import { VoiceList } from './schemas.ts';
import { PROVIDER_TYPES } from './interface.ts';
import type { VoiceCatalogue } from './catalogue.ts';
import { SAMPLE_LIMITS, createVoiceSampler } from './sample.ts';

export function voiceRoutes(catalogue: VoiceCatalogue): Route[] {
  const sampler = createVoiceSampler(catalogue);
  return [
    {
      method: 'get', path: '/tts/voices', tag: 'Voices',
      summary: 'Every voice that can speak here: the embedded ones and those of the configured external providers',
      params: [
        { name: 'provider', in: 'query', description: `only this provider's voices (${PROVIDER_TYPES.join(', ')})` },
        { name: 'id', in: 'query', description: 'only the voice with this id' },
      ],
      ok: { status: 200, schema: VoiceList, description: 'a bare array of voices' }, errors: ['ValidationError', 'AuthorizationError'],
      handler: async (c) => {
        const provider = c.req.query('provider');
        const id = c.req.query('id');
        return c.json(await catalogue.list({ ...(provider !== undefined ? { provider } : {}), ...(id !== undefined ? { id } : {}) }));
      },
    },
    {
      method: 'get', path: '/tts/voices/{id}/sample', tag: 'Voices',
      summary: 'Hear a voice: a short text (or its own introduction) spoken by it, as a WAV',
      description: `A sample to choose a voice by. The text is at most ${SAMPLE_LIMITS.maxChars} characters of plain text; at most ${SAMPLE_LIMITS.concurrent} samples are spoken at once (another is a 503: try again), and recent samples are remembered, so asking again is free. An external voice's sample is a request to its vendor like any other speech.`,
      params: [
        { name: 'id', in: 'path', description: 'a voice id of GET /tts/voices', required: true },
        { name: 'provider', in: 'query', description: `the voice's provider (${PROVIDER_TYPES.join(', ')}); absent: the first voice with this id` },
        { name: 'text', in: 'query', description: `what to say, at most ${SAMPLE_LIMITS.maxChars} characters; absent: the voice introduces itself` },
      ],
      ok: { status: 200, description: 'the speech, 16-bit mono PCM', contentType: 'audio/wav' },
      errors: ['ValidationError', 'AuthorizationError', 'NotFoundError', 'ServiceUnavailableError'],
      handler: async (c) => {
        const provider = c.req.query('provider');
        const text = c.req.query('text');
        const wav = await sampler.speak({ voiceId: c.req.param('id')!, ...(provider !== undefined ? { provider } : {}), ...(text !== undefined ? { text } : {}) }, c.req.raw.signal);
        return c.body(new Uint8Array(wav), 200, { 'content-type': 'audio/wav', 'cache-control': 'private, max-age=3600' });
      },
    },
  ];
}
