export default async function globalTeardown(): Promise<void> {
  await globalThis.__SHORTLINK_TEST_INFRA__?.stop();
}
