/**
 * AWS's query protocol as SQS speaks it (older SDKs, boto3 before 1.34: shared/reference/sqs.md
 * §4): form-encoded `Action=…` parameters with flattened lists and maps in, XML out. The decoder
 * turns the flattened names back into the members the actions read (`Attribute.1.Name` →
 * `Attributes`, `SendMessageBatchRequestEntry.2.MessageBody` → `Entries[1].MessageBody`); the
 * encoder writes each output member as SQS's XML does (lists flattened, maps as Name/Value pairs).
 */
import { SQS_ERROR_SHAPES, SqsError, SqsErrorCode } from './errors.ts';
import { setOwn } from './own-property.ts';
import type { Input } from './params.ts';

const NAMESPACE = 'http://queue.amazonaws.com/doc/2012-11-05/';
export const XML_CONTENT_TYPE = 'text/xml';

/** Flattened lists: the query name of one item → the member. */
const LISTS: Record<string, string> = {
  AttributeName: 'AttributeNames',
  MessageAttributeName: 'MessageAttributeNames',
  MessageSystemAttributeName: 'MessageSystemAttributeNames',
  TagKey: 'TagKeys',
};
/** Flattened maps: the query name of one entry → the member, with its key and value fields. */
const MAPS: Record<string, { member: string; key: string; value: string }> = {
  Attribute: { member: 'Attributes', key: 'Name', value: 'Value' },
  Tag: { member: 'Tags', key: 'Key', value: 'Value' },
  MessageAttribute: { member: 'MessageAttributes', key: 'Name', value: 'Value' },
  MessageSystemAttribute: { member: 'MessageSystemAttributes', key: 'Name', value: 'Value' },
};
const ENTRY = /^[A-Za-z]+RequestEntry$/;
/** Actions whose answer has no Result element. */
const NO_RESULT = new Set([
  'DeleteQueue',
  'PurgeQueue',
  'SetQueueAttributes',
  'DeleteMessage',
  'ChangeMessageVisibility',
  'TagQueue',
  'UntagQueue',
  'AddPermission',
  'RemovePermission',
]);

/** The parameters of a query request: the URL's, then the form body's. */
export function queryParameters(url: URL, body: string, contentType: string): URLSearchParams {
  const params = new URLSearchParams(url.search);
  if (contentType.startsWith('application/x-www-form-urlencoded')) {
    for (const [name, value] of new URLSearchParams(body)) params.append(name, value);
  }
  return params;
}

export function queryAction(params: URLSearchParams): string {
  const action = params.get('Action');
  if (action === null || action === '') {
    throw new SqsError(SqsErrorCode.missingAction, 'The request must contain the parameter Action.');
  }
  return action;
}

type Tree = { [name: string]: Tree | string };

/** The parameters as a tree of their dotted names. */
function treeOf(pairs: Iterable<[string, string]>): Tree {
  const root: Tree = Object.create(null);
  for (const [name, value] of pairs) {
    const path = name.split('.');
    let node = root;
    path.forEach((part, i) => {
      if (i === path.length - 1) {
        node[part] = value;
        return;
      }
      const next = node[part];
      if (typeof next === 'object') {
        node = next;
      } else {
        const child: Tree = Object.create(null);
        node[part] = child;
        node = child;
      }
    });
  }
  return root;
}

/** A tree's numbered children (`1`, `2`, …) in order. */
function numbered(node: Tree | string): (Tree | string)[] {
  if (typeof node === 'string') return [];
  return Object.keys(node)
    .filter((key) => /^[1-9]\d*$/.test(key))
    .sort((a, b) => Number(a) - Number(b))
    .map((key) => node[key] as Tree | string);
}

function plain(node: Tree | string): unknown {
  if (typeof node === 'string') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) setOwn(out, key, plain(value));
  return out;
}

function members(node: Tree, action: string): Input {
  const out: Input = {};
  for (const [name, child] of Object.entries(node)) {
    if (name === 'Action' || name === 'Version') continue;
    const list = LISTS[name];
    const map = MAPS[name];
    if (list !== undefined) {
      setOwn(
        out,
        list,
        numbered(child).filter((item) => typeof item === 'string'),
      );
    } else if (map !== undefined) {
      const entries: Record<string, unknown> = {};
      for (const item of numbered(child)) {
        if (typeof item === 'string') continue;
        const key = item[map.key];
        const value = item[map.value];
        if (typeof key === 'string' && value !== undefined) setOwn(entries, key, plain(value));
      }
      // CreateQueue spells its tags member in lowercase.
      setOwn(out, map.member === 'Tags' && action === 'CreateQueue' ? 'tags' : map.member, entries);
    } else if (ENTRY.test(name)) {
      setOwn(
        out,
        'Entries',
        numbered(child).map((item) => (typeof item === 'string' ? item : members(item, action))),
      );
    } else {
      setOwn(out, name, plain(child));
    }
  }
  return out;
}

