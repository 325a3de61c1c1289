/** A self-contained reference page rendered from the OpenAPI document (no CDN, works offline). */
const esc = (s: string): string => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

interface Doc {
  info: { title: string; version: string; description: string };
  paths: Record<string, Record<string, { summary: string; deprecated?: boolean; security?: unknown[]; parameters?: { name: string; in: string; description: string }[]; requestBody?: { content: Record<string, { schema: unknown }> }; responses: Record<string, { description: string; content?: Record<string, { schema?: unknown }> }> }>>;
  components: { schemas: Record<string, unknown> };
}

export function renderDocsPage(doc: Doc): string {
  const ops = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => {
      const params = (op.parameters ?? []).map((p) => `<li><code>${esc(p.name)}</code> (${esc(p.in)}): ${esc(p.description)}</li>`).join('');
      const body = op.requestBody?.content['application/json']?.schema;
      const responses = Object.entries(op.responses)
        .map(([st, r]) => {
          const schema = r.content?.['application/json']?.schema;
          return `<li><b>${esc(st)}</b> ${esc(r.description)}${schema ? ` <code>${esc(JSON.stringify(schema))}</code>` : ''}</li>`;
        })
        .join('');
      return `<section id="${esc(method + path)}"><h3><span class="m ${esc(method)}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code>${op.deprecated ? ' <em>deprecated</em>' : ''}${op.security ? ' <em>no auth</em>' : ''}</h3>
<p>${esc(op.summary)}</p>${params ? `<h4>Parameters</h4><ul>${params}</ul>` : ''}${body ? `<h4>Request body</h4><pre>${esc(JSON.stringify(body, null, 2))}</pre>` : ''}<h4>Responses</h4><ul>${responses}</ul></section>`;
    }),
  );
  const schemas = Object.entries(doc.components.schemas)
    .map(([name, s]) => `<section id="schema-${esc(name)}"><h3>${esc(name)}</h3><pre>${esc(JSON.stringify(s, null, 2))}</pre></section>`)
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(doc.info.title)} API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:980px;margin:2em auto;padding:0 1em;color:#1d1d1f}pre{background:#f5f5f7;padding:.8em;overflow:auto;font-size:13px}
code{font-size:13px}.m{display:inline-block;min-width:4.5em;text-align:center;border-radius:4px;color:#fff;font-size:13px;padding:1px 6px}
.get{background:#2d7ff9}.post{background:#20a35a}.put{background:#c98a00}.delete{background:#d23f3f}section{border-top:1px solid #ddd;padding-top:.5em}</style></head>
<body><h1>${esc(doc.info.title)} <small>${esc(doc.info.version)}</small></h1><p>${esc(doc.info.description)}</p>
<p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p>
<h2>Operations</h2>${ops.join('')}<h2>Schemas</h2>${schemas}</body></html>`;
}
