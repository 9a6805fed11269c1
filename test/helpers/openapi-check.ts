import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// An OpenAPI document is walked by keys whose shapes vary at every level.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

export const OPENAPI: Json = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));

// ajv-formats is CommonJS: its function is the module or its default, depending on the loader.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ ...OPENAPI, $id: 'openapi' });

const resolve = (node: Json): Json =>
  typeof node?.$ref === 'string'
    ? resolve(
        node.$ref
          .slice(2)
          .split('/')
          .reduce((at: Json, key: string) => at[key], OPENAPI),
      )
    : node;
const validatorFor = (pointer: string) => ajv.getSchema(`openapi#${pointer}`) ?? ajv.compile({ $ref: `openapi#${pointer}` });

export interface ObservedResponse {
  method: string;
  path: string;
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** The parsed JSON body, or undefined when the body is not JSON or was not read. */
  body?: unknown;
  /** True when the response had no body at all. */
  empty?: boolean;
}

/**
 * What in a response the API description does not allow: an undocumented status, a missing or
 * malformed documented header, a JSON body off its schema. Empty when the response is described.
 */
export function openApiProblems(observed: ObservedResponse): string[] {
  const { method, path, status } = observed;
  const item = OPENAPI.paths[path] as Json | undefined;
  let responseRef: Json | undefined;
  let where: string;
  if (!item) {
    if (status !== 404) return [`${path} is not in the description, and the answer is ${status}, not 404`];
    responseRef = { $ref: '#/components/responses/NotFound' };
    where = '#/components/responses/NotFound';
  } else {
    const operation = item[method.toLowerCase()] as Json | undefined;
    if (!operation) {
      if (status !== 405) return [`${method} ${path} is not described, and the answer is ${status}, not 405`];
      responseRef = { $ref: '#/components/responses/MethodNotAllowed' };
      where = '#/components/responses/MethodNotAllowed';
    } else {
      responseRef = operation.responses[String(status)];
      where = `#/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}/responses/${status}`;
      if (!responseRef)
        return [
          `${method} ${path} answered ${status}, which is not among its documented statuses (${Object.keys(operation.responses).join(', ')})`,
        ];
    }
  }
  const response = resolve(responseRef);
  if (typeof responseRef.$ref === 'string') where = responseRef.$ref;
  const problems: string[] = [];
  for (const [name, declared] of Object.entries((response.headers ?? {}) as Json)) {
    const header = resolve(declared as Json);
    const value = observed.headers[name.toLowerCase()];
    if (value === undefined) {
      if (header.required) problems.push(`header ${name} is missing`);
      continue;
    }
    const schema = header.schema as Json | undefined;
    if (!schema) continue;
    const typed = schema.type === 'integer' ? (/^-?\d+$/.test(value) ? Number(value) : value) : value;
    const validate = ajv.compile(schema);
    if (!validate(typed)) problems.push(`header ${name}: ${JSON.stringify(value)} ${ajv.errorsText(validate.errors)}`);
  }
  const content = response.content as Json | undefined;
  if (!content) {
    if (observed.empty === false) problems.push('the response has a body, but none is documented');
    return problems;
  }
  const type = (observed.headers['content-type'] ?? '').split(';')[0]!.trim();
  if (!content[type]) return [...problems, `content type ${type || '(none)'} is not among ${Object.keys(content).join(', ')}`];
  if (type === 'application/json' && observed.body !== undefined) {
    const validate = validatorFor(`${where.slice(1)}/content/application~1json/schema`);
    if (!validate(observed.body)) problems.push(`body: ${ajv.errorsText(validate.errors, { dataVar: 'body' })}`);
  }
  return problems;
}
