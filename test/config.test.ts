import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError, loadConfig } from '../src/config.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'mimic-config-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const load = (env: Record<string, string>) => loadConfig({ MIMIC_DATA_DIR: dataDir, ...env });

describe('MIMIC_PUBLIC_URL', () => {
  it.each(['ftp://x', 'localhost:8090', 'mimic.example.com', '/relative', 'http://', 'file:///srv/mimic', 'https://user:pw@mimic.example.com', 'https://mimic.example.com/?a=1'])(
    'refuses %s with one line naming the setting',
    (value) => {
      expect(() => load({ MIMIC_PUBLIC_URL: value })).toThrow(ConfigurationError);
      expect(() => load({ MIMIC_PUBLIC_URL: value })).toThrow(`MIMIC_PUBLIC_URL must be an absolute http:// or https:// URL like https://mimic.example.com, got "${value}"`);
    },
  );

  it('takes http and https URLs, with a path prefix, without the trailing slash', () => {
    expect(load({ MIMIC_PUBLIC_URL: 'https://mimic.example.com/' }).publicUrl).toBe('https://mimic.example.com');
    expect(load({ MIMIC_PUBLIC_URL: 'http://localhost:8090' }).publicUrl).toBe('http://localhost:8090');
    expect(load({ MIMIC_PUBLIC_URL: 'https://example.com/mimic/' }).publicUrl).toBe('https://example.com/mimic');
    expect(load({ PORT: '9000' }).publicUrl).toBe('http://localhost:9000');
  });

  it('is checked before the data directory is created', () => {
    const missing = join(dataDir, 'not-yet');
    expect(() => loadConfig({ MIMIC_DATA_DIR: missing, MIMIC_PUBLIC_URL: 'localhost:8090' })).toThrow(ConfigurationError);
    expect(() => rmSync(missing)).toThrow(/ENOENT/);
  });
});

describe('PORT', () => {
  it.each(['http', '-1', '65536', '80.5'])('refuses %s', (value) => {
    expect(() => load({ PORT: value })).toThrow(`PORT must be an integer from 0 to 65535, got "${value}"`);
  });
});