/** The action's input from the flattened parameters. */
export function decodeQueryInput(action: string, params: URLSearchParams): Input {
  return members(treeOf(params), action);
}

function escapeXml(text: string): string {
  return (
    text
      .replaceAll('&', '&amp;')
      .replaceAll('<', '&lt;')
      .replaceAll('>', '&gt;')
      .replaceAll('"', '&quot;')
      .replaceAll("'", '&apos;')
      // An XML parser turns a raw CR into LF, which would change a body and its MD5.
      .replaceAll('\r', '&#xD;')
  );
}

function element(name: string, content: string): string {
  return `<${name}>${content}</${name}>`;
}

/** Element names of lists of structures, by member. */
function itemName(member: string, action: string): string {
  switch (member) {
    case 'Messages':
      return 'Message';
    case 'Successful':
      return `${action}ResultEntry`;
    case 'Failed':
      return 'BatchResultErrorEntry';
    case 'Results':
      return `${action}ResultEntry`;
    default:
      return member;
  }
}

function encodeValue(name: string, value: unknown, action: string): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'object') return element(name, escapeXml(String(value)));
  if (Array.isArray(value)) {
    // Lists of strings: QueueUrls / queueUrls → <QueueUrl> repeated.
    const item = name === 'QueueUrls' || name === 'queueUrls' ? 'QueueUrl' : itemName(name, action);
    return value
      .map((v) =>
        typeof v === 'object' && v !== null
          ? element(item, encodeMembers(v as Record<string, unknown>, action))
          : element(item, escapeXml(String(v))),
      )
      .join('');
  }
  const record = value as Record<string, unknown>;
  switch (name) {
    case 'Attributes':
      return Object.entries(record)
        .map(([k, v]) =>
          element('Attribute', element('Name', escapeXml(k)) + element('Value', escapeXml(String(v)))),
        )
        .join('');
    case 'Tags':
      return Object.entries(record)
        .map(([k, v]) =>
          element('Tag', element('Key', escapeXml(k)) + element('Value', escapeXml(String(v)))),
        )
        .join('');
    case 'MessageAttributes':
      return Object.entries(record)
        .map(([k, v]) =>
          element(
            'MessageAttribute',
            element('Name', escapeXml(k)) +
              element('Value', encodeMembers(v as Record<string, unknown>, action)),
          ),
        )
        .join('');
    default:
      return element(name, encodeMembers(record, action));
  }
}

function encodeMembers(record: Record<string, unknown>, action: string): string {
  return Object.entries(record)
    .map(([name, value]) => encodeValue(name, value, action))
    .join('');
}

function metadata(requestId: string): string {
  return element('ResponseMetadata', element('RequestId', escapeXml(requestId)));
}

export function querySuccess(
  action: string,
  output: Record<string, unknown>,
  requestId: string,
  headers: Record<string, string>,
): Response {
  const result = NO_RESULT.has(action) ? '' : element(`${action}Result`, encodeMembers(output, action));
  const xml = `<?xml version="1.0"?><${action}Response xmlns="${NAMESPACE}">${result}${metadata(requestId)}</${action}Response>`;
  return new Response(xml, { status: 200, headers: { ...headers, 'content-type': XML_CONTENT_TYPE } });
}

export function queryError(error: SqsError, requestId: string, headers: Record<string, string>): Response {
  const shape = SQS_ERROR_SHAPES[error.code];
  const message =
    error.code === SqsErrorCode.queueDoesNotExist
      ? 'The specified queue does not exist for this wsdl version.'
      : error.message;
  const xml =
    `<?xml version="1.0"?><ErrorResponse xmlns="${NAMESPACE}">` +
    element(
      'Error',
      element('Type', shape.fault) +
        element('Code', escapeXml(shape.query)) +
        element('Message', escapeXml(message)) +
        '<Detail/>',
    ) +
    element('RequestId', escapeXml(requestId)) +
    '</ErrorResponse>';
  return new Response(xml, {
    status: shape.status,
    headers: { ...headers, 'content-type': XML_CONTENT_TYPE },
  });
}
