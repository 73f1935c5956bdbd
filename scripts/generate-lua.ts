/**
 * Embeds lib/queue/scripts/*.lua into lib/queue/scripts.generated.ts as typed bindings. Each
 * script starts with a header that names its parameters and its reply:
 *
 *   -- consume: what it does, in prose (any number of lines).
 *   -- KEYS: stream, dlq, lease, meta, ...groups: {lease, meta}
 *   -- ARGV: group, count: int, config: json, ...ids
 *   -- Returns: deadLettered: int, ...messages: {id: string, deliveries: int, fields: fields}
 *   -- Errors: GROUP_NOT_FOUND
 *
 * A tag line may continue on following lines indented by two spaces; an indented line in
 * parentheses is a note for readers. Parameter kinds are
 * `string` (the default), `int` (tonumber in Lua) and `json` (cjson.decode in Lua); a trailing
 * `...name` takes the rest, singly or in groups. Reply types are `int`, `string`, `flag` (0/1),
 * `fields` (a flat list of strings), `raw`, `'a' | 'b'` (one of these strings), `{name: type, ...}`
 * (a fixed-length array), and the
 * suffixes `[]` (a list) and `?` (nil allowed); `Returns: nothing` for a bare status.
 *
 * The generator prepends a prologue that binds `keys.<name>` and `args.<name>` (so no script
 * indexes KEYS or ARGV itself), inlines `-- @include <name>` lines from scripts/include/, and emits
 * the keys, args and reply types with the shapes lib/queue/script-binding.ts reads. Run
 * `npm run generate` after editing a script; test/queue/scripts-generated.test.ts fails while the
 * embedding is stale.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { isQueueErrorCode } from '../lib/queue/errors.ts';
import { CONFIG_FIELDS } from '../lib/queue/rules.ts';
import type { ParamKind, ParamShape, TupleShape, ValueShape } from '../lib/queue/script-binding.ts';

const scriptsDir = new URL('../lib/queue/scripts/', import.meta.url);
export const generatedFile = new URL('../lib/queue/scripts.generated.ts', import.meta.url);

/** `consume-7.lua` → `consume`, `sweep-queue-6.lua` → `sweepQueue`. */
function exportName(file: string): string {
  const base = file.replace(/-\d+\.lua$/, '').replace(/\.lua$/, '');
  return base.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

function typeName(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

interface Header {
  keys: ParamShape;
  args: ParamShape;
  reply: TupleShape;
  errors: string[];
  /** Index of the first line after the header (where the prologue goes). */
  end: number;
}

/** Splits on top-level commas (not inside braces). */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '{') depth++;
    if (ch === '}') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(current.trim());
      current = '';
    } else {
      current += ch;
    }
  }
  if (current.trim() !== '') parts.push(current.trim());
  return parts;
}

const IDENT = /^[a-z][A-Za-z0-9]*$/;
const LUA_KEYWORDS = new Set(
  'and break do else elseif end false for function goto if in local nil not or repeat return then true until while'.split(
    ' ',
  ),
);

function ident(name: string, where: string): string {
  if (!IDENT.test(name) || LUA_KEYWORDS.has(name))
    throw new Error(`${where}: "${name}" is not a usable name`);
  return name;
}

function paramKind(text: string | undefined, where: string): ParamKind {
  const kind = (text ?? 'string').trim();
  if (kind !== 'string' && kind !== 'int' && kind !== 'json')
    throw new Error(`${where}: unknown kind ${kind}`);
  return kind;
}

function parseParams(text: string, where: string): ParamShape {
  const fixed: [string, ParamKind][] = [];
  let rest: ParamShape['rest'];
  const parts = splitTopLevel(text);
  parts.forEach((part, index) => {
    const spread = part.startsWith('...');
    const [rawName, ...kindParts] = (spread ? part.slice(3) : part).split(':');
    const name = ident((rawName ?? '').trim(), where);
    const kindText = kindParts.join(':').trim();
    if (!spread) {
      fixed.push([name, paramKind(kindText || undefined, where)]);
      return;
    }
    if (index !== parts.length - 1) throw new Error(`${where}: ...${name} must come last`);
    if (kindText.startsWith('{')) {
      const inner = kindText.replace(/^\{|\}$/g, '');
      rest = [name, parseParams(inner, where).fixed];
    } else {
      rest = [name, paramKind(kindText || undefined, where)];
    }
  });
  return rest === undefined ? { fixed } : { fixed, rest };
}

