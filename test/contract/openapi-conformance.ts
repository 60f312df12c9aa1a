import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';

/**
 * Every response the contract suites get is checked against the API document the process serves (`GET /openapi.json`):
 * the operation is documented, the status is one of its responses, the documented headers are there and fit, and the
 * body has the documented media type and fits its schema (JSON Schema 2020-12, with ajv). A response the document does
 * not describe fails the case that got it, whatever else the case asserts.
 */
export interface Conformance {
  /** Checks `res` (reading a clone of its body) and returns it; throws, and records, what does not conform. */
  check(method: string, url: string, res: Response): Promise<Response>;
  /** The problems found since the last call (the suites assert there is none after each case). */
  takeViolations(): string[];
  /** How many responses were checked. */
  readonly checked: number;
}

interface HeaderObject {
  required?: boolean;
  schema: Record<string, unknown>;
}
interface ResponseObject {
  headers?: Record<string, HeaderObject>;
  content?: Record<string, unknown>;
  $ref?: string;
}
type Document = {
  paths: Record<string, Record<string, { responses: Record<string, ResponseObject> }>>;
  components?: { responses?: Record<string, ResponseObject> };
};

const DOCUMENT_ID = 'openapi.json';

const pointer = (...parts: string[]): string =>
  `#/${parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;

export async function loadConformance(baseUrl: string): Promise<Conformance> {
  const res = await fetch(`${baseUrl}/openapi.json`);
  if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}`);
  const document = (await res.json()) as Document & { openapi: string };
  if (!document.openapi.startsWith('3.1.')) throw new Error(`not OpenAPI 3.1: ${document.openapi}`);

  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(document, DOCUMENT_ID);
  const validators = new Map<string, ValidateFunction>();
  const validatorAt = (at: string): ValidateFunction => {
    let validate = validators.get(at);
    if (!validate) {
      validate = ajv.compile({ $ref: `${DOCUMENT_ID}${at}` });
      validators.set(at, validate);
    }
    return validate;
  };

  const templates = Object.keys(document.paths)
    .map((template) => ({
      template,
      params: (template.match(/\{[^}]+\}/g) ?? []).length,
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`),
    }))
    // A literal segment wins over a parameter, as in the router (`/api/v1/links/bulk` before `/api/v1/links/{slug}`).
    .sort((a, b) => a.params - b.params);

  const violations: string[] = [];
  let checked = 0;

  async function problemsOf(method: string, path: string, res: Response): Promise<string[]> {
    const m = method.toLowerCase();
    const matching = templates.filter((t) => t.pattern.test(path));
    const found = matching.find((t) => document.paths[t.template]?.[m] !== undefined);
    if (!found) return [`no operation ${method} ${path} in the document`];
    const responses = document.paths[found.template]![m]!.responses;
    const key = [String(res.status), `${String(res.status)[0]}XX`, 'default'].find((k) => k in responses);
    if (key === undefined) return [`status ${res.status} is not a documented response of ${method} ${found.template}`];
    let at = pointer('paths', found.template, m, 'responses', key);
    let response = responses[key]!;
    if (response.$ref) {
      const name = response.$ref.replace('#/components/responses/', '');
      response = document.components?.responses?.[name] ?? {};
      at = pointer('components', 'responses', name);
    }
    const problems: string[] = [];
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      const value = res.headers.get(name);
      if (value === null) {
        if (header.required) problems.push(`header ${name} is missing`);
        continue;
      }
      const typed = header.schema.type === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value;
      const validate = validatorAt(`${at}/headers/${pointer(name).slice(2)}/schema`);
      if (!validate(typed))
        problems.push(`header ${name}: ${JSON.stringify(value)} ${ajv.errorsText(validate.errors)}`);
    }
    const body = await res.clone().text();
    if (!response.content || m === 'head') {
      if (body !== '') problems.push(`a body where the document shows none: ${body.slice(0, 200)}`);
      return problems;
    }
    const mediaType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
    if (!(mediaType in response.content)) {
      problems.push(`content type ${mediaType || '(none)'} is not one of ${Object.keys(response.content).join(', ')}`);
      return problems;
    }
    let value: unknown = body;
    if (mediaType === 'application/json') {
      try {
        value = JSON.parse(body);
      } catch {
        return [...problems, `the body is not JSON: ${body.slice(0, 200)}`];
      }
    }
    const validate = validatorAt(`${at}/content/${pointer(mediaType).slice(2)}/schema`);
    if (!validate(value)) problems.push(`body ${ajv.errorsText(validate.errors)}: ${body.slice(0, 300)}`);
    return problems;
  }

  return {
    takeViolations() {
      return violations.splice(0);
    },
    get checked() {
      return checked;
    },
    async check(method, url, res) {
      const path = new URL(url, baseUrl).pathname;
      checked++;
      const problems = await problemsOf(method, path, res);
      if (problems.length > 0) {
        const message = `${method} ${path} → ${res.status} does not match the API document: ${problems.join('; ')}`;
        violations.push(message);
        throw new Error(message);
      }
      return res;
    },
  };
}
