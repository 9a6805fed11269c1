import type { TariffError } from '../../errors.ts';

const INVALID_VALUE: Record<string, (value: string) => string> = {
  barcode: (value) => `«${value}» non è un codice a barre valido (GTIN-8, UPC-A, EAN-13 o GTIN-14 con la cifra di controllo giusta).`,
  admCode: (value) => `«${value}» non è un codice tariffa: un numero intero da 1 a 9 cifre.`,
  match: () => 'Confezione o numero di pezzi non validi: un pacchetto è 1 pezzo, una stecca da 2 a 1000.',
};

/**
 * Why a moderator's decision was not made, in Italian for the desk's administrators: the same
 * errors as the command line's (one code path, moderation-actions.ts), said from their code and
 * the values they name, never from the operator's English message.
 */
export function deskErrorText(error: TariffError): string {
  const { params } = error;
  switch (error.code) {
    case 'account_not_found':
      return `Non esiste un account per ${params.email}.`;
    case 'invalid_email':
      return `«${params.email}» non è un indirizzo e-mail.`;
    case 'unknown_adm_code':
      return `Il codice tariffa ${params.admCode} non è nella tariffa pubblicata: si approvano solo codici della tariffa in vigore.`;
    case 'not_integration':
      return `${params.email} non è un account Integration: non ha punti vendita. Per fermarne i voti blocca l'account stesso.`;
    case 'usage': {
      const text = INVALID_VALUE[String(params.field)];
      if (text) return text(String(params.value));
      return 'Dati della decisione non validi.';
    }
    default:
      return 'La decisione non è stata eseguita. Riprova; se succede ancora, usa il comando tariff corrispondente.';
  }
}
