import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * An age key for the tests' registry backups (made with age-keygen; it opens nothing but what the
 * tests encrypt): the recipient a backup is encrypted for, and the identity a restore is given as a file.
 */
export const TEST_BACKUP_RECIPIENT = 'age10v80dgw49ngwjsw6tv49mq5p0unh7uxrj7ncz5v9s35ha9p8c5eqc8acy6';
const TEST_BACKUP_IDENTITY = 'AGE-SECRET-KEY-1RT29Z28YKT7P3G7KHZMAPFG9VFSGDQZY3G8UWFPA7DT2X86GU4XQ6MC6Y9';

/** The identity written 0600 into `dir`, as an operator keeps it: its path, for --identity or TARIFF_BACKUP_IDENTITY. */
export function testBackupIdentity(dir: string): string {
  const file = join(dir, 'backup-identity.age');
  writeFileSync(file, `# public key: ${TEST_BACKUP_RECIPIENT}\n${TEST_BACKUP_IDENTITY}\n`, { mode: 0o600 });
  return file;
}
