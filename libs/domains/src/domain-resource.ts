import { challengeName, challengeValue } from './challenge';

/** A domain as the `domains` table holds it (migration 0019). */
export interface DomainRow {
  accountId: string;
  hostname: string;
  challengeToken: string;
  verifiedAt: Date | null;
  /** How it was verified: `dns` (the TXT record) or `operator` (`npm run domains -- verify`). */
  verifiedBy: 'dns' | 'operator' | null;
  rootRedirect: string | null;
  notFoundRedirect: string | null;
  createdAt: Date;
}

/** The Domain resource the API answers with (docs/domains.md). */
export interface Domain {
  hostname: string;
  status: 'pending' | 'verified';
  verification: { type: 'TXT'; name: string; value: string };
  verifiedAt: string | null;
  rootRedirect: string | null;
  notFoundRedirect: string | null;
  createdAt: string;
}

export function domainResource(row: DomainRow): Domain {
  return {
    hostname: row.hostname,
    status: row.verifiedAt === null ? 'pending' : 'verified',
    verification: { type: 'TXT', name: challengeName(row.hostname), value: challengeValue(row.challengeToken) },
    verifiedAt: row.verifiedAt?.toISOString() ?? null,
    rootRedirect: row.rootRedirect,
    notFoundRedirect: row.notFoundRedirect,
    createdAt: row.createdAt.toISOString(),
  };
}

export const DOMAIN_EXAMPLE: Domain = {
  hostname: 'links.example.com',
  status: 'pending',
  verification: {
    type: 'TXT',
    name: '_shortlink-challenge.links.example.com',
    value: 'shortlink-verify=3q2-7wQb0m1nXk9dVZr4aA',
  },
  verifiedAt: null,
  rootRedirect: null,
  notFoundRedirect: null,
  createdAt: '2026-12-01T09:30:00.000Z',
};
