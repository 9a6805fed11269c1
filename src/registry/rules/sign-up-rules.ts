import type { Account, AccountType, SignUp } from '../records.ts';

/**
 * What confirming a sign-up does: an address that has an account already gets nothing new; a
 * type the operator approves by hand waits; any other is created.
 */
export function confirmationStep(
  signUp: SignUp,
  existing: Account | null,
  approvalTypes: readonly AccountType[],
): 'existed' | 'awaiting_approval' | 'create' {
  if (existing) return 'existed';
  return approvalTypes.includes(signUp.type) ? 'awaiting_approval' : 'create';
}
