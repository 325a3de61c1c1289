import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { CANARY, leakedIn } from '../helpers/canaries.ts';
import { makeSecret } from '../helpers/tools.ts';
import { VOICE_COMMANDS } from '../../src/voices/cli.ts';

/** `voices check`: an operator learns of a bad setting or a missing or mistyped secret before starting. */
let h: Harness;
let apiKey: string;
let bearer: string;

beforeAll(async () => {
  h = harness();
  const { key } = h.user();
  apiKey = await makeSecret(h, key, { type: 'api_key', provider: 'azure', api_key: CANARY.apiKey });
  bearer = await makeSecret(h, key, { type: 'bearer', provider: 'openai', token: CANARY.bearer });
});
afterAll(async () => h.close());

async function check(env: Record<string, string>) {
  const out: string[] = [];
  const err: string[] = [];
  const config = { ...h.config, env: { ...h.config.env, ...env } };
  const settings = { dataDir: config.dataDir, databaseFile: config.databaseFile, database: config.database, env: config.env };
  const code = await VOICE_COMMANDS['voices check']!.run({ config, settings, out: (l) => out.push(l), err: (l) => err.push(l) }, {}, []);
  expect(leakedIn(out.join('\n') + err.join('\n'))).toEqual([]);
  return { code, lines: out.map((l) => JSON.parse(l) as Record<string, unknown>), err };
}

describe('voices check', () => {
  it('prints one line per provider, ok when each names a secret of the right type', async () => {
    const res = await check({
      MIMIC_VOICE_PROVIDERS: JSON.stringify([
        { type: 'microsoft', region: 'westeurope', secret_id: apiKey },
        { type: 'openai', secret_id: bearer },
      ]),
    });
    expect(res.code).toBe(0);
    expect(res.lines).toEqual([
      { provider: 'microsoft', secret_id: apiKey, base_url: 'https://westeurope.tts.speech.microsoft.com', ok: true },
      { provider: 'openai', secret_id: bearer, base_url: 'https://api.openai.com/v1', ok: true },
    ]);
  });

  it('exits 1 naming each problem: a mistyped or missing secret, or a bad setting', async () => {
    const res = await check({ MIMIC_VOICE_PROVIDERS: JSON.stringify([{ type: 'elevenlabs', secret_id: bearer }, { type: 'openai', secret_id: 'sec_missing' }]) });
    expect(res.code).toBe(1);
    expect(res.lines.map((l) => [l.provider, l.ok, l.problem])).toEqual([
      ['elevenlabs', false, expect.stringMatching(/is a bearer secret; elevenlabs needs an api_key secret/)],
      ['openai', false, expect.stringMatching(/sec_missing does not exist/)],
    ]);

    const bad = await check({ MIMIC_VOICE_FALLBACK: 'maybe' });
    expect(bad.code).toBe(1);
    expect(bad.err).toEqual(['MIMIC_VOICE_FALLBACK must be local or error, got "maybe"']);

    const none = await check({});
    expect(none.code).toBe(0);
    expect(none.err[0]).toMatch(/configures no external provider/);
  });
});
