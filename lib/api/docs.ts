/**
 * `/docs`: a self-contained HTML page rendered from the generated OpenAPI document, so it works
 * offline (local development has no CDN to load a UI from) and cannot disagree with the schemas.
 * Each operation shows its parameters, its request body and every answer with its schema, written
 * as a TypeScript-like type (`{ consumer: string; count?: integer 1..1000 }`) with the schemas it
 * references spelled out in place; the error answers share one envelope, shown once at the top.
 */

type Schema = Record<string, unknown>;

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
}

interface Operation {
  summary?: string;
  description?: string;
  operationId?: string;
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; description?: string; content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }>;
}

/** What the page reads of an OpenAPI 3 document (zod-openapi's OpenAPIObject fits it). */
interface Document {
  info: { title: string; version: string };
  paths?: object;
  components?: object;
}

const ERROR_SCHEMA = '#/components/schemas/Error';
/** Past this a pattern is cut in the page (the full one is in its tooltip and the document). */
const PATTERN_SHOWN = 60;

function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}

/** A schema written as a type, in HTML (escaped), with `components` resolved in place. */
class TypeWriter {
  constructor(private readonly components: Record<string, Schema>) {}

  /** `indent`: the current line's indentation; `open`: the references being expanded (cycles). */
  write(schema: Schema | undefined, indent = '', open: readonly string[] = []): string {
    if (schema === undefined) return 'any JSON';
    const ref = schema.$ref;
    if (typeof ref === 'string') {
      const name = ref.replace('#/components/schemas/', '');
      const target = this.components[name];
      if (target === undefined || open.includes(name))
        return `<a href="#schema-${escapeHtml(name)}">${escapeHtml(name)}</a>`;
      return `<span class="ref">${escapeHtml(name)}</span> ${this.write(target, indent, [...open, name])}`;
    }
    const union = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
    if (Array.isArray(union)) {
      return union.map((member) => this.write(member, indent, open)).join(' | ') + this.nullable(schema);
    }
    if (Array.isArray(schema.allOf)) {
      return (schema.allOf as Schema[]).map((member) => this.write(member, indent, open)).join(' &amp; ');
    }
    if (Array.isArray(schema.enum)) {
      return (
        (schema.enum as unknown[]).map((value) => escapeHtml(JSON.stringify(value))).join(' | ') +
        this.nullable(schema)
      );
    }
    switch (schema.type) {
      case 'object':
        return this.object(schema, indent, open);
      case 'array': {
        const items = this.write(schema.items as Schema | undefined, indent, open);
        const bounds = this.range(schema.minItems, schema.maxItems, 'items');
        return `${/[ |]/.test(items) ? `(${items})` : items}[]${bounds}${this.nullable(schema)}`;
      }
      case 'string':
        return `string${this.stringRules(schema)}${this.nullable(schema)}`;
      case 'integer':
      case 'number':
        return `${schema.type}${this.range(schema.minimum, schema.maximum, '')}${this.defaultOf(schema)}${this.nullable(schema)}`;
      case 'boolean':
        return `boolean${this.defaultOf(schema)}${this.nullable(schema)}`;
      default:
        // No type: any JSON value (a message body), possibly with a `not`.
        return `any JSON${schema.not === undefined ? '' : ` except ${this.write(schema.not as Schema, indent, open)}`}`;
    }
  }

  private object(schema: Schema, indent: string, open: readonly string[]): string {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    const required = new Set((schema.required ?? []) as string[]);
    const inner = `${indent}  `;
    const lines = Object.entries(properties).map(([name, property]) => {
      const note =
        typeof property.description === 'string'
          ? `  <span class="note">// ${escapeHtml(property.description)}</span>`
          : '';
      return `${inner}${escapeHtml(name)}${required.has(name) ? '' : '?'}: ${this.write(property, inner, open)};${note}`;
    });
    const extra = schema.additionalProperties;
    if (typeof extra === 'object' && extra !== null) {
      lines.push(`${inner}[name: string]: ${this.write(extra as Schema, inner, open)};`);
    }
    if (lines.length === 0) return extra === false ? '{}' : 'object';
    return `{\n${lines.join('\n')}\n${indent}}${this.nullable(schema)}`;
  }

  private stringRules(schema: Schema): string {
    const rules: string[] = [];
    const length = this.range(schema.minLength, schema.maxLength, 'characters');
    if (length !== '') rules.push(length.trim());
    if (typeof schema.pattern === 'string') {
      const pattern = schema.pattern;
      const shown = pattern.length > PATTERN_SHOWN ? `${pattern.slice(0, PATTERN_SHOWN)}…` : pattern;
      rules.push(`<span title="${escapeHtml(pattern)}">matching /${escapeHtml(shown)}/</span>`);
    }
    if (typeof schema.format === 'string') rules.push(escapeHtml(schema.format));
    if (schema.example !== undefined) rules.push(`e.g. ${escapeHtml(JSON.stringify(schema.example))}`);
    return rules.length === 0 ? '' : ` (${rules.join(', ')})`;
  }

  private range(min: unknown, max: unknown, unit: string): string {
    const suffix = unit === '' ? '' : ` ${unit}`;
    if (typeof min === 'number' && typeof max === 'number') return ` ${min}..${max}${suffix}`;
    if (typeof min === 'number') return ` ≥ ${min}${suffix}`;
    if (typeof max === 'number') return ` ≤ ${max}${suffix}`;
    return '';
  }

