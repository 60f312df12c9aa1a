import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import * as prettier from 'prettier';
import { jsonSchemaOf, PUBLISHED_SCHEMAS } from './json-schemas';

const SCHEMA_FILE = /\.schema\.json$/;

/** Each published schema's file text, formatted as Prettier formats the repository (`npm run lint` checks it). */
export async function schemaFileTexts(dir: string): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (const published of PUBLISHED_SCHEMAS) {
    const filepath = path.join(dir, published.file);
    const options = (await prettier.resolveConfig(filepath)) ?? {};
    texts.set(published.file, await prettier.format(JSON.stringify(jsonSchemaOf(published)), { ...options, filepath }));
  }
  return texts;
}

async function schemaFilesIn(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((name) => SCHEMA_FILE.test(name));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}

/** Writes every published schema into `dir`, and removes a schema file no longer published. */
export async function writeSchemaFiles(dir: string): Promise<string[]> {
  const texts = await schemaFileTexts(dir);
  await mkdir(dir, { recursive: true });
  for (const name of await schemaFilesIn(dir)) if (!texts.has(name)) await rm(path.join(dir, name));
  for (const [name, text] of texts) await writeFile(path.join(dir, name), text);
  return [...texts.keys()];
}

/** The schema files of `dir` that are not what the zod schemas generate: changed, missing or no longer published. */
export async function staleSchemaFiles(dir: string): Promise<string[]> {
  const texts = await schemaFileTexts(dir);
  const stale: string[] = [];
  for (const [name, text] of texts) {
    const onDisk = await readFile(path.join(dir, name), 'utf8').catch(() => null);
    if (onDisk !== text) stale.push(name);
  }
  for (const name of await schemaFilesIn(dir)) if (!texts.has(name)) stale.push(name);
  return stale;
}
