/** The page at `/`: what this service is and where to go next. Links stay on this origin. */
export const LANDING_STYLE = `body{font:16px/1.55 system-ui,sans-serif;max-width:46em;margin:3em auto;padding:0 1.2em;color:#1d2733}
h1{display:flex;align-items:center;gap:.5em;margin-bottom:.2em}h1 img{width:1.6em;height:1.6em}
a{color:#0b62b5}ul{padding-left:1.2em}li{margin:.3em 0}code{background:#f2f4f7;padding:0 .25em;border-radius:3px}
.lead{font-size:1.1em;color:#3b4654}footer{margin-top:2.5em;color:#6b7785;font-size:.9em}`;

export function landingPage(version: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mimic</title><link rel="icon" href="/favicon.svg" type="image/svg+xml"><link rel="icon" href="/favicon.ico" sizes="32x32">
<style>${LANDING_STYLE}</style></head><body>
<h1><img src="/favicon.svg" alt="">mimic</h1>
<p class="lead">A self-hostable video generation service and agent tool runtime, a drop-in for the hosted service's API:
same paths, same bodies, same <code>Authorization: Basic &lt;API_KEY&gt;</code>.</p>
<p>It animates photos, renders presenters speaking a script (clips) and photos speaking one (talks), verifies
consents and trains avatars from footage, streams live talks and agents over WebRTC, and keeps secrets in a
vault for the tools agents call.</p>
<ul>
<li><a href="/docs">API reference</a>: every operation by area, its schemas and examples, and “try it” with your API key.</li>
<li><a href="/openapi.json">/openapi.json</a>: the same description, OpenAPI 3.1, for code generators.</li>
<li><a href="/examples/stream/">Live stream example</a>: a browser page that opens a talk or agent stream.</li>
<li><a href="/health">/health</a>: readiness.</li>
</ul>
<p>Every other path needs an API key. An operator makes a user and a key with
<code>npm run -s mimic -- users create</code>; the README's quick start walks through a first video.</p>
<footer>mimic ${version}</footer>
</body></html>`;
}
