/** What the talk tests share: a harness with the tone voice, the credits of a user, a photo uploaded with POST /images. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { harness, type Harness } from '../helpers/harness.ts';
import { toneCatalogue } from '../helpers/tone-voice.ts';
import { ROOT } from '../helpers/cli.ts';
import { sqliteOf } from '../helpers/stores.ts';

export const PHOTO = join(ROOT, 'assets/presenters/eileen.jpg');

export const credits = (h: Harness, id: string): number => (sqliteOf(h.services.store).sqlite.prepare('SELECT credits FROM users WHERE id = ?').get(id) as { credits: number }).credits;

export function talkHarness(env: Record<string, string> = {}, opts: Parameters<typeof harness>[1] = {}, fallback: 'local' | 'error' = 'local') {
  const tone = toneCatalogue(fallback);
  return { h: harness(env, { voices: tone.catalogue, ...opts }), voice: tone.voice };
}

/** POST /images of a file; answers its storage URL. */
export async function uploadPhoto(h: Harness, key: string, file = PHOTO, name = 'photo.jpg'): Promise<string> {
  const form = new FormData();
  form.set('image', new Blob([readFileSync(file)]), name);
  const res = await h.app.request('/images', { method: 'POST', headers: { authorization: `Basic ${key}` }, body: form });
  if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { url: string }).url;
}
