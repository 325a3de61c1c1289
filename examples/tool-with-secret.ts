/**
 * A tool that calls an HTTPS API with a stored credential, end to end:
 * store a bearer secret, define a server tool that refers to it by `auth.secret_id`, call the
 * tool, see that the secret can never be read back, read the audit trail, and clean up.
 *
 *   MIMIC_API_KEY=mimic_... npx tsx examples/tool-with-secret.ts
 *
 * Environment:
 *   MIMIC_URL      the service (default http://localhost:8080)
 *   MIMIC_API_KEY  an API key (required): `npm run -s mimic -- users create` prints one
 *   TOOL_URL       the API the tool calls (default https://api.open-meteo.com/v1/forecast, a
 *                  public forecast API that needs no key: the token is attached and ignored)
 *   TOOL_TOKEN     the bearer token to store (default a placeholder; put your API's real one here)
 *
 * Offline, against a local upstream. The service only calls loopback when MIMIC_EGRESS_ALLOW
 * says so, and a tool with auth must use https, so the upstream needs a certificate the
 * service trusts (NODE_EXTRA_CA_CERTS):
 *
 *   openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=localhost \
 *     -addext subjectAltName=DNS:localhost -keyout /tmp/up-key.pem -out /tmp/up-cert.pem
 *   node -e "require('https').createServer({key:require('fs').readFileSync('/tmp/up-key.pem'),
 *     cert:require('fs').readFileSync('/tmp/up-cert.pem')},(q,s)=>s.writeHead(200,{'content-type':
 *     'application/json'}).end(JSON.stringify({url:q.url,authorization:q.headers.authorization})))
 *     .listen(8443,'127.0.0.1')" &
 *   MIMIC_EGRESS_ALLOW=localhost NODE_EXTRA_CA_CERTS=/tmp/up-cert.pem npm start &
 *   MIMIC_API_KEY=... TOOL_URL=https://localhost:8443/v1/forecast npx tsx examples/tool-with-secret.ts
 *
 * That upstream echoes the Authorization header it received: the call result shows it masked.
 */

const MIMIC_URL = (process.env.MIMIC_URL ?? 'http://localhost:8080').replace(/\/+$/, '');
const API_KEY = process.env.MIMIC_API_KEY;
const TOOL_URL = process.env.TOOL_URL ?? 'https://api.open-meteo.com/v1/forecast';
const TOOL_TOKEN = process.env.TOOL_TOKEN ?? 'example-token-not-a-real-key';

/** A JsonError answer of the service: `{kind, description, details?}`. */
class MimicError extends Error {
  constructor(
    readonly status: number,
    readonly kind: string,
    readonly description: string,
    readonly details?: unknown,
  ) {
    super(`${kind}: ${description}`);
  }
}

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${MIMIC_URL}${path}`, {
      method,
      headers: { authorization: `Basic ${API_KEY}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch (err) {
    throw new Error(`could not reach the service at ${MIMIC_URL} (${(err as Error).cause ?? err}); is it running? set MIMIC_URL`);
  }
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new MimicError(res.status, 'UnexpectedResponse', `${method} ${path} answered ${res.status} with a non-JSON body: ${text.slice(0, 200)}`);
  }
  if (!res.ok) {
    const e = json as { kind?: string; description?: string; details?: unknown };
    throw new MimicError(res.status, e.kind ?? `HTTP ${res.status}`, e.description ?? text.slice(0, 200), e.details);
  }
  return json as T;
}

const show = (label: string, value: unknown) => console.log(`${label}\n${JSON.stringify(value, null, 2)}\n`);

interface SecretView { id: string; provider: string; type: string; sanitized_secret: string; last_used_at?: string }
interface ToolView { id: string; name: string }
interface CallResult { call_id: string; output: { status: number; headers: Record<string, string>; body: unknown }; duration_ms: number }
interface AuditEvent { at: string; action: string; outcome: string; tool_id?: string; call_id?: string; detail: Record<string, unknown> }

