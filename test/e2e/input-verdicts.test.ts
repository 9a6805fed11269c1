import { beforeAll, describe, expect, it } from 'vitest';
import { gs1CheckDigit } from '../../src/gs1/gtin.ts';
import { serveRealReleases } from '../helpers/real-releases.ts';
import { runCli } from '../helpers/run-cli.ts';
import { sessionCookie } from '../helpers/web-sign-in.ts';

// The same value typed on each surface that takes it (the command line, the /v1 API, the website)
// gets the same verdict: refused everywhere, or taken everywhere as the same value
// (src/inputs/input-schemas.ts, docs/architecture.md "Inputs").

const ADMIN = 'verdetti@example.it';
/** A real cigar of the served release. */
const CODE = 20663;
const ean13 = (body: string) => `${body}${gs1CheckDigit(body)}`;
/** Whole numbers as nobody means them: an exponent, hex, a sign, a fraction, a word, nothing, zero. */
const BAD_NUMBERS = ['1e3', '0x10', '-2', '+2', '2.0', 'dieci', '', '0'];
/** Codes that are none: the same shapes, and ten digits. */
const BAD_CODES = ['1e3', '0x10', '-5', '12.0', 'x', '0', '1234567890'];

const stand = serveRealReleases({});
const cli = (args: string[]) => runCli([...args, '--data-dir', stand.dataDir]);
let key: string;
let session: string;

