import { lostAnswerMatrix } from './lost-answers.ts';

// The lost-answer matrix (test/paused/lost-answers.ts) for the key list and the price history.
lostAnswerMatrix(['signing-key create', 'signing-key retire', 'history import', 'history remove']);
