/**
 * The client key's embed snippet (src/studio/assets/agent-snippet.js): the agents SDK's
 * createAgentManager with the key, the agent and this service's addresses; a hostile agent
 * name stays text in the page it is pasted into (it cannot close the snippet's comment or
 * script, or add an element). The browser test runs the snippet itself.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';

interface SnippetModule {
  SDK_VERSION: string;
  SDK_URL: string;
  embedSnippet(input: { agentId: string; agentName: string; clientKey: string; origin: string; baseUrl: string }): string;
}
const snippets = (await import(new URL('../../src/studio/assets/agent-snippet.js', import.meta.url).href)) as SnippetModule;

const input = { agentId: 'agt_abc123', agentName: 'Ava', clientKey: 'mimic_ck_secretpart', origin: 'https://shop.example', baseUrl: 'https://mimic.example.com' };

describe('the embed snippet', () => {
  it('connects the agents SDK with the client key to this service, by HTTP and by its notifications socket', () => {
    const html = snippets.embedSnippet(input);
    expect(html).toContain(`import { createAgentManager } from "https://cdn.jsdelivr.net/npm/@d-id/client-sdk@${snippets.SDK_VERSION}/+esm";`);
    expect(html).toContain('createAgentManager("agt_abc123", {');
    expect(html).toContain('baseURL: "https://mimic.example.com",');
    expect(html).toContain('wsURL: "wss://mimic.example.com/notifications",');
    expect(html).toContain(`auth: { type: 'key', clientKey: "mimic_ck_secretpart" },`);
    expect(html).toContain('enableAnalytics: false,');
    expect(snippets.embedSnippet({ ...input, baseUrl: 'http://localhost:8080' })).toContain('wsURL: "ws://localhost:8080/notifications",');
  });

  it('loads the SDK version the tests run (package.json)', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { devDependencies: Record<string, string> };
    expect(snippets.SDK_VERSION).toBe(pkg.devDependencies['@d-id/client-sdk']);
  });

  it('keeps a hostile agent name as text: no new element, script or end of comment', () => {
    const name = '--></script><script>alert(1)</script><img src=x onerror=alert(2)>"\'';
    const html = snippets.embedSnippet({ ...input, agentName: name });
    // The comment ends where the snippet ends it, at the end of its first line.
    const [first] = html.split('\n');
    expect(first!.indexOf('-->')).toBe(first!.length - 3);
    expect(html.match(/-->/g)).toHaveLength(1);
    // One script element, no element the name brought.
    expect(html.match(/<script\b/g)).toHaveLength(1);
    expect(html.match(/<\/script>/g)).toHaveLength(1);
    expect(html).not.toMatch(/<img|onerror=alert\(2\)>/);
    expect(html).toContain('<label for="mimic-agent-question">Ask &#45;&#45;&gt;&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&quot;\'</label>');
    // In the script, the name is one string literal that cannot end the element.
    expect(html).toContain(JSON.stringify(`${name}: `).replace(/</g, '\\u003c').replace(/>/g, '\\u003e'));
  });
});
