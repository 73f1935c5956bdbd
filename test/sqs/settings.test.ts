/** The SQS endpoint's settings as readSettings reads them from the environment. */
import { describe, expect, it } from 'vitest';
import { readSettings } from '../../lib/api/settings.ts';

describe('SQS settings', () => {
  it('are absent without SQS_CREDENTIALS, so the endpoint is not mounted', () => {
    expect(readSettings({ API_TOKENS: 'admin:x' }, 'production').sqs).toBeUndefined();
  });

  it('read the keys, with the default account and region', () => {
    expect(readSettings({ SQS_CREDENTIALS: 'AKID:s3cret:produce' }, 'production').sqs).toEqual({
      credentials: [{ accessKeyId: 'AKID', secretAccessKey: 's3cret', scope: 'produce' }],
      accountId: '000000000000',
      region: 'us-east-1',
    });
    expect(
      readSettings(
        { SQS_CREDENTIALS: 'AKID:s:admin', SQS_ACCOUNT_ID: '123456789012', SQS_REGION: 'eu-west-1' },
        'production',
      ).sqs,
    ).toMatchObject({ accountId: '123456789012', region: 'eu-west-1' });
  });

  it('refuse a malformed account id or region, naming the variable and not the value', () => {
    expect(() => readSettings({ SQS_ACCOUNT_ID: '12345' }, 'production')).toThrow(
      /^SQS_ACCOUNT_ID must be 12 digits$/,
    );
    expect(() => readSettings({ SQS_REGION: 'EU WEST' }, 'production')).toThrow(/^SQS_REGION must be/);
    expect(() => readSettings({ SQS_CREDENTIALS: 'AKID:s3cret' }, 'production')).toThrow(
      /^SQS_CREDENTIALS entry 1/,
    );
  });
});
