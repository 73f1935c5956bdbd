/**
 * Dead-letter queues: ListDeadLetterSourceQueues and the message move tasks that redrive a
 * dead-letter queue (StartMessageMoveTask, ListMessageMoveTasks, CancelMessageMoveTask).
 */
import { Scope } from '../../api/auth.ts';
import { type Action, type ActionContext, existing, queueOf } from '../action.ts';
import { SqsError, SqsErrorCode } from '../errors.ts';
import { type Input, optionalInt, requiredString } from '../params.ts';
import type { MoveTask } from '../port.ts';
import { queueArn, queueNameOfArn, queueUrl } from '../queue-names.ts';
import { page, pageRequest } from './paging.ts';

/** The queue an ARN member names, which must exist. */
async function queueOfArn(input: Input, member: string, context: ActionContext): Promise<string> {
  const arn = requiredString(input, member);
  const name = queueNameOfArn(context.endpoint, arn);
  if (name === undefined || (await context.port.readQueue(name)) === null) {
    throw new SqsError(
      SqsErrorCode.resourceNotFound,
      `The resource that you specified for the ${member} parameter doesn't exist.`,
    );
  }
  return name;
}

function taskOutput(task: MoveTask, context: ActionContext): Record<string, unknown> {
  const out: Record<string, unknown> = {
    Status: task.status,
    SourceArn: queueArn(context.endpoint, task.source),
    ApproximateNumberOfMessagesMoved: task.moved,
    StartedTimestamp: task.startedAt,
  };
  if (task.status === 'RUNNING') out.TaskHandle = task.handle;
  if (task.destination !== undefined) out.DestinationArn = queueArn(context.endpoint, task.destination);
  if (task.maxPerSecond !== undefined) out.MaxNumberOfMessagesPerSecond = task.maxPerSecond;
  if (task.toMove !== undefined) out.ApproximateNumberOfMessagesToMove = task.toMove;
  if (task.failureReason !== undefined) out.FailureReason = task.failureReason;
  return out;
}

const listDeadLetterSourceQueues: Action = {
  scope: Scope.consume,
  async run(input, context) {
    const queue = queueOf(input, context);
    const request = pageRequest(input);
    await existing(context, queue);
    const { names, nextToken } = page(await context.port.deadLetterSources(queue), request);
    // Spelled `queueUrls` in SQS's model, unlike ListQueues' `QueueUrls`, and always there.
    const out: Record<string, unknown> = { queueUrls: names.map((name) => queueUrl(context.endpoint, name)) };
    if (nextToken !== undefined) out.NextToken = nextToken;
    return out;
  },
};

const startMessageMoveTask: Action = {
  scope: Scope.admin,
  async run(input, context) {
    const source = await queueOfArn(input, 'SourceArn', context);
    const destination =
      input.DestinationArn === undefined ? undefined : await queueOfArn(input, 'DestinationArn', context);
    const rate = optionalInt(
      input,
      'MaxNumberOfMessagesPerSecond',
      1,
      500,
      'Must be between 1 and 500, if provided.',
    );
    if ((await context.port.deadLetterSources(source)).length === 0) {
      throw new SqsError(
        SqsErrorCode.invalidParameterValue,
        'Source queue must be configured as a Dead Letter Queue.',
      );
    }
    const task = await context.port.startMove(source, destination, rate);
    return { TaskHandle: task.handle };
  },
};

const listMessageMoveTasks: Action = {
  scope: Scope.consume,
  async run(input, context) {
    const source = await queueOfArn(input, 'SourceArn', context);
    const max = optionalInt(input, 'MaxResults', 1, 10, 'Must be between 1 and 10, if provided.') ?? 1;
    const tasks = await context.port.listMoves(source, max);
    return { Results: tasks.map((task) => taskOutput(task, context)) };
  },
};

const cancelMessageMoveTask: Action = {
  scope: Scope.admin,
  async run(input, context) {
    const task = await context.port.cancelMove(requiredString(input, 'TaskHandle'));
    return { ApproximateNumberOfMessagesMoved: task.moved };
  },
};

export const deadLetterActions: Record<string, Action> = {
  ListDeadLetterSourceQueues: listDeadLetterSourceQueues,
  StartMessageMoveTask: startMessageMoveTask,
  ListMessageMoveTasks: listMessageMoveTasks,
  CancelMessageMoveTask: cancelMessageMoveTask,
};