async function main(): Promise<void> {
  if (!API_KEY) return report(new Error('MIMIC_API_KEY is required (create a user with `npm run -s mimic -- users create`)'));
  if (!URL.canParse(TOOL_URL)) return report(new Error(`TOOL_URL is not an absolute URL: ${TOOL_URL}`));
  const provider = new URL(TOOL_URL).hostname;
  let secretId: string | undefined;
  let toolId: string | undefined;
  try {
    // 1. Store the credential. The answer (and every later one) shows only a mask.
    const secret = await api<SecretView>('POST', '/secrets', { type: 'bearer', provider, token: TOOL_TOKEN });
    secretId = secret.id;
    show('1. stored the secret:', secret);

    // 2. A server tool that sends `Authorization: Bearer <token>` from that secret. The
    //    parameters are what a language model fills in; for GET they go to the query string.
    const tool = await api<ToolView>('POST', '/tools', {
      name: 'get_forecast',
      description: 'Current temperature and wind at a place, by latitude and longitude',
      provider,
      schema: {
        parameters: {
          type: 'object',
          properties: {
            latitude: { type: 'number', minimum: -90, maximum: 90 },
            longitude: { type: 'number', minimum: -180, maximum: 180 },
            current: { type: 'string', description: 'comma-separated variables, e.g. temperature_2m,wind_speed_10m' },
          },
          required: ['latitude', 'longitude'],
          additionalProperties: false,
        },
      },
      config: { type: 'server', url: TOOL_URL, method: 'GET', timeout_ms: 10_000 },
      auth: { secret_id: secret.id },
    });
    toolId = tool.id;
    console.log(`2. defined tool ${tool.id} (${tool.name}) -> GET ${TOOL_URL}, auth from ${secret.id}\n`);

    // 3. Call it, as an agent would with a model's arguments (Oslo).
    const call = await api<CallResult>('POST', `/tools/${tool.id}/calls`, {
      input: { latitude: 59.91, longitude: 10.75, current: 'temperature_2m,wind_speed_10m' },
    });
    show('3. called the tool:', call);
    if (call.output.status >= 400) console.log(`   (the API answered ${call.output.status}: the call itself worked, the upstream refused it)\n`);
    if (JSON.stringify(call).includes(TOOL_TOKEN)) throw new Error('the token appears in the call result; it should have been masked');

    // 4. The secret can be listed and replaced, never read: only `sanitized_secret` comes back.
    const stored = await api<SecretView>('GET', `/secrets/${secret.id}`);
    show('4. GET /secrets/{id} (no field holds the token):', stored);
    if (JSON.stringify(stored).includes(TOOL_TOKEN)) throw new Error('the token appears in GET /secrets/{id}');

    // 5. Every use of the secret is in the audit trail, newest first.
    const audit = await api<{ events: AuditEvent[] }>('GET', `/audit?secret_id=${encodeURIComponent(secret.id)}`);
    console.log('5. audit trail of the secret:');
    for (const e of audit.events) {
      console.log(`   ${e.at}  ${e.action.padEnd(15)} ${e.outcome.padEnd(8)} ${e.call_id ?? ''} ${JSON.stringify(e.detail)}`);
    }
    console.log();
  } catch (err) {
    report(err);
  } finally {
    // 6. Clean up: the tool first, because a secret that a tool refers to cannot be deleted.
    if (toolId) await api('DELETE', `/tools/${toolId}`).then(() => console.log(`6. deleted tool ${toolId}`), report);
    if (secretId) await api('DELETE', `/secrets/${secretId}`).then(() => console.log(`   deleted secret ${secretId}`), report);
  }
}

function report(err: unknown): void {
  if (err instanceof MimicError) {
    console.error(`error ${err.status} ${err.kind}: ${err.description}`);
    if (err.details !== undefined) console.error(`details: ${JSON.stringify(err.details)}`);
  } else {
    console.error(`error: ${err instanceof Error ? err.message : String(err)}`);
  }
  process.exitCode = 1;
}

await main();