  private defaultOf(schema: Schema): string {
    return schema.default === undefined ? '' : ` = ${escapeHtml(JSON.stringify(schema.default))}`;
  }

  private nullable(schema: Schema): string {
    return schema.nullable === true ? ' | null' : '';
  }
}

function jsonSchemaOf(content: Record<string, { schema?: Schema }> | undefined): Schema | undefined {
  return content?.['application/json']?.schema;
}

function renderOperation(path: string, method: string, op: Operation, writer: TypeWriter): string {
  const anchor = op.operationId ?? `${method}-${path}`;
  const parts: string[] = [
    `<section id="${escapeHtml(anchor)}"><h2><code>${method.toUpperCase()} ${escapeHtml(path)}</code>`,
    op.operationId === undefined ? '' : ` <small>${escapeHtml(op.operationId)}</small>`,
    '</h2>',
    `<p>${escapeHtml(op.summary ?? '')}${Array.isArray(op.security) && op.security.length === 0 ? ' (no token)' : ''}</p>`,
  ];
  if (op.description !== undefined) parts.push(`<p>${escapeHtml(op.description)}</p>`);
  const parameters = op.parameters ?? [];
  if (parameters.length > 0) {
    parts.push('<h3>Parameters</h3><ul class="params">');
    for (const parameter of parameters) {
      parts.push(
        `<li><code>${escapeHtml(parameter.name)}</code> (${escapeHtml(parameter.in)}${parameter.required === true ? ', required' : ''}): <code>${writer.write(parameter.schema)}</code>${parameter.description === undefined ? '' : ` — ${escapeHtml(parameter.description)}`}</li>`,
      );
    }
    parts.push('</ul>');
  }
  const body = op.requestBody;
  const bodySchema = jsonSchemaOf(body?.content);
  if (body !== undefined && bodySchema !== undefined) {
    parts.push(
      `<h3>Request body${body.required === true ? '' : ' (optional)'}</h3>`,
      body.description === undefined ? '' : `<p>${escapeHtml(body.description)}</p>`,
      `<pre>${writer.write(bodySchema)}</pre>`,
    );
  }
  const errors: string[] = [];
  parts.push('<h3>Answers</h3>');
  for (const [status, response] of Object.entries(op.responses ?? {})) {
    const schema = jsonSchemaOf(response.content);
    const description = escapeHtml(response.description ?? '');
    if (schema?.$ref === ERROR_SCHEMA) {
      errors.push(`<li><b>${escapeHtml(status)}</b> ${description}</li>`);
      continue;
    }
    const text = response.content?.['text/plain'] === undefined ? '' : ' (text/plain)';
    parts.push(
      `<p><b>${escapeHtml(status)}</b> ${description}${text}</p>`,
      schema === undefined ? '' : `<pre>${writer.write(schema)}</pre>`,
    );
  }
  if (errors.length > 0) {
    parts.push(
      `<p>Refusals, each the <a href="#schema-Error">error envelope</a>:</p><ul>${errors.join('')}</ul>`,
    );
  }
  parts.push('</section>');
  return parts.join('');
}

/** Renders every operation of `document` (an OpenAPI 3 object) with its request and answer schemas. */
export function renderDocs(document: Document): string {
  const components = ((document.components as { schemas?: Record<string, Schema> } | undefined)?.schemas ??
    {}) as Record<string, Schema>;
  const writer = new TypeWriter(components);
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;
  const sections: string[] = [];
  const index: string[] = [];
  for (const [path, methods] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const anchor = op.operationId ?? `${method}-${path}`;
      index.push(
        `<li><a href="#${escapeHtml(anchor)}"><code>${method.toUpperCase()} ${escapeHtml(path)}</code></a></li>`,
      );
      sections.push(renderOperation(path, method, op, writer));
    }
  }
  const schemas = Object.keys(components)
    .sort()
    .map(
      (name) =>
        `<section id="schema-${escapeHtml(name)}"><h3>${escapeHtml(name)}</h3><pre>${writer.write(components[name], '', [name])}</pre></section>`,
    );
  const title = escapeHtml(`${document.info.title} ${document.info.version}`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:64rem;margin:2rem auto;padding:0 1rem;line-height:1.4}
pre{background:#f4f4f4;padding:.5rem;overflow:auto}section{border-top:1px solid #ddd;margin-top:1rem}
h2 small{font-weight:normal;color:#666}.ref{color:#666}.note{color:#777}ul.index{columns:2}</style></head>
<body><h1>${title}</h1><p>JSON in and out. Send <code>Authorization: Bearer &lt;token&gt;</code> on every route
but <code>/healthz</code>. Machine-readable: <a href="/openapi.json">/openapi.json</a>. Optional fields end in
<code>?</code>; ranges are inclusive; lengths count Unicode code points.</p>
<p id="schema-Error">Every refusal is the error envelope: <code>${writer.write(components.Error, '', ['Error'])}</code></p>
<ul class="index">${index.join('')}</ul>
${sections.join('\n')}
<h2>Schemas</h2>${schemas.join('\n')}</body></html>`;
}
