/** NextToken of the list actions: opaque to clients, the last name of the page before. */
import { fromBase64Url, toBase64Url } from '../base64.ts';
import { invalidValue } from '../errors.ts';
import { utf8 } from '../text.ts';

export function toPageToken(last: string): string {
  return toBase64Url(utf8(last));
}

/** The name the next page starts after; undefined for the first page. */
export function fromPageToken(token: string | undefined): string | undefined {
  if (token === undefined || token === '') return undefined;
  const bytes = fromBase64Url(token);
  if (bytes === undefined) throw invalidValue('NextToken', token, 'Invalid NextToken value.');
  return new TextDecoder().decode(bytes);
}
