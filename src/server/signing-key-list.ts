import { readKeyList } from '../publish/current-signing.ts';
import type { KeyList } from '../release/signing-keys.ts';
import type { Bucket } from '../storage/bucket.ts';

const serialise = (keys: KeyList) => Buffer.from(`${JSON.stringify(keys, null, 2)}\n`);

/**
 * The bucket's public signing keys as the service serves them (/.well-known/tariff-keys.json and
 * the website's page), read with each refresh of the current manifest. A key list that cannot be
 * read keeps the last one read (the manifest is still served), said once per problem.
 */
export class SigningKeyList {
  private keys: KeyList = { keys: [] };
  private serialised = serialise(this.keys);
  private problem: string | null = null;

  private readonly log: (event: Record<string, unknown>) => void;

  constructor(log: (event: Record<string, unknown>) => void) {
    this.log = log;
  }

  get list(): KeyList {
    return this.keys;
  }

  /** The list as served, serialised once per change. */
  get body(): Buffer {
    return this.serialised;
  }

  async refresh(bucket: Bucket): Promise<void> {
    let keys: KeyList;
    try {
      keys = await readKeyList(bucket);
      this.problem = null;
    } catch (error) {
      // Said once per problem: a bucket that cannot be read at all is the manifest's refresh failure to log.
      const problem = (error as Error).message;
      if (problem !== this.problem) this.log({ event: 'signing_keys.unreadable', error: problem });
      this.problem = problem;
      return;
    }
    const body = serialise(keys);
    if (body.equals(this.serialised)) return;
    const retired = keys.keys.filter((key) => key.retiredAt !== null).map((key) => key.keyId);
    this.log({ event: 'signing_keys.changed', keys: keys.keys.map((key) => key.keyId), retired });
    [this.keys, this.serialised] = [keys, body];
  }
}
