/**
 * fast-check arbitraries read off the served OpenAPI document: values a JSON schema allows, and
 * values it forbids (each breaking exactly one documented rule). Covers the subset of OpenAPI 3.0
 * schemas the service's document uses: objects, arrays, strings with patterns and lengths,
 * integers with bounds, enums, anyOf/oneOf, `not: {required}` (properties that exclude each
 * other), $ref and the any-JSON `{}`.
 */
import fc from 'fast-check';

export type Schema = Record<string, unknown>;

export interface SchemaContext {
  /** `components.schemas` of the document, for `$ref`s. */
  readonly schemas: Record<string, Schema>;
  /** Arbitraries to use instead of the generated one, by property name (to keep runs short). */
  readonly overrides?: Record<string, fc.Arbitrary<unknown>>;
}

export function resolve(schema: Schema, context: SchemaContext): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const name = ref.replace('#/components/schemas/', '');
  const target = context.schemas[name];
  if (target === undefined) throw new Error(`unknown $ref ${ref}`);
  return resolve(target, context);
}

/** Code points, as JSON Schema counts string lengths. */
const text = (min: number, max: number) =>
  fc.string({ unit: 'binary', minLength: min, maxLength: Math.min(max, min + 40) });

function stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as string[]));
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : 60;
  if (typeof schema.pattern === 'string') {
    const pattern = new RegExp(schema.pattern);
    return fc.stringMatching(pattern).filter((s) => [...s].length >= min && [...s].length <= max);
  }
  return fc.oneof(text(min, max), fc.constant('x'.repeat(min)), fc.constant('\u{1F600}'.repeat(max)));
}

function integerArbitrary(schema: Schema): fc.Arbitrary<number> {
  const min = typeof schema.minimum === 'number' ? schema.minimum : -1_000_000;
  const max = typeof schema.maximum === 'number' ? schema.maximum : 1_000_000;
  return fc.oneof(fc.integer({ min, max }), fc.constantFrom(min, max));
}

/** Values the schema allows. */
export function valid(schema: Schema, context: SchemaContext): fc.Arbitrary<unknown> {
  const s = resolve(schema, context);
  const variants = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (variants !== undefined) return fc.oneof(...variants.map((v) => valid(v, context)));
  switch (s.type) {
    case 'string':
      return stringArbitrary(s);
    case 'integer':
      return integerArbitrary(s);
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return Array.isArray(s.enum) ? fc.constantFrom(...(s.enum as boolean[])) : fc.boolean();
    case 'array': {
      const min = typeof s.minItems === 'number' ? s.minItems : 0;
      const max = typeof s.maxItems === 'number' ? s.maxItems : 5;
      return fc.array(valid(s.items as Schema, context), {
        minLength: min,
        maxLength: Math.min(max, min + 4),
      });
    }
    case 'object':
      return objectArbitrary(s, context);
    default:
      if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
      // `{}`: any JSON value.
      return fc.jsonValue({ maxDepth: 3 });
  }
}

function objectArbitrary(s: Schema, context: SchemaContext): fc.Arbitrary<Record<string, unknown>> {
  const properties = (s.properties ?? {}) as Record<string, Schema>;
  const required = new Set((s.required ?? []) as string[]);
  const names = Object.keys(properties);
  if (names.length === 0 && typeof s.additionalProperties === 'object') {
    const value = valid(s.additionalProperties as Schema, context);
    return fc.dictionary(
      fc.string({ unit: 'binary', maxLength: 20 }).filter((k) => k !== '__proto__'),
      value,
      {
        maxKeys: 4,
      },
    );
  }
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const name of names) {
    record[name] = context.overrides?.[name] ?? valid(properties[name] as Schema, context);
  }
  const values = fc.record(record, { requiredKeys: names.filter((n) => required.has(n)) }) as fc.Arbitrary<
    Record<string, unknown>
  >;
  const exclusive = excluded(s);
  if (exclusive === undefined) return values;
  return values.filter((value) => !exclusive.every((name) => Object.hasOwn(value, name)));
}

/** `not: {required: [...]}`: properties that must not all be given together. */
function excluded(s: Schema): string[] | undefined {
  const not = s.not as Schema | undefined;
  const names = not?.required;
  return Array.isArray(names) ? (names as string[]) : undefined;
}

/** One way a value breaks `schema`, with a note saying which rule. */
export interface Violation {
  value: unknown;
  rule: string;
}

/**
 * Values the schema forbids, each breaking one rule it states (a bound, a pattern, a length, a
 * type, a required or unknown property, an item count), or undefined when it states none.
 */
