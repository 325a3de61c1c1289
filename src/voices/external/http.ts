import { ApiError } from '../../errors.ts';
import { performance } from 'node:perf_hooks';
import type { Clock, IdFactory } from '../../clock.ts';
import { auditRecord, type AuditStore } from '../../audit/contract.ts';
import { isEgressError, type GuardedClient, type GuardedResponse } from '../../egress/index.ts';
import type { Logger } from '../../log.ts';
import { authHeader, type Credential } from '../../egress/credential.ts';
import { credentialForms, redactText } from '../../egress/redact.ts';
import { SpeechError } from '../interface.ts';
import type { ExternalProviderType } from '../settings.ts';
import { SECRET_TYPE_OF, type CredentialOpener } from './credentials.ts';

/** What an external provider is built with (the voices module passes the platform's parts). */
export interface ExternalDeps {
  /** The platform's one guarded client: egress policy, deadline, size cap. */
  client: GuardedClient;
  credentials: CredentialOpener;
  log: Logger;
  clock: Clock;
  /** Deadline of a voice list call. */
  listTimeoutMs: number;
  /**
   * Where each use of a secret is recorded (`secret.used`, as a tool call records it, in the
   * secret owner's audit trail: GET /audit). Absent: uses are not audited.
   */
  audit?: { store: Pick<AuditStore, 'append'>; newId: IdFactory };
}

/** Largest audio answer read: 10 minutes of 24 kHz 16-bit mono is 28.8 MB, and base64 in JSON adds a third. */
export const MAX_AUDIO_BYTES = 48 * 1024 * 1024;
/** Largest voice list read (Azure's full list is a few hundred KB). */
export const MAX_LIST_BYTES = 8 * 1024 * 1024;

export interface VendorCall {
  provider: ExternalProviderType;
  secretId: string;
  /** 'synthesis', 'voice list', 'voice cloning' or 'voice deletion': named in error messages. */
  what: string;
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  /** Text (JSON) or bytes (a multipart/form-data upload; its content-type goes in `headers`). */
  body?: string | Buffer;
  timeoutMs: number;
  maxBytes: number;
  signal?: AbortSignal | undefined;
  /** A 404 means the voice does not exist (the voice id is in the URL). */
  notFoundIsUnknownVoice?: string;
  /** Statuses besides 2xx that are answered rather than thrown (a DELETE's 404: already gone). */
  accept?: readonly number[];
  /**
   * The answer is text (JSON) that reaches users (voice names, descriptions): every form of
   * the credential in it is masked, in case the vendor (or a proxy) echoes the request.
   */
  text?: boolean;
}

const aborted = (provider: string, what = 'synthesis') => new SpeechError('aborted', `the ${provider} ${what} was cancelled`);

/** Settles with `work` unless `signal` aborts first (the request then runs out its own deadline, unread). */
function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined, provider: string, what: string): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(aborted(provider, what));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/** The credential's header for this vendor: an api_key secret's value goes in the vendor's own header, whatever header_name the secret has. */
function vendorAuth(provider: ExternalProviderType, credential: Credential): Record<string, string> {
  const forVendor = credential.type === 'api_key' ? { ...credential, headerName: SECRET_TYPE_OF[provider].header } : credential;
  try {
    return authHeader(forVendor);
  } catch (err) {
    // authHeader's messages never repeat the value.
    if (err instanceof ApiError) throw new SpeechError('vendor', `${provider}: ${err.description}`);
    throw err;
  }
}

/**
 * A short machine code from a vendor's error body (OpenAI `error.code`/`error.type`,
 * ElevenLabs `detail.status`), or '' when there is none. Free text is never passed on: a
 * vendor may quote the request (and so the credential) in its messages.
 */
export function vendorCode(body: Buffer, forms: readonly string[]): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.subarray(0, 64 * 1024).toString('utf8'));
  } catch {
    return '';
  }
  const o = (parsed ?? {}) as { error?: { code?: unknown; type?: unknown }; detail?: { status?: unknown }; code?: unknown };
  for (const candidate of [o.error?.code, o.error?.type, o.detail?.status, o.code]) {
    if (typeof candidate !== 'string' || !/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/.test(candidate)) continue;
    if (forms.some((f) => candidate.includes(f) || f.includes(candidate))) continue;
    return candidate;
  }
  return '';
}

