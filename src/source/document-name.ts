import { basename } from 'node:path';

/** Whether a document's name is an address to fetch it from (else a file's path). */
export const isAddress = (name: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(name);

/**
 * How a published release names a document (its provenance, the source of an announced price):
 * its address, or for one read from a file, the file's name alone. The builder's folders are its
 * own business, and would be served to every account; the SHA-256 beside the name in the
 * provenance is what `verify --rebuild` finds the bytes by.
 */
export const publicDocumentName = (name: string) => (isAddress(name) ? name : basename(name));
