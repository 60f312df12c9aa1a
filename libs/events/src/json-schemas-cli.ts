/**
 * `npm run schemas`: writes the events' JSON Schemas, generated from the zod
 * schemas the services parse with, into `docs/schemas/` (or the folder given).
 * json-schemas.test.ts fails while the files there differ from what this writes.
 */
import * as path from 'node:path';
import { runCommand, UsageError } from '@shortlink/config';
import { writeSchemaFiles } from './json-schema-files';

const HELP = `usage: npm run schemas

Writes the events' JSON Schemas, generated from the schemas the services parse
events with, into docs/schemas/ (a unit test fails while they differ).
No settings.`;

runCommand({ name: 'npm run schemas --', help: HELP, allowPositionals: true, options: {} }, async ({ positionals }) => {
  // The npm script names the folder; a second one is a mistake.
  if (positionals.length > 1) throw new UsageError(`unexpected argument: ${positionals[1]}`);
  const dir = path.resolve(positionals[0] ?? 'docs/schemas');
  for (const name of await writeSchemaFiles(dir)) console.log(path.join(path.relative(process.cwd(), dir), name));
});
