import type { ServerResponse } from 'node:http';
import type { Harness } from './harness.ts';
import type { ReceivedRequest } from './tls.ts';

/** An upstream that answers with everything it received, as a careless API might. */
export function echo(req: ReceivedRequest, res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json', 'x-echo-auth': String(req.headers.authorization ?? '') });
  res.end(JSON.stringify({ method: req.method, path: req.path, headers: req.headers, body: req.body.toString('utf8') }));
}

export const cityParameters = {
  type: 'object',
  properties: { city: { type: 'string', minLength: 1 }, units: { type: 'string', enum: ['metric', 'imperial'] }, days: { type: 'integer', minimum: 1 } },
  required: ['city'],
  additionalProperties: false,
};

export function toolBody(url: string, opts: { method?: string; secretId?: string; name?: string } = {}) {
  return {
    name: opts.name ?? 'get_weather',
    description: 'Current weather for a city',
    provider: 'weather-api',
    schema: { parameters: cityParameters },
    config: { type: 'server', url, method: opts.method ?? 'GET' },
    ...(opts.secretId ? { auth: { secret_id: opts.secretId } } : {}),
  };
}

/** Creates a secret and answers its id (fails the test on anything but 201). */
export async function makeSecret(h: Harness, key: string, body: Record<string, unknown>): Promise<string> {
  const res = await h.call('POST', '/secrets', { key, body });
  if (res.status !== 201) throw new Error(`secret create answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

export async function makeTool(h: Harness, key: string, body: Record<string, unknown>): Promise<string> {
  const res = await h.call('POST', '/tools', { key, body });
  if (res.status !== 201) throw new Error(`tool create answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}
