import type { DataMigration } from '../../db/data-migrations.ts';
import type { SecretRow } from '../../db/schema.ts';
import type { Logger } from '../../log.ts';
import type { PageCursor } from '../../pagination.ts';
import { credentialOf, openSecretValues, type SecretDeps } from '../../secrets/contract.ts';
import { credentialForms, redactJson, redactText, secretForms } from '../../egress/redact.ts';
import type { ChatStore, StoredMessageText } from './store.ts';

/**
 * Issue 17: chats stored before masking covered base64, base64url and hex (and base64 inside
 * larger blobs) may hold a credential in one of those forms, in a tool result the model read
 * or in words the model repeated. This data migration masks every stored message of every
 * user again with the forms of all of that user's secrets' current values (a tool's secret,
 * and an agent's model key, always belong to the chat's owner). Masking is idempotent.
 * Values the vault no longer holds (a rotated bearer token, an oauth2 access token replaced
 * by a refresh, a deleted secret) cannot be masked: SECURITY.md says so.
 */
export const MASK_ENCODED_CREDENTIALS = '2026-11-agent-chats-mask-encoded-credentials';
/**
 * The same masking again once a basic credential's `user:pass` base64 also counted as a value
 * of its own (a whole `Authorization: Basic ...` header echoed inside a larger base64 text).
 */
export const MASK_BASIC_HEADER_IN_BASE64 = '2026-11-agent-chats-mask-basic-header-in-base64';
/** Every masking of stored chats, in order: each runs once, with the forms masking knows when it runs. */
export const CHAT_MASKINGS = [MASK_ENCODED_CREDENTIALS, MASK_BASIC_HEADER_IN_BASE64] as const;

const BATCH = 500;
const SECRETS_PAGE = 100;

/** Every form of every value a stored secret holds: the credential as sent and, for oauth2, the refresh token and client secret too. */
function storedSecretForms(row: SecretRow, values: Record<string, string>): string[] {
  const forms = credentialForms(credentialOf(row, values));
  if (row.type !== 'oauth2') return forms;
  return [...forms, ...secretForms([values.refresh_token, values.client_secret].filter((v): v is string => !!v))];
}

/** The forms of all of a user's secrets, longest first; a secret that does not decrypt is counted and logged (by id). */
async function formsOfUser(deps: SecretDeps, log: Logger, userId: string): Promise<{ forms: string[]; unreadable: number }> {
  const forms = new Set<string>();
  let unreadable = 0;
  let cursor: PageCursor | null = null;
  for (;;) {
    const page: SecretRow[] = await deps.secretStore.list(userId, SECRETS_PAGE, cursor);
    for (const row of page) {
      try {
        for (const form of storedSecretForms(row, await openSecretValues(deps, row))) forms.add(form);
      } catch (err) {
        unreadable++;
        log.warn('masking stored chats: a secret could not be opened, its values stay as they are', { secret_id: row.id, error: err instanceof Error ? err.name : 'unknown' });
      }
    }
    const last = page.at(-1);
    if (!last || page.length < SECRETS_PAGE) break;
    cursor = { createdAt: last.createdAt, id: last.id };
  }
  return { forms: [...forms].sort((a, b) => b.length - a.length), unreadable };
}

/** JSON text (a stored tool result, tool calls) masked key by key and string by string, so a mask never breaks its syntax. */
function maskJsonText(text: string, forms: readonly string[]): string {
  // Every form of a value in a JSON string shows in the text too (its JSON-escaped form is one of them).
  if (redactText(text, forms) === text) return text;
  try {
    return JSON.stringify(redactJson(JSON.parse(text), forms));
  } catch {
    return redactText(text, forms);
  }
}

/** The message masked, or undefined when it holds no form. */
function masked(m: StoredMessageText, forms: readonly string[]): StoredMessageText | undefined {
  const content = m.content === null ? null : m.role === 'tool' ? maskJsonText(m.content, forms) : redactText(m.content, forms);
  const toolCalls = m.toolCalls === null ? null : maskJsonText(m.toolCalls, forms);
  return content !== m.content || toolCalls !== m.toolCalls ? { ...m, content, toolCalls } : undefined;
}

export function maskStoredChats(deps: { chats: ChatStore; secrets: SecretDeps; log: Logger }, name: string = MASK_ENCODED_CREDENTIALS): DataMigration {
  return {
    name,
    scrubs: true,
    async run() {
      const report = { users: 0, messages: 0, rewritten: 0, unreadable_secrets: 0 };
      for (const userId of await deps.chats.owners()) {
        const { forms, unreadable } = await formsOfUser(deps.secrets, deps.log, userId);
        report.users++;
        report.unreadable_secrets += unreadable;
        if (forms.length === 0) continue;
        let after: { chatId: string; seq: number } | null = null;
        for (;;) {
          const batch: StoredMessageText[] = await deps.chats.messagesOfUser(userId, after, BATCH);
          const changed = batch.map((m) => masked(m, forms)).filter((m) => m !== undefined);
          if (changed.length > 0) await deps.chats.rewrite(changed);
          report.messages += batch.length;
          report.rewritten += changed.length;
          const last = batch.at(-1);
          if (!last || batch.length < BATCH) break;
          after = { chatId: last.chatId, seq: last.seq };
        }
      }
      return report;
    },
  };
}
