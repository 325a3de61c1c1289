import { performance } from 'node:perf_hooks';
import { ApiError, notFound } from '../errors.ts';
import { isEgressError, type EgressError, type GuardedClient, type GuardedResponse } from '../egress/index.ts';
import type { Logger } from '../log.ts';
import type { ToolRow, SecretRow } from '../db/schema.ts';
import { validate, type FieldError } from '../schemas/ajv.ts';
import { ToolCallBody, type ToolCallResultView } from './schemas.ts';
import { auditRecord, type AuditDetail } from '../audit/contract.ts';
import type { Credential } from '../egress/credential.ts';
import { staticCredential, ReauthorizationRequired, RefreshFailed, type OAuth2Refresher } from '../secrets/contract.ts';
import { parameterValidator } from './exec/parameters.ts';
import { UnsupportedPattern } from './exec/pattern-engine.ts';
import { buildToolRequest, type ToolRequest } from './exec/request.ts';
import { credentialForms } from '../egress/redact.ts';
import { redactToolOutput } from './exec/redact.ts';
import { shapeUpstreamResponse } from './exec/response.ts';
import type { ToolDeps } from './service.ts';

export interface ToolCallDeps extends ToolDeps {
  client: GuardedClient;
  refresher: OAuth2Refresher;
  log: Logger;
  limits: { timeoutMs: number; maxResponseBytes: number };
}

interface ServerConfig {
  type: 'server';
  url: string;
  method: string;
  timeout_ms?: number;
}

/** Maps an outbound failure to the catalogue; messages name the host only (EgressError guarantees it). */
function upstreamFailure(err: EgressError): ApiError {
  switch (err.reason) {
    case 'timeout':
      return new ApiError('GatewayTimeoutError', `The tool's upstream did not answer in time: ${err.message}`);
    case 'too_large':
      return new ApiError('BadGatewayError', `The tool's upstream sent too much: ${err.message}`);
    case 'refused_address':
    case 'scheme':
    case 'credentials_in_url':
    case 'bad_url':
      return new ApiError('BadRequestError', `The tool's URL may not be called: ${err.message}`, { reason: err.reason });
    default:
      return new ApiError('BadGatewayError', `The tool's upstream could not be reached: ${err.message}`, { reason: err.reason });
  }
}

function reauthorization(secretId: string): ApiError {
  return new ApiError(
    'ConflictError',
    `The oauth2 secret ${secretId} needs re-authorization: its refresh token was revoked. Connect it again (operators: mimic secrets import-oauth2 --secret ${secretId}).`,
    { secret_id: secretId, status: 'needs_reauthorization' },
  );
}

/** The credential for this call; oauth2 tokens come from the refresher, fresh enough to use. */
async function credentialOf(deps: ToolCallDeps, secret: SecretRow): Promise<Credential> {
  if (secret.type !== 'oauth2') return staticCredential(deps, secret);
  if (secret.status === 'needs_reauthorization') throw reauthorization(secret.id);
  return { type: 'oauth2', accessToken: await deps.refresher.accessTokenFor(secret.id) };
}

async function send(deps: ToolCallDeps, req: ToolRequest, timeoutMs: number): Promise<GuardedResponse> {
  return deps.client.request(req.url, {
    method: req.method,
    headers: req.headers,
    ...(req.body !== undefined ? { body: req.body } : {}),
    timeoutMs,
    maxBytes: deps.limits.maxResponseBytes,
  });
}

interface CompiledTool {
  schemaText: string;
  configText: string;
  config: ServerConfig | { type: 'client' };
  check: (input: unknown) => FieldError[];
}

/** Parsed config and compiled input validator per tool id, least recently used out. */
const compiledTools = new Map<string, CompiledTool>();
const COMPILED_TOOLS = 1000;

/**
 * What a call needs from the tool's JSON, parsed and compiled once per version of the tool:
 * a hit compares the stored texts themselves, so two replaces within one millisecond cannot
 * leave a stale validator in use.
 */
/**
 * A tool stored before patterns ran on RE2 may hold one RE2 refuses (a backreference, a
 * lookahead): the caller learns which and how to fix it, as a 400, not a 500.
 */
function validatorOf(tool: ToolRow, parameters: object): CompiledTool['check'] {
  try {
    return parameterValidator(`${tool.id}\u0000${tool.schema}`, parameters);
  } catch (err) {
    if (!(err instanceof UnsupportedPattern)) throw err;
    throw new ApiError(
      'ConfigError',
      `Tool ${tool.id} has a pattern in schema.parameters that ${err.message}; replace the tool (PUT /tools/${tool.id}) with a pattern without them`,
    );
  }
}

