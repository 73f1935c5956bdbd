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
 * parentheses is a note for readers. KEYS are named as lib/queue/keys.ts names them (the runner
 * picks them by these names from the call's scope); they may end with `...groups: {<group key
 * names>}` (the keys of each group the ARGV list `groups` names) and `...dedup`, and a list that is
 * not last is as long as the ARGV list of the same name. ARGV parameters named `queue`, `group`
 * and `groups` are the call's scope: the runner sends them, and the generated argument types leave
 * them out. Parameter kinds are `string` (the default), `int` (tonumber in Lua) and `json`
 * (cjson.decode in Lua); a trailing `...name` takes the rest, singly or in groups. Reply types are
 * `int`, `string`, `flag` (0/1), `fields` (a flat list of strings), `raw`, `'a' | 'b'` (one of
 * these strings), `{name: type, ...}` (a fixed-length array), and the suffixes `[]` (a list) and
 * `?` (nil allowed); `Returns: nothing` for a bare status.
 *
 * Helpers live in scripts/include/, one concern a file. `-- @include <name>` lines (in a script or
 * in an include) name the ones it uses; they are resolved recursively, each file once, before
 * what includes it, and of each file only the definitions the script reaches are kept. Include
 * files hold nothing but top-level `local` definitions. Comments are stripped but the header's first
 * line (the script's name and what it does; the rest of the header is in the .lua file, and its
 * KEYS/ARGV/Returns are the binding's shapes beside the source). The generator prepends a prologue that binds `args.<name>` and `keys.<name>` (so
 * no script indexes KEYS or ARGV itself) and emits the scope, args and reply types with the shapes
 * lib/queue/script-binding.ts reads. Run `npm run generate` after editing a script;
 * test/queue/scripts-generated.test.ts fails while the embedding is stale.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { isQueueErrorCode } from '../lib/queue/errors.ts';
import {
  GROUP_KEY_NAMES,
  KEY_LIST_NAMES,
  PARTITION_KEY_NAMES,
  REGISTRY_KEY_NAMES,
} from '../lib/queue/keys.ts';
import { CONFIG_FIELDS } from '../lib/queue/rules.ts';
import {
  type ParamKind,
  type ParamShape,
  type TupleShape,
  takesGroupKeys,
  type ValueShape,
  type VariadicShape,
} from '../lib/queue/script-binding.ts';

const scriptsDir = new URL('../lib/queue/scripts/', import.meta.url);
const includeDir = new URL('include/', scriptsDir);
export const generatedFile = new URL('../lib/queue/scripts.generated.ts', import.meta.url);

/** ARGV parameters the runner sends from the call's scope (lib/queue/keys.ts's KeyScope). */
const SCOPE_ARGS = new Set(['queue', 'group', 'groups']);
const GROUP_KEYS = new Set<string>(GROUP_KEY_NAMES);
const PARTITION_KEYS = new Set<string>(PARTITION_KEY_NAMES);
const REGISTRY_KEYS = new Set<string>(REGISTRY_KEY_NAMES);

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

/** Parameters; `variadic: 'many'` allows several `...` parts (KEYS), else one, last. */
function parseParams(text: string, where: string, variadic: 'one' | 'many' = 'one'): ParamShape {
  const fixed: [string, ParamKind][] = [];
  const spreads: VariadicShape[] = [];
  const parts = splitTopLevel(text);
  parts.forEach((part, index) => {
    const spread = part.startsWith('...');
    const [rawName, ...kindParts] = (spread ? part.slice(3) : part).split(':');
    const name = ident((rawName ?? '').trim(), where);
    const kindText = kindParts.join(':').trim();
    if (!spread) {
      if (spreads.length > 0) throw new Error(`${where}: ${name} comes after a ...part`);
      fixed.push([name, paramKind(kindText || undefined, where)]);
      return;
    }
    if (variadic === 'one' && index !== parts.length - 1)
      throw new Error(`${where}: ...${name} must come last`);
    if (kindText.startsWith('{')) {
      const inner = kindText.replace(/^\{|\}$/g, '');
      spreads.push([name, parseParams(inner, where).fixed]);
    } else {
      spreads.push([name, paramKind(kindText || undefined, where)]);
    }
  });
  const rest = spreads.pop();
  const shape: ParamShape = spreads.length > 0 ? { fixed, lists: spreads } : { fixed };
  return rest === undefined ? shape : { ...shape, rest };
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

/** KEYS name keys as lib/queue/keys.ts does; `groups` lists group keys, `dedup` single keys. */
function checkKeys(keys: ParamShape, where: string): void {
  for (const [name, kind] of keys.fixed) {
    if (kind !== 'string') throw new Error(`${where}: ${name} must be a plain key`);
    if (!REGISTRY_KEYS.has(name) && !PARTITION_KEYS.has(name) && !GROUP_KEYS.has(name)) {
      throw new Error(`${where}: no key is named ${name} in lib/queue/keys.ts`);
    }
  }
  for (const [name, kind] of [...(keys.lists ?? []), ...(keys.rest === undefined ? [] : [keys.rest])]) {
    if (!(KEY_LIST_NAMES as readonly string[]).includes(name)) {
      throw new Error(`${where}: ...${name} is not a list of keys lib/queue/keys.ts knows`);
    }
    if ((name === 'dedup' || name === 'attempt') && kind !== 'string') {
      throw new Error(`${where}: ...${name} holds single keys`);
    }
    if (name === 'from') {
      if (typeof kind === 'string') throw new Error(`${where}: ...from lists the group's keys by name`);
      for (const [field] of kind) {
        if (!PARTITION_KEYS.has(field) && !GROUP_KEYS.has(field)) {
          throw new Error(`${where}: no partition or group key is named ${field}`);
        }
      }
    }
    if (name === 'groups') {
      if (typeof kind === 'string') throw new Error(`${where}: ...groups lists each group's keys by name`);
      for (const [field] of kind) {
        if (!GROUP_KEYS.has(field)) throw new Error(`${where}: no group key is named ${field}`);
      }
    }
  }
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
  const keys = none(keysText) ? { fixed: [] } : parseParams(keysText as string, `${file} KEYS`, 'many');
  checkKeys(keys, `${file} KEYS`);
  const args = none(argsText) ? { fixed: [] } : parseParams(argsText as string, `${file} ARGV`);
  for (const [name] of keys.lists ?? []) {
    const sized = args.fixed.some(([arg]) => arg === name) || args.rest?.[0] === name;
    if (!sized)
      throw new Error(`${file}: KEYS ...${name} is not last, so ARGV needs a list ${name} to size it`);
  }
  const groupsArg = args.fixed.find(([name]) => name === 'groups');
  if (groupsArg !== undefined && groupsArg[1] !== 'json') {
    throw new Error(`${file}: ARGV groups is a list (json, or ...groups last)`);
  }
  if (takesGroupKeys({ keys }) && groupsArg === undefined && args.rest?.[0] !== 'groups') {
    throw new Error(`${file}: KEYS ...groups are the keys of the groups ARGV groups names`);
  }
  const errors = none(tags.get('Errors')) ? [] : splitTopLevel(tags.get('Errors') as string);
  for (const code of errors) {
    if (!isQueueErrorCode(code)) throw new Error(`${file}: Errors: ${code} is not a QueueErrorCode`);
  }
  return {
    keys,
    args,
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
  const parts = [...(shape.lists ?? []), ...(shape.rest === undefined ? [] : [shape.rest])];
  if (parts.length === 0) return lines;
  // Where the next part starts: a number while every part before has a fixed length.
  let at = `${shape.fixed.length + 1}`;
  parts.forEach(([name, kind], index) => {
    const width = typeof kind === 'string' ? 1 : kind.length;
    const item =
      typeof kind === 'string'
        ? luaValue(kind, `${source}[i]`)
        : `{ ${kind.map(([field, fieldKind], j) => `${field} = ${luaValue(fieldKind, `${source}[i + ${j}]`)}`).join(', ')} }`;
    const last = index === parts.length - 1;
    // A list before the last is as long as the ARGV list of its name (the prologue reads ARGV first).
    const stop = last ? `#${source}` : `${at} + ${width} * #args.${name} - 1`;
    lines.push(
      `${table}.${name} = {}`,
      `for i = ${at}, ${stop}, ${width} do`,
      `  ${table}.${name}[#${table}.${name} + 1] = ${item}`,
      'end',
    );
    if (!last) at = `${at} + ${width} * #args.${name}`;
  });
  return lines;
}

