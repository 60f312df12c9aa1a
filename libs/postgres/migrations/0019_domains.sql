-- Branded domains (docs/domains.md): an account's claim of a hostname, the
-- token of its DNS challenge, and once proven, when and how. Several accounts
-- may hold a pending claim of one hostname; at most one claim of it is
-- verified. The write API owns the table; `npm run domains` verifies claims
-- for installations that control their own DNS.
CREATE TABLE domains (
  account_id uuid NOT NULL REFERENCES accounts (id),
  -- As normaliseHostname gives it: ASCII (punycode), lower case, no trailing dot.
  hostname text NOT NULL,
  challenge_token text NOT NULL,
  verified_at timestamptz,
  -- 'dns' (the TXT record was found) or 'operator' (npm run domains -- verify).
  verified_by text CHECK (verified_by IN ('dns', 'operator')),
  root_redirect text,
  not_found_redirect text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz,
  PRIMARY KEY (account_id, hostname),
  CHECK ((verified_at IS NULL) = (verified_by IS NULL))
);
CREATE UNIQUE INDEX domains_verified_once ON domains (hostname) WHERE verified_at IS NOT NULL;
CREATE INDEX domains_by_hostname ON domains (hostname);
