/** Queue lifecycle: CreateQueue, GetQueueUrl, ListQueues, DeleteQueue, PurgeQueue and the attributes. */
import { Scope } from '../../api/auth.ts';
import { type Action, type ActionContext, existing, queueOf } from '../action.ts';
import { invalidValue, queueDoesNotExist, SqsError, SqsErrorCode } from '../errors.ts';
import { optionalString, requiredString, stringList, stringMap } from '../params.ts';
import {
  checkAttributeNames,
  DEFAULT_RETENTION_SECONDS,
  DEFAULT_VISIBILITY_SECONDS,
  differingAttribute,
  FIFO_QUEUE_BASE,
  needsCounts,
  type ParsedAttributes,
  parseQueueAttributes,
  renderQueueAttributes,
  SQS_QUEUE_BASE,
} from '../queue-attributes.ts';
import { isFifoName, isQueueName, NAME_TEXT, queueNameOfArn, queueUrl } from '../queue-names.ts';
import { page, pageRequest } from './paging.ts';
import { checkTags } from './tags.ts';

/**
 * Whether a dead-letter queue's RedriveAllowPolicy (stored checked, lib/sqs/queue-attributes.ts)
 * lets `source` name it: allowAll (or none), denyAll, byQueue with the source's ARN listed.
 */
function redriveAllowed(stored: string | undefined, source: string, context: ActionContext): boolean {
  if (stored === undefined || stored === '') return true;
  const policy = JSON.parse(stored) as { redrivePermission: string; sourceQueueArns?: string[] };
  if (policy.redrivePermission === 'denyAll') return false;
  if (policy.redrivePermission !== 'byQueue') return true;
  return (policy.sourceQueueArns ?? []).some((arn) => queueNameOfArn(context.endpoint, arn) === source);
}

/** A RedrivePolicy's dead-letter queue: this account's, existing, of the same type, not itself. */
async function checkRedrive(parsed: ParsedAttributes, queue: string, context: ActionContext): Promise<void> {
  const policy = parsed.redrive;
  if (policy === undefined) return;
  if (policy === null) {
    parsed.config.deadLetterQueue = '';
    return;
  }
  const reject = (reason: string) =>
    new SqsError(
      SqsErrorCode.invalidParameterValue,
      `Value ${JSON.stringify(policy)} for parameter RedrivePolicy is invalid. Reason: ${reason}`,
    );
  const target = queueNameOfArn(context.endpoint, policy.deadLetterTargetArn);
  if (target === undefined) throw reject('Invalid value for deadLetterTargetArn.');
  if (target === queue) throw reject('A queue cannot be its own dead-letter queue.');
  const dlq = await context.port.readQueue(target);
  if (dlq === null) throw reject('Dead letter target does not exist.');
  if (isFifoName(target) !== isFifoName(queue)) {
    throw reject('Dead-letter queue must be same type of queue as the source.');
  }
  if (!redriveAllowed(dlq.meta.attributes.RedriveAllowPolicy, queue, context)) {
    throw reject(
      `Queue ${policy.deadLetterTargetArn} does not allow this queue to use it as a dead-letter queue.`,
    );
  }
  // Dead letters move into that queue (lib/queue/ops/dead-letter-forward.ts).
  parsed.config.deadLetterQueue = target;
}

