/**
 * Animate a photo end to end and receive the signed webhook.
 *
 *   npx tsx examples/animate.ts [path/to/photo.jpg]
 *
 * Starts the service on a temporary data directory (so it runs anywhere, with nothing set
 * up), creates a user with the CLI, serves the photo and a webhook receiver over HTTPS on
 * loopback (a self-signed certificate the service trusts through NODE_EXTRA_CA_CERTS, and
 * MIMIC_EGRESS_ALLOW=localhost so the service may call loopback at all), posts the
 * animation, verifies the webhook's Standard Webhooks signature, and saves the video as
 * ./animation-result.mp4.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:https';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from 'selfsigned';
import { Webhook } from 'standardwebhooks';

const root = fileURLToPath(new URL('..', import.meta.url));
const photo = readFileSync(process.argv[2] ? resolve(process.argv[2]) : join(root, 'assets/sample-source.png'));
const dataDir = mkdtempSync(join(tmpdir(), 'mimic-example-'));
const port = 18080 + Math.floor(Math.random() * 1000);
const base = `http://127.0.0.1:${port}`;

// 1. An HTTPS server on loopback: serves the photo and receives the webhook.
const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
  keyType: 'ec',
  extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }] }],
});
writeFileSync(join(dataDir, 'ca.pem'), pems.cert);
let resolveHook: (hook: { headers: Record<string, string>; body: string }) => void;
const hookArrived = new Promise<{ headers: Record<string, string>; body: string }>((r) => (resolveHook = r));
const https = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
  if (req.method === 'GET') return void res.writeHead(200, { 'content-type': 'image/png' }).end(photo);
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    res.writeHead(204).end();
    resolveHook({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString() });
  });
}).listen(0, '127.0.0.1');
await new Promise((r) => https.once('listening', r));
const httpsPort = (https.address() as { port: number }).port;

// 2. The service, and a user made with the CLI (`npm run -s mimic -- users create`).
const env = {
  ...process.env,
  PORT: String(port),
  MIMIC_DATA_DIR: dataDir,
  MIMIC_PUBLIC_URL: base,
  MIMIC_EGRESS_ALLOW: 'localhost',
  NODE_EXTRA_CA_CERTS: join(dataDir, 'ca.pem'),
};
const node = [process.execPath, '--import', 'tsx', 'src/main.ts'] as const;
const service = spawn(node[0], [...node.slice(1), 'serve'], { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] });
const cleanup = () => {
  service.kill('SIGTERM');
  https.close();
  rmSync(dataDir, { recursive: true, force: true });
};
try {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch {
      if (i > 300) throw new Error('the service did not start');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const user = JSON.parse(execFileSync(node[0], [...node.slice(1), 'users', 'create', '--name', 'example'], { cwd: root, env, encoding: 'utf8' }));
  const auth = { authorization: `Basic ${user.api_key}` };

  // 3. Create the animation.
  const created = await fetch(`${base}/animations`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({
      source_url: `https://localhost:${httpsPort}/photo.png`,
      driver_url: 'bank://fun/',
      webhook: `https://localhost:${httpsPort}/webhook`,
      user_data: 'example run',
    }),
  }).then((r) => r.json() as Promise<{ id: string }>);
  console.log('created:', created);

  // 4. Poll for progress while waiting for the webhook.
  let record: any;
  do {
    await new Promise((r) => setTimeout(r, 500));
    record = await fetch(`${base}/animations/${created.id}`, { headers: auth }).then((r) => r.json());
    if (record.progress) console.log(`rendering: ${record.progress.frames_done}/${record.progress.frames_total} frames`);
  } while (record.status === 'created' || record.status === 'started');
  if (record.status !== 'done') throw new Error(`animation failed: ${JSON.stringify(record.error)}`);

  // 5. Verify the webhook with the user's signing secret.
  const hook = await hookArrived;
  const { secret } = (await fetch(`${base}/webhooks/secret`, { headers: auth }).then((r) => r.json())) as { secret: string };
  const payload = new Webhook(secret).verify(hook.body, hook.headers) as { id: string; status: string };
  console.log(`webhook verified: ${payload.id} is ${payload.status} (webhook-id ${hook.headers['webhook-id']})`);

  // 6. Download the video from its signed URL.
  const video = new Uint8Array(await (await fetch(record.result_url)).arrayBuffer());
  writeFileSync('animation-result.mp4', video);
  console.log(`saved animation-result.mp4 (${video.length} bytes, ${record.metadata.num_frames} frames, ${record.metadata.resolution.join('x')})`);
} finally {
  cleanup();
}
