-- Accounts and their API keys. A key is stored only as its SHA-256 hash: keys
-- carry 192 random bits, so a fast hash is enough and lookups stay cheap.
CREATE TABLE accounts (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  plan text NOT NULL CHECK (plan IN ('free', 'pro')),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  name text NOT NULL,
  -- The first characters of the key, shown by `apikey list` to tell keys apart.
  display_prefix text NOT NULL,
  key_hash bytea NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);

-- Write model: who holds a slug. A claim is taken before LinkCreated is
-- appended to Kafka and committed after; the primary key is what makes a slug
-- unique across any number of write-service instances.
CREATE TABLE slug_claims (
  slug text PRIMARY KEY,
  link_id uuid NOT NULL UNIQUE,
  account_id uuid NOT NULL,
  destination_url text NOT NULL,
  tag text,
  created_at timestamptz NOT NULL,
  state text NOT NULL CHECK (state IN ('pending', 'committed')),
  claimed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX slug_claims_pending ON slug_claims (claimed_at) WHERE state = 'pending';

-- Read model, filled by the projector from the links topic: the redirector's
-- slug lookup. Rebuilt from the topic by `npm run rebuild`.
CREATE TABLE links (
  slug text PRIMARY KEY,
  link_id uuid NOT NULL UNIQUE,
  account_id uuid NOT NULL,
  destination_url text NOT NULL,
  tag text,
  created_at timestamptz NOT NULL,
  -- Where the event came from: replaying the topic is a no-op.
  event_id uuid NOT NULL UNIQUE,
  source_partition integer NOT NULL,
  source_offset bigint NOT NULL
);
CREATE INDEX links_account ON links (account_id, created_at);