export function invalid(schema: Schema, context: SchemaContext): fc.Arbitrary<Violation> | undefined {
  const s = resolve(schema, context);
  const options: fc.Arbitrary<Violation>[] = [];
  const note = (rule: string) => (value: unknown) => ({ value, rule });
  if (s.anyOf !== undefined || s.oneOf !== undefined) {
    // Something none of the variants is: a bare number where each wants an object or a string.
    return fc.constant({ value: 12345.5, rule: 'no variant' });
  }
  switch (s.type) {
    case 'boolean':
      options.push(fc.constantFrom('true', 1, null).map(note('type boolean')));
      if (Array.isArray(s.enum) && s.enum.length === 1)
        options.push(fc.constant(!s.enum[0]).map(note('enum')));
      break;
    case 'string':
      options.push(fc.oneof(fc.integer(), fc.boolean(), fc.constant(null)).map(note('type string')));
      if (typeof s.pattern === 'string') {
        const pattern = new RegExp(s.pattern);
        options.push(
          fc
            .oneof(
              fc.string({ maxLength: 30 }),
              fc.constantFrom('', ' ', 'a b', '..', '-1', '1-', '99999999999999999999-0'),
            )
            .filter((v) => !pattern.test(v))
            .map(note('pattern')),
        );
      }
      if (typeof s.maxLength === 'number') {
        options.push(fc.constant('x'.repeat(s.maxLength + 1)).map(note('maxLength')));
        options.push(fc.constant('\u{1F600}'.repeat(s.maxLength + 1)).map(note('maxLength in code points')));
      }
      if (typeof s.minLength === 'number' && s.minLength > 0)
        options.push(fc.constant('').map(note('minLength')));
      if (Array.isArray(s.enum)) options.push(fc.constant('not-one-of-them').map(note('enum')));
      break;
    case 'integer':
      options.push(fc.oneof(fc.constant('7'), fc.constant(1.5), fc.constant(null)).map(note('type integer')));
      if (typeof s.minimum === 'number') options.push(fc.constant(s.minimum - 1).map(note('minimum')));
      if (typeof s.maximum === 'number') options.push(fc.constant(s.maximum + 1).map(note('maximum')));
      break;
    case 'array': {
      options.push(fc.constant({ not: 'an array' }).map(note('type array')));
      const item = s.items as Schema;
      if (typeof s.minItems === 'number' && s.minItems > 0)
        options.push(fc.constant([]).map(note('minItems')));
      if (typeof s.maxItems === 'number') {
        const max = s.maxItems;
        options.push(
          valid(item, context)
            .map((value) => Array.from({ length: max + 1 }, () => value))
            .map(note('maxItems')),
        );
      }
      const bad = invalid(item, context);
      if (bad !== undefined) {
        options.push(
          fc.tuple(valid(s, context), bad).map(([good, v]) => ({
            value: [...(good as unknown[]), v.value],
            rule: `item: ${v.rule}`,
          })),
        );
      }
      break;
    }
    case 'object': {
      options.push(fc.constantFrom([], 'text', 7).map(note('type object')));
      const properties = (s.properties ?? {}) as Record<string, Schema>;
      const required = (s.required ?? []) as string[];
      if (required.length > 0) {
        options.push(
          fc.tuple(valid(s, context), fc.constantFrom(...required)).map(([good, name]) => {
            const copy = { ...(good as Record<string, unknown>) };
            delete copy[name];
            return { value: copy, rule: `required ${name}` };
          }),
        );
      }
      const exclusive = excluded(s);
      if (exclusive !== undefined) {
        options.push(
          fc
            .tuple(valid(s, context), ...exclusive.map((name) => valid(properties[name] as Schema, context)))
            .map(([good, ...given]) => ({
              value: {
                ...(good as Record<string, unknown>),
                ...Object.fromEntries(exclusive.map((name, i) => [name, given[i]])),
              },
              rule: `not all of ${exclusive.join(', ')}`,
            })),
        );
      }
      if (s.additionalProperties === false) {
        options.push(
          valid(s, context).map((good) => ({
            value: { ...(good as Record<string, unknown>), zzUnknown: 1 },
            rule: 'additionalProperties',
          })),
        );
      }
      for (const [name, property] of Object.entries(properties)) {
        const bad = invalid(property, context);
        if (bad === undefined) continue;
        options.push(
          fc.tuple(valid(s, context), bad).map(([good, v]) => ({
            value: { ...(good as Record<string, unknown>), [name]: v.value },
            rule: `${name}: ${v.rule}`,
          })),
        );
      }
      break;
    }
    default:
      break;
  }
  return options.length === 0 ? undefined : fc.oneof(...options);
}