interface Segment {
  kind: 'code' | 'string' | 'comment';
  text: string;
}

/** Lua source as code, string literals and comments (long brackets included). */
export function luaSegments(source: string): Segment[] {
  const out: Segment[] = [];
  let code = '';
  const flush = () => {
    if (code !== '') out.push({ kind: 'code', text: code });
    code = '';
  };
  const longClose = (at: number): { level: number; open: number } | null => {
    const match = /^\[(=*)\[/.exec(source.slice(at, at + 64));
    return match === null ? null : { level: (match[1] as string).length, open: match[0].length };
  };
  let i = 0;
  while (i < source.length) {
    const ch = source[i] as string;
    if (ch === '-' && source[i + 1] === '-') {
      flush();
      const long = longClose(i + 2);
      let end: number;
      if (long !== null) {
        const close = `]${'='.repeat(long.level)}]`;
        const found = source.indexOf(close, i + 2 + long.open);
        if (found < 0) throw new Error('unterminated long comment');
        end = found + close.length;
      } else {
        const newline = source.indexOf('\n', i);
        end = newline < 0 ? source.length : newline;
      }
      out.push({ kind: 'comment', text: source.slice(i, end) });
      i = end;
      continue;
    }
    if (ch === "'" || ch === '"') {
      flush();
      let j = i + 1;
      while (j < source.length && source[j] !== ch) {
        if (source[j] === '\\') j++;
        if (source[j] === '\n') throw new Error('unterminated string');
        j++;
      }
      if (j >= source.length) throw new Error('unterminated string');
      out.push({ kind: 'string', text: source.slice(i, j + 1) });
      i = j + 1;
      continue;
    }
    const long = ch === '[' ? longClose(i) : null;
    if (long !== null) {
      flush();
      const close = `]${'='.repeat(long.level)}]`;
      const found = source.indexOf(close, i + long.open);
      if (found < 0) throw new Error('unterminated long string');
      out.push({ kind: 'string', text: source.slice(i, found + close.length) });
      i = found + close.length;
      continue;
    }
    code += ch;
    i++;
  }
  flush();
  return out;
}

/** The source without comments, trailing spaces or blank lines. */
export function stripComments(source: string): string {
  const text = luaSegments(source)
    .filter((segment) => segment.kind !== 'comment')
    .map((segment) => segment.text)
    .join('');
  return text
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line !== '')
    .join('\n');
}

/**
 * The names a piece of Lua reads: not field names (after a single `.` or `:`, or before `=` in a
 * table), nor names it only assigns.
 */
function identifiers(source: string): Set<string> {
  const names = new Set<string>();
  for (const segment of luaSegments(source)) {
    if (segment.kind !== 'code') continue;
    for (const match of segment.text.matchAll(READ_NAME)) names.add(match[0]);
  }
  return names;
}

const READ_NAME = /(?<![\w.:])[A-Za-z_]\w*\b(?!\s*=[^=])|(?<=\.\.)[A-Za-z_]\w*\b(?!\s*=[^=])/g;

/** The globals a Redis script may read. */
const LUA_GLOBALS = new Set(
  'redis cjson KEYS ARGV string table math tonumber tostring type ipairs pairs error pcall setmetatable getmetatable next select unpack rawget rawset assert'.split(
    ' ',
  ),
);

/**
 * Names the source reads that nothing declares (a missing include, or a typo): Redis refuses
 * globals, so such a script fails only when that line runs. Declarations are read loosely (every
 * `local`, parameter and loop variable anywhere counts), so only names declared nowhere are found.
 */
function undeclared(source: string): string[] {
  const code = luaSegments(source)
    .map((segment) => (segment.kind === 'code' ? segment.text : segment.kind === 'string' ? "''" : ''))
    .join('');
  const declared = new Set<string>();
  const add = (list: string) => {
    for (const name of list.split(',')) if (name.trim() !== '') declared.add(name.trim());
  };
  for (const m of code.matchAll(/\blocal\s+function\s+([A-Za-z_]\w*)/g)) declared.add(m[1] as string);
  for (const m of code.matchAll(/\blocal\s+([A-Za-z_][\w\s,]*?)\s*(?:=|\n)/g)) add(m[1] as string);
  for (const m of code.matchAll(/\bfunction\s*[\w.:]*\s*\(([^)]*)\)/g)) add(m[1] as string);
  for (const m of code.matchAll(/\bfor\s+([A-Za-z_][\w\s,]*?)\s*(?:=|\bin\b)/g)) add(m[1] as string);
  const missing = new Set<string>();
  for (const m of code.matchAll(READ_NAME)) {
    const name = m[0];
    if (!declared.has(name) && !LUA_KEYWORDS.has(name) && !LUA_GLOBALS.has(name)) missing.add(name);
  }
  return [...missing].sort();
}