function parseType(text: string, where: string): ValueShape {
  let body = text.trim();
  const suffixes: ('[]' | '?')[] = [];
  for (;;) {
    if (body.endsWith('[]')) {
      suffixes.unshift('[]');
      body = body.slice(0, -2).trim();
    } else if (body.endsWith('?')) {
      suffixes.unshift('?');
      body = body.slice(0, -1).trim();
    } else break;
  }
  let shape: ValueShape;
  if (/^'[a-z-]+'(\s*\|\s*'[a-z-]+')*$/.test(body)) {
    shape = { oneOf: body.split('|').map((part) => part.trim().slice(1, -1)) };
  } else if (body.startsWith('{')) {
    if (!body.endsWith('}')) throw new Error(`${where}: unbalanced braces in ${text}`);
    shape = { tuple: parseFields(body.slice(1, -1), where) };
  } else if (['int', 'string', 'flag', 'fields', 'raw'].includes(body)) {
    shape = body as ValueShape;
  } else {
    throw new Error(`${where}: unknown type ${body}`);
  }
  for (const suffix of suffixes) shape = suffix === '[]' ? { list: shape } : { nullable: shape };
  return shape;
}

function parseFields(text: string, where: string): TupleShape {
  if (text.trim() === 'nothing') return { fields: [] };
  const fields: [string, ValueShape][] = [];
  let rest: TupleShape['rest'];
  const parts = splitTopLevel(text);
  parts.forEach((part, index) => {
    const colon = part.indexOf(':');
    if (colon < 0) throw new Error(`${where}: "${part}" needs a type`);
    const spread = part.startsWith('...');
    const name = ident(part.slice(spread ? 3 : 0, colon).trim(), where);
    const shape = parseType(part.slice(colon + 1), where);
    if (!spread) {
      fields.push([name, shape]);
      return;
    }
    if (index !== parts.length - 1) throw new Error(`${where}: ...${name} must come last`);
    rest = [name, shape];
  });
  return rest === undefined ? { fields } : { fields, rest };
}

