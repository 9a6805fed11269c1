import type { Format } from '../release/manifest.ts';
import { fileName, FORMATS, MANIFEST_FILE } from '../release/manifest.ts';
import { compareVersions, VERSION_PATTERN } from '../release/release-version.ts';

/** The manifest of the release being served. Written last when publishing. */
export const CURRENT_KEY = 'current.json';
/** The public keys that sign current manifests (release/signing-keys.ts): outside releases/, never pruned. */
export const KEYS_KEY = 'keys.json';
export const RELEASES_PREFIX = 'releases/';

/** Each release lives under its own prefix and is never modified once published. */
export const releaseKey = (version: string, name: string) => `${RELEASES_PREFIX}${version}/${name}`;
export const releaseFileKey = (version: string, format: Format) => releaseKey(version, fileName(format));
export const releaseManifestKey = (version: string) => releaseKey(version, MANIFEST_FILE);

const RELEASE_KEY = new RegExp(`^${RELEASES_PREFIX}(${VERSION_PATTERN})/`);

/** The versions present under releases/, oldest first. */
export function versionsIn(keys: string[]): string[] {
  const versions = new Set<string>();
  for (const key of keys) {
    const match = RELEASE_KEY.exec(key);
    if (match) versions.add(match[1]!);
  }
  return [...versions].sort(compareVersions);
}

/**
 * The versions under releases/ split by whether they are whole: a manifest and the three files.
 * The others are what a crash left (an upload cut short, a prune cut short): never listed, never
 * rolled back to, removed by the next publish. Pure.
 */
export function completeVersionsIn(keys: string[]): { complete: string[]; orphans: string[] } {
  const present = new Set(keys);
  const complete: string[] = [];
  const orphans: string[] = [];
  for (const version of versionsIn(keys)) {
    const whole = present.has(releaseManifestKey(version)) && FORMATS.every((format) => present.has(releaseFileKey(version, format)));
    (whole ? complete : orphans).push(version);
  }
  return { complete, orphans };
}

/**
 * Which versions retention deletes: all but the `keep` newest, never the current one.
 * Pure, so the rule is tested on its own.
 */
export function versionsToPrune(versions: string[], keep: number, current: string): string[] {
  const newestFirst = [...versions].sort(compareVersions).reverse();
  return newestFirst.slice(Math.max(keep, 1)).filter((version) => version !== current);
}
