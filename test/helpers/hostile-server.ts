/**
 * The service for test/http/hostile-openapi.test.ts, in a process of its own: a hostile body
 * that stalls the event loop (or crashes the process) must fail that suite, not freeze the test
 * worker, and the suite can always kill it. The real server on a loopback port (startLiveService)
 * with the worker and webhook delivery off, so a request that is wrongly accepted queues a job
 * that never renders. It creates one resource of each cheap kind, so path parameters can name
 * existing ids, prints one JSON line `{base, key, ids, limits}` on stdout, and shuts down on
 * SIGTERM.
 */
import { AUDIO_LIMITS } from '../../src/media/audio.ts';
import { createLogger } from '../../src/log.ts';
import { startLiveService } from './live-service.ts';

const IMAGE_BYTES = 64 * 1024;
const VIDEO_BYTES = 1024 * 1024;

const service = await startLiveService({
  env: {
    MIMIC_WORKER: 'false',
    MIMIC_WEBHOOKS: 'false',
    MIMIC_MAX_IMAGE_BYTES: String(IMAGE_BYTES),
    MIMIC_VIDEO_UPLOAD_MAX_BYTES: String(VIDEO_BYTES),
  },
  // Warnings and errors (an unhandled error's stack, with its request id) go to stderr, which the suite shows on failure.
  options: { log: createLogger((line) => /"level":"(warn|error|fatal)"/.test(line) && process.stderr.write(`${line}\n`)) },
});

async function create(path: string, body: unknown): Promise<string> {
  const res = await service.api('POST', path, body);
  if (res.status !== 201 && res.status !== 200) throw new Error(`set-up: POST ${path} answered ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

const secret = await create('/secrets', { type: 'bearer', provider: 'fuzz', token: 'fuzz-token-0123456789' });
/**
 * Its input schema has an array under `uniqueItems` with no item type (Ajv compares such items
 * pairwise) next to a required field, so the suite can send inputs that are invalid (no call
 * goes out) and still large. The URL is a reserved .test name: a call that did go out fails in
 * DNS. Should the service refuse such a schema when the tool is created (one way to bound that
 * comparison), the tool is made without `uniqueItems` and the refusal is reported.
 */
const parameters = (uniqueItems: boolean) => ({
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 1, maxLength: 100 },
    tags: { type: 'array', ...(uniqueItems ? { uniqueItems: true } : {}) },
    days: { type: 'integer', minimum: 1, maximum: 14 },
    options: { type: 'object', properties: { units: { enum: ['metric', 'imperial'] } }, additionalProperties: false },
  },
  required: ['city'],
  additionalProperties: false,
});
const toolBody = (uniqueItems: boolean) => ({
  name: 'fuzz_lookup',
  description: 'A tool for the hostile-input suite',
  provider: 'fuzz',
  schema: { parameters: parameters(uniqueItems) },
  config: { type: 'server', url: 'https://api.fuzz.test/v1?q={city}', method: 'GET' },
  auth: { secret_id: secret },
});
const withUniqueItems = await service.api('POST', '/tools', toolBody(true));
const uniqueItemsRefused = withUniqueItems.status === 400 ? String(withUniqueItems.body?.description) : undefined;
const tool = uniqueItemsRefused === undefined && withUniqueItems.status === 201 ? (withUniqueItems.body.id as string) : await create('/tools', toolBody(false));
const presenter = 'eileen-Nc7kQ2rT5x';
const agent = await create('/agents', {
  preview_name: 'Fuzz',
  presenter: { type: 'clip', presenter_id: presenter },
  llm: { provider: 'openai', model: 'llama3.2', base_url: 'http://localhost:11434/v1', instructions: 'Be brief.', tools: [tool] },
});
const chat = await create(`/agents/${agent}/chat`, {});
const consent = await create('/consents', { language: 'english' });

const limits = {
  json: service.running.services.config.maxBodyBytes,
  '/images': IMAGE_BYTES + 64 * 1024,
  '/audios': AUDIO_LIMITS.maxBytes + 64 * 1024,
  '/videos': VIDEO_BYTES,
};
process.stdout.write(`${JSON.stringify({ base: service.base, key: service.key, ids: { secret, tool, agent, chat, consent, presenter }, limits, uniqueItemsRefused })}\n`);

let closing = false;
process.on('SIGTERM', () => {
  if (closing) return;
  closing = true;
  service.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
