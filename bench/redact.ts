/**
 * Cost of masking credentials in one large tool answer: `redactText` over a 1 MiB body
 * (JSON-like text, base64 blobs and the credential in a few forms near the end), for each
 * secret type, and `redactToolOutput` over 1 MiB of parsed JSON (many short strings); also
 * the number of forms masked. Medians over the runs; never fails on timing.
 *
 *   npx tsx bench/redact.ts [runs]
 */
import { performance } from 'node:perf_hooks';
import { credentialForms, redactText } from '../src/egress/redact.ts';
import { redactToolOutput } from '../src/tools/exec/redact.ts';
import type { Credential } from '../src/egress/credential.ts';
import { median } from './stats.ts';

const runs = Number(process.argv[2] ?? 15);
const MIB = 1024 * 1024;

const credentials: Credential[] = [
  { type: 'bearer', token: 'tok_live_Ab+/9z==Q7x9Lm2Pz4Kd8Vw1' },
  { type: 'oauth2', accessToken: 'ya29.a0Af-H_x~y.Lp0Kr9Ej5Vt2Zm5Xn3Cb7Vq0' },
  { type: 'api_key', apiKey: 'sk-"quoted"\\ünïcode key Hs5Tj3Rn6Yb0Gc2', headerName: 'X-API-Key' },
  { type: 'basic', username: 'alice', password: 'pä"ss w\\rd/+=Nf8Ue1Mo3Ia7' },
];

/** 1 MiB of a plausible answer: JSON text and base64, with the secret echoed a few times in the last KiB. */
function body(secret: string): string {
  const filler = JSON.stringify({ id: 'item_12345', name: 'Oslo weather', temperature: 21.5, notes: 'partly cloudy with light winds' });
  const blob = Buffer.from('x'.repeat(3000) + filler.repeat(20)).toString('base64');
  let text = '';
  while (text.length < MIB - 2048) text += `${filler},${blob.slice(0, 400)},`;
  const tail = `${secret} ${Buffer.from(`Bearer ${secret}`).toString('base64')} ${Buffer.from(secret).toString('hex')}`;
  return (text + tail).padEnd(MIB, ' ');
}

for (const credential of credentials) {
  const forms = credentialForms(credential);
  const secret = credential.type === 'bearer' ? credential.token : credential.type === 'oauth2' ? credential.accessToken : credential.type === 'api_key' ? credential.apiKey : credential.password;
  const text = body(secret);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    redactText(text, forms);
    times.push(performance.now() - start);
  }
  const json = JSON.parse(`[${'{"id":"item_12345","city":"Oslo","temp":21.5,"tags":["a","bb","partly cloudy"]},'.repeat(Math.floor(MIB / 80))}null]`) as unknown;
  const jsonTimes: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    redactToolOutput({ status: 200, headers: {}, body: json }, forms);
    jsonTimes.push(performance.now() - start);
  }
  console.log(
    `${credential.type.padEnd(8)} forms ${String(forms.length).padStart(3)}  redactText(1 MiB) median ${median(times).toFixed(2)} ms  redactToolOutput(1 MiB JSON) median ${median(jsonTimes).toFixed(1)} ms`,
  );
}
