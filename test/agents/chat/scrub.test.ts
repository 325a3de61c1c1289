import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../../helpers/harness.ts';
import { ENCODED_CANARY as C, leakedIn } from '../../helpers/canaries.ts';
import { makeSecret } from '../../helpers/tools.ts';
import { createFakeBackend } from '../../helpers/fake-backend.ts';
import { importOAuth2Grant } from '../../../src/secrets/oauth2-import.ts';
import { startServer } from '../../../src/server.ts';
import { createLogger } from '../../../src/log.ts';
import { CHAT_MASKINGS, MASK_ENCODED_CREDENTIALS, maskStoredChats } from '../../../src/agents/chat/scrub.ts';
import type { NewChatMessage } from '../../../src/agents/chat/store.ts';
import { chatStoreOn } from '../../../src/agents/chat/store-pg.ts';
import { sqliteOf } from '../../helpers/stores.ts';

/**
 * The data migration of issue 17: chats stored before masking covered base64, base64url and
 * hex hold credentials in those forms. Here they are planted as the old code stored them
 * (some checkpointed into the database file, some only in the WAL, some in a chat deleted
 * since, so only in free pages); a server started on that directory masks them before it
 * listens, and afterwards no form is left in the API's record, the database file or its WAL.
 */

const b64 = (s: string, how: BufferEncoding = 'base64') => Buffer.from(s).toString(how);
const hex = (s: string) => Buffer.from(s).toString('hex');

let h: Harness;
let userId: string;
let key: string;

beforeAll(async () => {
  h = harness({}, {});
  ({ id: userId, key } = h.user());
  await makeSecret(h, key, { type: 'bearer', provider: 'p', token: C.bearer });
  await makeSecret(h, key, { type: 'api_key', provider: 'p', api_key: C.apiKey });
  await makeSecret(h, key, { type: 'basic', provider: 'p', username: C.basicUser, password: C.basicPassword });
  await importOAuth2Grant(h.services.modules.secrets.deps, {
    userId, provider: 'p', tokenUrl: 'https://auth.example.com/token', clientId: 'cid', clientSecret: C.clientSecret,
    accessToken: C.accessToken, refreshToken: C.refreshToken, expiresIn: 3600,
  });
});
afterAll(async () => {
  await h.close(); // checks the database files once more
});

/** What the old code stored for one answer: the tool results unmasked in their encoded forms, the model repeating them. */
function leakyAnswer(): NewChatMessage[] {
  const headerBlock = `GET /echo HTTP/1.1\r\nauthorization: Bearer ${C.bearer}\r\nx-api-key: ${C.apiKey}\r\n\r\n`;
  const basicBlock = `GET /echo HTTP/1.1\r\nauthorization: Basic ${b64(`${C.basicUser}:${C.basicPassword}`)}\r\n\r\n`;
  const result = {
    status: 200,
    body: {
      b64: b64(C.accessToken), url: b64(`Bearer ${C.bearer}`, 'base64url'), hex: hex(C.apiKey), HEX: hex(C.basicPassword).toUpperCase(),
      pair: b64(`${C.basicUser}:${C.basicPassword}`), refresh: b64(C.refreshToken), client: hex(C.clientSecret),
      [b64(C.bearer)]: 'as a key', blocks: [0, 1, 2].map((k) => b64(`${'.'.repeat(k)}${headerBlock}`)),
      basic: [0, 1, 2].map((k) => b64(`${'.'.repeat(k)}${basicBlock}`)),
    },
  };
  return [
    { role: 'user', content: 'Call the tool.', toolCalls: null, toolCallId: null, failed: false },
    { role: 'assistant', content: null, toolCalls: JSON.stringify([{ id: 'call_1', name: 'echo', arguments: JSON.stringify({ note: b64(C.apiKey, 'base64url') }) }]), toolCallId: null, failed: false },
    { role: 'tool', content: JSON.stringify(result), toolCalls: null, toolCallId: 'call_1', failed: false },
    { role: 'assistant', content: `It said ${b64(`Bearer ${C.accessToken}`)} and ${hex(C.bearer)}.`, toolCalls: null, toolCallId: null, failed: false },
  ];
}