/** One top-level `local` of an include file. */
interface Definition {
  names: string[];
  text: string;
}

interface Include {
  includes: string[];
  definitions: Definition[];
}

function includeLines(lines: readonly string[]): string[] {
  const names: string[] = [];
  for (const line of lines) {
    const match = /^-- @include ([a-z][a-z0-9-]*)\s*$/.exec(line);
    if (match !== null) names.push(match[1] as string);
  }
  return names;
}

async function readInclude(name: string): Promise<Include> {
  const text = await readFile(new URL(`${name}.lua`, includeDir), 'utf8');
  const lines = stripComments(text).split('\n');
  const definitions: Definition[] = [];
  for (const line of lines) {
    const start = /^local (function ([A-Za-z_]\w*)|([A-Za-z_][\w, ]*?)\s*=)/.exec(line);
    if (start !== null) {
      const names = (start[2] ?? start[3] ?? '').split(',').map((part) => part.trim());
      definitions.push({ names, text: line });
      continue;
    }
    const current = definitions[definitions.length - 1];
    if (current === undefined || (/^\S/.test(line) && !/^(end|\}|\))/.test(line))) {
      throw new Error(
        `include/${name}.lua: only top-level local definitions may stand at the margin: ${line}`,
      );
    }
    current.text += `\n${line}`;
  }
  return { includes: includeLines(text.split('\n')), definitions };
}

