/**
 * LISTEN/NOTIFY channels. `linkCreated` carries a slug the moment its claim is
 * committed, so redirectors drop a cached "not found" before the creator's 201
 * reaches the client.
 */
export const CHANNELS = {
  linkCreated: 'shortlink_link_created',
} as const;
