import { ApiError, notFound } from '../errors.ts';
import { isoTime, type Clock, type IdFactory } from '../clock.ts';
import type { Config } from '../config.ts';
import type { MediaAccess } from '../media/index.ts';
import { byCreation, toPage, type PageCursor } from '../pagination.ts';
import { validate } from '../schemas/ajv.ts';
import type { AgentRuntimeView, AgentSchemas, AgentView, CreateAgentBody } from './schemas.ts';
import type { PresenterCatalogue } from '../presenters/contract.ts';
import { defaultVoice, type VoiceCatalogue } from '../voices/contract.ts';
import { requirePermission, type AuthUser } from '../platform/caller.ts';
import { InputRejected, inspectImage } from '../media/checks.ts';
import { storedObject } from '../speaking/inputs.ts';
import { chooseVoice } from '../speaking/voice.ts';
import type { SpeakingVoice } from '../speaking/records.ts';
import { bad, mergeAgent, normalize, refuseRawCredentials, refuseUnsupported, withoutShownFields } from './body.ts';
import type { AgentRefusal, AgentRow, AgentStore, AgentValues } from './store.ts';

export interface AgentDeps {
  config: Config;
  store: AgentStore;
  clock: Clock;
  newId: IdFactory;
  media: MediaAccess;
  presenters: PresenterCatalogue;
  voices: VoiceCatalogue | undefined;
  schemas: AgentSchemas;
}

/** The agent's fields as written in `agents.body`: the request without the two references (columns of their own). */
type StoredBody = Omit<CreateAgentBody, 'llm'> & { llm: Omit<CreateAgentBody['llm'], 'tools' | 'secret_id'> };

type Json = Record<string, unknown>;

/** An image rule broken by a stored image: a 400 naming the agent's field. */
async function inspectAs(field: string, role: 'source' | 'background', path: string, deps: AgentDeps): Promise<void> {
  try {
    await inspectImage(role, path, deps.config);
  } catch (err) {
    if (!(err instanceof InputRejected)) throw err;
    throw new ApiError(err.kind, `Invalid request body: ${field}: ${err.reason}`, [{ field, message: err.reason, ...err.measured }]);
  }
}

/** The voice resolution's errors name the script's provider: here it is the presenter's voice. */
async function resolveVoice(deps: AgentDeps, asked: { type: string; voice_id: string; language?: string }, gender: 'female' | 'male' | undefined): Promise<SpeakingVoice> {
  try {
    return await chooseVoice(deps.voices, asked, gender);
  } catch (err) {
    if (!(err instanceof ApiError) || !Array.isArray(err.details)) throw err;
    const details = (err.details as { field: string; message: string }[]).map((d) => ({ ...d, field: d.field.replace(/^script\.provider/, 'presenter.voice') }));
    throw new ApiError(err.kind, err.description, details);
  }
}

/** The presenter's own rules, its stored images, and the voice that will speak (after the fallback policy). */
async function checkPresenter(deps: AgentDeps, user: AuthUser, presenter: CreateAgentBody['presenter']): Promise<SpeakingVoice> {
  if (presenter.type === 'clip') {
    const entry = await deps.presenters.find(user.id, presenter.presenter_id);
    if (!entry) throw bad('presenter.presenter_id', 'names no presenter (GET /clips/presenters lists them)');
    const bg = presenter.background;
    if (bg?.color !== undefined && bg.source_url !== undefined) throw bad('presenter.background', 'takes color or source_url, not both');
    if (bg?.color === false) throw bad('presenter.background.color', 'false (a transparent background) is not possible on a live stream');
    const path = await storedObject(deps, user.id, 'presenter.background.source_url', bg?.source_url);
    if (path) await inspectAs('presenter.background.source_url', 'background', path, deps);
    return resolveVoice(deps, presenter.voice ?? entry.voice, entry.gender !== 'other' ? entry.gender : undefined);
  }
  const photo = await storedObject(deps, user.id, 'presenter.source_url', presenter.source_url);
  if (photo) await inspectAs('presenter.source_url', 'source', photo, deps);
  const thumbnail = await storedObject(deps, user.id, 'presenter.thumbnail', presenter.thumbnail);
  if (thumbnail) await inspectAs('presenter.thumbnail', 'source', thumbnail, deps);
  if (presenter.stitch === true) requirePermission(user, 'stitch', 'presenter.stitch');
  return resolveVoice(deps, presenter.voice ?? (await defaultVoice(deps.voices)), undefined);
}

