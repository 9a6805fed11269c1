import { readFile } from 'node:fs/promises';
import type { Settings } from '../config/settings.ts';
import { errors } from '../errors.ts';
import { signerFromPem, type Signer } from '../release/signing-keys.ts';
import type { Signing } from './current-signing.ts';

/** The signer whose private key file `path` is; the file must be readable by its owner only. */
export async function readSigner(path: string): Promise<Signer> {
  let pem: string;
  try {
    pem = await readFile(path, 'utf8');
  } catch (error) {
    throw errors.signingKeyUnreadable(path, (error as NodeJS.ErrnoException).code ?? (error as Error).message);
  }
  try {
    return signerFromPem(pem);
  } catch (error) {
    throw errors.signingKeyUnreadable(path, `not an Ed25519 private key (${(error as Error).message})`);
  }
}

/** How the current manifest is signed under these settings: by TARIFF_SIGNING_KEY when set, now, for signatureDays. */
export async function signingOf(settings: Pick<Settings, 'signingKey' | 'signatureDays'>, now: () => Date): Promise<Signing> {
  return {
    signer: settings.signingKey ? await readSigner(settings.signingKey) : null,
    now: now(),
    validityDays: settings.signatureDays,
  };
}
