/**
 * `esq`'s administration commands: create, configure and delete queues, create and delete
 * groups, pause and resume delivery. Config fields are given as `field=value` and checked against
 * the queue's own field table (lib/queue/rules.ts) before anything is sent; deletes ask first.
 */
import {
  isApiError,
  type QueueClient,
  type QueueConfig,
  type QueueConfigPatch,
} from '../../lib/client/index.ts';
import {
  CONFIG_FIELD_NAMES,
  CONFIG_FIELDS,
  type ConfigFieldName,
  decodeRateLimit,
  encodeRateLimit,
  isNameFieldValue,
  RATE_LIMIT_RULES,
  type RateLimit,
} from '../../lib/queue/rules.ts';
import { confirmed, type Io, need, noMore, UsageError, type Values } from './args.ts';
import { table } from './format.ts';

function isField(name: string): name is ConfigFieldName {
  return Object.hasOwn(CONFIG_FIELDS, name);
}

/** `field=value` pairs as a config patch, each field and value checked as the API would. */
export function configPatch(pairs: readonly string[]): QueueConfigPatch {
  const patch: Record<string, number | string | RateLimit | null> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    const name = at < 0 ? pair : pair.slice(0, at);
    if (at <= 0 || !isField(name)) {
      throw new UsageError(
        `"${pair}" is not field=value with a config field: ${CONFIG_FIELD_NAMES.join(', ')}`,
      );
    }
    const text = pair.slice(at + 1);
    const field = CONFIG_FIELDS[name];
    if (field.kind === 'name') {
      if (!isNameFieldValue(text)) throw new UsageError(`${name} must be '' or a queue name`);
      patch[name] = text;
    } else if (field.kind === 'enum') {
      if (!(field.values as readonly string[]).includes(text)) {
        throw new UsageError(`${name} must be one of ${field.values.join(', ')}`);
      }
      patch[name] = text;
    } else if (field.kind === 'rate') {
      // `max/periodMs` (as QUEUE_RATE_LIMIT is written), or none to clear it.
      const limit = text === 'none' ? null : decodeRateLimit(text);
      if (limit === undefined) {
        const { max, periodMs } = RATE_LIMIT_RULES;
        throw new UsageError(
          `${name} must be <max>/<periodMs> (max from ${max.min} to ${max.max}, periodMs from ${periodMs.min} to ${periodMs.max}) or none`,
        );
      }
      patch[name] = limit;
    } else {
      const value = Number(text);
      if (!/^\d+$/.test(text) || value < field.min || value > field.max) {
        throw new UsageError(`${name} must be an integer from ${field.min} to ${field.max}`);
      }
      patch[name] = value;
    }
  }
  return patch as QueueConfigPatch;
}

/** A config value as `esq` prints it (and takes it back): a rate limit as max/periodMs, or none. */
function configText(value: unknown): string {
  if (value === null) return 'none';
  if (typeof value === 'object') return encodeRateLimit(value as RateLimit);
  return String(value);
}

function printConfig(config: QueueConfig, values: Values, io: Io): void {
  if (values.json === true) {
    io.stdout(`${JSON.stringify(config, null, 2)}\n`);
    return;
  }
  io.stdout(
    `${table(
      ['FIELD', 'VALUE'],
      Object.entries(config).map(([name, value]) => [name, configText(value)]),
    )}\n`,
  );
}

/** The config, or undefined when the queue does not exist. */
async function configOrNothing(client: QueueClient, queue: string): Promise<QueueConfig | undefined> {
  try {
    return await client.queue(queue).config();
  } catch (error) {
    if (isApiError(error, 'QUEUE_NOT_FOUND')) return undefined;
    throw error;
  }
}

async function queueCommand(client: QueueClient, args: string[], values: Values, io: Io): Promise<void> {
  const [sub, name, ...pairs] = need(args, 2, 'queue create|config|delete <queue>');
  const q = client.queue(name!);
  if (sub === 'create' || sub === 'config') {
    const patch = configPatch(pairs);
    const before = await configOrNothing(client, q.name);
    if (before === undefined && sub === 'config') {
      throw new UsageError(`queue ${q.name} does not exist; create it with esq queue create ${q.name}`);
    }
    const changed = Object.keys(patch);
    const config = before !== undefined && changed.length === 0 ? before : await q.configure(patch);
    if (values.json !== true) {
      if (before === undefined) io.stdout(`created queue ${q.name}\n`);
      else if (changed.length > 0) io.stdout(`set ${changed.join(', ')} of queue ${q.name}\n`);
      else if (sub === 'create') io.stdout(`queue ${q.name} already exists; nothing changed\n`);
    }
    printConfig(config, values, io);
    return;
  }
  if (sub === 'delete') {
    noMore(args, 2, 'queue delete <queue> [--yes]');
    if (
      !(await confirmed(
        `This deletes queue ${q.name} with all its messages, groups and dead letters`,
        values,
        io,
      ))
    ) {
      throw new Cancelled();
    }
    io.stdout((await q.delete()) ? `deleted queue ${q.name}\n` : `queue ${q.name} did not exist\n`);
    return;
  }
  throw new UsageError(`unknown queue command "${sub}": create, config or delete`);
}

async function groupCommand(client: QueueClient, args: string[], values: Values, io: Io): Promise<void> {
  const [sub, queue, name] = need(args, 3, 'group create|delete <queue> <group>');
  noMore(args, 3, `group ${sub} <queue> <group>`);
  const g = client.queue(queue!).group(name!);
  if (sub === 'create') {
    const created = await g.create({ start: values.start ?? '$' });
    io.stdout(
      created
        ? `created group ${g.name} of ${g.queue}\n`
        : `group ${g.name} of ${g.queue} already exists; unchanged\n`,
    );
    return;
  }
  if (sub === 'delete') {
    if (
      !(await confirmed(`This deletes group ${g.name} of ${g.queue} and its pending entries`, values, io))
    ) {
      throw new Cancelled();
    }
    io.stdout(
      (await g.delete())
        ? `deleted group ${g.name} of ${g.queue}\n`
        : `group ${g.name} of ${g.queue} did not exist\n`,
    );
    return;
  }
  throw new UsageError(`unknown group command "${sub}": create or delete`);
}

function pauseCommand(paused: boolean) {
  return async (client: QueueClient, args: string[], _values: Values, io: Io): Promise<void> => {
    const verb = paused ? 'pause' : 'resume';
    const [queue, group] = need(args, 1, `${verb} <queue> [<group>]`);
    noMore(args, 2, `${verb} <queue> [<group>]`);
    const q = client.queue(queue!);
    if (group === undefined) {
      await (paused ? q.pause() : q.resume());
      io.stdout(`${paused ? 'paused' : 'resumed'} queue ${q.name}\n`);
    } else {
      await (paused ? q.group(group).pause() : q.group(group).resume());
      io.stdout(`${paused ? 'paused' : 'resumed'} group ${group} of ${q.name}\n`);
    }
  };
}

/** A delete the person at the terminal said no to: exit code 1, nothing more to print. */
export class Cancelled extends Error {
  override name = 'Cancelled';
}

export const adminCommands = {
  queue: queueCommand,
  group: groupCommand,
  pause: pauseCommand(true),
  resume: pauseCommand(false),
} as const;
