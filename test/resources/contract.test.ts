/** The resource contract (./contract.ts), run for each resource kind: a kind states only how to make one. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Harness } from '../helpers/harness.ts';
import { toneCatalogue } from '../helpers/tone-voice.ts';
import { uploadPhoto } from '../talks/helpers.ts';
import { stored } from '../consents/helpers.ts';
import { avatarBody, verifiedConsent } from '../avatars/helpers.ts';
import { resourceContract } from './contract.ts';

const webhookOf = (webhook?: string) => (webhook ? { webhook } : {});

/** POST a body; answers the new record's id (a 201 or the test fails). */
async function created(h: Harness, key: string, path: string, body: object): Promise<string> {
  const res = await h.call('POST', path, { key, body });
  if (res.status !== 201) throw new Error(`POST ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

/** A file in the user's media store, as an upload leaves it; its storage URL. */
async function storedFile(h: Harness, userId: string, name: string): Promise<string> {
  const file = join(h.config.dataDir, name);
  writeFileSync(file, 'a video, as far as creating a record goes');
  return stored(h, userId, file, name);
}

resourceContract({
  name: 'animation', path: '/animations', many: 'animations', cost: 1,
  create: (h, u, webhook) => created(h, u.key, '/animations', webhookOf(webhook)),
});

resourceContract({
  name: 'clip', path: '/clips', many: 'clips', cost: 1,
  options: { voices: toneCatalogue().catalogue },
  create: (h, u, webhook) => created(h, u.key, '/clips', { presenter_id: 'eileen-Nc7kQ2rT5x', script: { type: 'text', input: 'Maybe more bread please' }, ...webhookOf(webhook) }),
});

resourceContract({
  name: 'talk', path: '/talks', many: 'talks', cost: 1,
  options: { voices: toneCatalogue().catalogue },
  create: async (h, u, webhook) => created(h, u.key, '/talks', { source_url: await uploadPhoto(h, u.key), script: { type: 'text', input: 'Maybe more bread please' }, ...webhookOf(webhook) }),
});

resourceContract({
  name: 'consent', path: '/consents', many: 'consents', cost: 0,
  // A consent's job (its verification) and its webhook come with its video.
  async create(h, u, webhook) {
    const id = await created(h, u.key, '/consents', { language: 'english' });
    const source_url = await storedFile(h, u.id, `consent-${id}.mp4`);
    const res = await h.call('POST', `/consents/${id}`, { key: u.key, body: { name: 'Maria Lopez', source_url, ...webhookOf(webhook) } });
    if (res.status !== 200) throw new Error(`the upload answered ${res.status}: ${JSON.stringify(res.body)}`);
    return id;
  },
});

resourceContract({
  name: 'avatar', path: '/clips/avatars', many: 'avatars', cost: 20,
  async create(h, u, webhook) {
    const consent = await verifiedConsent(h, u.id);
    return created(h, u.key, '/clips/avatars', avatarBody(consent, await storedFile(h, u.id, `footage-${consent}.mp4`), webhookOf(webhook)));
  },
});
