import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPENAPI, openApiProblems } from '../helpers/openapi-check.ts';
import { manifestOf } from '../helpers/rows.ts';

const manifest = manifestOf('20261101.1');
const rate = {
  'x-ratelimit-limit': '10',
  'x-ratelimit-remaining': '9',
  'x-ratelimit-reset': '1795392000',
  'content-type': 'application/json; charset=utf-8',
};

describe('docs/openapi.json', () => {
  it('describes every endpoint of the spec and of docs/api.md', () => {
    expect(OPENAPI.openapi).toBe('3.1.0');
    expect(Object.keys(OPENAPI.paths).sort()).toEqual(
      [
        '/healthz',
        '/readyz',
        '/openapi.json',
        '/.well-known/tariff-keys.json',
        '/v1/barcodes',
        '/v1/dataset.docdb.gz',
        '/v1/dataset.json.gz',
        '/v1/dataset.sqlite.gz',
        '/v1/me',
        '/v1/my-submissions',
        '/v1/version',
      ].sort(),
    );
    // Every error code the service can answer (docs/api.md's table) is in the Error schema.
    const documented = [
      ...readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8').matchAll(/^\| \d{3} \| `([a-z_]+)` \|/gm),
    ].map((m) => m[1]);
    expect(documented.length).toBeGreaterThan(10);
    expect([...OPENAPI.components.schemas.Error.properties.error.enum].sort()).toEqual([...new Set(documented)].sort());
  });

  it('accepts what the spec describes and names what breaks it', () => {
    expect(openApiProblems({ method: 'GET', path: '/v1/version', status: 200, headers: rate, body: manifest })).toEqual([]);
    const { generatedAt, ...noDate } = manifest;
    expect(
      openApiProblems({
        method: 'GET',
        path: '/v1/version',
        status: 200,
        headers: rate,
        body: { ...noDate, generatedAt: '2026-11-22T05:00:00Z' },
      })[0],
    ).toMatch(/generatedAt/);
    expect(openApiProblems({ method: 'GET', path: '/v1/version', status: 200, headers: rate, body: { ...manifest, extra: 1 } })[0]).toMatch(
      /additional properties/,
    );
    expect(
      openApiProblems({ method: 'GET', path: '/v1/version', status: 200, headers: { 'content-type': 'application/json' }, body: manifest }),
    ).toEqual(['header X-RateLimit-Limit is missing', 'header X-RateLimit-Remaining is missing', 'header X-RateLimit-Reset is missing']);
    expect(openApiProblems({ method: 'GET', path: '/v1/version', status: 418, headers: rate })[0]).toMatch(
      /418, which is not among its documented statuses/,
    );
    expect(
      openApiProblems({
        method: 'GET',
        path: '/v1/me',
        status: 429,
        headers: { ...rate, 'retry-after': '5' },
        body: { error: 'rate_limited', message: 'x' },
      }),
    ).toEqual(["body: body must have required property 'retryAfterSeconds'"]);
    expect(
      openApiProblems({
        method: 'DELETE',
        path: '/v1/me',
        status: 405,
        headers: { allow: 'GET', 'content-type': 'application/json' },
        body: { error: 'method_not_allowed', message: 'x' },
      }),
    ).toEqual([]);
    expect(
      openApiProblems({
        method: 'GET',
        path: '/v1/nothing',
        status: 404,
        headers: { 'content-type': 'application/json' },
        body: { error: 'not_found', message: 'x' },
      }),
    ).toEqual([]);
    expect(
      openApiProblems({
        method: 'GET',
        path: '/v1/dataset.json.gz',
        status: 304,
        headers: { ...rate, etag: `"${'a'.repeat(64)}"` },
        empty: false,
      }),
    ).toEqual(['the response has a body, but none is documented']);
  });
});