export function parseHeader(lines: readonly string[], file: string): Header {
  const tags = new Map<string, string>();
  let last: string | undefined;
  let end = 0;
  for (; end < lines.length; end++) {
    const line = lines[end] as string;
    if (!line.startsWith('--') || line.startsWith('-- @include')) break;
    const text = line.replace(/^-- ?/, '');
    const tag = /^(KEYS|ARGV|Returns|Errors):\s*(.*)$/.exec(text);
    if (tag !== null) {
      last = tag[1] as string;
      if (tags.has(last)) throw new Error(`${file}: ${last} given twice`);
      tags.set(last, (tag[2] as string).trim());
    } else if (last !== undefined && /^\s{2,}[^\s(]/.test(text)) {
      tags.set(last, `${tags.get(last)} ${text.trim()}`);
    } else {
      last = undefined;
    }
  }
  for (const tag of ['KEYS', 'ARGV', 'Returns']) {
    if (!tags.has(tag)) throw new Error(`${file}: the header has no ${tag}: line`);
  }
  const none = (text: string | undefined) => text === undefined || text === 'none' || text === '';
  const keysText = tags.get('KEYS');
  const argsText = tags.get('ARGV');
  const keys = none(keysText) ? { fixed: [] } : parseParams(keysText as string, `${file} KEYS`);
  for (const [name, kind] of keys.fixed) {
    if (kind !== 'string') throw new Error(`${file} KEYS: ${name} must be a plain key`);
  }
  const errors = none(tags.get('Errors')) ? [] : splitTopLevel(tags.get('Errors') as string);
  for (const code of errors) {
    if (!isQueueErrorCode(code)) throw new Error(`${file}: Errors: ${code} is not a QueueErrorCode`);
  }
  return {
    keys,
    args: none(argsText) ? { fixed: [] } : parseParams(argsText as string, `${file} ARGV`),
    reply: parseFields(tags.get('Returns') as string, `${file} Returns`),
    errors,
    end,
  };
}

function luaValue(kind: ParamKind, expression: string): string {
  if (kind === 'int') return `tonumber(${expression})`;
  if (kind === 'json') return `cjson.decode(${expression})`;
  return expression;
}

/** The Lua lines that bind `table.<name>` for each parameter of KEYS or ARGV. */
function prologue(table: string, source: 'KEYS' | 'ARGV', shape: ParamShape): string[] {
  const fixed = shape.fixed.map(([name, kind], i) => `${name} = ${luaValue(kind, `${source}[${i + 1}]`)}`);
  const lines = [`local ${table} = { ${fixed.join(', ')} }`];
  if (shape.rest === undefined) return lines;
  const [name, kind] = shape.rest;
  const first = shape.fixed.length + 1;
  if (typeof kind === 'string') {
    lines.push(
      `${table}.${name} = {}`,
      `for i = ${first}, #${source} do`,
      `  ${table}.${name}[i - ${first - 1}] = ${luaValue(kind, `${source}[i]`)}`,
      'end',
    );
    return lines;
  }
  const fields = kind.map(
    ([field, fieldKind], j) => `${field} = ${luaValue(fieldKind, `${source}[i + ${j}]`)}`,
  );
  lines.push(
    `${table}.${name} = {}`,
    `for i = ${first}, #${source}, ${kind.length} do`,
    `  ${table}.${name}[#${table}.${name} + 1] = { ${fields.join(', ')} }`,
    'end',
  );
  return lines;
}

/** The body indexes parameters by name and answers only the statuses its header declares. */
function checkBody(body: string, file: string, errors: readonly string[]): void {
  if (/\b(KEYS|ARGV)\s*\[/.test(body)) {
    throw new Error(`${file}: index keys.<name> and args.<name>, not KEYS[...] or ARGV[...]`);
  }
  for (const match of body.matchAll(/return\s*\{\s*'([A-Za-z_]+)'/g)) {
    const status = match[1] as string;
    if (status !== 'ok' && !errors.includes(status)) {
      throw new Error(`${file}: answers ${status}, which its Errors: line does not declare`);
    }
  }
}

/**
 * The config fields a script reads as `cfg.<field>` (in its body, or in the included helpers it
 * hands `cfg` to, whose parameter has that name), when it loads its config with
 * `load_config(keys.config, args.config)` or `load_record(...)`: the runner then sends (and the
 * script looks up) just those. A body that reads `cfg[name]` is sent all of them; a field read
 * under another name in a helper fails loudly in Lua (load_record's cfg refuses unknown fields).
 */
function configFields(body: string, included: string, file: string): string[] | undefined {
  if (!/load_(config|record)\(keys\.config, args\.config\b/.test(body)) return undefined;
  if (/\bcfg\s*\[/.test(body)) return undefined;
  const reads = [...`${body}\n${included}`.matchAll(/\bcfg\.([A-Za-z]+)/g)].map((m) => m[1] as string);
  const fields = [...new Set(reads)].sort();
  for (const field of fields) {
    if (!Object.hasOwn(CONFIG_FIELDS, field)) throw new Error(`${file}: cfg.${field} is not a config field`);
  }
  return fields;
}

/** The body with each `-- @include <name>` line replaced by that file, and the included texts. */
async function expand(lines: readonly string[]): Promise<{ lines: string[]; included: string[] }> {
  const out: string[] = [];
  const included: string[] = [];
  for (const line of lines) {
    const include = /^-- @include ([a-z-]+)$/.exec(line);
    if (include === null) {
      out.push(line);
      continue;
    }
    const text = (await readFile(new URL(`include/${include[1]}.lua`, scriptsDir), 'utf8')).trimEnd();
    out.push(text);
    included.push(text);
  }
  return { lines: out, included };
}

function tsParamType(kind: ParamKind): string {
  return kind === 'int' ? 'number' : kind === 'json' ? 'unknown' : 'string';
}

function tsParams(shape: ParamShape): string {
  const members = shape.fixed.map(([name, kind]) => `${name}: ${tsParamType(kind)}`);
  if (shape.rest !== undefined) {
    const [name, kind] = shape.rest;
    const item =
      typeof kind === 'string'
        ? tsParamType(kind)
        : `{ ${kind.map(([field, fieldKind]) => `${field}: ${tsParamType(fieldKind)}`).join('; ')} }`;
    members.push(`${name}: readonly ${item}[]`);
  }
  return members.length === 0 ? 'Record<string, never>' : `{ ${members.join('; ')} }`;
}

function tsValueType(shape: ValueShape): string {
  if (shape === 'int') return 'number';
  if (shape === 'string') return 'string';
  if (shape === 'flag') return 'boolean';
  if (shape === 'fields') return 'string[]';
  if (shape === 'raw') return 'RedisValue';
  if ('oneOf' in shape) return shape.oneOf.map((value) => JSON.stringify(value)).join(' | ');
  if ('nullable' in shape) return `${tsValueType(shape.nullable)} | null`;
  if ('list' in shape) {
    const inner = tsValueType(shape.list);
    return /[ |]/.test(inner) && !inner.startsWith('{') ? `(${inner})[]` : `${inner}[]`;
  }
  return tsTuple(shape.tuple);
}

function tsTuple(shape: TupleShape): string {
  const members = shape.fields.map(([name, field]) => `${name}: ${tsValueType(field)}`);
  if (shape.rest !== undefined) {
    const inner = tsValueType(shape.rest[1]);
    members.push(
      `${shape.rest[0]}: ${/[ |]/.test(inner) && !inner.startsWith('{') ? `(${inner})` : inner}[]`,
    );
  }
  return members.length === 0 ? 'Record<string, never>' : `{ ${members.join('; ')} }`;
}

/** The generated module's text. */
export async function renderGenerated(): Promise<string> {
  const files = (await readdir(scriptsDir)).filter((f) => f.endsWith('.lua')).sort();
  const types: string[] = [];
  const entries: string[] = [];
  for (const file of files) {
    const lines = (await readFile(new URL(file, scriptsDir), 'utf8')).split('\n');
    const header = parseHeader(lines, file);
    const declared = Number(/-(\d+)\.lua$/.exec(file)?.[1] ?? Number.NaN);
    if (declared !== header.keys.fixed.length) {
      throw new Error(`${file}: the name says ${declared} keys, KEYS: lists ${header.keys.fixed.length}`);
    }
    const body = lines.slice(header.end);
    checkBody(body.join('\n'), file, header.errors);
    const expanded = await expand(body);
    const fields = configFields(body.join('\n'), expanded.included.join('\n'), file);
    const source = [
      ...lines.slice(0, header.end),
      ...prologue('keys', 'KEYS', header.keys),
      ...prologue('args', 'ARGV', header.args),
      ...expanded.lines,
    ].join('\n');
    const sha = createHash('sha1').update(source).digest('hex');
    const name = exportName(file);
    const T = typeName(name);
    types.push(
      `export type ${T}Keys = ${tsParams(header.keys)};`,
      `export type ${T}Args = ${tsParams(header.args)};`,
      `export type ${T}Reply = ${tsTuple(header.reply)};`,
    );
    entries.push(
      `  ${name}: {`,
      `    name: ${JSON.stringify(name)},`,
      `    sha: ${JSON.stringify(sha)},`,
      `    keys: ${JSON.stringify(header.keys)},`,
      `    args: ${JSON.stringify(header.args)},`,
      `    reply: ${JSON.stringify(header.reply)},`,
      `    errors: ${JSON.stringify(header.errors)},`,
      ...(fields === undefined ? [] : [`    configFields: ${JSON.stringify(fields)},`]),
      `    source: ${JSON.stringify(source)},`,
      `  } as ScriptBinding<${T}Keys, ${T}Args, ${T}Reply>,`,
    );
  }
  return [
    '/**',
    ' * GENERATED by scripts/generate-lua.ts from lib/queue/scripts/*.lua — do not edit by hand.',
    ' */',
    ...(types.some((line) => line.includes('RedisValue'))
      ? ["import type { RedisValue } from '../redis/client.ts';"]
      : []),
    "import type { ScriptBinding } from './script-binding.ts';",
    '',
    ...types,
    '',
    'export const scripts = {',
    ...entries,
    '} as const;',
    '',
  ].join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await writeFile(generatedFile, await renderGenerated());
  console.log(`wrote ${generatedFile.pathname}`);
}