/** The include files `direct` needs, each once, every file after those it includes. */
async function resolveIncludes(direct: readonly string[], cache: Map<string, Include>): Promise<string[]> {
  const order: string[] = [];
  const visiting = new Set<string>();
  const visit = async (name: string, path: string[]): Promise<void> => {
    if (order.includes(name)) return;
    if (visiting.has(name)) throw new Error(`include cycle: ${[...path, name].join(' → ')}`);
    visiting.add(name);
    let include = cache.get(name);
    if (include === undefined) {
      include = await readInclude(name);
      cache.set(name, include);
    }
    for (const inner of include.includes) await visit(inner, [...path, name]);
    visiting.delete(name);
    order.push(name);
  };
  for (const name of direct) await visit(name, []);
  return order;
}

/**
 * A file (a script's body, or an include's definitions) names in `-- @include` lines exactly the
 * files whose helpers it calls itself: none it does not call, none it calls only by chance of
 * another include.
 */
function checkIncludes(
  file: string,
  code: string,
  includes: readonly string[],
  all: readonly string[],
  cache: Map<string, Include>,
) {
  const used = identifiers(code);
  const names = (include: string) =>
    (cache.get(include) as Include).definitions.flatMap((definition) => definition.names);
  for (const include of includes) {
    if (!names(include).some((name) => used.has(name))) {
      throw new Error(`${file}: includes ${include} but calls nothing it defines`);
    }
  }
  for (const include of all) {
    if (includes.includes(include) || `include/${include}.lua` === file) continue;
    const called = names(include).find((name) => used.has(name));
    if (called !== undefined) throw new Error(`${file}: calls ${called}, so it includes ${include}`);
  }
}

