import { lostAnswerMatrix } from './lost-answers.ts';

// The lost-answer matrix (test/paused/lost-answers.ts) for the commands that move current.json, and the backup.
lostAnswerMatrix(['publish', 'release', 'rollback', 'registry backup']);
