import { fstatSync } from 'node:fs';

/**
 * Whether file descriptor `fd` is the journal's stream that systemd gave this service
 * (`JOURNAL_STREAM=<device>:<inode>`, systemd.exec(5)): then a line may say its priority with a
 * `<N>` prefix (sd-daemon(3)), so `journalctl -p err` finds the command's own errors. A stream
 * redirected since (to a file, a pipe) is not the journal, whatever the variable says.
 */
export function writesToJournal(env: NodeJS.ProcessEnv, fd = 2): boolean {
  const stream = env.JOURNAL_STREAM;
  if (!stream || !/^\d+:\d+$/.test(stream)) return false;
  try {
    const { dev, ino } = fstatSync(fd);
    return stream === `${dev}:${ino}`;
  } catch {
    return false;
  }
}

/** sd-daemon(3)'s priorities this product says: an error, a warning. */
export const JOURNAL_PRIORITY = { error: '<3>', warning: '<4>' } as const;

/** Every line of `text` with the priority's prefix, for the journal. */
export function withPriority(text: string, priority: keyof typeof JOURNAL_PRIORITY): string {
  return text.replace(/^(?=.)/gm, JOURNAL_PRIORITY[priority]);
}
