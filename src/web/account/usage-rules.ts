import { READ_LIMIT } from '../../registry/records.ts';
/**
 * The usage rules of the interface spec (section 1), as a new account accepts them. The version is
 * recorded with the account: change it whenever the text changes, so what each account accepted is known.
 */
export const USAGE_RULES_VERSION = '2026-11-22';

export const USAGE_RULES: readonly string[] = [
  'Un solo account per organizzazione: aprire più account per moltiplicare i limiti non è consentito.',
  `Nessuna chiamata per ogni vendita, scansione o schermata: il dataset si scarica una volta e si tiene in locale (al massimo ${READ_LIMIT} letture al giorno).`,
  'Si segnalano solo codici a barre letti davvero da una confezione.',
  'I dati non si usano per pubblicità o marketing di prodotti del tabacco.',
  "Più account per moltiplicare i limiti, o segnalazioni non affidabili, portano al blocco dell'account.",
  'I dati sono forniti senza alcuna garanzia di disponibilità, completezza o aggiornamento.',
];
