import type { Route } from '../platform/module.ts';
import { VoiceList } from './schemas.ts';
import { PROVIDER_TYPES } from './interface.ts';
import type { VoiceCatalogue } from './catalogue.ts';

export function voiceRoutes(catalogue: VoiceCatalogue): Route[] {
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
  ];
}