/** Credentials travel only over https; api.openai.com needs one. */
function checkLlm(llm: CreateAgentBody['llm']): void {
  const [field, url] = llm.provider === 'openai' ? ['llm.base_url', llm.base_url] : ['llm.custom.url', llm.custom.url];
  if (llm.secret_id !== undefined && url !== undefined && !url.toLowerCase().startsWith('https://')) {
    throw bad(field, 'must be https when llm.secret_id is set (credentials never travel in clear text)');
  }
  if (llm.provider === 'openai' && llm.base_url === undefined && llm.secret_id === undefined) {
    throw bad('llm.secret_id', 'is required for api.openai.com (store your key with POST /secrets); or give llm.base_url for a server that needs no key, such as Ollama');
  }
}

/**
 * Everything an agent body must satisfy before it is written: refusals with a reason (raw
 * credentials, unsupported hosted fields), the JSON Schema, the rules across fields, the
 * presenter and its stored images, the voice. The tools and the secret are checked by the
 * store, in the transaction that writes the agent.
 */
async function prepare(deps: AgentDeps, user: AuthUser, raw: Json): Promise<AgentValues> {
  refuseRawCredentials(raw);
  refuseUnsupported(raw);
  const body = validate(deps.schemas.CreateAgent, normalize(raw));
  checkLlm(body.llm);
  const voice = await checkPresenter(deps, user, body.presenter);
  const { tools = [], secret_id, ...llm } = body.llm;
  const stored: StoredBody = { ...body, llm };
  return { body: JSON.stringify(stored), secretId: secret_id ?? null, toolIds: tools, voice: JSON.stringify(voice) };
}

function refusal(r: AgentRefusal): ApiError {
  // The same answer for a missing id and another user's: nothing about other users shows.
  return r.refused === 'secret' ? bad('llm.secret_id', 'names no secret of yours (POST /secrets)') : bad(`llm.tools[${r.index}]`, 'names no tool of yours (POST /tools)');
}

/** The agent as written, in the request's form (what a PATCH is merged into). */
function asRequest(row: AgentRow): Json {
  const body = JSON.parse(row.body) as StoredBody;
  return { ...body, llm: { ...body.llm, tools: row.toolIds, ...(row.secretId ? { secret_id: row.secretId } : {}) } };
}

/** A URL to show: a storage-scheme URL of the owner's becomes a signed URL. */
function shown(deps: AgentDeps, userId: string, url: string): string {
  const key = url.startsWith(`${deps.config.storageScheme}://`) ? deps.media.keyOfStorageUrl(url) : null;
  return key === null ? url : deps.media.signedUrl(userId, key);
}

export async function presentAgent(deps: AgentDeps, row: AgentRow): Promise<AgentView> {
  const body = asRequest(row) as CreateAgentBody;
  const voice = row.voice ? (JSON.parse(row.voice) as SpeakingVoice) : null;
  const { presenter } = body;
  let thumbnail: string | undefined;
  if (presenter.type === 'talk') thumbnail = shown(deps, row.userId, presenter.thumbnail ?? presenter.source_url);
  else {
    const entry = await deps.presenters.find(row.userId, presenter.presenter_id);
    if (entry) thumbnail = deps.media.signedUrl(entry.owner, entry.keys.thumbnail);
  }
  return {
    id: row.id,
    owner_id: row.userId,
    created_at: isoTime(row.createdAt),
    modified_at: isoTime(row.modifiedAt),
    ...(body.preview_name !== undefined ? { preview_name: body.preview_name } : {}),
    ...(body.preview_description !== undefined ? { preview_description: body.preview_description } : {}),
    ...(thumbnail !== undefined ? { preview_thumbnail: thumbnail } : {}),
    presenter,
    llm: { ...body.llm, tools: body.llm.tools ?? [] },
    greetings: body.greetings ?? [],
    starter_message: body.starter_message ?? [],
    embed: body.embed ?? false,
    ...(body.user_data !== undefined ? { user_data: body.user_data } : {}),
    metadata: voice
      ? {
          voice: {
            type: voice.type,
            voice_id: voice.voiceId,
            ...(voice.fallback ? { fallback: { requested: { type: voice.fallback.requested.type, voice_id: voice.fallback.requested.voiceId }, reason: voice.fallback.reason } } : {}),
          },
        }
      : {},
  };
}