beforeAll(async () => {
  expect((await cli(['accounts', 'create', ADMIN, '--type', 'Integration'])).status).toBe(0);
  expect((await cli(['accounts', 'admin', ADMIN])).status).toBe(0);
  key = (JSON.parse((await cli(['keys', 'create', ADMIN, '--json'])).stdout) as { key: string }).key;
  session = await sessionCookie(stand.service.url, stand.dataDir, ADMIN);
}, 60_000);

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${stand.service.url}/v1${path}`, { ...init, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } });
const site = (path: string) => fetch(`${stand.service.url}${path}`, { headers: { cookie: session }, redirect: 'manual' });

/** Submits one item to the API; its verdict: accepted, or the reason it was rejected. */
async function submitted(item: Record<string, unknown>): Promise<string> {
  const answer = (await (await api('/barcodes', { method: 'POST', body: JSON.stringify({ items: [item] }) })).json()) as {
    results: { outcome: string; reason: string | null }[];
  };
  const [result] = answer.results;
  return result!.outcome === 'rejected' ? result!.reason! : result!.outcome;
}

/** Approves a barcode on the moderation desk (confirmed) with a match typed in; the page's status. */
async function approvedOnDesk(fields: Record<string, string>): Promise<number> {
  const desk = await (await site('/moderazione')).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(desk)![1]!;
  const answer = await fetch(`${stand.service.url}/moderazione/approva`, {
    method: 'POST',
    headers: { cookie: session, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, match: 'altro', conferma: '1', ...fields }),
  });
  return answer.status;
}

describe('one value, one verdict on every surface', () => {
  it('a page number: refused by the API (400), the website (404) and the command line (usage) alike; "02" is 2 on each', async () => {
    for (const value of BAD_NUMBERS) {
      const query = encodeURIComponent(value);
      expect((await api(`/my-submissions?limit=${query}`)).status, `API limit=${value}`).toBe(400);
      expect((await site(`/prodotti?pagina=${query}`)).status, `catalogue pagina=${value}`).toBe(404);
      expect((await site(`/account/segnalazioni?pagina=${query}`)).status, `submissions pagina=${value}`).toBe(404);
      expect((await cli(['accounts', 'set-limit', ADMIN, '--submit', value])).status, `--submit ${value}`).toBe(2);
    }
    expect((await api('/my-submissions?limit=02')).status).toBe(200);
    expect((await site('/prodotti?pagina=02')).status).toBe(200);
    expect((await site('/account/segnalazioni?pagina=02')).status).toBe(200);
    expect((await cli(['accounts', 'set-limit', ADMIN, '--submit', '02'])).stdout).toContain('2');
    expect((await cli(['accounts', 'set-limit', ADMIN, '--submit', '100'])).status).toBe(0);
  });

  it('units: refused by the API, the desk and the command line alike; 10 is a carton of 10 on each', async () => {
    for (const [i, value] of BAD_NUMBERS.entries()) {
      const barcode = ean13(`80077700${String(i).padStart(4, '0')}`);
      expect(await submitted({ barcode, admCode: CODE, kind: 'carton', units: value }), `API units ${value}`).toBe('invalid_units');
      expect(await approvedOnDesk({ barcode, admCode: String(CODE), kind: 'carton', units: value }), `desk units ${value}`).toBe(400);
      const approve = ['barcodes', 'approve', barcode, '--adm-code', String(CODE), '--kind', 'carton', '--units', value];
      expect((await cli(approve)).status, `--units ${value}`).toBe(2);
    }
    expect(await submitted({ barcode: ean13('800777009001'), admCode: CODE, kind: 'carton', units: 10 })).toBe('accepted');
    expect(await approvedOnDesk({ barcode: ean13('800777009002'), admCode: String(CODE), kind: 'carton', units: '10' })).toBe(200);
    const approve = ['barcodes', 'approve', ean13('800777009003'), '--adm-code', String(CODE), '--kind', 'carton', '--units', '10'];
    expect((await cli(approve)).status).toBe(0);
  });

  it('a tariff code: refused by the API, the catalogue, the desk and the command line alike; "020663" is 20663 on each', async () => {
    for (const [i, value] of BAD_CODES.entries()) {
      const barcode = ean13(`80077701${String(i).padStart(4, '0')}`);
      expect(await submitted({ barcode, admCode: value }), `API admCode ${value}`).toBe('unknown_adm_code');
      expect((await site(`/prodotti/${encodeURIComponent(value)}`)).status, `/prodotti/${value}`).toBe(404);
      expect(await approvedOnDesk({ barcode, admCode: value, kind: 'pack', units: '1' }), `desk code ${value}`).toBe(400);
      expect((await cli(['history', value])).status, `history ${value}`).toBe(2);
    }
    // The API takes a code as a JSON number (the spec's integer): the same code, written as JSON writes it.
    expect(await submitted({ barcode: ean13('800777019001'), admCode: CODE })).toBe('accepted');
    expect((await site('/prodotti/020663')).headers.get('location')).toBe(`/prodotti/${CODE}`);
    expect(await approvedOnDesk({ barcode: ean13('800777019002'), admCode: '020663', kind: 'pack', units: '1' })).toBe(200);
    expect((await cli(['history', '020663', '--json'])).stdout).toContain(`"admCode": ${CODE}`);
  });

  it("a key's label: stored, listed and shown cleaned the same way from the command line and the website", async () => {
    const typed = `cassa\u001b[2J\u0007 1 ${'è'.repeat(150)}`;
    const shown = `cassa [2J 1 ${'è'.repeat(100 - 'cassa [2J 1 '.length)}`;
    expect((await cli(['keys', 'create', ADMIN, '--label', typed])).status).toBe(0);
    const account = await (await site('/account')).text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(account)![1]!;
    const form = /name="_form" value="([^"]+)"/.exec(account)![1]!;
    const created = await fetch(`${stand.service.url}/account/chiavi`, {
      method: 'POST',
      headers: { cookie: session, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, _form: form, label: typed }),
    });
    const page = await created.text();
    expect(page).toContain(shown);
    expect(page).not.toContain('\u001b');
    const labels = (JSON.parse((await cli(['keys', 'list', ADMIN, '--json'])).stdout) as { label: string }[]).map((k) => k.label);
    expect(labels.filter((label) => label === shown)).toHaveLength(2);
  });
});
