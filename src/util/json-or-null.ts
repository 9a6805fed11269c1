/**
 * JSON text (or its UTF-8 bytes) parsed, or null when it is not JSON: for a value a schema then
 * checks, so that damaged bytes and a wrong shape are refused by one rule, with one message.
 */
export function jsonOrNull(text: string | Uint8Array): unknown {
  try {
    return JSON.parse(typeof text === 'string' ? text : Buffer.from(text).toString('utf8'));
  } catch {
    return null;
  }
}
