/**
 * `npm run schemas`: writes the events' JSON Schemas, generated from the zod
 * schemas the services parse with, into `docs/schemas/` (or the folder given).
 * json-schemas.test.ts fails while the files there differ from what this writes.
 */
import * as path from 'node:path';
import { writeSchemaFiles } from './json-schema-files';

async function main(): Promise<void> {
  const dir = path.resolve(process.argv[2] ?? 'docs/schemas');
  for (const name of await writeSchemaFiles(dir)) console.log(path.join(path.relative(process.cwd(), dir), name));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