const rawFiles = () => [h.config.databaseFile, `${h.config.databaseFile}-wal`].map((f) => readFileSync(f).toString('latin1')).join('\n');

async function makeChat(): Promise<{ agent: string; chat: string }> {
  const agent = await h.call('POST', '/agents', { key, body: { presenter: { type: 'clip', presenter_id: 'eileen-Nc7kQ2rT5x' }, llm: { provider: 'openai', model: 'm', base_url: 'https://llm.example.com/v1' } } });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  const chat = await h.call('POST', `/agents/${agent.body.id}/chat`, { key });
  return { agent: agent.body.id, chat: chat.body.id };
}

describe('masking the chats stored before issue 17', () => {
  it('a server started on the directory masks every stored message once, and no old copy is left in the file or its WAL', async () => {
    const chats = chatStoreOn(h.services.store);
    const sqlite = sqliteOf(h.services.store).sqlite;
    const kept = await makeChat();
    const gone = await makeChat();
    await chats.append(userId, kept.chat, leakyAnswer(), Date.now());
    await chats.append(userId, gone.chat, leakyAnswer(), Date.now());
    sqlite.pragma('wal_checkpoint(TRUNCATE)'); // into the database file
    await chats.append(userId, kept.chat, leakyAnswer(), Date.now());
    expect((await h.call('DELETE', `/agents/${gone.agent}`, { key })).status).toBe(200); // its messages: free space now
    sqlite.pragma('wal_checkpoint(PASSIVE)'); // the file has the freed space, the WAL still the old frames
    // The test can fail: the planted forms are on disk.
    expect(leakedIn(rawFiles()).length).toBeGreaterThanOrEqual(7);

    const logs: string[] = [];
    const server = await startServer({ ...h.config, port: 0, host: '127.0.0.1' }, { backend: createFakeBackend(), log: createLogger((l) => logs.push(l)) });
    await server.shutdown();

    const record = await h.call('GET', `/agents/${kept.agent}/chat/${kept.chat}`, { key });
    expect(record.status).toBe(200);
    expect(record.body.messages).toHaveLength(8);
    expect(leakedIn(JSON.stringify(record.body))).toEqual([]);
    const [, turn, tool, words] = record.body.messages;
    expect(JSON.parse(tool.content)).toMatchObject({ status: 200, body: { b64: '•••••••••', hex: '•••••••••', '•••••••••': 'as a key' } });
    expect(JSON.parse(turn.tool_calls[0].arguments)).toEqual({ note: '•••••••••' });
    expect(words.content).toBe('It said ••••••••• and •••••••••.');
    expect(leakedIn(rawFiles())).toEqual([]);

    const applied = sqlite.prepare('SELECT name, report FROM data_migrations').all() as { name: string; report: string }[];
    expect(applied.map((r) => r.name)).toEqual([...CHAT_MASKINGS]);
    expect(JSON.parse(applied[0]!.report)).toEqual({ users: 1, messages: 8, rewritten: 6, unreadable_secrets: 0 });
    // The base64 of a whole basic header is masked from its user:pass cores.
    expect(JSON.parse(tool.content).body.basic.every((t: string) => t.includes('•••••••••'))).toBe(true);
    expect(logs.join('\n')).toMatch(/data migration applied/);
    expect(leakedIn(logs.join('\n'))).toEqual([]);

    // Idempotent, and recorded: run again it changes nothing; the next start does not run it.
    const again = maskStoredChats({ chats, secrets: h.services.modules.secrets.deps, log: h.services.log });
    expect(await again.run()).toEqual({ users: 1, messages: 8, rewritten: 0, unreadable_secrets: 0 });
    await h.services.migrateData();
    expect(sqlite.prepare('SELECT count(*) AS n FROM data_migrations').get()).toEqual({ n: CHAT_MASKINGS.length });
  });
});