function statusFailure(call: VendorCall, res: GuardedResponse, forms: readonly string[]): SpeechError {
  const code = vendorCode(res.body, forms);
  const http = `HTTP ${res.status}${code ? `, ${code}` : ''}`;
  const { provider } = call;
  if (res.status === 404 && call.notFoundIsUnknownVoice !== undefined) {
    return new SpeechError('unknown-voice', `${provider} has no voice ${JSON.stringify(call.notFoundIsUnknownVoice.slice(0, 100))} (${http})`);
  }
  if (res.status === 401 || res.status === 403) {
    const hint = provider === 'microsoft' ? 'check the key and that it belongs to the configured region' : 'check the key';
    return new SpeechError('vendor', `${provider} refused the credential of secret ${call.secretId} (${http}): ${hint}`);
  }
  if (res.status === 429) return new SpeechError('vendor', `${provider} is rate limiting or out of quota (${http}); try again later`);
  if (res.status >= 500) return new SpeechError('vendor', `${provider} failed to answer the ${call.what} request (${http})`);
  return new SpeechError('vendor', `${provider} refused the ${call.what} request (${http})`);
}

/** The audit row of one use of a provider's secret; a failure to write it is logged, never thrown at the speech. */
async function recordUse(deps: ExternalDeps, ownerId: string, call: VendorCall, upstreamStatus: number | undefined, reason: string | undefined, durationMs: number): Promise<void> {
  if (!deps.audit) return;
  const outcome = upstreamStatus !== undefined && upstreamStatus >= 200 && upstreamStatus <= 299 ? 'success' : 'failure';
  const detail = { provider: call.provider, duration_ms: durationMs, ...(upstreamStatus !== undefined ? { upstream_status: upstreamStatus } : {}), ...(reason ? { reason } : {}) };
  try {
    await deps.audit.store.append(auditRecord(deps.audit.newId, deps.clock.now(), { userId: ownerId, action: 'secret.used', outcome, secretId: call.secretId, detail }));
  } catch (err) {
    deps.log.error('voices: the secret.used audit row was not written', { provider: call.provider, secret_id: call.secretId, error: String(err) });
  }
}

/**
 * One call to a vendor: opens the secret, sends it in the vendor's header through the guarded
 * client under a deadline, and answers the 2xx response. Every failure is a SpeechError whose
 * message names the vendor and the HTTP status or the egress reason, never the credential.
 */
export async function callVendor(deps: ExternalDeps, call: VendorCall): Promise<GuardedResponse> {
  if (call.signal?.aborted) throw aborted(call.provider, call.what);
  const { credential, ownerId } = await deps.credentials(call.provider, call.secretId);
  const started = performance.now();
  const audit = (upstreamStatus: number | undefined, reason?: string) =>
    recordUse(deps, ownerId, call, upstreamStatus, reason, Math.round(performance.now() - started));
  const request = deps.client.request(call.url, {
    method: call.method,
    headers: { ...call.headers, ...vendorAuth(call.provider, credential) },
    ...(call.body !== undefined ? { body: call.body } : {}),
    timeoutMs: call.timeoutMs,
    maxBytes: call.maxBytes,
  });
  let res: GuardedResponse;
  try {
    res = await abortable(request, call.signal, call.provider, call.what);
  } catch (err) {
    await audit(undefined, isEgressError(err) ? err.reason : err instanceof SpeechError ? err.reason : 'internal');
    if (!isEgressError(err)) throw err;
    // EgressError messages name the host only.
    const why = err.reason === 'timeout' ? `did not answer within ${call.timeoutMs} ms` : `could not be called: ${err.message}`;
    throw new SpeechError('vendor', `${call.provider} ${call.what}: the vendor ${why}`);
  }
  await audit(res.status);
  const forms = credentialForms(credential);
  if ((res.status < 200 || res.status > 299) && !call.accept?.includes(res.status)) throw statusFailure(call, res, forms);
  return call.text ? { ...res, body: Buffer.from(redactText(res.body.toString('utf8'), forms), 'utf8') } : res;
}

/** One file part of a multipart/form-data body. */
export interface FormFile {
  field: string;
  filename: string;
  contentType: string;
  bytes: Buffer;
}

/**
 * A multipart/form-data body (RFC 7578) and its content-type with the boundary, encoded by
 * the platform's own FormData (so names, quoting and boundaries are the standard's).
 */
export async function formBody(fields: Record<string, string>, files: readonly FormFile[]): Promise<{ body: Buffer; contentType: string }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const f of files) form.append(f.field, new Blob([f.bytes], { type: f.contentType }), f.filename);
  const encoded = new Request('http://form.invalid/', { method: 'POST', body: form });
  return { body: Buffer.from(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type')! };
}

/** The body as JSON, or a vendor error naming what was expected. */
export function jsonOf(res: GuardedResponse, provider: ExternalProviderType, what: string): unknown {
  try {
    return JSON.parse(res.body.toString('utf8'));
  } catch {
    throw new SpeechError('vendor', `${provider} sent a ${what} answer that is not JSON`);
  }
}