const createQueue: Action = {
  scope: Scope.admin,
  async run(input, context) {
    const name = requiredString(input, 'QueueName');
    if (!isQueueName(name)) throw invalidValue('QueueName', name, NAME_TEXT);
    const fifo = isFifoName(name);
    const attributes = stringMap(input, 'Attributes');
    if (fifo && attributes?.FifoQueue === undefined) {
      throw new SqsError(
        SqsErrorCode.invalidParameterValue,
        'The name of a FIFO queue ends in .fifo, and such a queue must be created with FifoQueue set to true.',
      );
    }
    const parsed = parseQueueAttributes(attributes, fifo, true);
    const tags = checkTags(stringMap(input, 'tags'));
    await checkRedrive(parsed, name, context);
    const url = queueUrl(context.endpoint, name);
    const config = {
      ...SQS_QUEUE_BASE,
      ...(fifo ? FIFO_QUEUE_BASE : {}),
      visibilityTimeoutMs: DEFAULT_VISIBILITY_SECONDS * 1000,
      messageTtlMs: DEFAULT_RETENTION_SECONDS * 1000,
      ...parsed.config,
    };
    const stored = Object.fromEntries(Object.entries(parsed.meta.attributes).filter(([, v]) => v !== null));
    // Created only if missing, in one step: an existing queue (a native one gets its group) is
    // compared with the attributes given instead.
    const { existing: state } = await context.port.createQueue(name, config, {
      attributes: stored,
      tags: tags ?? {},
    });
    if (state !== null) {
      const differs = differingAttribute(parsed, state, context.endpoint, name, fifo);
      if (differs !== undefined) {
        throw new SqsError(
          SqsErrorCode.queueNameExists,
          `A queue already exists with the same name and a different value for attribute ${differs}`,
        );
      }
    }
    return { QueueUrl: url };
  },
};

const getQueueUrl: Action = {
  scope: 'any',
  async run(input, context) {
    const name = requiredString(input, 'QueueName');
    const owner = optionalString(input, 'QueueOwnerAWSAccountId');
    if ((owner !== undefined && owner !== context.endpoint.accountId) || !isQueueName(name)) {
      throw queueDoesNotExist();
    }
    await existing(context, name);
    return { QueueUrl: queueUrl(context.endpoint, name) };
  },
};

const listQueues: Action = {
  scope: Scope.consume,
  async run(input, context) {
    const prefix = optionalString(input, 'QueueNamePrefix') ?? '';
    const request = pageRequest(input);
    const all = (await context.port.listQueues()).filter(
      (name) => isQueueName(name) && name.startsWith(prefix),
    );
    const { names, nextToken } = page(all, request);
    const out: Record<string, unknown> = {};
    // AWS leaves QueueUrls out when there are none.
    if (names.length > 0) out.QueueUrls = names.map((name) => queueUrl(context.endpoint, name));
    if (nextToken !== undefined) out.NextToken = nextToken;
    return out;
  },
};

const deleteQueue: Action = {
  scope: Scope.admin,
  async run(input, context) {
    if (!(await context.port.deleteQueue(queueOf(input, context)))) throw queueDoesNotExist();
    return {};
  },
};

const purgeQueue: Action = {
  scope: Scope.admin,
  async run(input, context) {
    const name = queueOf(input, context);
    await existing(context, name);
    await context.port.purgeQueue(name);
    return {};
  },
};

const getQueueAttributes: Action = {
  scope: Scope.consume,
  async run(input, context) {
    const name = queueOf(input, context);
    const names = checkAttributeNames(stringList(input, 'AttributeNames'));
    const state = await existing(context, name);
    if (names.size === 0) return {};
    const counts = needsCounts(names) ? await context.port.counts(name) : undefined;
    const attributes = renderQueueAttributes(state, counts, names, context.endpoint, name, isFifoName(name));
    return Object.keys(attributes).length === 0 ? {} : { Attributes: attributes };
  },
};

const setQueueAttributes: Action = {
  scope: Scope.admin,
  async run(input, context) {
    const name = queueOf(input, context);
    const attributes = stringMap(input, 'Attributes');
    if (attributes === undefined)
      throw invalidValue('Attributes', '{}', 'The request must contain at least one attribute.');
    const parsed = parseQueueAttributes(attributes, isFifoName(name), false);
    await existing(context, name);
    await checkRedrive(parsed, name, context);
    await context.port.updateQueue(name, parsed.config, { attributes: parsed.meta.attributes });
    return {};
  },
};

export const queueActions: Record<string, Action> = {
  CreateQueue: createQueue,
  GetQueueUrl: getQueueUrl,
  ListQueues: listQueues,
  DeleteQueue: deleteQueue,
  PurgeQueue: purgeQueue,
  GetQueueAttributes: getQueueAttributes,
  SetQueueAttributes: setQueueAttributes,
};
