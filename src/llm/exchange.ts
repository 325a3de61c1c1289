import { isEgressError, POLICY_REFUSALS, type EgressError } from '../egress/index.ts';
import type { GuardedClient } from '../egress/client.ts';
import { LlmError } from './interface.ts';
import { sseReader, type SseEvent } from './sse.ts';

/** Limits of one model exchange. */
export interface ExchangeLimits {
  /** The whole answer, in ms (a model's long answer streams for a while). */
  timeoutMs: number;
  /** Longest silence between two pieces of the answer, in ms. */
  idleTimeoutMs: number;
  /** Bytes of the whole answer. */
  maxBytes: number;
}

export const DEFAULT_LIMITS: ExchangeLimits = { timeoutMs: 120_000, idleTimeoutMs: 30_000, maxBytes: 8 * 1024 * 1024 };

const CODE = /^[A-Za-z0-9_.-]{1,64}$/;

/** The server's short error code (`invalid_api_key`, `model_not_found`), when it sent one that looks like a code. */
function errorCode(body: Buffer): string | undefined {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { error?: { code?: unknown; type?: unknown } | string };
    const e = parsed.error;
    const code = typeof e === 'object' && e ? (e.code ?? e.type) : undefined;
    return typeof code === 'string' && CODE.test(code) ? code : undefined;
  } catch {
    return undefined;
  }
}

function statusFailure(provider: string, status: number, body: Buffer): LlmError {
  const code = errorCode(body);
  const said = `the ${provider} model server answered HTTP ${status}${code ? ` (${code})` : ''}`;
  if (status === 401 || status === 403) return new LlmError('auth', `${said}: check the model's secret`, status);
  if (status === 429) return new LlmError('rate_limited', said, status);
  if (status >= 400 && status < 500) return new LlmError('bad_request', said, status);
  return new LlmError('unavailable', said, status);
}

function egressFailure(provider: string, err: EgressError): LlmError {
  if (err.reason === 'cancelled') return new LlmError('cancelled', `the ${provider} model call was cancelled`);
  if (err.reason === 'timeout') return new LlmError('timeout', `the ${provider} model server: ${err.message}`);
  if (POLICY_REFUSALS.has(err.reason)) {
    return new LlmError('refused', `the ${provider} model server's address is not allowed: ${err.message}`);
  }
  return new LlmError('unavailable', `the ${provider} model server: ${err.message}`);
}

/**
 * POSTs `body` and reads the answer: each server-sent event to `onEvent` as it arrives, or, if
 * the server answered plain JSON instead of a stream, that JSON (parsed) as the result. Every
 * failure is an LlmError that names the provider, never the server's text.
 */
export async function postForEvents(
  client: GuardedClient,
  input: { provider: string; url: string; headers: Record<string, string>; body: unknown; limits: ExchangeLimits; signal?: AbortSignal },
  onEvent: (e: SseEvent) => void,
): Promise<{ json?: unknown; events: number }> {
  const { provider } = input;
  const raw: Buffer[] = [];
  let rawBytes = 0;
  let events = 0;
  let failure: unknown;
  const reader = sseReader((e) => {
    events++;
    onEvent(e);
  });
  let status: number;
  let errorBody: Buffer;
  try {
    const res = await client.stream(input.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream, application/json', ...input.headers },
      body: JSON.stringify(input.body),
      timeoutMs: input.limits.timeoutMs,
      idleTimeoutMs: input.limits.idleTimeoutMs,
      maxBytes: input.limits.maxBytes,
      ...(input.signal ? { signal: input.signal } : {}),
      onChunk: (chunk) => {
        // Kept only until it is clear whether the answer is a stream (the first event) or plain JSON.
        if (events === 0) {
          raw.push(chunk);
          rawBytes += chunk.length;
        }
        try {
          reader.push(chunk);
        } catch (err) {
          failure = err;
          return false;
        }
        return true;
      },
    });
    status = res.status;
    errorBody = res.body;
  } catch (err) {
    if (err instanceof LlmError) throw err;
    if (isEgressError(err)) throw egressFailure(provider, err);
    throw err;
  }
  if (status < 200 || status > 299) throw statusFailure(provider, status, errorBody);
  if (failure instanceof LlmError) throw failure;
  if (failure) throw new LlmError('protocol', `the ${provider} model server sent a broken event stream`);
  reader.end();
  if (events > 0) return { events };
  const text = Buffer.concat(raw, rawBytes).toString('utf8').trim();
  try {
    return { json: JSON.parse(text), events: 0 };
  } catch {
    throw new LlmError('protocol', `the ${provider} model server answered neither an event stream nor JSON`);
  }
}

/** Parses one event's JSON data, or fails as a protocol error. */
export function eventJson<T>(provider: string, data: string): T {
  try {
    return JSON.parse(data) as T;
  } catch {
    throw new LlmError('protocol', `the ${provider} model server sent an event that is not JSON`);
  }
}
