/** Queue tags: TagQueue, UntagQueue, ListQueueTags (and the check CreateQueue's `tags` share). */
import { Scope } from '../../api/auth.ts';
import { type Action, existing, queueOf } from '../action.ts';
import { invalidValue, missing, SqsError, SqsErrorCode } from '../errors.ts';
import { stringList, stringMap } from '../params.ts';

const MAX_TAGS = 50;

/** Tags as SQS takes them: at most 50, keys of 1-128 characters, values of at most 256. */
export function checkTags(tags: Record<string, string> | undefined): Record<string, string> | undefined {
  if (tags === undefined) return undefined;
  const entries = Object.entries(tags);
  if (entries.length > MAX_TAGS) {
    throw new SqsError(SqsErrorCode.invalidParameterValue, `Too many tags: a queue has at most ${MAX_TAGS}.`);
  }
  for (const [key, value] of entries) {
    if (key.length < 1 || key.length > 128)
      throw invalidValue('Tag.Key', key, 'Tag keys are 1 to 128 characters.');
    if (value.length > 256) throw invalidValue(`Tag.${key}`, value, 'Tag values are at most 256 characters.');
  }
  return tags;
}

const tagQueue: Action = {
  scope: Scope.admin,
  async run(input, context) {
    const name = queueOf(input, context);
    const tags = checkTags(stringMap(input, 'Tags'));
    if (tags === undefined || Object.keys(tags).length === 0) throw missing('Tags');
    const state = await existing(context, name);
    if (Object.keys({ ...state.meta.tags, ...tags }).length > MAX_TAGS) {
      throw new SqsError(
        SqsErrorCode.invalidParameterValue,
        `Too many tags: a queue has at most ${MAX_TAGS}.`,
      );
    }
    await context.port.updateQueue(name, {}, { tags });
    return {};
  },
};

const untagQueue: Action = {
  scope: Scope.admin,
  async run(input, context) {
    const name = queueOf(input, context);
    const keys = stringList(input, 'TagKeys');
    if (keys.length === 0) throw missing('TagKeys');
    await existing(context, name);
    await context.port.updateQueue(name, {}, { tags: Object.fromEntries(keys.map((key) => [key, null])) });
    return {};
  },
};

const listQueueTags: Action = {
  scope: Scope.consume,
  async run(input, context) {
    const state = await existing(context, queueOf(input, context));
    return Object.keys(state.meta.tags).length === 0 ? {} : { Tags: state.meta.tags };
  },
};

export const tagActions: Record<string, Action> = {
  TagQueue: tagQueue,
  UntagQueue: untagQueue,
  ListQueueTags: listQueueTags,
};
