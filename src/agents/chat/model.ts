import { ApiError } from '../../errors.ts';
import type { GuardedClient } from '../../egress/client.ts';
import { staticCredential, type SecretDeps } from '../../secrets/contract.ts';
import { authHeader, type Credential } from '../../egress/credential.ts';
import { createOpenAIChat } from '../../llm/openai.ts';
import { createCustomChat } from '../../llm/custom.ts';
import { LlmError, type ChatModel } from '../../llm/interface.ts';
import type { CreateAgentBody } from '../schemas.ts';
import { auditRecord, type AuditStore } from '../../audit/contract.ts';
import type { Logger } from '../../log.ts';

/**
 * The language model of an agent, built for one answer. Its credential (the agent's
 * `secret_id`) is opened from the vault for each model request, through the same path as a
 * tool call's (`staticCredential`), turned into that request's header and dropped: nothing
 * keeps the plaintext, it never enters the messages, and a PUT /secrets/{id} takes effect at
 * the next request.
 */

export const OPENAI_BASE_URL = 'https://api.openai.com/v1';
/** The model asked for when an `openai` agent names none. */
export const DEFAULT_OPENAI_MODEL = 'gpt-4o-mini';

/** The agent's llm as written (its tools and secret_id are columns of their own, given apart). */
type Llm = CreateAgentBody['llm'];

export interface ModelDeps {
  secrets: SecretDeps;
  client: GuardedClient;
  /** Where each use of the agent's secret is recorded (`secret.used`, as a tool call records it). */
  audit: Pick<AuditStore, 'append'>;
  log: Pick<Logger, 'error'>;
}

/** Who the model call serves, for the audit row of its key. */
export interface ModelUse {
  userId: string;
  chatId: string;
  /** The end user a browser's client key named (on the audit row). */
  externalId?: string;
}

/** Opens the agent's secret for one request; a secret gone or not the owner's is a 409 naming it. */
async function openCredential(deps: ModelDeps, userId: string, secretId: string): Promise<Credential> {
  const row = await deps.secrets.secretStore.getById(secretId);
  if (!row || row.userId !== userId) throw new ApiError('ConflictError', `The agent's secret ${secretId} no longer exists`);
  return staticCredential(deps.secrets, row);
}

/** The custom contract's key travels in `x-api-key`: a bearer token or an api_key secret's key. */
function customKey(credential: Credential): Record<string, string> {
  if (credential.type === 'bearer') return { 'x-api-key': credential.token };
  if (credential.type === 'api_key') return { 'x-api-key': credential.apiKey };
  throw new ApiError('ConfigError', `A custom model's secret must be a bearer or api_key secret (its value is sent as x-api-key), not ${credential.type}`);
}

/**
 * Each model request that carried the agent's key leaves a `secret.used` row (the secret, the
 * chat, success or the failure's reason), as tool calls and external voices do. A row that
 * cannot be written is logged, not turned into a failed answer.
 */
function audited(deps: ModelDeps, use: ModelUse, secretId: string, model: ChatModel): ChatModel {
  const record = async (outcome: 'success' | 'failure', started: number, reason?: string) => {
    const detail = { chat_id: use.chatId, provider: model.provider, duration_ms: Math.round(performance.now() - started), ...(reason ? { reason } : {}) };
    try {
      await deps.audit.append(auditRecord(deps.secrets.newId, deps.secrets.clock.now(), { userId: use.userId, action: 'secret.used', outcome, secretId, externalId: use.externalId ?? null, detail }));
    } catch (err) {
      deps.log.error('agents: the secret.used audit row was not written', { secret_id: secretId, chat_id: use.chatId, error: String(err) });
    }
  };
  return {
    provider: model.provider,
    model: model.model,
    async complete(request) {
      const started = performance.now();
      try {
        const answer = await model.complete(request);
        await record('success', started);
        return answer;
      } catch (err) {
        await record('failure', started, err instanceof LlmError ? err.reason : err instanceof ApiError ? err.kind : 'error');
        throw err;
      }
    },
  };
}

export function agentModel(deps: ModelDeps, use: ModelUse, llm: Llm, secretId: string | null): ChatModel {
  const headers = (toHeaders: (c: Credential) => Record<string, string>) =>
    secretId ? async () => toHeaders(await openCredential(deps, use.userId, secretId)) : undefined;
  const h = headers(llm.provider === 'openai' ? authHeader : customKey);
  const model = llm.provider === 'openai'
    ? createOpenAIChat({ baseUrl: llm.base_url ?? OPENAI_BASE_URL, model: llm.model ?? DEFAULT_OPENAI_MODEL, client: deps.client, ...(h ? { headers: h } : {}) })
    : createCustomChat({
        url: llm.custom.url,
        client: deps.client,
        ...(h ? { headers: h } : {}),
        ...(llm.custom.headers ? { extraHeaders: llm.custom.headers } : {}),
        ...(llm.custom.max_messages !== undefined ? { maxMessages: llm.custom.max_messages } : {}),
        ...(llm.custom.streaming !== undefined ? { stream: llm.custom.streaming } : {}),
      });
  return secretId ? audited(deps, use, secretId, model) : model;
}

/**
 * A model failure as a JsonError. The LlmError's message names the provider, the HTTP status
 * and at most a short code, never the server's text; the kind says whose side failed.
 */
export function modelFailure(err: LlmError, deadlineHit: boolean): ApiError {
  const said = `The agent's language model failed: ${err.message}`;
  switch (err.reason) {
    case 'timeout':
      return new ApiError('GatewayTimeoutError', said);
    case 'cancelled':
      return deadlineHit ? new ApiError('GatewayTimeoutError', 'The agent\'s answer took longer than the chat\'s time limit') : new ApiError('ServiceUnavailableError', 'The answer was cancelled');
    case 'refused':
      return new ApiError('ConfigError', `${said} (change the agent's llm.base_url or llm.custom.url, or allow the host with MIMIC_EGRESS_ALLOW)`);
    default:
      return new ApiError('BadGatewayError', said, { reason: err.reason, ...(err.status !== undefined ? { upstream_status: err.status } : {}) });
  }
}