/** The included definitions `body` reaches (directly or through other definitions), in order. */
function reachable(files: readonly string[], cache: Map<string, Include>, body: string): string[] {
  const definitions = files.flatMap((file) => (cache.get(file) as Include).definitions);
  const byName = new Map<string, Definition>();
  for (const definition of definitions) {
    for (const name of definition.names) {
      if (byName.has(name)) throw new Error(`${name} is defined by two includes`);
      byName.set(name, definition);
    }
  }
  const kept = new Set<Definition>();
  const pending = [...identifiers(body)];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    const definition = byName.get(name);
    if (definition === undefined || kept.has(definition)) continue;
    kept.add(definition);
    pending.push(...identifiers(definition.text));
  }
  return definitions.filter((definition) => kept.has(definition)).map((definition) => definition.text);
}

/**
 * The body indexes parameters by name and answers only the statuses its header declares; one that
 * takes every group's keys checks their names (given_groups, which answers GROUPS otherwise).
 */
function checkBody(body: string, file: string, header: Header): void {
  if (/\b(KEYS|ARGV)\s*\[/.test(body)) {
    throw new Error(`${file}: index keys.<name> and args.<name>, not KEYS[...] or ARGV[...]`);
  }
  for (const match of body.matchAll(/return\s*\{\s*'([A-Za-z_]+)'/g)) {
    const status = match[1] as string;
    if (status !== 'ok' && !header.errors.includes(status)) {
      throw new Error(`${file}: answers ${status}, which its Errors: line does not declare`);
    }
  }
  if (takesGroupKeys(header) && !/\b(given|parking)_groups\(/.test(body)) {
    throw new Error(
      `${file}: takes ...groups keys, so it checks them with given_groups or parking_groups (include given-groups)`,
    );
  }
}

/**
 * The config fields a script reads as `cfg.<field>` (in its body, or in the included helpers it
 * hands `cfg` to, whose parameter has that name), when it loads its config with
 * `load_config(keys.config, args.config)` or `load_record(...)`: the runner then sends (and the
 * script looks up) just those. A body that reads `cfg[name]` is sent all of them; a field read
 * under another name in a helper fails loudly in Lua (load_record's cfg refuses unknown fields).
 */
function configFields(body: string, code: string, file: string): string[] | undefined {
  if (!/load_(config|record)\(keys\.config, args\.config\b/.test(body)) return undefined;
  if (/\bcfg\s*\[/.test(body)) return undefined;
  const reads = [...code.matchAll(/\bcfg\.([A-Za-z]+)/g)].map((m) => m[1] as string);
  const fields = [...new Set(reads)].sort();
  for (const field of fields) {
    if (!Object.hasOwn(CONFIG_FIELDS, field)) throw new Error(`${file}: cfg.${field} is not a config field`);
  }
  return fields;
}

function tsParamType(kind: ParamKind): string {
  return kind === 'int' ? 'number' : kind === 'json' ? 'unknown' : 'string';
}

function tsMembers(shape: ParamShape, skip: ReadonlySet<string>): string[] {
  const members = shape.fixed
    .filter(([name]) => !skip.has(name))
    .map(([name, kind]) => `${name}: ${tsParamType(kind)}`);
  if (shape.rest !== undefined && !skip.has(shape.rest[0])) {
    const [name, kind] = shape.rest;
    const item =
      typeof kind === 'string'
        ? tsParamType(kind)
        : `{ ${kind.map(([field, fieldKind]) => `${field}: ${tsParamType(fieldKind)}`).join('; ')} }`;
    members.push(`${name}: readonly ${item}[]`);
  }
  return members;
}

function tsObject(members: readonly string[]): string {
  return members.length === 0 ? 'Record<string, never>' : `{ ${members.join('; ')} }`;
}

/** The part of lib/queue/keys.ts's KeyScope a script needs, from its KEYS and scope ARGV. */
function tsScope(header: Header): string {
  const keyNames = header.keys.fixed.map(([name]) => name);
  const lists = [...(header.keys.lists ?? []), ...(header.keys.rest === undefined ? [] : [header.keys.rest])];
  const argNames = new Set([...header.args.fixed.map(([name]) => name), header.args.rest?.[0]]);
  const members: string[] = [];
  const partitioned = keyNames.some((name) => !REGISTRY_KEYS.has(name)) || lists.length > 0;
  if (partitioned || argNames.has('queue')) members.push('queue: string');
  if (partitioned) members.push('partition?: number');
  if (keyNames.some((name) => GROUP_KEYS.has(name)) || argNames.has('group')) members.push('group: string');
  if (lists.some(([name]) => name === 'groups') || argNames.has('groups')) {
    members.push('groups: readonly string[]');
  }
  if (lists.some(([name]) => name === 'dedup')) members.push('dedup: readonly string[]');
  if (lists.some(([name]) => name === 'attempt')) members.push('attempt?: { consumer: string; id: string }');
  if (lists.some(([name]) => name === 'from')) {
    members.push('from: { queue: string; partition?: number; group: string }');
  }
  return tsObject(members);
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
  return tsObject(members);
}

/** A script's embedded source: its header's first line, the prologue, the helpers it reaches, its body. */
async function scriptSource(
  file: string,
  lines: readonly string[],
  header: Header,
  cache: Map<string, Include>,
): Promise<{ source: string; fields: string[] | undefined }> {
  const rawBody = lines.slice(header.end);
  const body = stripComments(rawBody.join('\n'));
  checkBody(body, file, header);
  const direct = includeLines(rawBody);
  const files = await resolveIncludes(direct, cache);
  checkIncludes(file, body, direct, files, cache);
  for (const name of files) {
    const include = cache.get(name) as Include;
    const own = include.definitions.map((definition) => definition.text).join('\n');
    checkIncludes(`include/${name}.lua`, own, include.includes, files, cache);
  }
  const helpers = reachable(files, cache, body);
  // Without indentation: Redis needs none, and it was 8% of the embedded scripts (the generated
  // module's size is bounded; every script is shipped in the Worker bundle).
  const code = [...helpers, body]
    .join('\n')
    .split('\n')
    .map((line) => line.trimStart())
    .join('\n');
  const missing = undeclared(['local args, keys', code].join('\n'));
  if (missing.length > 0) {
    throw new Error(`${file}: uses ${missing.join(', ')}, which no include it names defines`);
  }
  const source = [
    lines[0] as string,
    ...prologue('args', 'ARGV', header.args),
    ...prologue('keys', 'KEYS', header.keys),
    code,
  ].join('\n');
  return { source: `${source}\n`, fields: configFields(body, code, file) };
}

/** The generated module's text. */
export async function renderGenerated(): Promise<string> {
  const files = (await readdir(scriptsDir)).filter((f) => f.endsWith('.lua')).sort();
  const cache = new Map<string, Include>();
  const types: string[] = [];
  const entries: string[] = [];
  for (const file of files) {
    const lines = (await readFile(new URL(file, scriptsDir), 'utf8')).split('\n');
    const header = parseHeader(lines, file);
    const declared = Number(/-(\d+)\.lua$/.exec(file)?.[1] ?? Number.NaN);
    if (declared !== header.keys.fixed.length) {
      throw new Error(`${file}: the name says ${declared} keys, KEYS: lists ${header.keys.fixed.length}`);
    }
    const { source, fields } = await scriptSource(file, lines, header, cache);
    const sha = createHash('sha1').update(source).digest('hex');
    const name = exportName(file);
    const T = typeName(name);
    types.push(
      `export type ${T}Scope = ${tsScope(header)};`,
      `export type ${T}Args = ${tsObject(tsMembers(header.args, SCOPE_ARGS))};`,
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
      `  } as ScriptBinding<${T}Scope, ${T}Args, ${T}Reply>,`,
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
