/**
 * `esq`'s help: the overview (`esq --help`) and one page per command (`esq <command> --help`,
 * `esq help <command>`), each with its arguments, options and an example.
 */

export const USAGE = `esq — the edge-stream-queue command line

Usage: esq [--url URL] [--token TOKEN] <command> [arguments]

Messages
  produce <queue> [<json-body>]       produce one message, or JSON lines read from stdin
  consume <queue> <group> [--ack]     print up to --count messages as JSON lines
  tail <queue> [--from ID | --all]    print messages as they are produced
  cancel <queue> <id>...              cancel messages: never delivered (again)
Queues and groups
  stats [<queue>] [--json]            queues, their groups, pending, lag and dead letters
  queue create <queue> [field=value]...
  queue config <queue> [field=value]...
  queue delete <queue> [--yes]
  group create <queue> <group> [--start 0|$|ID]
  group delete <queue> <group> [--yes]
  pause <queue> [<group>]             stop delivery of a queue, or to one group
  resume <queue> [<group>]
Dead letters and upkeep
  dlq list <queue> [--count N] [--cursor ID] [--json]
  dlq redrive <queue> (<id>... | --all)
  dlq purge <queue> [--yes]
  sweep [--json]                      run the sweep now

  --url, --token    or ESQ_URL, ESQ_TOKEN
  --yes, -y         confirm a delete without being asked (needed when stdin is not a terminal)
  --help, -h        this help; esq <command> --help for one command's
  --version         the version
Exit codes: 0 done, 1 the API or the network failed (its message is printed), 2 wrong usage.`;

const pages: Record<string, string> = {
  produce: `esq produce <queue> [<json-body>] [options]

Produces one message whose body is <json-body>, or, without it, one message per JSON line of
stdin (sent in batches of up to 1000; the ids are printed in input order).
  --dedup-id ID       a repeat within the queue's dedup window adds nothing (one message only)
  --delay MS          deliver after MS milliseconds
  --attr name=value   an attribute (repeatable)
  --group-key KEY     in order with the other messages of KEY (ordered message groups)
  --messages          each stdin line is a message object {"body", "dedupId"?, "delayMs"?, "attributes"?, "groupKey"?}
  --progress          draw the progress line even when stderr is not a terminal
Example: esq produce orders '{"sku":42}' --dedup-id order-42`,
  consume: `esq consume <queue> <group> [--consumer NAME] [--count N] [--wait MS] [--ack]

Leases up to N messages (default 10) as consumer NAME (default esq-<random>), waiting up to MS
milliseconds for the first (default 0), and prints them as JSON lines. Without --ack they stay
leased and come back after the visibility timeout.
Example: esq consume orders billing --count 5 --wait 2000 --ack`,
  tail: `esq tail <queue> [--from ID | --all] [--interval MS] [--limit N]

Prints messages as they are produced: from now, after ID, or from the start (--all), polling
every MS milliseconds (default 500) when there is nothing new; stops after N messages.
Example: esq tail orders --all --limit 10`,
  stats: `esq stats [<queue>] [--json]

Every queue (or one) with its length, delayed and dead-lettered messages, and per group the
pending count, lag, consumers and the age of the oldest pending message.`,
  queue: `esq queue create|config|delete <queue> ...

  queue create <queue> [field=value]...   create a queue (or set fields of an existing one)
  queue config <queue> [field=value]...   show its config, or change fields of it
  queue delete <queue> [--yes]            delete it with all its messages, groups and dead letters
esq queue <subcommand> --help for each.`,
  'queue create': `esq queue create <queue> [field=value]... [--json]

Creates the queue with the fields given and the deployment's defaults for the rest, and prints
its config. An existing queue is kept: the fields given are set on it, nothing else changes.
Fields: {fields}.
Example: esq queue create orders visibilityTimeoutMs=60000 maxDeliveries=10`,
  'queue config': `esq queue config <queue> [field=value]... [--json]

Prints the queue's config, defaults filled in; with field=value pairs, sets those fields first.
A queue that does not exist is not created (esq queue create does that).
Fields: {fields}.
Example: esq queue config orders retryBackoff=exponential retryDelayMs=500`,
  'queue delete': `esq queue delete <queue> [--yes]

Deletes the queue and everything in it: messages, groups with their pending entries, dead
letters, schedules. Asks first on a terminal; anywhere else it needs --yes.`,
  group: `esq group create|delete <queue> <group> ...

  group create <queue> <group> [--start 0|$|ID]   create a consumer group
  group delete <queue> <group> [--yes]             delete it and its pending entries
esq group <subcommand> --help for each.`,
  'group create': `esq group create <queue> <group> [--start 0|$|ID]

Creates the consumer group. --start: "$" (the default) delivers only messages produced from now
on, "0" the whole backlog too, an id the messages after it. An existing group is left as it is.
Example: esq group create orders billing --start 0`,
  'group delete': `esq group delete <queue> <group> [--yes]

Deletes the group and its pending entries (the messages stay for the other groups). Asks first
on a terminal; anywhere else it needs --yes.`,
  pause: `esq pause <queue> [<group>]

Stops delivery: of the whole queue, or to one group (the others go on). Produce, ack, nack and
the sweep go on; consume answers nothing until esq resume.`,
  resume: `esq resume <queue> [<group>]

Resumes delivery of a paused queue, or to a paused group.`,
  dlq: `esq dlq list|redrive|purge <queue> ...

  dlq list <queue> [--count N] [--cursor ID] [--json]   a page of dead letters, oldest first
  dlq redrive <queue> (<id>... | --all)                put them back as new messages
  dlq purge <queue> [--yes]                            delete every dead letter
esq dlq <subcommand> --help for each.`,
  'dlq list': `esq dlq list <queue> [--count N] [--cursor ID] [--json]

A page of dead letters (default 100), oldest first, with why and from which group each came;
when there are more, stderr names the --cursor of the next page.`,
  'dlq redrive': `esq dlq redrive <queue> (<id>... | --all)

Puts the dead letters named (or all of them) back into the queue as new messages.`,
  'dlq purge': `esq dlq purge <queue> [--yes]

Deletes every dead letter of the queue. Asks first on a terminal; anywhere else it needs --yes.`,
  cancel: `esq cancel <queue> <id>...

Cancels each message (an id or a delayed-<n> token) for every group: a waiting or delayed one is
never delivered; one in flight is not delivered again, and its worker's handler signal aborts at
its next heartbeat. A second cancel of an id says it was already cancelled. Needs a produce token.
Exits 1 when an id is unknown (each one is named on stderr).`,
  sweep: `esq sweep [--json]

Runs the sweep now, as the cron does: dead-letters messages past maxDeliveries, delivers due
delayed messages, fires schedules, removes idle consumers and trims acked entries.`,
};

/** The help page of a command (`queue create` or `queue`), or undefined for no such command. */
export function helpFor(words: readonly string[], configFields: readonly string[]): string | undefined {
  const [first, second] = words;
  if (first === undefined) return undefined;
  const page = (second !== undefined ? pages[`${first} ${second}`] : undefined) ?? pages[first];
  return page?.replace('{fields}', configFields.join(', '));
}

export const COMMANDS = Object.keys(pages).filter((name) => !name.includes(' '));
