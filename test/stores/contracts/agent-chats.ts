import { expect, it } from 'vitest';
import type { Dialect } from '../dialects.ts';
import type { AgentRow } from '../../../src/agents/store.ts';
import type { ChatRow, NewChatMessage } from '../../../src/agents/chat/store.ts';
import { seedUser, withDatabase } from '../seed.ts';

const agentRow = (userId: string, id: string): AgentRow => ({ id, userId, body: '{}', secretId: null, toolIds: [], voice: null, version: 1, createdAt: 1000, modifiedAt: 1000 });
const chatRow = (userId: string, agentId: string, id: string, createdAt: number): ChatRow => ({ id, userId, agentId, messageCount: 0, createdAt, modifiedAt: createdAt });
const msg = (role: NewChatMessage['role'], content: string | null, over: Partial<NewChatMessage> = {}): NewChatMessage => ({ role, content, toolCalls: null, toolCallId: null, failed: false, ...over });

export function contract(dialect: Dialect): void {
  it('keeps a chat to its user and agent, and lists an agent’s chats newest first in pages', async () => {
    await withDatabase(dialect, async ({ stores }) => {
      const u = await seedUser(stores, 'usr_a');
      const b = await seedUser(stores, 'usr_b');
      await stores.agents.create(agentRow(u, 'agt_1'));
      await stores.agents.create(agentRow(u, 'agt_2'));
      for (const [agent, id, at] of [['agt_1', 'cht_a', 1000], ['agt_1', 'cht_b', 2000], ['agt_1', 'cht_c', 2000], ['agt_2', 'cht_x', 3000]] as const) {
        await stores.agentChats.create(chatRow(u, agent, id, at));
      }
      expect(await stores.agentChats.get(u, 'agt_1', 'cht_a')).toEqual(chatRow(u, 'agt_1', 'cht_a', 1000));
      // The browser end user who started a chat is kept with it.
      const started = { ...chatRow(u, 'agt_2', 'cht_ck', 500), client: 'ck_1:alice' };
      await stores.agentChats.create(started);
      expect(await stores.agentChats.get(u, 'agt_2', 'cht_ck')).toEqual(started);
      expect(await stores.agentChats.get(b, 'agt_1', 'cht_a')).toBeUndefined();
      expect(await stores.agentChats.get(u, 'agt_2', 'cht_a')).toBeUndefined();
      expect((await stores.agentChats.list(u, 'agt_1', 2, null)).map((c) => c.id)).toEqual(['cht_c', 'cht_b']);
      expect((await stores.agentChats.list(u, 'agt_1', 2, { createdAt: 2000, id: 'cht_b' })).map((c) => c.id)).toEqual(['cht_a']);
      expect(await stores.agentChats.list(b, 'agt_1', 10, null)).toEqual([]);
    });
  });

  it('appends messages in order across answers, only to the owner’s chat; deleting the agent deletes its chats', async () => {
    await withDatabase(dialect, async ({ stores }) => {
      const u = await seedUser(stores, 'usr_a');
      const b = await seedUser(stores, 'usr_b');
      await stores.agents.create(agentRow(u, 'agt_1'));
      await stores.agentChats.create(chatRow(u, 'agt_1', 'cht_a', 1000));
      const calls = JSON.stringify([{ id: 'call_1', name: 'w', arguments: '{}' }]);
      const first = [msg('user', 'Hi'), msg('assistant', null, { toolCalls: calls }), msg('tool', '{"status":200}', { toolCallId: 'call_1', failed: true }), msg('assistant', 'Hello')];
      expect(await stores.agentChats.append(b, 'cht_a', first, 2000)).toBeUndefined();
      expect(await stores.agentChats.append(u, 'cht_a', first, 2000)).toMatchObject({ messageCount: 4, modifiedAt: 2000 });
      // An earlier clock never moves modified_at back.
      expect(await stores.agentChats.append(u, 'cht_a', [msg('user', 'Bye'), msg('assistant', 'Bye')], 1500)).toMatchObject({ messageCount: 6, modifiedAt: 2000 });
      const stored = await stores.agentChats.messages('cht_a');
      expect(stored.map((m) => [m.seq, m.role, m.content])).toEqual([[1, 'user', 'Hi'], [2, 'assistant', null], [3, 'tool', '{"status":200}'], [4, 'assistant', 'Hello'], [5, 'user', 'Bye'], [6, 'assistant', 'Bye']]);
      expect(stored[1]).toMatchObject({ toolCalls: calls, toolCallId: null, failed: false, createdAt: 2000 });
      expect(stored[2]).toMatchObject({ toolCallId: 'call_1', failed: true });
      await stores.agents.delete(u, 'agt_1');
      expect(await stores.agentChats.get(u, 'agt_1', 'cht_a')).toBeUndefined();
      expect(await stores.agentChats.messages('cht_a')).toEqual([]);
    });
  });

  it('numbers messages without gaps or repeats when two processes append to one chat at once, each answer’s messages together', async () => {
    await withDatabase(dialect, async (db) => {
      const other = await db.reopen();
      try {
        const u = await seedUser(db.stores, 'usr_a');
        await db.stores.agents.create(agentRow(u, 'agt_1'));
        await db.stores.agentChats.create(chatRow(u, 'agt_1', 'cht_a', 1000));
        const answers = 24;
        const counts = await Promise.all(
          Array.from({ length: answers }, (_, i) =>
            (i % 2 ? other : db).stores.agentChats.append(u, 'cht_a', [msg('user', `q${i}`), msg('assistant', `a${i}`)], 2000 + i).then((c) => c!.messageCount),
          ),
        );
        // Each append answered the count after its own messages: all different, the last one all of them.
        expect(new Set(counts).size).toBe(answers);
        expect(Math.max(...counts)).toBe(2 * answers);
        const stored = await other.stores.agentChats.messages('cht_a');
        expect(stored.map((m) => m.seq)).toEqual(Array.from({ length: 2 * answers }, (_, i) => i + 1));
        for (let i = 0; i < stored.length; i += 2) {
          const n = stored[i]!.content!.slice(1);
          expect([stored[i]!.content, stored[i + 1]!.content]).toEqual([`q${n}`, `a${n}`]);
          // An answer's messages sit at the numbers its append was given.
          expect(counts[Number(n)]).toBe(stored[i + 1]!.seq);
        }
        expect((await db.stores.agentChats.get(u, 'agt_1', 'cht_a'))?.messageCount).toBe(2 * answers);
      } finally {
        await other.close();
      }
    });
  });

  it('walks a user’s stored messages in (chat, seq) batches and rewrites their texts, for the re-masking migration', async () => {
    await withDatabase(dialect, async ({ stores }) => {
      const u = await seedUser(stores, 'usr_a');
      const b = await seedUser(stores, 'usr_b');
      await seedUser(stores, 'usr_c');
      await stores.agents.create(agentRow(u, 'agt_1'));
      await stores.agents.create(agentRow(b, 'agt_b'));
      for (const [owner, agent, id] of [[u, 'agt_1', 'cht_a'], [u, 'agt_1', 'cht_b'], [b, 'agt_b', 'cht_x']] as const) {
        await stores.agentChats.create(chatRow(owner, agent, id, 1000));
        await stores.agentChats.append(owner, id, [msg('user', `${id} q`), msg('assistant', null, { toolCalls: `[${id}]` }), msg('tool', `${id} t`)], 2000);
      }
      expect(await stores.agentChats.owners()).toEqual([u, b]);
      const first = await stores.agentChats.messagesOfUser(u, null, 4);
      expect(first.map((m) => [m.chatId, m.seq])).toEqual([['cht_a', 1], ['cht_a', 2], ['cht_a', 3], ['cht_b', 1]]);
      expect(first[1]).toEqual({ chatId: 'cht_a', seq: 2, role: 'assistant', content: null, toolCalls: '[cht_a]' });
      const rest = await stores.agentChats.messagesOfUser(u, { chatId: 'cht_b', seq: 1 }, 4);
      expect(rest.map((m) => [m.chatId, m.seq])).toEqual([['cht_b', 2], ['cht_b', 3]]);

      await stores.agentChats.rewrite([{ ...first[0]!, content: 'masked' }, { ...rest[0]!, toolCalls: '[]' }]);
      await stores.agentChats.rewrite([]);
      expect((await stores.agentChats.messages('cht_a')).map((m) => m.content)).toEqual(['masked', null, 'cht_a t']);
      expect((await stores.agentChats.messages('cht_b')).map((m) => m.toolCalls)).toEqual([null, '[]', null]);
      expect((await stores.agentChats.messages('cht_x')).map((m) => m.content)).toEqual(['cht_x q', null, 'cht_x t']);
    });
  });
}
