/**
 * `/docs`: a self-contained HTML page rendered from the generated OpenAPI document, so it works
 * offline (local development has no CDN to load a UI from) and cannot disagree with the schemas.
 */

interface Operation {
  summary?: string;
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  parameters?: { name: string; in: string }[];
}

function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}

/** Renders every operation of `document` (an OpenAPI 3 object) with its request schema. */
export function renderDocs(document: { info: { title: string; version: string }; paths?: object }): string {
  const sections: string[] = [];
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const [path, methods] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const body = op.requestBody?.content?.['application/json']?.schema;
      const query = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      sections.push(
        [
          `<section><h2><code>${method.toUpperCase()} ${escapeHtml(path)}</code></h2>`,
          `<p>${escapeHtml(op.summary ?? '')}</p>`,
          query.length > 0 ? `<p>Query: <code>${escapeHtml(query.join(', '))}</code></p>` : '',
          body === undefined ? '' : `<pre>${escapeHtml(JSON.stringify(body, null, 2))}</pre>`,
          '</section>',
        ].join(''),
      );
    }
  }
  const title = escapeHtml(`${document.info.title} ${document.info.version}`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}
pre{background:#f4f4f4;padding:.5rem;overflow:auto}section{border-top:1px solid #ddd}</style></head>
<body><h1>${title}</h1><p>Send <code>Authorization: Bearer &lt;token&gt;</code>. Machine-readable:
<a href="/openapi.json">/openapi.json</a>. Schemas referenced as <code>$ref</code> are under
<code>components.schemas</code> there.</p>${sections.join('\n')}</body></html>`;
}
