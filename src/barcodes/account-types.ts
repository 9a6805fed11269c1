/**
 * The kinds of account (interface spec, section 1): a shop, a supplier, a point-of-sale
 * integration. The status rules weigh votes by them; the registry stores them.
 */
export const ACCOUNT_TYPES = ['User', 'Supplier', 'Integration'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];