export async function createAgent(deps: AgentDeps, user: AuthUser, raw: Json): Promise<AgentView> {
  const values = await prepare(deps, user, raw);
  const now = deps.clock.now();
  const created = await deps.store.create({ id: deps.newId('agt'), userId: user.id, ...values, version: 1, createdAt: now, modifiedAt: now });
  if ('refused' in created) throw refusal(created);
  return presentAgent(deps, created);
}

export async function fetchAgent(deps: AgentDeps, userId: string, id: string): Promise<AgentView> {
  const row = await deps.store.get(userId, id);
  if (!row) throw notFound('Agent');
  return presentAgent(deps, row);
}

/**
 * What the agents SDK reads before it connects (`GET /agents/{id}/runtime`): the agent's
 * name, presenter type and voice, greetings and starter messages. The presenter's type is
 * `talk` or `clip`, never `expressive`, which would switch the SDK to another transport.
 */
export async function agentRuntime(deps: AgentDeps, userId: string, id: string): Promise<AgentRuntimeView> {
  const row = await deps.store.get(userId, id);
  if (!row) throw notFound('Agent');
  const agent = await presentAgent(deps, row);
  const voice = agent.metadata.voice;
  const language = agent.presenter.voice?.language;
  return {
    id: agent.id,
    owner_id: agent.owner_id,
    name: agent.preview_name ?? '',
    ...(agent.preview_description !== undefined ? { description: agent.preview_description } : {}),
    avatar: {
      type: agent.presenter.type,
      ...(agent.preview_thumbnail !== undefined ? { thumbnail: agent.preview_thumbnail } : {}),
      ...(voice ? { voice: { type: voice.type, voice_id: voice.voice_id, ...(typeof language === 'string' ? { language } : {}) } } : {}),
    },
    greetings: agent.greetings,
    starter_message: agent.starter_message,
  };
}

/** Tries a PATCH again this many times when another write lands between its read and its write. */
const PATCH_ATTEMPTS = 3;

/** PATCH: the body merged into the agent as written (docs/agents.md), then checked as a whole, and written only over what was read. */
export async function updateAgent(deps: AgentDeps, user: AuthUser, id: string, patch: Json): Promise<AgentView> {
  for (let attempt = 0; attempt < PATCH_ATTEMPTS; attempt++) {
    const row = await deps.store.get(user.id, id);
    if (!row) throw notFound('Agent');
    const values = await prepare(deps, user, mergeAgent(asRequest(row), withoutShownFields(patch, { id: row.id, owner_id: row.userId })));
    const updated = await deps.store.update(user.id, id, row.version, values, Math.max(deps.clock.now(), row.modifiedAt));
    if (updated === 'not_found') throw notFound('Agent');
    if (updated === 'conflict') continue;
    if ('refused' in updated) throw refusal(updated);
    return presentAgent(deps, updated);
  }
  throw new ApiError('ConflictError', 'The agent kept changing while this update was applied; read it again and retry');
}

/** DELETE answers the agent as it was, as the hosted service does. */
export async function deleteAgent(deps: AgentDeps, userId: string, id: string): Promise<AgentView> {
  const row = await deps.store.delete(userId, id);
  if (!row) throw notFound('Agent');
  return presentAgent(deps, row);
}

export async function pageAgents(deps: AgentDeps, userId: string, limit: number, cursor: PageCursor | null) {
  const page = toPage(await deps.store.list(userId, limit + 1, cursor), limit, byCreation);
  return { agents: await Promise.all(page.items.map((row) => presentAgent(deps, row))), ...(page.token ? { token: page.token } : {}) };
}
