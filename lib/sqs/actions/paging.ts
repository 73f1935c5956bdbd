/**
 * The pages of the list actions (ListQueues, ListDeadLetterSourceQueues): names in order, at most
 * MaxResults (1-1000) of them, and a NextToken (opaque to clients: the page's last name) only when
 * MaxResults was given and more remain, as SQS answers.
 */
import { fromBase64Url, toBase64Url } from '../base64.ts';
import { invalidValue } from '../errors.ts';
import { type Input, optionalInt, optionalString } from '../params.ts';
import { utf8 } from '../text.ts';

/** The request's page bounds: the name to start after (none on the first page) and the size. */
export function pageRequest(input: Input): { after: string | undefined; max: number | undefined } {
  const max = optionalInt(input, 'MaxResults', 1, 1000, 'Must be between 1 and 1000, if provided.');
  const token = optionalString(input, 'NextToken');
  if (token === undefined || token === '') return { after: undefined, max };
  const bytes = fromBase64Url(token);
  if (bytes === undefined) throw invalidValue('NextToken', token, 'Invalid NextToken value.');
  return { after: new TextDecoder().decode(bytes), max };
}

/** One page of `names` (any order) under `request`. */
export function page(
  names: readonly string[],
  request: { after: string | undefined; max: number | undefined },
): { names: string[]; nextToken?: string } {
  const { after, max } = request;
  const rest = names.filter((name) => after === undefined || name > after).sort();
  const out = rest.slice(0, max ?? 1000);
  const last = out[out.length - 1];
  return max !== undefined && rest.length > out.length && last !== undefined
    ? { names: out, nextToken: toBase64Url(utf8(last)) }
    : { names: out };
}