function compiledTool(tool: ToolRow): CompiledTool {
  let hit = compiledTools.get(tool.id);
  if (hit && hit.schemaText === tool.schema && hit.configText === tool.config) {
    compiledTools.delete(tool.id);
  } else {
    const parameters = (JSON.parse(tool.schema) as { parameters: object }).parameters;
    hit = {
      schemaText: tool.schema,
      configText: tool.config,
      config: JSON.parse(tool.config) as CompiledTool['config'],
      check: validatorOf(tool, parameters),
    };
    if (compiledTools.size >= COMPILED_TOOLS) compiledTools.delete(compiledTools.keys().next().value!);
  }
  compiledTools.set(tool.id, hit);
  return hit;
}

/**
 * POST /tools/{id}/calls: validates the input against the tool's parameters (no outbound
 * request when it fails), attaches the secret's header, makes the call through the guarded
 * client, and returns the upstream's answer with every form of the credential masked.
 * `via.chatId`: the agent chat whose model asked for the call (it goes on the audit row).
 */
export async function callTool(deps: ToolCallDeps, userId: string, toolId: string, raw: unknown, via: { chatId?: string; externalId?: string } = {}): Promise<ToolCallResultView> {
  const tool: ToolRow | undefined = await deps.toolStore.get(userId, toolId);
  if (!tool) throw notFound('Tool');
  const { input } = validate(ToolCallBody, raw, 'request body', 'ValidationError');
  const { config, check } = compiledTool(tool);
  if (config.type !== 'server') {
    throw new ApiError('BadRequestError', `Tool ${tool.id} is a client tool: it runs in the user's browser and is never called by the server`);
  }
  const problems = check(input);
  if (problems.length) {
    const first = problems[0]!;
    throw new ApiError('ValidationError', `Invalid tool input: ${first.field} ${first.message}`, problems);
  }

  const callId = deps.newId('call');
  const started = performance.now();
  const secret = tool.secretId ? await deps.secretStore.getById(tool.secretId) : undefined;
  if (tool.secretId && (!secret || secret.userId !== userId)) throw new ApiError('ConflictError', `The tool's secret ${tool.secretId} no longer exists`);
  const used: Credential[] = [];
  // One transaction: the audit row, and the secret marked as used at the same time.
  const audit = (outcome: 'success' | 'failure', detail: AuditDetail) =>
    deps.toolStore.recordCall(
      auditRecord(deps.newId, deps.clock.now(), {
        userId, action: secret ? 'secret.used' : 'tool.called', outcome, toolId: tool.id, secretId: secret?.id ?? null, callId, externalId: via.externalId ?? null,
        detail: { ...detail, duration_ms: Math.round(performance.now() - started), ...(via.chatId ? { chat_id: via.chatId } : {}) },
      }),
      secret?.id ?? null,
    );

  try {
    let credential = secret ? await credentialOf(deps, secret) : undefined;
    if (credential) used.push(credential);
    const timeoutMs = config.timeout_ms ?? deps.limits.timeoutMs;
    let res = await send(deps, buildToolRequest({ url: config.url, method: config.method, input, ...(credential ? { credential } : {}) }), timeoutMs);
    if (res.status === 401 && secret && credential?.type === 'oauth2') {
      // A stale access token: one refresh (single-flight with every other caller) and one retry.
      credential = { type: 'oauth2', accessToken: await deps.refresher.refreshAfterRejection(secret.id, credential.accessToken) };
      used.push(credential);
      res = await send(deps, buildToolRequest({ url: config.url, method: config.method, input, credential }), timeoutMs);
    }
    const output = redactToolOutput(shapeUpstreamResponse(res), used.flatMap(credentialForms));
    await audit(res.status < 400 ? 'success' : 'failure', { upstream_status: res.status });
    return { call_id: callId, tool_id: tool.id, name: tool.name, input, output, duration_ms: Math.round((performance.now() - started) * 10) / 10 };
  } catch (err) {
    const mapped =
      err instanceof ApiError ? err
      : err instanceof ReauthorizationRequired ? reauthorization(secret!.id)
      : err instanceof RefreshFailed ? new ApiError('BadGatewayError', `Refreshing the oauth2 access token failed: ${err.message}`, { secret_id: secret?.id })
      : isEgressError(err) ? upstreamFailure(err)
      : null;
    await audit('failure', { error_kind: mapped?.kind ?? 'InternalServerError', ...(isEgressError(err) ? { reason: err.reason } : {}) });
    throw mapped ?? err;
  }
}
