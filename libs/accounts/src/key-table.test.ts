import { keyRecord, keyTable } from './key-table';
import type { ApiKeyRow } from './store';

const key = (over: Partial<ApiKeyRow> = {}): ApiKeyRow => ({
  id: '6f1c2d3e-0000-4000-8000-000000000001',
  name: 'Acme integrations',
  displayPrefix: 'slk_Ab12',
  accountId: '0a1b2c3d-0000-4000-8000-000000000002',
  accountName: 'Acme',
  plan: 'pro',
  createdAt: new Date('2026-12-01T10:00:00.000Z'),
  revokedAt: null,
  ...over,
});

describe('apikey list', () => {
  it('prints a header and aligned columns, the status last', () => {
    const lines = keyTable([key(), key({ name: 'ci', revokedAt: new Date('2026-12-02T00:00:00.000Z') })]).split('\n');
    expect(lines[0]).toMatch(/^KEY ID\s+PREFIX\s+NAME\s+ACCOUNT\s+PLAN\s+CREATED\s+STATUS$/);
    expect(lines[1]).toMatch(/slk_Ab12….*Acme integrations.*pro.*active$/);
    expect(lines[2]).toMatch(/revoked 2026-12-02T00:00:00.000Z$/);
    // Aligned: every row's STATUS column starts where the header's does.
    expect(lines[1]!.indexOf('active')).toBe(lines[0]!.indexOf('STATUS'));
  });

  it('has --json records without the secret', () => {
    expect(keyRecord(key())).toEqual({
      id: '6f1c2d3e-0000-4000-8000-000000000001',
      prefix: 'slk_Ab12',
      name: 'Acme integrations',
      accountId: '0a1b2c3d-0000-4000-8000-000000000002',
      accountName: 'Acme',
      plan: 'pro',
      createdAt: '2026-12-01T10:00:00.000Z',
      revokedAt: null,
    });
  });
});
