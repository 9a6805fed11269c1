import { json, type HttpResponse } from './http.ts';

/**
 * Every error the HTTP service answers, with its stable `error` code (interface spec section 7;
 * the ones the spec leaves open are documented in docs/api.md). `message` is Italian, for logs.
 */
export const httpErrors = {
  invalidApiKey: () =>
    json(
      401,
      { error: 'invalid_api_key', message: 'Chiave API mancante, non valida o revocata, oppure account bloccato.' },
      { 'www-authenticate': 'Bearer' },
    ),

  rateLimited: (retryAfterSeconds: number, headers: Record<string, string>, extra: Record<string, number> = {}) =>
    json(
      429,
      { error: 'rate_limited', message: 'Limite di richieste superato: riprovare dopo il tempo indicato.', retryAfterSeconds, ...extra },
      { 'retry-after': String(retryAfterSeconds), ...headers },
    ),

  noRelease: (headers: Record<string, string>) =>
    json(404, { error: 'no_release', message: 'Nessun rilascio è stato ancora pubblicato.' }, headers),

  notFound: () => json(404, { error: 'not_found', message: 'Risorsa inesistente.' }),

  // Outside /v1: the metrics listener's own bearer token (docs/operations.md, "Metrics").
  invalidMetricsToken: () =>
    json(401, { error: 'invalid_metrics_token', message: 'Token delle metriche mancante o errato.' }, { 'www-authenticate': 'Bearer' }),

  methodNotAllowed: (allow: string[]) =>
    json(405, { error: 'method_not_allowed', message: `Metodo non consentito: usare ${allow.join(', ')}.` }, { allow: allow.join(', ') }),

  badRequest: (code: string, message: string, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) =>
    json(400, { error: code, message, ...extra }, headers),

  payloadTooLarge: (maxBytes: number) =>
    json(413, { error: 'payload_too_large', message: `Il corpo della richiesta supera ${maxBytes} byte.`, maxBytes }),

  unsupportedMediaType: () =>
    json(415, { error: 'unsupported_media_type', message: 'Il corpo deve essere JSON (Content-Type: application/json).' }),

  releaseUnavailable: (headers: Record<string, string>) =>
    json(
      503,
      { error: 'release_unavailable', message: 'Il file del rilascio non è leggibile in questo momento.', retryAfterSeconds: 60 },
      { 'retry-after': '60', ...headers },
    ),

  // A fault of the machine or of the registry (a full disk, PostgreSQL down): not the client's, worth a retry.
  serviceUnavailable: () =>
    json(
      503,
      {
        error: 'service_unavailable',
        message: 'Il servizio non può rispondere in questo momento: riprovare dopo il tempo indicato.',
        retryAfterSeconds: 30,
      },
      { 'retry-after': '30' },
    ),

  requestAborted: () =>
    json(400, { error: 'request_aborted', message: 'Il client ha chiuso la connessione prima di inviare tutto il corpo della richiesta.' }),

  internalError: () => json(500, { error: 'internal_error', message: 'Errore interno del servizio.' }),
} satisfies Record<string, (...args: never[]) => HttpResponse>;
